"""``mif-rdf export``: write a bundle in an RDF format."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..formats import format_for
from . import _common

ORDER = 20


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export", help="write a bundle as Turtle, N-Triples, N-Quads, TriG, JSON-LD or RDF/XML",
        description="Serialize a bundle. turtle, nt and rdfxml hold the union of all graphs; nquads, trig and json-ld keep one named graph per memory plus the links graph. Memories in _local namespaces are never exported (spec 10.2): they, and every link to them, are left out and listed on standard error.",
    )
    _common.bundle_options(parser)
    parser.add_argument("--format", type=_common.rdf_format, metavar="FORMAT", help="turtle (ttl), nt, nquads (nq), trig, json-ld (jsonld), rdfxml (xml); default: from the extension of -o (.ttl .nt .nq .trig .jsonld .rdf .owl), else turtle")
    parser.add_argument("-o", "--output", type=Path, help="output file (default: standard output)")
    parser.add_argument("--with-hashes", action="store_true", help="add extensions.mif-rdf.hash (sha256 of each memory's body, spec 18.2) to every exported memory")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bundle = _common.load(args)
    _common.show_problems(bundle.problems)
    if args.with_hashes:
        bundle.add_content_hashes()
    _common.export(bundle, format_for(args.output, args.format), args.output)
    return _common.exit_for(list(bundle.problems))
