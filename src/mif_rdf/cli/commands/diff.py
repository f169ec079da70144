"""``mif-rdf diff``: what a change does to the knowledge, memory by memory, between two git revisions."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common
from mif_rdf.core.errors import MifRdfError

if TYPE_CHECKING:
    from mif_rdf.bundle import Bundle

ORDER = 16
WORKING_TREE = "working tree"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "diff",
        help="the memories added, removed, moved and changed between two git revisions of a bundle",
        description="Compare a bundle at two git revisions (default: HEAD against the working tree), read from the "
        "repository's objects without checking anything out. Memories are matched by id: for each one added, removed, "
        "moved (same id, new path) or changed, the frontmatter keys that changed with old and new values, the "
        "relationships added and removed, whether the body changed, and the validation findings the change "
        "introduced and fixed. Only the files that differ (and the memories they link to or that link to them) are "
        "read and projected, between two revisions as against the working tree (whose changed files git names, "
        "untracked ones included); --full loads both sides whole. "
        "Exit 0, or 2 when a revision cannot be read.",
    )
    parser.add_argument("bundle", type=Path, help="the bundle folder (inside a git repository)")
    parser.add_argument("old", nargs="?", default="HEAD", metavar="REV_A", help="the old revision (default HEAD)")
    parser.add_argument("new", nargs="?", metavar="REV_B", help="the new revision (default: the working tree)")
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown", "sparql-update", "rdf-patch"),
        default="text",
        help=(
            "text for people (default), json for pipelines, markdown to paste into a pull request; sparql-update "
            "(SPARQL 1.1 Update) or rdf-patch (RDF Patch, as Jena RDF Delta): the change that turns REV_A's export "
            "into REV_B's"
        ),
    )
    parser.add_argument("--base", metavar="IRI", help="base IRI of the bundle (default: as for load)")
    parser.add_argument(
        "--no-findings",
        action="store_true",
        help="leave out the validation findings the change introduced and fixed (faster: nothing is validated)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="with --full (or when a change needs both sides whole), load them afresh (by default they go through "
        "the load cache, so a revision close to one loaded before costs little); a diff of the changed files uses "
        "no cache",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="load both sides whole instead of reading only the files that differ (the same report, slower)",
    )
    parser.add_argument("-o", "--output", type=Path, help="write the diff to this file instead of standard output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.bundle import load_bundle
    from mif_rdf.load import load_at_revision, resolve
    from mif_rdf.output import diff_bundles, with_findings

    _common.check_outputs(("-o", args.output), bundle=args.bundle)
    commit_a = resolve(args.bundle, args.old)  # both revisions are checked before anything is loaded
    commit_b = None if args.new is None else resolve(args.bundle, args.new)  # None: the working tree
    if not args.full:
        fast = _changed_only(args, commit_a, commit_b)
        if fast is not None:
            _common.write(args.output, lambda out: out.write(fast.encode("utf-8")))
            return _common.EXIT_OK

    def loaded(load: Callable[..., Bundle], *where: object, **options: object) -> Bundle:
        if args.no_cache:
            return load(*where, progress=False, **options)
        try:
            return load(*where, progress=False, cache=True, **options)
        except (OSError, MifRdfError) as error:  # a cache that cannot be used costs only speed, as for load
            _common.note(f"note: the load cache was not used ({error}); --no-cache skips it")
            return load(*where, progress=False, **options)

    old = loaded(load_at_revision, args.bundle, args.old, base_iri=args.base)
    if args.new is None:
        new = loaded(load_bundle, args.bundle, base_iri=args.base or old.base_iri)
    else:
        new = loaded(load_at_revision, args.bundle, args.new, base_iri=args.base)
    if args.format in ("sparql-update", "rdf-patch"):
        from mif_rdf.output import rdf_patch, sparql_update

        patch = (sparql_update if args.format == "sparql-update" else rdf_patch)(old, new)
        _common.write(args.output, lambda out: out.write(patch.encode("utf-8")))
        return _common.EXIT_OK
    found = diff_bundles(old, new, args.old, args.new or WORKING_TREE)
    text = (found if args.no_findings else with_findings(found, old, new)).formatted(args.format)
    _common.write(args.output, lambda out: out.write(text.encode("utf-8")))
    return _common.EXIT_OK


def _changed_only(args: argparse.Namespace, commit_a: str, commit_b: str | None) -> str | None:
    """The diff from the files that differ between the two commits, or the commit and the working tree
    (``commit_b`` None) (:mod:`mif_rdf.output.diff_fast`); None when the change needs both sides whole."""
    from mif_rdf.output import diff_bundles, exact_changes, partial_bundles, patch_text, update_text, with_findings

    findings = args.format in ("text", "json", "markdown") and not args.no_findings
    partial = partial_bundles(args.bundle, commit_a, commit_b, base_iri=args.base, neighbours=findings)
    if partial is None:
        return None
    if args.format in ("sparql-update", "rdf-patch"):
        changes = exact_changes(partial)
        if changes is None:
            return None
        return (update_text if args.format == "sparql-update" else patch_text)(changes)
    found = diff_bundles(partial.old, partial.new, args.old, args.new or WORKING_TREE)
    return (with_findings(found, partial.old, partial.new) if findings else found).formatted(args.format)
