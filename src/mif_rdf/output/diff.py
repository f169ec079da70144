"""A semantic diff of two loaded bundles: memories added, removed, moved and changed, key by key.

Memories are matched by ``id`` (their identity, spec 4.1), not by file: a
file renamed with the same ``id`` is *moved*; a memory whose ``id`` changed
is one removed and one added.  For a changed memory the diff names the
top-level frontmatter keys whose values differ (old and new value, as the
author wrote them), the relationships added and removed (type and target),
and whether the body changed (its line counts).  An edge names its target's
title when the target is a memory of the bundle (the old bundle's title for an
edge removed, the new one's for an edge added).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle, MemoryRecord
    from mif_rdf.validation.baseline import Comparison


@dataclass(frozen=True)
class Edge:
    """A relationship of a memory: its type, its target as written, and the target memory's title (if known)."""

    type: str
    target: str
    title: str | None = None

    def to_dict(self) -> dict[str, str]:
        found = {"type": self.type, "target": self.target}
        return found if self.title is None else {**found, "title": self.title}

    def __str__(self) -> str:
        return f"{self.type} -> {self.target}" + ("" if self.title is None else f" ({self.title})")


@dataclass
class MemoryChange:
    """What happened to one memory between two bundles."""

    id: str
    status: str  # added, removed, moved or changed (a moved memory may also have changed)
    old_path: str | None = None
    new_path: str | None = None
    keys: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    relationships_added: list[Edge] = field(default_factory=list)
    relationships_removed: list[Edge] = field(default_factory=list)
    body_lines: tuple[int, int] | None = None  # (old, new) when the body changed

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "old_path": self.old_path,
            "new_path": self.new_path,
        }
        if self.keys:
            data["keys"] = {key: {"old": old, "new": new} for key, (old, new) in self.keys.items()}
        if self.relationships_added or self.relationships_removed:
            data["relationships"] = {
                "added": [edge.to_dict() for edge in self.relationships_added],
                "removed": [edge.to_dict() for edge in self.relationships_removed],
            }
        if self.body_lines:
            data["body"] = {"old_lines": self.body_lines[0], "new_lines": self.body_lines[1]}
        return {k: v for k, v in data.items() if v is not None}


@dataclass
class BundleDiff:
    """Every memory that differs between ``old`` and ``new``, ordered by path."""

    old: str
    new: str
    changes: list[MemoryChange]
    findings: Comparison | None = None  # validation findings the change introduced and fixed (see with_findings)

    def counts(self) -> dict[str, int]:
        return {
            status: sum(1 for c in self.changes if c.status == status)
            for status in ("added", "removed", "moved", "changed")
        }

    def summary(self) -> str:
        counts = self.counts()
        found = (
            ""
            if self.findings is None
            else f"; findings: {len(self.findings.new)} introduced, {len(self.findings.absent)} fixed"
        )
        return f"{self.old} -> {self.new}: " + ", ".join(f"{n} {status}" for status, n in counts.items()) + found

    def finding_lines(self) -> list[str]:
        """The validation findings the change introduced (``+``) and fixed (``-``), one line each."""
        if self.findings is None:
            return []
        return [
            f"+ {f.severity.value} {f.path} {f.key or ''}: {f.message} [{f.rule or 'load'}]" for f in self.findings.new
        ] + [f"- {f.severity} {f.path} {f.key or ''}: {f.message} [{f.rule}]" for f in self.findings.absent]

    def to_json(self) -> str:
        document: dict[str, Any] = {
            "old": self.old,
            "new": self.new,
            "counts": self.counts(),
            "memories": [c.to_dict() for c in self.changes],
        }
        if self.findings is not None:
            document["findings"] = {
                "introduced": [f.to_dict() for f in self.findings.new],
                "fixed": [f.to_dict() for f in self.findings.absent],
            }
        return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"

    def to_text(self) -> str:
        lines = [self.summary()]
        for change in self.changes:
            where = f"{change.old_path} -> {change.new_path}" if change.status == "moved" else change.path
            lines.append(f"\n{change.status:<8} {where}  ({change.id})")
            lines.extend(f"  {line}" for line in _details(change))
        if self.finding_lines():
            lines += ["", "validation findings:", *(f"  {line}" for line in self.finding_lines())]
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        counts = self.counts()
        lines = [
            f"### Knowledge changes: `{self.old}` → `{self.new}`",
            "",
            " · ".join(f"**{n}** {status}" for status, n in counts.items()),
            "",
        ]
        if self.changes:
            lines += ["| memory | change | details |", "|---|---|---|"]
            for change in self.changes:
                where = f"`{change.old_path}` → `{change.new_path}`" if change.status == "moved" else f"`{change.path}`"
                details = "<br>".join(_cell(line) for line in _details(change)) or ""
                lines.append(f"| {where} | {change.status} | {details} |")
        if self.finding_lines():
            lines += [
                "",
                "Validation findings (`+` introduced, `-` fixed):",
                "",
                "```diff",
                *self.finding_lines(),
                "```",
            ]
        return "\n".join(lines) + "\n"

    def formatted(self, fmt: str) -> str:
        return {"text": self.to_text, "json": self.to_json, "markdown": self.to_markdown}[fmt]()


