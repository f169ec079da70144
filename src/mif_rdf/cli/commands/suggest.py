"""``mif-rdf suggest``: the entity types and namespaces the ontologies' discovery patterns suggest (spec 10.8.4)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common
from mif_rdf.core.limits import DEFAULT_LIMITS

if TYPE_CHECKING:  # for annotations; run imports what it uses (fast start-up)
    from mif_rdf.ontology import SuggestionReport

ORDER = 17
SUGGEST_FORMATS = ("text", "json", "turtle", "trig", "nquads")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "suggest",
        help="suggest entity types and namespaces from the ontologies' discovery patterns",
        description="Run the discovery patterns (spec 10.8.4) of every ontology the memories name (and of "
        "--ontology) on "
        "each memory: content patterns over the body, file patterns over the bundle-relative path. Lists, per memory, "
        "the entity types and namespaces it does not have yet, with the pattern, the matched text and its line and "
        "column. Reads the files only (no RDF is built). Exit 0 (suggestions are no errors), 2 could not run.",
    )
    parser.add_argument("bundle", type=Path, help="the bundle folder")
    parser.add_argument(
        "--ontology",
        action="append",
        default=[],
        metavar="FILE|ID",
        help="also run this ontology's patterns (repeatable)",
    )
    _common.ontology_path_option(parser)
    _common.ontology_dir_option(parser)
    parser.add_argument(
        "--format",
        choices=SUGGEST_FORMATS,
        default="text",
        help=(
            "text for people (default), json for pipelines, or RDF: the <base>#suggestions graph as turtle, trig or "
            "nquads"
        ),
    )
    parser.add_argument(
        "--base", metavar="IRI", help="base IRI of the bundle, for the RDF formats (default as in load)"
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=0.25,
        metavar="SECONDS",
        help="time a pattern that RE2 cannot run may spend on one memory (default 0.25)",
    )
    parser.add_argument(
        "--max-memories",
        type=int,
        metavar="N",
        default=DEFAULT_LIMITS.max_memories,
        help=f"read at most N memory files, in path order (default {DEFAULT_LIMITS.max_memories:,})",
    )
    parser.add_argument("-o", "--output", type=Path, help="write the result to this file instead of standard output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.ontology import suggest

    if args.time_limit <= 0 or args.max_memories <= 0:
        raise MifRdfError("--time-limit and --max-memories must be positive")
    report = suggest(
        args.bundle,
        ontologies=args.ontology,
        search_path=args.path,
        user_dirs=args.ontology_dir,
        time_limit=args.time_limit,
        limits=replace(DEFAULT_LIMITS, max_memories=args.max_memories),
    )
    _common.show_problems(report.problems)
    if args.format == "text":
        text = report.to_text() + "\n"
    elif args.format == "json":
        text = report.to_json() + "\n"
    else:
        text = _rdf(report, args)
    _common.write(args.output, lambda out: out.write(text.encode("utf-8")))
    return _common.EXIT_OK


def _rdf(report: SuggestionReport, args: argparse.Namespace) -> str:
    from rdflib import Dataset, URIRef

    from mif_rdf.core.namespaces import bind_prefixes
    from mif_rdf.ontology import suggestions_graph_iri
    from mif_rdf.source import bundle_base_iri, normalize_base_iri

    base = normalize_base_iri(args.base) if args.base else bundle_base_iri(args.bundle.resolve())
    graph = report.graph(base)
    if args.format == "turtle":
        return graph.serialize(format="turtle")
    dataset = Dataset()
    bind_prefixes(dataset)
    named = dataset.graph(URIRef(suggestions_graph_iri(base)))
    named.addN((s, p, o, named) for s, p, o in graph)
    return dataset.serialize(format=args.format)
