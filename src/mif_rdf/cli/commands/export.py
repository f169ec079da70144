"""``mif-rdf export``: write a bundle in an RDF format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mif_rdf.cli.commands import _audience, _common, _dask
from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.core.formats import format_for

ORDER = 20


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export",
        help="write a bundle as Turtle, N-Triples, N-Quads, TriG, JSON-LD or RDF/XML",
        description=(
            "Serialize a bundle. turtle, nt and rdfxml hold the union of all graphs; nquads, trig and "
            "json-ld keep one named graph per memory plus the links graph. Memories in _local namespaces are "
            "never exported (spec 10.2): they, and every link to them, are left out and listed on standard "
            "error. N-Quads with no --store and no cache is streamed: written while the files are read, in "
            "memory that barely grows with the bundle (24-48 bytes a memory)."
        ),
    )
    _common.bundle_options(parser)
    _common.suggestion_option(parser)
    _common.allow_empty_option(parser)
    parser.set_defaults(store=None)  # None: no store asked for, so N-Quads can stream
    parser.add_argument(
        "--format",
        type=_common.rdf_format,
        metavar="FORMAT",
        help=(
            "turtle (ttl), nt, nquads (nq), trig, json-ld (jsonld), rdfxml (xml); default: from the extension of -o "
            "(.ttl .nt .nq .trig .jsonld .rdf .owl, each also + .gz), else turtle"
        ),
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        help="output file (default: standard output); a name ending in .gz is written gzip-compressed",
    )
    parser.add_argument(
        "--with-hashes",
        action="store_true",
        help="add extensions.mif-rdf.hash (sha256 of each memory's body, spec 18.2) to every exported memory",
    )
    _audience.audience_options(parser)
    parser.add_argument(
        "--stream",
        action="store_true",
        help=(
            "write N-Quads while reading, memory by memory, without loading a store (the default for nquads when no "
            "--store or cache is given)"
        ),
    )
    _common.as_of_option(parser)
    _dask.dask_option(parser, "-o names a folder that gets one gzipped N-Quads file per partition and manifest.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    _common.check_outputs(("-o", args.output), bundle=args.bundle)  # an output that is an input: said first
    fmt = "nquads" if args.dask is not None else format_for(args.output, args.format)  # -o is a folder with --dask
    if _common.refused_empty(args):
        return _common.EXIT_INVALID
    if args.dask is not None:
        return _dask.export(args, _loaded(args))
    if _streams(args, fmt):
        return _stream(args)
    args.store = args.store or "memory"
    audience = _audience.audience_of(args, Path(args.bundle))  # a party the bundle does not name: said before loading
    bundle = _common.load(args)
    _common.as_of(bundle, args.as_of)
    _common.show_problems(bundle.problems)
    _common.add_suggestions(args, bundle, audience)
    if args.with_hashes:
        bundle.add_content_hashes()
    _common.export(bundle, fmt, args.output, audience)
    return _common.exit_for(list(bundle.problems))


def _loaded(args: argparse.Namespace) -> list[str]:
    """The options given that need a loaded store (which neither --stream nor --dask has)."""
    return [
        name
        for name, given in (
            ("--store", args.store),
            ("--cache", args.cache),
            ("--cache-dir", args.cache_dir),
            ("--with-suggestions", args.with_suggestions),
            ("--as-of", args.as_of),
            ("--rev", args.rev),
        )
        if given
    ]


def _streams(args: argparse.Namespace, fmt: str) -> bool:
    """Whether to stream: asked for, or N-Quads with nothing that needs a loaded store; a contradiction is an error."""
    loaded = _loaded(args)
    if args.stream:
        if fmt != "nquads":
            raise MifRdfError(
                f"--stream writes N-Quads only (one line a quad, as the files are read); {fmt} needs the whole "
                "dataset: use --format nquads or leave out --stream"
            )
        if loaded:
            raise MifRdfError(
                "--stream reads the files as it writes them and uses no store or cache: leave out "
                f"{' and '.join(loaded)}"
            )
        return True
    return fmt == "nquads" and not loaded


def _stream(args: argparse.Namespace) -> int:
    """The streamed N-Quads export: problems shown as they are found, then the export's one summary line."""
    limits = _common.limits_of(args)
    from tqdm import tqdm

    from mif_rdf.output import stream_nquads
    from mif_rdf.rdf import ILL_TYPED

    ill_typed: list[Problem] = []

    def show(problem: Problem) -> None:  # above the progress bar, not through it
        if problem.rule == ILL_TYPED:
            ill_typed.append(problem)  # shown at the end, as by the loaded export
        elif _common.shown(problem):
            tqdm.write(str(problem), file=sys.stderr)

    audience = _audience.audience_of(args, args.bundle)
    reports = []
    _common.write(
        args.output,
        lambda out: reports.append(
            stream_nquads(
                args.bundle,
                out,
                base_iri=args.base,
                engine=args.engine,
                limits=limits,
                workers=args.workers,
                progress=False if args.no_progress else None,
                with_hashes=args.with_hashes,
                on_problem=show,
                audience=audience,
                ontology_dirs=args.ontology_dir,
            )
        ),
    )
    report = reports[0]
    _common.show_ill_typed(ill_typed, args.bundle.resolve())
    _common.wrote(report.quads, report.graphs, "nquads", args.output, list(report.withheld.values()), streamed=True)
    return _common.EXIT_INVALID if report.errors else _common.EXIT_OK
