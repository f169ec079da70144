"""The file changes a write-back plans, the refusal that stops one, and writing them.

A :class:`FileChange` holds a file's text before and after; files are
replaced atomically, each on its own (:func:`write_changes`), only once every
change has been computed and checked.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mif_rdf.core.errors import Problem
from mif_rdf.core.statements import Quad


@dataclass
class FileChange:
    """One markdown file write-back would change: its text before and after (None: the file is created, or removed)."""

    relpath: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        return "created" if self.before is None else "removed" if self.after is None else "changed"

    def diff(self) -> str:
        """The change as a unified diff (``a/``, ``b/`` paths,
        ``/dev/null`` for a created or removed file, as git shows it)."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else f"a/{self.relpath}",
            tofile="/dev/null" if self.after is None else f"b/{self.relpath}",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@dataclass
class UpdateResult:
    """What an update did (or, with ``dry_run`` or refusals, would do) to the bundle's files."""

    changes: list[FileChange] = field(default_factory=list)
    refusals: list[Problem] = field(default_factory=list)
    written: bool = False
    #: graphs an import from a store left alone: not a memory's (the store's other data)
    skipped: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        return [change.relpath for change in self.changes]

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def summary(self) -> str:
        return self._summary() + (
            f"\nskipped {len(self.skipped)} graph(s) of the store that are no memory's (manifests, other data)"
            if self.skipped
            else ""
        )

    def _summary(self) -> str:
        if self.refusals:
            return f"refused: {len(self.refusals)} change(s) cannot be written back; no file written"
        if not self.changes:
            return "no memory changed; no file written"
        counts = {kind: sum(1 for c in self.changes if c.kind == kind) for kind in ("changed", "created", "removed")}
        head = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        lines = "".join(f"\n  {c.relpath}" + ("" if c.kind == "changed" else f" ({c.kind})") for c in self.changes)
        verb = "changed" if self.written else "would change"
        return (
            f"{verb} {len(self.changes)} file(s)"
            + (f" ({head})" if counts["changed"] != len(self.changes) else "")
            + lines
        )


class _Refused(Exception):
    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def _triple(quad: Quad, sign: str) -> str:
    s, p, o = (term.n3() for term in quad[:3])
    return f"{'inserting' if sign == '+' else 'deleting'} {s} {p} {o}"


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def write_changes(root: Path, changes: Iterable[FileChange]) -> None:
    """Replace each changed file atomically (temporary file in its folder, then rename):
    a file is old or new, never half-written.

    The files are written by a few threads at once: each write waits for the
    disk twice (``fsync`` of the file, then of its folder), and those waits
    overlap; on a virtual disk they were most of a large update's time.
    """
    from concurrent.futures import ThreadPoolExecutor

    from mif_rdf.core.outputs import write_file
    from mif_rdf.output.writeback import output_target

    writes: list[tuple[Path, bytes]] = []
    for change in changes:
        target = output_target(root, change.relpath, ".md")
        if change.after is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            writes.append((target, change.after.encode("utf-8")))
    if len(writes) < 2:
        for target, data in writes:
            write_file(target, data)  # mif_rdf.core.outputs: old or new, never half-written
        return
    with ThreadPoolExecutor(max_workers=min(WRITERS, len(writes)), thread_name_prefix="mif-rdf-write") as pool:
        for _ in pool.map(lambda item: write_file(*item), writes):  # the first failure is raised here
            pass


#: Files written at once by :func:`write_changes`.
WRITERS = 8
