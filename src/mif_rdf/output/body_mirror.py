"""The body's ``## Relationships`` section kept in step with the frontmatter (Invariant 3).

The frontmatter is authoritative and the body mirrors each relationship as a
markdown link line, ``- <type> [Title](<target>)``.  When write-back changes
a memory's relationships and leaves its body alone, the mirror follows: the
line of a removed relationship goes, a new relationship gets a line after the
section's last link line, in the list marker and indentation that line uses,
titled with the target memory's title (or entity's name).  A body without the
section gets one at its end only when relationships are added.  Every other
line stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mif_rdf.source.identity import canonical_relationship_name
from mif_rdf.validation.bundle_rules import body_relationships

Edge = tuple[str, str]  # canonical type, target as written


def edges(relationships: Any) -> list[tuple[Edge, str]]:
    """The well-formed relationships as (canonical type, target) with the type as the author spells it."""
    out = []
    for rel in relationships if isinstance(relationships, list) else []:
        if isinstance(rel, dict) and isinstance(rel.get("type"), str) and isinstance(rel.get("target"), str):
            out.append(((canonical_relationship_name(rel["type"]), rel["target"]), rel["type"]))
    return out


def mirrored_body(body: str, old: Any, new: Any, title_of: Callable[[str], str]) -> str:
    """``body`` with its ``## Relationships`` lines changed from the ``old`` relationships to the ``new`` ones."""
    before = {edge for edge, _ in edges(old)}
    after = edges(new)
    removed = before - {edge for edge, _ in after}
    added = [(edge, spelling) for edge, spelling in after if edge not in before]
    if not removed and not added:
        return body
    lines = body.split("\n")
    links = list(body_relationships(body))
    drop = {
        number - 1 for number, _, kind, target in links if (canonical_relationship_name(kind or ""), target) in removed
    }
    kept_links = [number - 1 for number, *_ in links if number - 1 not in drop]
    new_lines = [f"- {spelling} [{title_of(target)}]({target})" for (_, target), spelling in added]
    if new_lines and kept_links:
        last = lines[kept_links[-1]]
        marker = last[: len(last) - len(last.lstrip())] + last.lstrip()[0]
        new_lines = [marker + line[1:] for line in new_lines]
    out: list[str] = []
    for index, line in enumerate(lines):
        if index not in drop:
            out.append(line)
        if new_lines and kept_links and index == kept_links[-1]:
            out.extend(new_lines)
            new_lines = []
    if not new_lines:
        return "\n".join(out)
    heading = next((i for i, line in enumerate(out) if line.strip() == "## Relationships"), None)
    if heading is not None:  # no link line kept: after the heading and its blank line
        at = heading + 1 + int(heading + 1 < len(out) and not out[heading + 1].strip())
        out[at:at] = new_lines
        return "\n".join(out)
    text = "\n".join(out)
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"
    return text + "## Relationships\n\n" + "\n".join(new_lines) + "\n"
