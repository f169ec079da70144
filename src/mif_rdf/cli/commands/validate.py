"""``mif-rdf validate``: conformance levels 1-3 and OKF rules, as SHACL, in one report."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf import __version__
from mif_rdf.cli.commands import _common, _dask

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from mif_rdf.validation import ValidationReport

ORDER = 15
REPORT_FORMATS = ("text", "json", "turtle", "sarif", "junit", "github")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate",
        help="check a bundle against MIF conformance level 1, 2 or 3 (SHACL) and the OKF rules",
        description="Validate a bundle: the SHACL shapes of the conformance level (levels include the ones below, OKF "
        "rules always apply), the body's relationship mirror (Invariant 3), derivation order in time, and every load "
        "problem, in one report naming file, key path, value, rule and level. Exit 0 conforms (warnings allowed), "
        "1 errors found, 2 could not run.",
    )
    _common.bundle_options(parser)
    parser.add_argument(
        "--level",
        type=int,
        choices=(0, 1, 2, 3),
        default=3,
        help="conformance level (default 3, full; 0: only the --shapes files)",
    )
    parser.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="text",
        help=(
            "text for people (default), json for pipelines, turtle for the SHACL report graph, sarif (SARIF 2.1.0, "
            "GitHub code scanning), junit (JUnit XML test report), github (GitHub Actions annotations)"
        ),
    )
    parser.add_argument(
        "--strict-temporal",
        action="store_true",
        help="a derived-from/supersedes target created after its source is an error, not a warning",
    )
    parser.add_argument(
        "--ontology",
        action="append",
        default=[],
        metavar="FILE|ID",
        help=(
            "also apply this ontology's entity schemas, besides the ontologies the memories name in their ontology "
            "field (repeatable)"
        ),
    )
    _common.ontology_path_option(parser)
    parser.add_argument(
        "--shapes",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help=(
            "also apply your own SHACL shapes from this file (.ttl .nt .nq .trig .jsonld .rdf .owl; repeatable), "
            "checked against SHACL's shapes for shapes first; with --level 0, only these"
        ),
    )
    parser.add_argument(
        "--inference",
        choices=("none", "rdfs", "owlrl", "both"),
        default="none",
        help=(
            "expand the data with RDFS and/or OWL-RL before the --shapes run, as pySHACL's -i (default none; slow "
            "on large bundles)"
        ),
    )
    parser.add_argument("-o", "--output", type=Path, help="write the report to this file instead of standard output")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help=(
            "known findings (a --write-baseline file or a SARIF report of mif-rdf): only new ones are listed and "
            "fail the run; see docs/time.md"
        ),
    )
    parser.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help=(
            "record this run's findings as the baseline in FILE (the run then passes unless --baseline finds new "
            "errors)"
        ),
    )
    _common.as_of_option(parser)
    _dask.dask_option(parser, "the per-file rules in the workers, the cross-memory rules as joins")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.validation import load_shapes, validate

    _common.check_outputs(
        ("-o", args.output),
        ("--write-baseline", args.write_baseline),
        bundle=args.bundle,
        inputs=[*_common.ontology_inputs(args.path, args.ontology), *args.shapes],
    )
    if args.dask is not None:
        _dask.refuse_for_validate(args)
    if args.level == 0 and not args.shapes:
        raise MifRdfError("--level 0 checks only your own shapes: give --shapes FILE")
    if args.shapes:
        load_shapes(args.shapes)  # an unreadable file or an ill-formed shape stops here, before the bundle loads
    if args.inference != "none" and not args.shapes:
        raise MifRdfError("--inference applies to the --shapes files: give --shapes FILE")
    if args.dask is not None:
        from mif_rdf.source import discover

        report = _dask.validate(args)
        files = discover(args.bundle).memories  # the JUnit report's test cases: every memory file
    else:
        bundle = _common.load(args, types=False)
        _common.as_of(bundle, args.as_of)
        total = (3 if args.level else 0) + bool(args.shapes)
        with _common.stages("validate", total) as stage:
            report = validate(
                bundle,
                level=args.level,
                strict_temporal=args.strict_temporal,
                ontologies=args.ontology,
                search_path=args.path,
                on_stage=stage,
                shapes=args.shapes,
                inference=None if args.inference == "none" else args.inference,
                user_dirs=args.ontology_dir,
            )
        files = [record.relpath for record in bundle.memories.values()]
    if args.rev:  # key lines from the revision's files, not from the working tree's
        from mif_rdf.validation import with_key_lines

        report = with_key_lines(report, bundle.root)
    every = _common.verbose()
    text, conforms = formatted(report, args.format, args.bundle, files, every), report.conforms
    if args.baseline or args.write_baseline:
        from mif_rdf.validation import report_against_baseline

        text, conforms = report_against_baseline(
            report,
            args.baseline,
            args.write_baseline,
            args.format,
            lambda r, f: formatted(r, f, args.bundle, files, every),
            ci_root(args.bundle),
        )
    _common.write(args.output, lambda out: out.write(text.encode("utf-8")))
    return _common.EXIT_OK if conforms else _common.EXIT_INVALID


def formatted(report: ValidationReport, fmt: str, folder: Path, files: list[str], every: bool = False) -> str:
    """The report in one of :data:`REPORT_FORMATS`, each finding at its file's line;
    CI formats name files from the working directory, as CI checkouts do.

    ``every``: the text lists each finding (``-v``) instead of a summary per rule.
    """
    from mif_rdf.validation import with_key_lines

    report = with_key_lines(report, folder)
    if fmt == "json":
        return report.to_json()
    if fmt == "turtle":
        return report.report_graph().serialize(format="turtle")
    root = ci_root(folder)
    if fmt == "sarif":
        return report.to_sarif(root, version=__version__)
    if fmt == "junit":
        return report.to_junit(root, files)
    if fmt == "github":
        return report.to_github(root)
    return report.to_text(every) + "\n"


def ci_root(folder: Path) -> str:
    """The bundle folder relative to the working directory (the repository root in CI), or absolute when outside it."""
    absolute = Path(os.path.abspath(folder))
    try:
        return absolute.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return absolute.as_posix()
