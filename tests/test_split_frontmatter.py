"""Splitting a memory file at its frontmatter delimiters (:mod:`mif_rdf.source.markdown`).

The closing line is found with ``str.find`` and checked with the closing
expression (:func:`markdown._closing`); a search of the expression from the
first line on is the reference: the same frontmatter, body and errors on
every text made of delimiter-like lines.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mif_rdf.source.markdown import _CLOSING, FrontmatterError, SplitText, split_frontmatter

#: Lines that are, or nearly are, a delimiter: trailing blanks and carriage returns, more dashes, a leading space.
_LINES = [
    "---",
    "--- ",
    "---\t",
    "---\r",
    "---\r\r",
    "--- \r",
    "----",
    " ---",
    "--",
    "---x",
    "x: 1",
    "",
    "\r",
    "\ufeff---",
]


def reference(text: str) -> SplitText | str:
    """The split as one search of the closing expression from the second line, or the error's message."""
    had_bom = text.startswith("\ufeff")
    text = text[1:] if had_bom else text
    lines = text.split("\n", 1)
    delimiter = lines[0].rstrip("\r\n").rstrip(" \t") == "---"
    if not delimiter or len(lines) == 1:
        return "not closed" if delimiter else "no frontmatter"
    start = len(lines[0]) + 1
    closing = _CLOSING.search(text, start)
    if closing is None:
        return "not closed"
    return SplitText(text[start : closing.start()], text[closing.end() :], had_bom)


def split(text: str) -> SplitText | str:
    try:
        return split_frontmatter(text)
    except FrontmatterError as exc:
        return "not closed" if "not closed" in str(exc) else "no frontmatter"


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES), min_size=1, max_size=8),
    end=st.sampled_from(["", "\n", "\r\n", "\nbody\n"]),
)
def test_the_split_is_one_search_of_the_closing_line(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    assert split(text) == reference(text)


@pytest.mark.parametrize(
    ("text", "frontmatter", "body"),
    [
        ("---\na: 1\n---\nbody", "a: 1\n", "body"),
        ("---\n---\n", "", ""),
        ("--- \r\na: 1\n----\n---\t\r\nbody\n---\n", "a: 1\n----\n", "body\n---\n"),
        ("---\na: ---\n ---\n---", "a: ---\n ---\n", ""),
    ],
)
def test_the_closing_line_is_the_first_delimiter_after_the_opening(text: str, frontmatter: str, body: str) -> None:
    split_text = split_frontmatter(text)
    assert (split_text.frontmatter, split_text.body) == (frontmatter, body)


def test_a_file_without_a_closing_line_says_so() -> None:
    for text in ["---\na: 1\n", "---", "---\n----\n --- \n"]:
        with pytest.raises(FrontmatterError, match=re.escape("frontmatter is not closed")):
            split_frontmatter(text)
