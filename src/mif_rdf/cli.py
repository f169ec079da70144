"""The ``mif-rdf`` command: a thin shell over the Python API.

Exit codes: 0 success, 1 the input has errors (or a round trip lost data),
2 the tool could not run (bad arguments, unreadable input).  User input never
produces a traceback; set ``MIF_RDF_DEBUG=1`` to see one for internal errors.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import IO, Callable, Sequence

from . import __version__
from .bundle import Bundle, load_bundle
from .convert import jsonld_files, markdown_from_jsonld, roundtrip_report
from .errors import MifRdfError, Problem, Severity
from .serialize import EXTENSIONS, FORMATS, serialize_bundle

EXIT_OK, EXIT_INVALID, EXIT_CANNOT_RUN = 0, 1, 2
STORES = {"memory": "default", "oxigraph": "Oxigraph"}


def _bundle_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", type=Path, help="the bundle folder")
    parser.add_argument("--base", metavar="IRI", help="base IRI of the bundle (default mif://local/<folder-name>/)")
    parser.add_argument("--engine", choices=("fast", "pyld"), default="fast", help="fast context walker (default) or pyld's JSON-LD toRdf")
    parser.add_argument("--store", choices=tuple(STORES), default="memory", help="rdflib store: in-memory (default) or Oxigraph (needs oxrdflib)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mif-rdf",
        description="MIF knowledge bundles as RDF: load through the MIF JSON-LD context, export, convert.",
        epilog="Exit codes: 0 ok; 1 the input has errors (load, export, convert) or a round trip lost data; 2 could not run.",
    )
    parser.add_argument("--version", action="version", version=f"mif-rdf {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    load = commands.add_parser("load", help="load a bundle, print a summary and its problems", description="Load a bundle into an RDF dataset and print a summary: memories by type, triples, links and every problem found.")
    _bundle_options(load)
    load.add_argument("-o", "--output", type=Path, help="also write the dataset to this file (format from --format or the file extension)")
    load.add_argument("--format", choices=tuple(FORMATS), help="format of --output (default: from its extension, else turtle)")
    load.add_argument("--json", action="store_true", help="print the summary and problems as JSON")

    export = commands.add_parser("export", help="write a bundle as Turtle, N-Triples, N-Quads, TriG or JSON-LD", description="Serialize a bundle. turtle and nt hold the union of all graphs; nquads, trig and json-ld keep one named graph per memory plus the links graph.")
    _bundle_options(export)
    export.add_argument("--format", choices=tuple(FORMATS), default="turtle", help="output format (default turtle)")
    export.add_argument("-o", "--output", type=Path, help="output file (default: standard output)")

    convert = commands.add_parser("convert", help="markdown <-> JSON-LD projection, and round-trip checks", description="Convert between the markdown and JSON-LD forms of memories (spec section 15).")
    how = convert.add_subparsers(dest="direction", required=True, metavar="DIRECTION")
    to_jsonld = how.add_parser("to-jsonld", help="markdown memories -> JSON-LD projection documents", description="Write the JSON-LD projection (spec 15.1) of one memory, or of every memory of a bundle as one .jsonld file each. Documents carry their @base, so any JSON-LD processor gives the graph mif-rdf loads.")
    to_jsonld.add_argument("path", type=Path, help="a memory .md file or a bundle folder")
    to_jsonld.add_argument("-o", "--output", type=Path, metavar="FILE|FOLDER", help="output file (one memory) or folder (a bundle); default: standard output for one memory")
    to_jsonld.add_argument("--base", metavar="IRI", help="base IRI of the bundle")
    to_md = how.add_parser("to-markdown", help="JSON-LD projection documents (or an N-Quads/TriG dataset) -> markdown memories", description="Write markdown memories back from JSON-LD projection documents (spec 15.2), or from every memory graph of an N-Quads/TriG file written by 'export', through RDF: what comes back is what the graph holds.")
    to_md.add_argument("path", type=Path, help="a .jsonld file, a folder of them, or a .nq/.nquads/.trig dataset file")
    to_md.add_argument("-o", "--output", type=Path, metavar="FILE|FOLDER", help="output file (one document) or folder; default: standard output for one document")
    roundtrip = how.add_parser("roundtrip", help="check that markdown -> RDF -> markdown loses nothing", description="Load a bundle, write every memory graph out (N-Quads or JSON-LD), read it back, rebuild the markdown and compare with the original: exit 0 when nothing is lost, 1 otherwise.")
    roundtrip.add_argument("path", type=Path, help="a bundle folder")
    roundtrip.add_argument("--via", choices=("nquads", "jsonld"), default="nquads", help="go through an N-Quads serialization (default) or the JSON-LD projection")
    roundtrip.add_argument("--base", metavar="IRI", help="base IRI of the bundle")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except MifRdfError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug, not bad input: say so without a traceback
        if os.environ.get("MIF_RDF_DEBUG"):
            raise
        return _fail(f"internal error ({type(exc).__name__}: {exc}); rerun with MIF_RDF_DEBUG=1 and report it")


def _fail(message: str) -> int:
    print(f"mif-rdf: error: {message}", file=sys.stderr)
    return EXIT_CANNOT_RUN


def _load(args: argparse.Namespace) -> Bundle:
    return load_bundle(
        args.bundle, base_iri=args.base, engine=args.engine, store=STORES[args.store],
        progress=False if args.no_progress else None,
    )


def _exit_for(problems: Sequence[Problem]) -> int:
    return EXIT_INVALID if any(p.severity == Severity.ERROR for p in problems) else EXIT_OK


def _format_for(path: Path | None, fmt: str | None) -> str:
    if fmt:
        return fmt
    by_suffix = {suffix: name for name, suffix in EXTENSIONS.items()}
    return by_suffix.get(path.suffix, "turtle") if path else "turtle"


def _write(path: Path | None, writer: Callable[[IO[bytes]], object]) -> None:
    if path is None:
        writer(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        writer(handle)


def cmd_load(args: argparse.Namespace) -> int:
    bundle = _load(args)
    fmt = _format_for(args.output, args.format) if args.output else None
    if args.output:
        _write(args.output, lambda out: serialize_bundle(bundle, fmt, out))  # type: ignore[arg-type]
    if args.json:
        report = {"bundle": str(bundle.root), "base": bundle.base_iri, **bundle.counts(), "problem_list": [p.to_dict() for p in bundle.problems]}
        if args.output:
            report["output"] = {"path": str(args.output), "format": fmt}
        print(json.dumps(report, indent=2, default=str))
    else:
        print(summary_text(bundle))
        if args.output:
            print(f"wrote {args.output} ({fmt})")
    return _exit_for(list(bundle.problems))


def summary_text(bundle: Bundle) -> str:
    counts = bundle.counts()
    kinds = ", ".join(f"{k} {v}" for k, v in counts["by_type"].items())
    sev = counts["problems"]
    lines = [
        f"Bundle {bundle.root.name} ({bundle.base_iri})",
        f"  memories: {counts['memories']} ({kinds})",
        f"  entities: {counts['entities']}   link triples: {counts['links']}   triples: {counts['triples']}",
        f"  problems: {sev['error']} errors, {sev['warning']} warnings, {sev['info']} notes",
    ]
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    lines += [f"    {p}" for p in sorted(bundle.problems, key=lambda p: (order[p.severity], p.path, p.line or 0))]
    return "\n".join(lines)


def cmd_export(args: argparse.Namespace) -> int:
    bundle = _load(args)
    for problem in bundle.problems:
        print(problem, file=sys.stderr)
    _write(args.output, lambda out: serialize_bundle(bundle, args.format, out))
    return _exit_for(list(bundle.problems))


def cmd_convert(args: argparse.Namespace) -> int:
    if args.direction == "to-jsonld":
        docs, problems = jsonld_files(args.path, base_iri=args.base)
        _emit_many(docs, args.output, single=args.path.is_file())
    elif args.direction == "to-markdown":
        docs, problems = markdown_from_jsonld(args.path)
        _emit_many(docs, args.output, single=args.path.is_file() and args.path.suffix == ".jsonld")
    else:
        lines, problems, lossless = roundtrip_report(args.path, via=args.via, base_iri=args.base)
        print("\n".join(lines))
        for problem in problems:
            print(problem, file=sys.stderr)
        return EXIT_OK if lossless else EXIT_INVALID
    for problem in problems:
        print(problem, file=sys.stderr)
    return _exit_for(problems)


def _emit_many(docs: dict[str, str], output: Path | None, single: bool) -> None:
    if single and len(docs) <= 1:
        text = next(iter(docs.values()), "")
        _write(output, lambda out: out.write(text.encode("utf-8")))
        return
    if output is None:
        raise MifRdfError("converting a folder needs -o/--output FOLDER")
    for relpath, text in docs.items():
        target = output / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
    print(f"wrote {len(docs)} files under {output}", file=sys.stderr)


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"load": cmd_load, "export": cmd_export, "convert": cmd_convert}


if __name__ == "__main__":
    sys.exit(main())
