"""``mif-rdf reason``: infer triples over a bundle (profiles fast, rdfs, owlrl)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common
from mif_rdf.core.errors import counted
from mif_rdf.core.names import PROFILES, SCOPES

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from rdflib import Graph

    from mif_rdf.bundle import Bundle

ORDER = 60


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "reason",
        help="infer triples (inverse, symmetric, subclass ...) into the inferences graph",
        description="Load a bundle, put the ontologies into <base>#ontology and the inferred triples into "
        "<base>#inferences. Profiles: fast (built in: inverse, symmetric, subproperty, domain/range, subclass over the "
        "links graph), rdfs and owlrl (owlrl's closures; their cost grows about quadratically, use them on small "
        "bundles "
        "or with --scope links).",
    )
    _common.bundle_options(parser)
    parser.add_argument("--profile", choices=PROFILES, default="fast", help="reasoning profile (default fast)")
    parser.add_argument(
        "--ontology",
        action="append",
        metavar="FILE|ID",
        help="an ontology id, YAML or RDF file (repeatable; default mif-base and the ontologies the memories name)",
    )
    parser.add_argument(
        "--path",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="another folder of ontology YAML files (repeatable)",
    )
    parser.add_argument(
        "--scope", choices=SCOPES, help="rdfs/owlrl: reason over all graphs (default) or the links graph only"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help=(
            "write the inferred triples (format from the extension, default Turtle); triples naming a memory of a "
            "_local namespace are left out"
        ),
    )
    parser.add_argument(
        "--include-local",
        action="store_true",
        help="with -o, also write inferred triples that name memories of _local namespaces",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rdflib import URIRef

    from mif_rdf.cli.commands.ontology import write_graph
    from mif_rdf.reasoning import infer
    from mif_rdf.source import GRAPH_INFERENCES, graph_iri

    _common.check_outputs(
        ("-o", args.output),
        bundle=args.bundle,
        inputs=_common.ontology_inputs(args.path, args.ontology),
    )
    bundle = _common.load(args)
    _common.show_problems(bundle.problems)
    start = time.perf_counter()
    with _common.stages("reason", 1) as stage:  # owlrl's closure can take minutes: say what runs
        stage(f"{args.profile} closure over {args.scope if args.profile != 'fast' else 'links'}")
        count = infer(bundle, args.profile, args.ontology, search_path=args.path, scope=args.scope)
    graph = bundle.dataset.graph(URIRef(graph_iri(bundle.base_iri, GRAPH_INFERENCES)))
    print(
        f"{counted(count, 'triple')} inferred (profile {args.profile}) in {time.perf_counter() - start:.2f} s into "
        f"<{graph.identifier}>"
    )
    if args.output:
        write_graph(graph if args.include_local else _without_local(bundle, graph), args.output)
    return _common.exit_for(list(bundle.problems))


def _without_local(bundle: Bundle, graph: Graph) -> Graph:
    """The inferred triples that name no withheld memory (spec 10.2), saying on stderr how many were left out."""
    from rdflib import Graph

    from mif_rdf.output import export_policy

    hidden = export_policy(bundle).hidden
    kept = Graph()
    for triple in graph:
        if triple[0] not in hidden and triple[2] not in hidden:
            kept.add(triple)
    if len(kept) < len(graph):
        _common.note(
            f"left out {len(graph) - len(kept)} inferred triples naming memories that never leave the machine "
            f"({', '.join(sorted(set(hidden.values())))}); --include-local writes them"
        )
    return kept
