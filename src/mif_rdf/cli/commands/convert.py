"""``mif-rdf convert``: markdown <-> JSON-LD projection, and round-trip checks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _audience, _common
from mif_rdf.core.errors import MifRdfError, Problem, Severity

if TYPE_CHECKING:
    from mif_rdf.nsmodel import Audience

ORDER = 30


def register(commands: argparse._SubParsersAction) -> None:
    convert = commands.add_parser(
        "convert",
        help="markdown <-> JSON-LD projection, and round-trip checks",
        description="Convert between the markdown and JSON-LD forms of memories (spec section 15).",
    )
    how = convert.add_subparsers(dest="direction", required=True, metavar="DIRECTION")
    to_jsonld = how.add_parser(
        "to-jsonld",
        help="markdown memories -> JSON-LD projection documents",
        description=(
            "Write the JSON-LD projection (spec 15.1) of one memory, or of every memory of a bundle as one "
            ".jsonld file each: fields pass through as written, under the published MIF context URL with the "
            "mif-rdf extension terms inline. Documents carry their @base, so any JSON-LD processor gives the "
            "graph mif-rdf loads, numbers equal in value: under the upstream context's xsd:decimal coercion "
            "standard processors write a number with a fraction in the double's lexical form (pyld and "
            'jsonld.js "9.399999999999999E-1", pyoxigraph "9.4E-1"; not a valid xsd:decimal) where mif-rdf '
            "writes the author's 0.94. With --check nothing is written: exit 1 when a projection beside its "
            ".md (or under -o) is missing or stale. A single file belongs to the nearest folder above it "
            "holding .mif/ or index.md (or --root); with none, its document has no @base and its references "
            "stay as written."
        ),
    )
    to_jsonld.add_argument("path", type=Path, help="a memory .md file or a bundle folder")
    to_jsonld.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE|FOLDER",
        help="output file (one memory) or folder (a bundle); default: standard output for one memory",
    )
    to_jsonld.add_argument("--base", metavar="IRI", help="base IRI of the bundle")
    to_jsonld.add_argument(
        "--root",
        type=Path,
        metavar="FOLDER",
        help="bundle folder of a single memory file (default: the nearest folder above it holding .mif/ or index.md)",
    )
    to_jsonld.add_argument(
        "--include-local",
        action="store_true",
        help="also write memories of _local namespaces (left out by default, as by export and push: spec 10.2)",
    )
    _audience.audience_options(to_jsonld)
    to_jsonld.add_argument(
        "--check",
        action="store_true",
        help=(
            "write nothing: exit 1 when a projection is missing or stale (no longer says what its .md says) beside "
            "its .md, or under -o FOLDER; for CI"
        ),
    )
    to_md = how.add_parser(
        "to-markdown",
        help="JSON-LD projection documents (or an N-Quads/TriG dataset) -> markdown memories",
        description=(
            "Write markdown memories back from JSON-LD projection documents (spec 15.2), or from every "
            "memory graph of an N-Quads/TriG file written by 'export', through RDF: what comes back is what "
            "the graph holds."
        ),
    )
    to_md.add_argument("path", type=Path, help="a .jsonld file, a folder of them, or a .nq/.nquads/.trig dataset file")
    to_md.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE|FOLDER",
        help="output file (one document) or folder; default: standard output for one document",
    )
    roundtrip = how.add_parser(
        "roundtrip",
        help="check that markdown -> RDF -> markdown loses nothing",
        description=(
            "Load a bundle, write every memory out (its graph and layout triple as N-Quads, or its .jsonld "
            "projection), read it back, rebuild the markdown and compare with the original, key order, list "
            "order and spelling included: exit 0 when nothing is lost, 1 otherwise."
        ),
    )
    roundtrip.add_argument("path", type=Path, help="a bundle folder")
    roundtrip.add_argument(
        "--via",
        choices=("nquads", "jsonld"),
        default="nquads",
        help="go through an N-Quads serialization (default) or the JSON-LD projection",
    )
    roundtrip.add_argument("--base", metavar="IRI", help="base IRI of the bundle")
    convert.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.output import jsonld_files, markdown_from_jsonld, roundtrip_report

    if args.direction == "roundtrip":
        lines, problems, lossless = roundtrip_report(args.path, via=args.via, base_iri=args.base)
        print("\n".join(lines))
        _common.show_problems(problems)
        return _common.EXIT_OK if lossless else _common.EXIT_INVALID
    if args.direction == "to-jsonld":
        _common.check_outputs(
            ("-o", args.output),
            bundle=args.path if args.path.is_dir() else args.root,
            inputs=[] if args.path.is_dir() else [args.path],
        )
        docs, problems = jsonld_files(args.path, base_iri=args.base, root=args.root)
        audience = _audience_of(args)
        if audience is not None or not args.include_local:
            docs, withheld = _without_local(docs, audience)
            problems += withheld
        if args.check:
            _common.show_problems(problems)
            return _check(docs, args)
        problems += _emit(docs, args.output, single=args.path.is_file(), suffix=".jsonld")
    else:
        _common.check_outputs(("-o", args.output), inputs=[args.path])
        docs, problems = markdown_from_jsonld(args.path)
        problems += _emit(docs, args.output, single=args.path.is_file() and args.path.suffix == ".jsonld", suffix=".md")
    _common.show_problems(problems)
    return _common.exit_for(problems)


def _check(docs: dict[str, str], args: argparse.Namespace) -> int:
    """``to-jsonld --check``: compare the projections on disk with what would be written;
    1 when one is missing or stale."""
    from mif_rdf.output import check_projections

    if args.path.is_file():
        target = args.output or args.path.with_suffix(".jsonld")
        docs = {target.name: next(iter(docs.values()))} if docs else {}  # one file, one document
        folder = target.parent
    else:
        folder = args.output or args.path
    problems = check_projections(docs, folder)
    _common.show_problems(problems)
    _common.note(f"{len(docs) - len(problems)} of {len(docs)} projections up to date under {folder}")
    return _common.EXIT_INVALID if problems else _common.EXIT_OK


def _audience_of(args: argparse.Namespace) -> Audience | None:
    """The ``--audience`` of ``to-jsonld``, for the bundle the path belongs to (a lone
    file with an audience needs one)."""
    from mif_rdf.output import bundle_root_of

    root = args.root or (args.path if args.path.is_dir() else bundle_root_of(args.path))
    if root is None:
        if args.audience is not None:
            raise MifRdfError(
                f"--audience needs the bundle of {args.path} (its agreements say who may read it): give --root FOLDER"
            )
        return None
    return _audience.audience_of(args, root)


def _without_local(docs: dict[str, str], audience: Audience | None = None) -> tuple[dict[str, str], list[Problem]]:
    """The projection documents that may leave the machine (for ``audience``),
    and a note for each one left out (spec 10.2)."""
    from mif_rdf.nsmodel import withheld_reason

    kept: dict[str, str] = {}
    notes: list[Problem] = []
    for relpath, text in docs.items():
        reason = withheld_reason(json.loads(text).get("namespace"), audience)
        if reason is None:
            kept[relpath] = text
        else:
            hint = "" if audience is not None else " (--include-local writes it)"
            notes.append(
                Problem(
                    relpath[: -len(".jsonld")] + ".md",
                    f"not written: {reason}{hint}",
                    Severity.INFO,
                    key="namespace",
                    rule="local-only" if audience is None else "audience",
                )
            )
    return kept, notes


def _emit(docs: dict[str, str], output: Path | None, single: bool, suffix: str) -> list[Problem]:
    """Write the documents: one to ``output`` (or standard output), several under the ``output`` folder."""
    from mif_rdf.output import write_files

    if single and len(docs) <= 1:
        text = next(iter(docs.values()), "")
        _common.write(output, lambda out: out.write(text.encode("utf-8")))
        return []
    if output is None:
        raise MifRdfError("converting a folder needs -o/--output FOLDER")
    if not output.exists():
        _common.note(f"created the folder {output}")
    problems = write_files(output, docs, suffix)
    _common.note(f"wrote {len(docs) - len(problems)} files under {output}")
    return problems
