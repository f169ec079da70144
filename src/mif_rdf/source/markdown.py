"""The markdown file format: YAML frontmatter between ``---`` lines, then the body.

The body is everything after the closing delimiter line, byte for byte (it
becomes the ``content`` literal verbatim, see docs/decisions.md), so
:func:`render_memory` followed by :func:`split_frontmatter` gives back the
same body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mif_rdf.source.yamlio import dump_yaml

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


#: The closing delimiter: a line that is ``---`` but for trailing blanks and carriage returns (as _is_delimiter).
_CLOSING = re.compile(r"^---[ \t]*\r*(?:\n|\Z)", re.MULTILINE)


def _is_delimiter(line: str) -> bool:
    return line.rstrip("\r\n").rstrip(" \t") == "---"


def split_frontmatter(text: str) -> SplitText:
    """Split a memory file into its YAML text and its verbatim body."""
    had_bom = text.startswith(BOM)
    if had_bom:
        text = text[1:]
    end = text.find("\n")
    first = text if end < 0 else text[:end]
    if not _is_delimiter(first) or end < 0:
        if _is_delimiter(first):
            raise FrontmatterError("frontmatter is not closed: no second '---' line", line=1)
        raise FrontmatterError("no YAML frontmatter: the file must start with a '---' line", line=1)
    start = end + 1
    closing = _closing(text, start)
    if closing is None:
        raise FrontmatterError("frontmatter is not closed: no second '---' line", line=1)
    return SplitText(text[start : closing.start()], text[closing.end() :], had_bom)


def _closing(text: str, start: int) -> re.Match[str] | None:
    """``_CLOSING.search(text, start)``: the first line from ``start`` on that closes the frontmatter.

    Only lines that start with ``---`` are tried, found with ``str.find``: a
    search for a multi-line ``^`` tries the expression at every character of
    the frontmatter, which was most of the split's time.
    """
    at = start if text.startswith("---", start) else text.find("\n---", start) + 1
    while at > 0:  # ``start`` follows the first line's newline: a line found is never at 0
        found = _CLOSING.match(text, at)
        if found is not None:
            return found
        at = text.find("\n---", at) + 1
    return None


def render_memory(frontmatter: dict[str, Any], body: str) -> str:
    """Markdown text of one memory: frontmatter block, then the body unchanged."""
    return "---\n" + dump_yaml(frontmatter) + "---\n" + body
