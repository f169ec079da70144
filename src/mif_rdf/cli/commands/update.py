"""``mif-rdf update``: run a SPARQL Update on a bundle and write the changes back to its markdown files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common

if TYPE_CHECKING:
    from mif_rdf.output import UpdateResult

ORDER = 42


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "update",
        help="run a SPARQL Update on a bundle and write each changed memory back to its file",
        description="Load a bundle, run one SPARQL 1.1 Update on its dataset and write each changed memory back to "
        "its own "
        "markdown file: only the changed frontmatter values (and the body, if it changed) are rewritten. "
        "Write inside GRAPH ?g { ... } (each memory is its own graph, named by its IRI). A change the markdown "
        "cannot hold is refused with the triple and why, and then no file is written. See docs/writeback.md.",
    )
    _common.bundle_options(parser)
    parser.add_argument("update", nargs="?", help="the update text (or use --file)")
    parser.add_argument(
        "--file", metavar="FILE", help="read the update from this file (.ru/.rq), or '-' for standard input"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing: print the unified diff of every file the update would change",
    )
    parser.add_argument(
        "--allow-delete",
        action="store_true",
        help="let an update that deletes every triple of a memory remove its file",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help=(
            "write even when the changed memories gain validation errors at the bundle's conformance level (checked "
            "by default)"
        ),
    )
    parser.add_argument(
        "--allow-service",
        action="store_true",
        help="let SERVICE clauses fetch from other SPARQL endpoints (off by default)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.output import check_update_safety, update_bundle

    text = _update_text(args.update, args.file)
    check_update_safety(text)  # before the bundle is loaded
    bundle = _common.load(args)
    result = update_bundle(
        bundle,
        text,
        dry_run=args.dry_run,
        allow_service=args.allow_service,
        force=args.force,
        allow_delete=args.allow_delete,
    )
    if not result.changes and not result.refusals:
        _common.note("note: DELETE and INSERT outside GRAPH ?g { ... } act on the default graph, which holds no memory")
    return report(result, args.dry_run)


def report(result: UpdateResult, dry_run: bool) -> int:
    """What a write-back did, as ``update`` and ``import`` say it: refusals (exit 1),
    the diff (dry run) or the summary."""
    if result.refusals:
        _common.show_problems(result.refusals)
        print(result.summary(), file=sys.stderr)
        return _common.EXIT_INVALID
    if dry_run:
        sys.stdout.write(result.diff())
        _common.note(result.summary())
    else:
        print(result.summary())
    return _common.EXIT_OK


def _update_text(update: str | None, path: str | None) -> str:
    """The update text, as ``query`` reads its query, plus ``--file -`` for standard input."""
    from mif_rdf.cli.commands.query import _query_text

    if path == "-" and update is None:
        return sys.stdin.read()
    return _query_text(update, None if path is None else Path(path))
