"""Minimal frontmatter edits (mif_rdf.output.frontmatter_edit) against a re-parse oracle.

Random edits (set, delete, add, at any depth) on the frontmatter texts of
every fixture and example file: the edited text must parse to exactly the
new value, and the text of every top-level key whose value did not change
must still be there byte for byte.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mif_rdf.output.frontmatter_edit import edit_frontmatter, same
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter
from mif_rdf.source.yamlio import YamlTimestamp, load_yaml

ROOT = Path(__file__).parent.parent


def _texts() -> list[str]:
    texts = []
    for path in sorted([*(ROOT / "tests" / "fixtures" / "bundles").rglob("*.md"), *(ROOT / "examples").rglob("*.md")]):
        try:
            text = split_frontmatter(path.read_text(encoding="utf-8")).frontmatter
            data = load_yaml(text).data
        except (FrontmatterError, yaml.YAMLError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and data:
            texts.append(text)
    return texts


TEXTS = _texts()
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_ ", min_size=1, max_size=12)
SCALARS = st.one_of(
    WORD,
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.text(max_size=30),  # anything, quoting included
    st.sampled_from(["2026-01-15T10:30:00Z", "2025-11-18"]).map(YamlTimestamp),
    st.sampled_from(["2026-01-15T10:30:00Z", "1.0.0", "true", "null", "- a", "a: b", "# x", "line one\nline two\n"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(WORD, inner, max_size=3)),
    max_leaves=8,
)


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every dict and list inside ``value`` (the root included)."""
    found = [path] if isinstance(value, (dict, list)) else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        found += _containers(child, (*path, key))
    return found


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any]]:
    text = draw(st.sampled_from(TEXTS))
    old = load_yaml(text).data
    new = copy.deepcopy(old)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_containers(new)))
        target = new
        for step in path:
            target = target[step]
        op = draw(st.sampled_from(["set", "delete", "add"]))
        if isinstance(target, dict):
            keys = [k for k in target if not (path == () and k == "id")]
            if op == "add" or not keys:
                target[draw(WORD)] = draw(VALUES)
            elif op == "set":
                target[draw(st.sampled_from(keys))] = draw(VALUES)
            else:
                del target[draw(st.sampled_from(keys))]
        else:
            if op == "add" or not target:
                target.insert(draw(st.integers(0, len(target))), draw(VALUES))
            elif op == "set":
                target[draw(st.integers(0, len(target) - 1))] = draw(VALUES)
            else:
                del target[draw(st.integers(0, len(target) - 1))]
    return text, old, new


def _key_texts(text: str) -> dict[str, str]:
    """The lines of each top-level key (to the next key, trailing blank and comment lines left out)."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    lines = text.splitlines(keepends=True)
    starts = [key.start_mark.line for key, _ in root.value] + [len(lines)]
    spans = {}
    for (key, _), start, end in zip(root.value, starts, starts[1:]):
        chunk = lines[start:end]
        while len(chunk) > 1 and (not chunk[-1].strip() or chunk[-1].lstrip().startswith("#")):
            chunk.pop()
        spans[key.value] = "".join(chunk)
    return spans


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_random_edits_parse_to_the_new_value_and_keep_the_other_keys(
    case: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    text, old, new = case
    edited = edit_frontmatter(text, old, new)
    assert same(load_yaml(edited).data or {}, new)
    for key, span in _key_texts(text).items():
        if key in new and same(old[key], new[key]):
            assert span in edited, key


def test_a_scalar_change_is_one_line_and_keeps_its_comment() -> None:
    text = 'id: x\ntitle: "Old"  # the title\ntags:\n  - a\n  - b\n\n# notes\nsummary: >-\n  folded\n  text\n'
    old = load_yaml(text).data
    edited = edit_frontmatter(text, old, {**old, "title": "New"})
    assert edited == text.replace('"Old"', "New")


def test_list_items_are_removed_and_added_in_the_file_style() -> None:
    text = "id: x\ntags:\n  - a  # first\n  - b\n  - c\nother: 1\n"
    old = load_yaml(text).data
    assert (
        edit_frontmatter(text, old, {**old, "tags": ["a", "c", "d"]})
        == "id: x\ntags:\n  - a  # first\n  - c\n  - d\nother: 1\n"
    )


def test_crlf_text_stays_crlf() -> None:
    text = "id: x\r\ntags:\r\n  - a\r\n"
    old = load_yaml(text).data
    assert (
        edit_frontmatter(text, old, {**old, "tags": ["a", "b"], "title": "T"})
        == "id: x\r\ntags:\r\n  - a\r\n  - b\r\ntitle: T\r\n"
    )


def _marks(node: yaml.Node) -> list[tuple[str, int, int]]:
    """Every node's kind and start and end offsets, depth first."""
    out = [(type(node).__name__, node.start_mark.index, node.end_mark.index)]
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out += _marks(key) + _marks(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            out += _marks(item)
    return out


NON_ASCII = [
    "title: Zürich résumé\ntags:\n- naïve\n- über\nnote: 'ça va'\n",
    'title: "\U0001f600 emoji"\nitems:\n  - \U0001f680 rocket\n  - name: 漢字\n    value: 3\n',
    "title: café\r\ntags:\r\n- crème\r\n- brûlée\r\n",  # CRLF
    "a: x\x85b: 1\nc: é\n",  # NEL breaks a line in YAML 1.1
    "a: 'x\x85y'\nc: é\nd:\x85- ü\n",
    "a: é\u2028b: 1\nc: \u2029\nd: ü\n",  # line and paragraph separators
    "nested:\n  deeper:\n    - 'ß'\n    - {flow: ä, other: [ö, 1]}\n  after: ő\nlast: |\n  ümlaut block\n  two\n",
    '# é comment\nkey: value # ü trailing\n\nother: "x\\u00e9"\n',
]


def test_composed_marks_equal_the_pure_python_ones_on_any_frontmatter(tmp_path: Path) -> None:
    """Edits are placed with libyaml's tree (faster; on text that is not ASCII its byte indexes are set again from
    lines and columns): every node's offsets must be the pure loader's, on every example and fixture, generated
    memories of every field family (accented text) and texts with astral characters, CRLF and YAML 1.1's other line
    breaks."""
    from conftest import EXAMPLES, FIXTURES
    from mif_rdf.output.frontmatter_edit import _composed
    from synthetic import generate_bundle

    generate_bundle(tmp_path / "gen", 30, seed=5)
    texts = list(NON_ASCII)
    for path in [
        *EXAMPLES.rglob("*.md"),
        *(p for p in FIXTURES.rglob("*.md") if "hostile" not in p.parts),  # alias bombs: no tree to walk
        *(tmp_path / "gen").rglob("*.md"),
    ]:
        try:
            texts.append(split_frontmatter(path.read_text(encoding="utf-8")).frontmatter)
        except (FrontmatterError, UnicodeDecodeError):
            continue
    compared = {True: 0, False: 0}  # by text.isascii()
    for text in texts:
        try:
            pure = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            continue
        if pure is None:
            continue
        assert _marks(_composed(text)) == _marks(pure), text
        compared[text.isascii()] += 1
    assert compared[True] > 50 and compared[False] >= len(NON_ASCII) + 5
