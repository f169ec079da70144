"""``mif-rdf validate``: conformance levels 1-3 and OKF rules, as SHACL, in one report."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..validation import validate
from . import _common

ORDER = 15


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate", help="check a bundle against MIF conformance level 1, 2 or 3 (SHACL) and the OKF rules",
        description="Validate a bundle: the SHACL shapes of the conformance level (levels include the ones below, OKF "
        "rules always apply), the body's relationship mirror (Invariant 3), derivation order in time, and every load "
        "problem, in one report naming file, key path, value, rule and level. Exit 0 conforms (warnings allowed), "
        "1 errors found, 2 could not run.",
    )
    _common.bundle_options(parser)
    parser.add_argument("--level", type=int, choices=(1, 2, 3), default=3, help="conformance level (default 3, full)")
    parser.add_argument("--format", choices=("text", "json", "turtle"), default="text", help="text for people (default), json for pipelines, turtle for the SHACL report graph")
    parser.add_argument("--strict-temporal", action="store_true", help="a derived-from/supersedes target created after its source is an error, not a warning")
    parser.add_argument("--ontology", action="append", default=[], metavar="FILE|ID", help="also apply the SHACL shapes compiled from this ontology's entity schemas (repeatable)")
    parser.add_argument("--path", action="append", default=[], type=Path, metavar="DIR", help="folder to search for ontologies named by id (repeatable; the built-in ones and the bundle's .mif/ontologies are always searched)")
    parser.add_argument("-o", "--output", type=Path, help="write the report to this file instead of standard output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bundle = _common.load(args)
    report = validate(bundle, level=args.level, strict_temporal=args.strict_temporal, ontologies=args.ontology, search_path=args.path)
    if args.format == "json":
        text = report.to_json()
    elif args.format == "turtle":
        text = report.report_graph().serialize(format="turtle")
    else:
        text = report.to_text() + "\n"
    _common.write(args.output, lambda out: out.write(text.encode("utf-8")))
    return _common.EXIT_OK if report.conforms else _common.EXIT_INVALID
