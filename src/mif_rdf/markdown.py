"""The markdown file format: YAML frontmatter between ``---`` lines, then the body.

The body is everything after the closing delimiter line, byte for byte (it
becomes the ``content`` literal verbatim, see docs/decisions.md), so
:func:`render_memory` followed by :func:`split_frontmatter` gives back the
same body.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .yamlio import dump_yaml

BOM = "\ufeff"


class FrontmatterError(ValueError):
    """The text has no well-formed frontmatter block."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class SplitText:
    frontmatter: str
    body: str
    had_bom: bool


def _is_delimiter(line: str) -> bool:
    return line.rstrip("\r\n").rstrip(" \t") == "---"


def split_frontmatter(text: str) -> SplitText:
    """Split a memory file into its YAML text and its verbatim body."""
    had_bom = text.startswith(BOM)
    if had_bom:
        text = text[1:]
    lines = text.split("\n")
    if not _is_delimiter(lines[0]) or len(lines) == 1:
        if _is_delimiter(lines[0]):
            raise FrontmatterError("frontmatter is not closed: no second '---' line", line=1)
        raise FrontmatterError("no YAML frontmatter: the file must start with a '---' line", line=1)
    start = offset = len(lines[0]) + 1
    for line in lines[1:-1]:  # the last piece has no newline, so it cannot close the block
        if _is_delimiter(line):
            return SplitText(text[start:offset], text[offset + len(line) + 1 :], had_bom)
        offset += len(line) + 1
    if _is_delimiter(lines[-1]) and len(lines) > 1:
        return SplitText(text[start:offset], "", had_bom)
    raise FrontmatterError("frontmatter is not closed: no second '---' line", line=1)


def render_memory(frontmatter: dict[str, Any], body: str) -> str:
    """Markdown text of one memory: frontmatter block, then the body unchanged."""
    return "---\n" + dump_yaml(frontmatter) + "---\n" + body
