"""``mif-rdf export``: write a bundle in an RDF format."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..serialize import FORMATS, serialize_bundle
from . import _common

ORDER = 20


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export", help="write a bundle as Turtle, N-Triples, N-Quads, TriG or JSON-LD",
        description="Serialize a bundle. turtle and nt hold the union of all graphs; nquads, trig and json-ld keep one named graph per memory plus the links graph.",
    )
    _common.bundle_options(parser)
    parser.add_argument("--format", choices=tuple(FORMATS), default="turtle", help="output format (default turtle)")
    parser.add_argument("-o", "--output", type=Path, help="output file (default: standard output)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bundle = _common.load(args)
    for problem in bundle.problems:
        print(problem, file=sys.stderr)
    _common.write(args.output, lambda out: serialize_bundle(bundle, args.format, out))
    return _common.exit_for(list(bundle.problems))