def with_findings(diff: BundleDiff, old: LoadedBundle, new: LoadedBundle, level: int = 3) -> BundleDiff:
    """``diff`` with the validation findings (at ``level``) the change introduced and fixed,
    matched as a baseline matches them.

    A moved memory's old findings are matched under its new path, so a rename alone introduces and fixes nothing.
    """
    from mif_rdf.validation import validate
    from mif_rdf.validation.baseline import compare, known

    # a moved memory keeps its findings
    moves = {c.old_path: c.new_path for c in diff.changes if c.status == "moved" and c.old_path and c.new_path}
    before = [known(replace(r, path=moves.get(r.path, r.path))) for r in validate(old, level=level).results]
    diff.findings = compare(validate(new, level=level), before)
    return diff


def _details(change: MemoryChange) -> list[str]:
    lines = [
        f"{key}: {_show(old)} -> {_show(new)}" for key, (old, new) in change.keys.items() if key != "relationships"
    ]
    lines += [f"+ {edge}" for edge in change.relationships_added]
    lines += [f"- {edge}" for edge in change.relationships_removed]
    if change.body_lines:
        lines.append(f"body changed ({change.body_lines[0]} -> {change.body_lines[1]} lines)")
    return lines


def _show(value: Any) -> str:
    return "(none)" if value is _MISSING else json.dumps(value, ensure_ascii=False, default=str)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


_MISSING: Any = _Missing()


def diff_bundles(old: LoadedBundle, new: LoadedBundle, old_name: str = "old", new_name: str = "new") -> BundleDiff:
    """The memories that differ between two loaded bundles (matched by id)."""
    old_titles, new_titles = _Titles(old), _Titles(new)
    changes = []
    for memory_id in sorted(set(old.memories) | set(new.memories)):
        before, after = old.memories.get(memory_id), new.memories.get(memory_id)
        if before is None:
            changes.append(MemoryChange(memory_id, "added", new_path=after.relpath))  # type: ignore[union-attr]
        elif after is None:
            changes.append(MemoryChange(memory_id, "removed", old_path=before.relpath))
        else:
            change = _compared(before, after, old_titles, new_titles)
            if change is not None:
                changes.append(change)
    changes.sort(key=lambda c: (c.path, c.id))
    return BundleDiff(old_name, new_name, changes)


def _compared(before: MemoryRecord, after: MemoryRecord, old: _Titles, new: _Titles) -> MemoryChange | None:
    keys = {
        key: (before.frontmatter.get(key, _MISSING), after.frontmatter.get(key, _MISSING))
        for key in sorted(set(before.frontmatter) | set(after.frontmatter))
        if before.frontmatter.get(key, _MISSING) != after.frontmatter.get(key, _MISSING)
    }
    old_edges, new_edges = _edges(before.frontmatter), _edges(after.frontmatter)
    body = (_lines(before.body), _lines(after.body)) if before.body != after.body else None
    moved = before.relpath != after.relpath
    if not (keys or body or moved):
        return None
    return MemoryChange(
        before.id,
        "moved" if moved else "changed",
        before.relpath,
        after.relpath,
        keys,
        [Edge(kind, target, new.of(after, target)) for kind, target in sorted(new_edges - old_edges)],
        [Edge(kind, target, old.of(before, target)) for kind, target in sorted(old_edges - new_edges)],
        body,
    )


class _Titles:
    """The titles of the memories a bundle's links resolve to (worked out on first use: most diffs change no edge)."""

    def __init__(self, bundle: LoadedBundle) -> None:
        self.bundle = bundle
        self.targets: dict[str, str] | None = None
        self.by_iri: dict[str, MemoryRecord] = {}

    def of(self, record: MemoryRecord, target: str) -> str | None:
        if self.targets is None:
            self.targets = self.bundle.targets()
            self.by_iri = {m.iri: m for m in self.bundle.memories.values()}
        for link in self.bundle.links_of(record, self.targets):
            found = self.by_iri.get(link.resolved) if link.target == target and link.resolved else None
            if found is not None and isinstance(found.frontmatter.get("title"), str):
                return str(found.frontmatter["title"])
        return None


def _edges(frontmatter: dict[str, Any]) -> set[tuple[str, str]]:
    found = frontmatter.get("relationships")
    if not isinstance(found, list):
        return set()
    return {(str(r.get("type")), str(r.get("target"))) for r in found if isinstance(r, dict)}


def _lines(text: str) -> int:
    return len(text.splitlines())
