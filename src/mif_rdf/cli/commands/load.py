"""``mif-rdf load``: load a bundle, print a summary and every problem."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _audience, _common
from mif_rdf.core.errors import MifRdfError, Problem, Severity, counted
from mif_rdf.core.formats import format_for

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from mif_rdf.bundle import Bundle

ORDER = 10


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "load",
        help="load a bundle, print a summary and its problems",
        description=(
            "Load a bundle into an RDF dataset and print a summary: memories by type, triples, links and "
            "every problem found."
        ),
    )
    _common.bundle_options(parser)
    _common.suggestion_option(parser)
    _common.allow_empty_option(parser)
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        help=(
            "also write the dataset to this file (format from --format or the file extension; _local memories are "
            "left out, as by export)"
        ),
    )
    parser.add_argument(
        "--format",
        type=_common.rdf_format,
        metavar="FORMAT",
        help=(
            "format of --output: turtle (ttl), nt, nquads (nq), trig, json-ld (jsonld), rdfxml (xml); default: from "
            "its extension (.ttl .nt .nq .trig .jsonld .rdf .owl; + .gz: compressed)"
        ),
    )
    _audience.audience_options(parser)
    parser.add_argument("--json", action="store_true", help="print the summary and problems as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    _common.check_outputs(("-o", args.output), bundle=args.bundle)  # an output that is an input: said first
    fmt = format_for(args.output, args.format) if args.output else None
    if _common.refused_empty(args):
        return _common.EXIT_INVALID
    audience = _audience.audience_of(args, Path(args.bundle)) if args.output else None  # said before loading
    bundle = _common.load(args)
    _common.add_suggestions(args, bundle, audience)
    if fmt is not None:  # there is an --output
        _common.export(bundle, fmt, args.output, audience)
    elif args.audience or args.include_system:
        raise MifRdfError("--audience says who an output is for: give -o/--output FILE")
    from mif_rdf.validation import with_lines

    problems = with_lines(bundle.problems, bundle.root)  # path:line for frontmatter findings, as validate gives them
    if args.json:
        report = {
            "bundle": str(bundle.root),
            "base": bundle.base_iri,
            **bundle.counts(),
            "problem_list": [p.to_dict() for p in problems],
        }
        if bundle.cache is not None and (_common.asked_for_cache(args) or _common.verbose()):
            report["cache"] = {
                "state": bundle.cache.state,
                "entry": str(bundle.cache.entry),
                "reason": bundle.cache.reason,
                "reparsed": list(bundle.cache.reparsed),
                "removed": list(bundle.cache.removed),
            }
        if args.output:
            report["output"] = {"path": str(args.output), "format": fmt}
        print(json.dumps(report, indent=2, default=str))
    else:
        print(summary_text(bundle, problems, cache=_common.asked_for_cache(args) or _common.verbose()))
    return _common.exit_for(list(bundle.problems))


def summary_text(bundle: Bundle, problems: Sequence[Problem] | None = None, cache: bool = True) -> str:
    """The human summary ``load`` prints; ``problems``: the bundle's, with their lines found (default: as loaded);
    ``cache``: say what the load cache did (when asked for by name, or ``-v``)."""
    counts = bundle.counts()
    kinds = ", ".join(f"{k} {v}" for k, v in counts["by_type"].items())
    sev = counts["problems"]
    lines = [
        f"Bundle {bundle.root.name} ({bundle.base_iri})",
        f"  memories: {counts['memories']} ({kinds})",
        f"  entities: {counts['entities']}   link triples: {counts['links']}   triples: {counts['triples']}",
        f"  problems: {counted(sev['error'], 'error')}, {counted(sev['warning'], 'warning')}, "
        f"{counted(sev['info'], 'note')}",
    ]
    if bundle.cache is not None and cache:
        lines.insert(3, f"  cache: {_common.cache_text(bundle.cache)}")
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    lines += [
        f"    {p}"
        for p in sorted(
            bundle.problems if problems is None else problems, key=lambda p: (order[p.severity], p.path, p.line or 0)
        )
    ]
    return "\n".join(lines)
