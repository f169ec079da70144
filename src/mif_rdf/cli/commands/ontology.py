"""``mif-rdf ontology compile``: ontology YAML -> OWL/RDFS (and SHACL shapes)."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable
from operator import methodcaller
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from mif_rdf.cli.commands import _common
from mif_rdf.core.formats import format_for

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from rdflib import Graph

    from mif_rdf.ontology import Prepared

ORDER = 50


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "ontology",
        help="compile ontology YAML to OWL/RDFS and SHACL",
        description="Work with MIF ontology definitions (spec 10.8).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    compile_ = actions.add_parser(
        "compile",
        help="ontology YAML -> OWL/RDFS (+ SHACL shapes)",
        description="Compile ontologies, named by id (searched in the built-in ontologies/, then each --path, then the "
        "--bundle's .mif/ontologies/; later folders win) or by file. extends chains are resolved, traits composed per "
        "spec 10.8.6. Errors: an extends or subtype_of cycle, a missing parent, independent traits of one entity type "
        "defining a field differently, a subtype dropping a required field. Two definitions that disagree otherwise "
        "compile with a warning naming both (child, trait, entity and subtype win; see docs/ontology.md), as does an "
        "undefined trait; --strict makes those warnings errors.",
    )
    compile_.add_argument("ontologies", nargs="+", metavar="FILE|ID", help="ontology YAML files or ontology ids")
    compile_.add_argument(
        "--path",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="another folder of ontology YAML files (repeatable)",
    )
    compile_.add_argument(
        "--bundle",
        type=Path,
        metavar="DIR",
        help=(
            "a bundle: its .mif/ontologies/ joins the search path and its config's relationship_types are compiled too"
        ),
    )
    compile_.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help=(
            "OWL/RDFS output as one merged ontology (the first named one's header; default: standard output); "
            "format from the extension: .ttl .nt .jsonld .owl/.rdf (RDF/XML); a large compile (past 2,000 composed "
            "fields) to .ttl or .nt is written as N-Triples lines while it compiles, holding no graph"
        ),
    )
    compile_.add_argument(
        "--output-dir",
        type=Path,
        metavar="DIR",
        help=(
            "write each ontology of the extends chain as its own Turtle document (<id>.ttl, joined by owl:imports), "
            "the MIF vocabulary (mif-vocabulary.ttl) and catalog-v001.xml mapping every imported IRI to its file, "
            "for Protégé and other OWL tools (--only does not apply)"
        ),
    )
    compile_.add_argument("--shapes", type=Path, metavar="FILE", help="also write the SHACL shapes of the entity types")
    compile_.add_argument(
        "--only",
        action="store_true",
        help="write only the named ontologies, not those they extend (owl:imports still names them)",
    )
    compile_.add_argument(
        "--strict",
        action="store_true",
        help="two definitions that disagree (resolved by precedence) and undefined traits are errors, not warnings",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rdflib import URIRef
    from rdflib.namespace import OWL, RDF, SH

    from mif_rdf.ontology import compile_prepared, document_files, prepare_ontologies

    inputs = _common.ontology_inputs(args.path, args.ontologies)
    _common.check_outputs(("-o", args.output), ("--shapes", args.shapes), bundle=args.bundle, inputs=inputs)
    prepared = prepare_ontologies(
        args.ontologies, search_path=args.path, bundle=args.bundle, with_ancestors=not args.only, strict=args.strict
    )
    if _streams(args, prepared.composed_fields):
        return _run_streamed(args, prepared)
    result = compile_prepared(prepared)
    _common.show_problems(result.warnings)
    if args.output_dir is not None:
        documents = list(document_files(result))
        # the file names come from the ontologies read: checked now, before anything is written
        _common.check_outputs(
            *(("--output-dir", args.output_dir / name) for name, _ in documents),
            ("-o", args.output),
            ("--shapes", args.shapes),
            bundle=args.bundle,
            inputs=[*inputs, *(n.file.path for r in result.roots for n in [r, *r.ancestors()])],
        )
        for name, content in documents:
            _common.write(args.output_dir / name, methodcaller("write", content))  # out.write(content)
        _common.note(
            f"wrote {_plural(len(result.documents), 'ontology document', 'ontology documents')}, the MIF vocabulary "
            f"and catalog-v001.xml to {args.output_dir}"
        )
    if args.output is not None or args.output_dir is None:
        write_graph(result.merged(), args.output)
    if args.shapes:
        write_graph(result.shapes, args.shapes)
    ontologies = set(result.owl.subjects(RDF.type, OWL.Ontology))
    classes = {c for c in result.owl.subjects(RDF.type, OWL.Class) if isinstance(c, URIRef)}
    shapes = set(result.shapes.subjects(RDF.type, SH.NodeShape))
    summary = (
        f"compiled {_plural(len(ontologies), 'ontology', 'ontologies')}: "
        f"{_plural(len(classes), 'class', 'classes')}, {len(result.owl)} triples"
    )
    if args.shapes and not shapes:
        summary += f"; no entity type has a schema, so there are no shapes: {args.shapes} holds none"
    elif args.shapes:
        summary += f"; {_plural(len(shapes), 'node shape', 'node shapes')} -> {args.shapes}"
    _common.note(summary)
    return _common.EXIT_OK


def _streams(args: argparse.Namespace, fields: int) -> bool:
    """Whether to write the outputs as N-Triples while compiling, holding no graph (a large compile to
    Turtle or N-Triples files or standard output; docs/security.md, the ontology limits)."""
    from mif_rdf.core.limits import STREAM_ONTOLOGY_FIELDS

    outputs = [args.output, *([args.shapes] if args.shapes else [])]
    return (
        fields > STREAM_ONTOLOGY_FIELDS
        and args.output_dir is None
        and all(format_for(path, None) in ("turtle", "nt") for path in outputs)
    )


def _run_streamed(args: argparse.Namespace, prepared: Prepared) -> int:
    """``ontology compile`` of a large compile: each output written as N-Triples lines (Turtle reads them too)."""
    from mif_rdf.ontology import Written, write_owl, write_shapes_text

    found: list[Written] = []

    def text(write: Callable[[Prepared, TextIO], Written]) -> Callable[[IO[bytes]], None]:
        def run(out: IO[bytes]) -> None:
            lines = io.TextIOWrapper(out, encoding="utf-8", newline="\n")
            try:
                found.append(write(prepared, lines))
                lines.flush()
            finally:
                lines.detach()  # the output stays open for its owner

        return run

    _common.write(args.output, text(write_owl))
    prepared.declarations.clear()  # only the OWL reads them: their memory serves the shapes
    if args.shapes:
        _common.write(args.shapes, text(write_shapes_text))
    _common.show_problems(prepared.warnings)
    owl = found[0]
    summary = (
        f"compiled {_plural(len(owl.ontologies), 'ontology', 'ontologies')}: "
        f"{_plural(len(owl.classes), 'class', 'classes')}, {owl.triples} triples written as N-Triples lines "
        f"({prepared.composed_fields:,} composed fields: no graph held)"
    )
    if args.shapes:
        shapes = found[1].node_shapes
        summary += f"; {_plural(len(shapes), 'node shape', 'node shapes')} -> {args.shapes}"
    _common.note(summary)
    return _common.EXIT_OK


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def write_graph(graph: Graph, path: Path | None) -> None:
    """Serialize one graph to ``path`` (format from its extension) or standard output."""
    from mif_rdf.core.namespaces import bind_prefixes
    from mif_rdf.output import write_graph_as

    fmt = format_for(path, None)
    bind_prefixes(graph)
    _common.write(path, lambda out: write_graph_as(graph, fmt, out))
