"""Refusals of planned changes as a whole: files no writer may change, and changes that add validation errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.outputs import temporary_folder
from mif_rdf.output.update.beside import start_beside
from mif_rdf.output.update.changes import FileChange
from mif_rdf.source.fastyaml import load_yaml  # PyYAML's result, faster where provably the same
from mif_rdf.source.markdown import split_frontmatter

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle


def _protected(root: Path, changes: list[FileChange]) -> list[Problem]:
    """Refusals for files no writer may change: under a read-only prefix (spec 10.5) or in a ``_local`` namespace."""
    from mif_rdf.nsmodel.access import local_only
    from mif_rdf.nsmodel.readonly import read_only_refusals

    _, refused = read_only_refusals(root, {change.relpath: change.after or change.before or "" for change in changes})
    for change in changes:
        for text in filter(None, (change.before, change.after)):
            namespace = (load_yaml(split_frontmatter(text).frontmatter).data or {}).get("namespace")
            if local_only(namespace) is not None:
                refused.append(
                    Problem(
                        change.relpath,
                        f"the memory is local-only (namespace {namespace!r}, spec 10.2): write-back never changes "
                        "it; nothing written",
                        Severity.ERROR,
                        key="namespace",
                        rule="write-back",
                    )
                )
                break
    return refused


#: Changed files from which the two scratch validations run at once, on two cores when both are idle (below,
#: forking costs more than it saves: the bundle's process is copied, page by page as either side writes).
VALIDATE_BESIDE = 200


def validation_refusals(bundle: LoadedBundle, changes: list[FileChange]) -> list[Problem]:
    """A refusal for every validation error the changes add to their files, at the bundle's conformance level.

    Only the changed files are validated, as they are and as they would be
    (two scratch bundles with the bundle's ``.mif/`` and those files, loaded
    under the same base IRI), so the check costs what the change costs, not
    what the bundle costs.  Only errors that were not there before count: a
    bundle with old errors can still be edited, and what a partial bundle
    cannot see (a link to a memory not copied) is the same on both sides.
    The files as they are are validated only when the changed files have
    errors after the change (else nothing can be new); from
    :data:`VALIDATE_BESIDE` changed files on, when two cores are idle, a
    forked child validates them meanwhile (:mod:`.beside`) and is stopped
    if its result is not needed: the refusals are the same either way.
    """
    import shutil

    from mif_rdf.load.loader import load
    from mif_rdf.validation import validate

    level = bundle.config.get("conformance_level", 3)
    level = level if level in (1, 2, 3) else 3

    def errors(folder: Path, side: str) -> set[tuple[str, str | None, str]]:
        if (bundle.root / ".mif").is_dir():
            shutil.copytree(bundle.root / ".mif", folder / ".mif", symlinks=True)
        folder.mkdir(parents=True, exist_ok=True)
        for change in changes:
            text = change.before if side == "before" else change.after
            if text is not None:
                (folder / change.relpath).parent.mkdir(parents=True, exist_ok=True)
                (folder / change.relpath).write_text(text, encoding="utf-8", newline="")
        report = validate(
            load(folder, base_iri=bundle.base_iri, engine=bundle.engine, limits=bundle.limits, progress=False), level
        )
        # a message may name a file of the scratch bundle (an ontology's path): name the bundle's own, so that an
        # error already there before the change is the same error after it
        return {(p.path, p.key, p.message.replace(str(folder), str(bundle.root))) for p in report.errors}

    paths = {change.relpath for change in changes}
    with temporary_folder("update") as scratch:
        # the files as they are, validated beside (a forked child on an idle core) while this process validates
        # them as they would be: needed only when those have errors, and then ready
        before = start_beside(
            lambda: errors(Path(scratch) / "before", "before"), worth_it=len(changes) >= VALIDATE_BESIDE
        )
        try:
            added = {error for error in errors(Path(scratch) / "after", "after") if error[0] in paths}
        except BaseException:
            before.cancel()
            raise
        if added:  # no error in the changed files after the change: none is new, and the files before need no check
            added -= before.result()
        else:
            before.cancel()
    return [
        Problem(
            path,
            f"the change would add a level-{level} validation error ({message}); nothing written (--force / "
            "force=True writes it anyway)",
            Severity.ERROR,
            key=key,
            rule="write-back-validation",
        )
        for path, key, message in sorted(added, key=str)
    ]
