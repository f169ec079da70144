"""mif_rdf.source.fastyaml.load_yaml must yield exactly what mif_rdf.source.yamlio.load_yaml yields.

"Exactly" means: the same data with the same Python types at every node
(int vs float vs bool vs str, YamlTimestamp vs str, None), keys in the same
order, floats with the same repr, the same duplicate-key issues (message,
line, key, first line), and on bad YAML the same exception type and message.

Inputs: every YAML text among the fixtures (tests/fixtures with the large
hostile cases, examples/, the shared spec fixtures), generated bundles, a
catalogue of YAML 1.1/1.2 pitfalls, and hypothesis-generated documents.  Run
longer with FASTYAML_EXAMPLES=20000.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, REPO
from mif_rdf.source import fastyaml
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter
from mif_rdf.source.yamlio import YamlTimestamp
from mif_rdf.source.yamlio import load_yaml as reference_load
from synthetic import generate_bundle

HAVE_BACKEND = importlib.util.find_spec("yaml_rs") is not None
needs_backend = pytest.mark.skipif(
    not HAVE_BACKEND, reason="yaml-rs is not installed: only the PyYAML fallback is in use"
)
EXAMPLES_PER_TEST = int(os.environ.get("FASTYAML_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES_PER_TEST, deadline=None, suppress_health_check=list(HealthCheck))


# --------------------------------------------------------------------------
# Exact comparison
# --------------------------------------------------------------------------
def _typed(value: Any, seen: dict[int, int] | None = None) -> Any:
    """``value`` as nested tuples naming the exact type of every node.

    A container met again (a YAML alias: PyYAML shares the object) is written
    as a reference to its first visit, so alias bombs stay small, cycles end,
    and the sharing itself is compared too.
    """
    if seen is None:
        seen = {}
    kind = type(value)
    if kind is dict or kind is list:
        if id(value) in seen:
            return ("ref", seen[id(value)])
        seen[id(value)] = len(seen)
        if kind is dict:
            return ("dict", tuple((_typed(k, seen), _typed(v, seen)) for k, v in value.items()))
        return ("list", tuple(_typed(v, seen) for v in value))
    if kind is float:
        return ("float", repr(value))
    return (kind.__name__, value)


def outcome(load: Callable[[str], Any], text: str) -> Any:
    try:
        result = load(text)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return ("error", type(exc), str(exc))
    return ("ok", _typed(result.data), [vars(issue) for issue in result.issues])


def assert_identical(text: str) -> None:
    expected = outcome(reference_load, text)
    got = outcome(fastyaml.load_yaml, text)
    assert got == expected, f"fast and PyYAML differ on {text!r}"


# --------------------------------------------------------------------------
# The backend is really in use
# --------------------------------------------------------------------------
@needs_backend
def test_the_backend_is_active() -> None:
    from importlib.metadata import version

    installed = version("yaml-rs")
    assert installed in fastyaml.TESTED_VERSIONS, (
        f"yaml-rs {installed} is not among the tested versions {fastyaml.TESTED_VERSIONS}: "
        "run this file with FASTYAML_EXAMPLES=20000 and add it if it passes"
    )
    assert fastyaml.backend() == f"yaml-rs {installed}"


@needs_backend
def test_a_typical_memory_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "id: 889e8faf-a691-45dd-9776-8116402d391d\ntype: episodic\ncreated: 2024-09-29T07:48:07Z\n"
        'title: Audit Escalation 8333\ntags:\n- migration\n- api\nontology:\n  id: ai-memory\n  version: "1.0.0"\n'
        "relationships:\n- type: uses\n  target: '/procedural/x.md'\n  strength: 0.728\n  metadata:\n"
        "    extractedAt: '2024-09-29T08:53:07Z'\n    done: true\n"
    )
    data = read_fast(text, monkeypatch)
    assert type(data["created"]) is YamlTimestamp
    assert type(data["relationships"][0]["metadata"]["extractedAt"]) is str


@needs_backend
def test_versions_months_and_relative_paths_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shapes that sent 3 % of the generated memories to PyYAML (a version ``1.0.0``, a model version
    ``2024-01``, a relationship target ``../x.md``) are read by yaml-rs, to the same strings."""
    text = (
        "id: 889e8faf-a691-45dd-9776-8116402d391d\nontology:\n  id: ai-memory\n  version: 1.0.0\n"
        "provenance:\n  modelVersion: 2024-01\nrelationships:\n- type: uses\n  target: ../../procedural/x-1.md\n"
        "- type: relates-to\n  target: ./y.md\n"
    )
    data = read_fast(text, monkeypatch)
    assert data["ontology"]["version"] == "1.0.0" and data["provenance"]["modelVersion"] == "2024-01"


def read_fast(text: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``text`` read by the fast path alone (PyYAML forbidden), checked equal to PyYAML's reading; its data."""
    assert fastyaml.is_fast_candidate(text)
    with monkeypatch.context() as patched:
        patched.setattr(fastyaml, "_pyyaml_load", _forbidden)
        result = fastyaml.load_yaml(text)
    assert _typed(result.data) == _typed(reference_load(text).data)
    return result.data


def _forbidden(text: str) -> Any:
    raise AssertionError(f"fell back to PyYAML on {text!r}")


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------
def _yaml_texts(folder: Path) -> list[tuple[str, str]]:
    """(name, YAML text) for every frontmatter / YAML file under folder; files
    without frontmatter are tried whole (hostile input)."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix not in (".md", ".yaml", ".yml"):
            continue
        raw = path.read_bytes().decode("utf-8", errors="surrogateescape")
        name = str(path.relative_to(folder))
        if path.suffix == ".md":
            try:
                raw = split_frontmatter(raw).frontmatter
            except FrontmatterError:
                pass
        texts.append((name, raw))
    return texts


def _fixture_folders() -> dict[str, Path]:
    return {"tests/fixtures": REPO / "tests" / "fixtures", "examples": EXAMPLES}


@pytest.mark.parametrize("label", sorted(_fixture_folders()))
def test_every_fixture_reads_the_same(label: str) -> None:
    check_every_yaml_text_reads_the_same(_fixture_folders()[label])


def check_every_yaml_text_reads_the_same(folder: Path) -> None:
    """The fast YAML path gives PyYAML's outcome on every frontmatter and YAML file under folder."""
    texts = _yaml_texts(folder)
    assert texts, f"no YAML found under {folder}"
    for name, text in texts:
        expected = outcome(reference_load, text)
        assert outcome(fastyaml.load_yaml, text) == expected, name


def test_the_large_hostile_cases_read_the_same(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "fixtures" / "hostile"))
    try:
        from make_hostile import write_large
    finally:
        sys.path.pop(0)
    write_large(tmp_path, tiny_files=0)
    for name in ("huge.md", "deep-nesting.md"):
        text = split_frontmatter((tmp_path / name).read_text(encoding="utf-8")).frontmatter
        assert_identical(text)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_memories_read_the_same(tmp_path: Path, seed: int) -> None:
    paths = generate_bundle(tmp_path, 400, seed=seed)
    paths += sorted((tmp_path / ".mif").rglob("*.yaml"))
    fast = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".md":
            text = split_frontmatter(text).frontmatter
        assert_identical(text)
        fast += fastyaml.is_fast_candidate(text)
    # the identity above is only interesting if the fast path was taken
    assert fast >= 0.95 * len(paths)


# --------------------------------------------------------------------------
# A catalogue of YAML 1.1 / 1.2 pitfalls, in every position
# --------------------------------------------------------------------------
PITFALLS = [
    # YAML 1.1 booleans and nulls (1.2 reads most as strings), odd cases
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
    "true",
    "True",
    "TRUE",
    "tRUE",
    "false",
    "False",
    "FALSE",
    "fALSE",
    "null",
    "Null",
    "NULL",
    "nULL",
    "~",
    "",
    # integers: octal, hex, binary, underscores, sexagesimal, signs, leading zeros, big
    "0",
    "-0",
    "+0",
    "00",
    "01",
    "07",
    "08",
    "09",
    "010",
    "0o10",
    "0O10",
    "0x1F",
    "0X1F",
    "0b101",
    "0b",
    "0x",
    "1_000",
    "1__0",
    "_1",
    "1:30",
    "1:30.5",
    "190:20:30",
    "-1:30",
    "+12",
    "-12",
    "12345678901234567",
    "123456789012345678",
    "1234567890123456789",
    "12345678901234567890",
    "99999999999999999999999",
    # floats: exponents, dots, infinities, NaN, underscores
    "1e3",
    "1E3",
    "1.0e3",
    "1.0e+3",
    "1.0E-3",
    "1.5",
    "-1.5",
    "+1.5",
    "0.1",
    "1.",
    ".5",
    "-.5",
    "._5",
    ".",
    ".inf",
    ".Inf",
    ".INF",
    "-.inf",
    "+.inf",
    ".nan",
    ".NaN",
    ".NAN",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "Infinity",
    "1_0.5",
    "0.000001",
    "123456789012345.123456789012345",
    "1.7976931348623157e308",
    "1e999",
    # timestamps: every YAML 1.1 form, impossible dates, quoted
    "2024-01-01",
    "2024-1-1",
    "2024-01-01T10:00:00Z",
    "2024-01-01t10:00:00z",
    "2024-01-01 10:00:00",
    "2024-01-01   10:00:00",
    "2024-01-01T10:00:00.123456789Z",
    "2024-01-01T10:00:00.Z",
    "2024-01-01T10:00:00+05:00",
    "2024-01-01T10:00:00+5",
    "2024-01-01T10:00:00 -05:00",
    "2024-01-01T10:00:00",
    "2024-13-45",
    "2024-02-30",
    "2024-01-01T25:61:61Z",
    "0000-00-00",
    "20240101",
    "2024-01",
    "2024-01-01T10:00",
    "'2024-01-01'",
    '"2024-01-01T10:00:00Z"',
    '"2024\\x2d01-01"',
    "2024-01-01 is a date",
    "- 2024-01-01",
    # strings in every quoting style
    "'yes'",
    '"010"',
    "'~'",
    "''",
    '""',
    "'a''b'",
    '"a\\tb"',
    '"\\x41"',
    '"\\u00e9"',
    '"\\ud800"',
    '"\\/"',
    '"\\e"',
    '"\\N"',
    '"\\L"',
    '"\\x00"',
    '"\\U0001F600"',
    "'multi\n  line'",
    '"multi\n  line"',
    "word",
    "two words",
    "Zürich café",
    "a:b",
    "a: b",
    "a #c",
    "a#b",
    "#c",
    "urn:mif:x:y",
    "/path/to.md",
    "https://x.y/z?q=1#f",
    "C#",
    "x[1]",
    "x{1}",
    "a,b",
    "don't",
    'it\'s "x"',
    "trailing ",
    "a  b",
    "889e8faf-a691-45dd-9776-8116402d391d",
    "2ed2dc4a",
    "0ba79",
    "0b1c",
    "123abc",
    "12 ab",
    "1 2",
    "-x",
    "--x",
    "?x",
    ":x",
    "=",
    "<<",
    "<x",
    "x\u2028y",
    "x\x85y",
    "\ufeffx",
    "x\x7fy",
    "x\ty",
    "\u00a0x",
    "é",
    "𝄞",
    "x\u200by",
    # tags, anchors, aliases, merge keys, flow and block collections and scalars
    "!!str 1",
    "!!int '7'",
    "!!float 1",
    "!!bool yes",
    "!!null ''",
    "!!binary aGk=",
    "!!set {a}",
    "!!omap [a: 1]",
    "!!timestamp 2024-01-01",
    "!foo x",
    "!!python/object:os.system {}",
    "&a 1",
    "*a",
    "&a {k: 1}",
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    "[a, [b]]",
    "[yes, 010, 2024-01-01]",
    "{a: 1, a: 2}",
    "|\n  lit\n  text",
    "|-\n  x",
    ">\n  folded\n  text",
    "@x",
    "`x",
    "%x",
    "---",
    "...",
    # strings the fast path takes since session 15: versions, a year and month, relative paths
    "1.0.0",
    "01.2.3",
    "1.0.0.0",
    "1.0.0.0.0",
    "2024-01",
    "2024-13",
    "0000-00",
    "../x.md",
    "./x",
    "./",
    "../",
    "./inf",
    "../.nan",
    ".../x",
    "../x y",
    "../x:y",
    ".5/x",
]

CONTEXTS = [
    "k: {}",
    "k: {}\n",
    "- {}\n",
    "{}: v\n",
    "a:\n  k: {}\n",
    "a:\n- {}\n- x\n",
    "k: {}  # note\n",
    "k: 1\nk2: {}\nk: 2\n",
    "x: '2024-01-01'\ny: {}\n",
    "x: {}\ny: 2024-01-01\nz: '2024-01-01'\n",
    "base: &b\n  x: {}\nd:\n  <<: *b\n  y: 2\n",
    "t: 2024-01-01T10:00:00Z\nk: {}\nu: '2024-01-01T10:00:00Z'\n",
]


@pytest.mark.parametrize("context", CONTEXTS)
def test_pitfalls_read_the_same(context: str) -> None:
    for scalar in PITFALLS:
        assert_identical(context.format(scalar))


def test_duplicate_keys_read_the_same() -> None:
    for text in [
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        'a: 1\n"a": 2\na: 3\n',
        "x:\n  a: 1\n  b: 2\n  a: 3\n",
        "- a: 1\n  a: 2\n",
        "true: 1\nTrue: 2\n'true': 3\n",
        "null: 1\n~: 2\n",
        "1: a\n'1': b\n01: c\n",
        "<<: {a: 1}\n<<: {b: 2}\n",
        "a: 1\n<<: {a: 2}\n",
        "2024-01-01: a\n'2024-01-01': b\n",
    ]:
        assert_identical(text)


def test_syntax_errors_are_pyyamls() -> None:
    for text in [
        "a: [1, 2",
        "a: 'unclosed",
        "- a\nb: 1",
        "a: 1\n---\nb: 2",
        "a:\n  b: 1\n c: 2",
        "a: 1\n  b: 2",
        "  - x\n- y\n",
        "a: b: c",
        "\ta: 1",
        "a: 1\n\tb: 2",
        'a: "\\q"',
        "a: &x\nb: *y",
        "? [1]\n: x",
        "a: =",
    ]:
        assert_identical(text)


# --------------------------------------------------------------------------
# Hypothesis
# --------------------------------------------------------------------------
_ALPHABET = "0123456789abcdefxobtzinTZNFYesyl.-_:+ #'\"~<=&*!|>%@`[]{},?\\/éü\u00a0\u2028\t"
_tricky = st.one_of(st.sampled_from(PITFALLS), st.text(alphabet=_ALPHABET, max_size=16))


def _single(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _double(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


@FUZZ
@given(scalar=_tricky, style=st.sampled_from(["plain", "single", "double"]), context=st.sampled_from(CONTEXTS))
def test_any_scalar_reads_the_same(scalar: str, style: str, context: str) -> None:
    text = {"plain": scalar, "single": _single(scalar), "double": _double(scalar)}[style]
    assert_identical(context.format(text))


# Nested data written as block YAML by a small emitter whose choices (scalar
# style, indentation, indentless sequences) are part of the example.
_timestamps = st.builds(
    lambda y, mo, d, h, mi, s, frac, tz, date_only: (
        f"{y:04d}-{mo:02d}-{d:02d}" + ("" if date_only else f"T{h:02d}:{mi:02d}:{s:02d}{frac}{tz}")
    ),
    st.integers(0, 9999),
    st.integers(0, 19),
    st.integers(0, 39),
    st.integers(0, 29),
    st.integers(0, 69),
    st.integers(0, 69),
    st.sampled_from(["", ".5", ".123456789", "."]),
    st.sampled_from(["", "Z", "+05:30", "-00:00", "+5"]),
    st.booleans(),
)
_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzAZ_/-.:@#' éü0123456789", min_size=1, max_size=12)
_leaf_texts = st.one_of(
    _tricky,
    _timestamps,
    _timestamps,
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.sampled_from(["true", "false", "null", "~", "word", "two words", "urn:mif:x", "/a/b.md", "_x/y"]),
    _words,
    _words,
    st.text(max_size=12),
)
_leaves = st.tuples(_leaf_texts, st.sampled_from(["plain", "plain", "plain", "single", "double"]))
_key_texts = st.one_of(
    st.sampled_from(["id", "type", "a", "b", "x y", "@type", "yes", "on", "1", "true", "<<", "created", "_ns"]),
    st.sampled_from(["id", "type", "title", "tags", "name", "relationships", "metadata", "strength"]),
    _words,
    _tricky,
)
_keys = st.tuples(_key_texts, st.sampled_from(["plain", "plain", "single", "double"]))
_trees = st.recursive(
    _leaves,
    lambda children: st.one_of(st.lists(children, max_size=4), st.lists(st.tuples(_keys, children), max_size=5)),
    max_leaves=25,
)


def _render(scalar: tuple[str, str]) -> str:
    text, style = scalar
    return text if style == "plain" else _single(text) if style == "single" else _double(text)


def _emit(node: Any, indent: int, step: int, out: list[str], prefix: str) -> None:
    """Write node as block YAML; ``prefix`` is what goes before it on its first line."""
    pad = " " * indent
    if isinstance(node, tuple):
        out.append(f"{prefix} {_render(node)}" if prefix else _render(node))
        return
    if not node:
        out.append(f"{prefix} []")
        return
    if prefix:
        out.append(prefix)
    is_mapping = isinstance(node[0], tuple) and len(node[0]) == 2 and isinstance(node[0][0], tuple)
    for item in node:
        if is_mapping:
            key, value = item
            _emit(value, indent + step, step, out, f"{pad}{_render(key)}:")
        else:
            _emit(item, indent + step, step, out, f"{pad}-")


@FUZZ
@given(
    tree=st.lists(st.tuples(_keys, _trees), min_size=1, max_size=6),
    step=st.sampled_from([1, 2, 3, 4]),
    trailing_newline=st.booleans(),
)
def test_any_block_document_reads_the_same(tree: list[Any], step: int, trailing_newline: bool) -> None:
    lines: list[str] = []
    for key, value in tree:
        _emit(value, step, step, lines, f"{_render(key)}:")
    assert_identical("\n".join(lines) + ("\n" if trailing_newline else ""))


# The same with tame scalars (words, numbers, timestamps, anything quoted), so
# that most documents pass the pre-check and the fast path itself is tested.
_tame_words = st.builds(
    str.__add__,
    st.sampled_from("abcdefghijklmnopqrstuvwxyzAZéü"),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_/-.:@ éü", max_size=12),
)
_tame_timestamps = st.builds(
    lambda y, mo, d, h, mi, s, frac, tz, date_only: (
        f"{y:04d}-{mo:02d}-{d:02d}" + ("" if date_only else f"T{h:02d}:{mi:02d}:{s:02d}{frac}{tz}")
    ),
    st.integers(1900, 2100),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    st.sampled_from(["", ".5", ".123456"]),
    st.sampled_from(["", "Z", "+05:30", "-08:00"]),
    st.booleans(),
)
_printable = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=10)
_tame_leaves = st.one_of(
    st.tuples(
        st.one_of(
            _tame_words,
            _tame_timestamps,
            st.integers(-(10**17), 10**17).map(str),
            st.decimals(-(10**6), 10**6, allow_nan=False, allow_infinity=False, places=3).map(str),
            st.sampled_from(["true", "False", "NULL", "~", "[]", "{}"]),
        ),
        st.just("plain"),
    ),
    st.tuples(st.one_of(_tricky, _tame_timestamps, _printable), st.sampled_from(["single", "double"])),
)
_tame_keys = st.tuples(
    st.one_of(st.sampled_from(["id", "type", "title", "tags", "created", "metadata"]), _tame_words),
    st.sampled_from(["plain", "plain", "plain", "single"]),
)
_tame_trees = st.recursive(
    _tame_leaves,
    lambda children: st.one_of(st.lists(children, max_size=4), st.lists(st.tuples(_tame_keys, children), max_size=5)),
    max_leaves=25,
)


@FUZZ
@given(tree=st.lists(st.tuples(_tame_keys, _tame_trees), min_size=1, max_size=6), step=st.sampled_from([1, 2, 3, 4]))
def test_any_tame_block_document_reads_the_same(tree: list[Any], step: int) -> None:
    lines: list[str] = []
    for key, value in tree:
        _emit(value, step, step, lines, f"{_render(key)}:")
    assert_identical("\n".join(lines) + "\n")


# Line soup: real frontmatter lines re-indented, repeated, dropped and spiced
# with pitfalls, so that structure (indentation, multi-line plain scalars,
# duplicates) is tested on documents that mostly pass the pre-check.
def _memory_lines() -> list[str]:
    from synthetic import generate_ids, generate_memory, generate_paths

    rng = random.Random(5)
    ids, paths = generate_ids(rng, 30), generate_paths(rng, 30)
    lines: set[str] = set()
    for index in range(30):
        _, text = generate_memory(rng, index, ids, paths)
        lines.update(split_frontmatter(text).frontmatter.splitlines())
    return sorted(lines)


_LINES = _memory_lines()
_line = st.one_of(
    st.sampled_from(_LINES),
    st.sampled_from(_LINES),
    st.sampled_from(_LINES),
    st.tuples(st.sampled_from(["k: ", "- ", "k:\n  - ", "'k': ", "- k: "]), _tricky).map("".join),
    st.sampled_from(["", "# comment", "-", "k:", "  - x", "    z", "---"]),
)
_soup = st.lists(st.tuples(st.sampled_from([0, 0, 0, 0, 0, 0, 1, -1, 2, -2, 4, -4]), _line), min_size=1, max_size=14)


@FUZZ
@given(soup=_soup)
def test_any_line_soup_reads_the_same(soup: list[tuple[int, str]]) -> None:
    lines = []
    for shift, line in soup:
        stripped = line.lstrip(" ")
        indent = max(0, len(line) - len(stripped) + shift)
        lines.append(" " * indent + stripped)
    assert_identical("\n".join(lines) + "\n")


@FUZZ
@given(
    seed=st.integers(0, 2**32 - 1),
    edits=st.lists(
        st.tuples(
            st.integers(0, 200),
            st.sampled_from(["drop", "repeat", "indent", "dedent", "yes", "quote", "unquote", "tab", "colon"]),
        ),
        max_size=4,
    ),
)
def test_any_edited_memory_reads_the_same(seed: int, edits: list[tuple[int, str]]) -> None:
    from synthetic import generate_ids, generate_memory, generate_paths

    rng = random.Random(seed)
    ids, paths = generate_ids(rng, 5), generate_paths(rng, 5)
    _, text = generate_memory(rng, rng.randrange(5), ids, paths)
    lines = split_frontmatter(text).frontmatter.splitlines()
    for position, edit in edits:
        i = position % len(lines)
        line = lines[i]
        if edit == "drop":
            del lines[i]
        elif edit == "repeat":
            lines.insert(i, line)
        elif edit == "indent":
            lines[i] = " " + line
        elif edit == "dedent":
            lines[i] = line[1:] if line.startswith(" ") else line
        elif edit == "yes":
            lines[i] = re.sub(r": .*$", ": yes", line)
        elif edit == "quote":
            lines[i] = re.sub(r": (.+)$", r": '\1'", line)
        elif edit == "unquote":
            lines[i] = re.sub(r": '([^']*)'$", r": \1", line)
        elif edit == "tab":
            lines[i] = "\t" + line
        else:
            lines[i] = line.replace(": ", ":  ", 1)
        if not lines:
            break
    assume(lines)
    assert_identical("\n".join(lines) + "\n")


# --------------------------------------------------------------------------
# The fallbacks
# --------------------------------------------------------------------------
def test_without_the_backend_everything_goes_to_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "_parse", None)
    for text in ["a: 1\ncreated: 2024-01-01T10:00:00Z\n", "a: 1\na: 2\n", "a: [1", ""]:
        assert_identical(text)


def test_a_failing_backend_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    class Panic(BaseException):  # what a Rust panic looks like to Python
        pass

    def boom(text: str) -> Any:
        raise Panic("backend crashed")

    monkeypatch.setattr(fastyaml, "_parse", boom)
    for text in ["a: 1\n", "created: 2024-01-01T10:00:00Z\n"]:
        assert_identical(text)


def test_a_wrong_backend_is_refused_by_the_self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "_parse", lambda text: yaml.load(text, Loader=yaml.BaseLoader))  # everything a str
    assert not fastyaml._self_check()
    monkeypatch.setattr(fastyaml, "_parse", lambda text: yaml.safe_load(text))  # timestamps as datetime, no issues
    assert not fastyaml._self_check()


def test_timestamps_are_restored_by_position() -> None:
    text = (
        "a: '2024-01-01'\nb: 2024-01-01\nc:\n- 2024-01-01\n- \"2024-01-01\"\n- p: 2024-01-01\n"
        "  q: '2024-01-01'\nd: 2024-01-01T10:00:00.5+01:00\n"
    )
    assert fastyaml.is_fast_candidate(text)
    assert_identical(text)
    data = fastyaml.load_yaml(text).data
    kinds = [
        type(v)
        for v in (data["a"], data["b"], data["c"][0], data["c"][1], data["c"][2]["p"], data["c"][2]["q"], data["d"])
    ]
    assert kinds == [str, YamlTimestamp, YamlTimestamp, str, YamlTimestamp, str, YamlTimestamp]


# The text's bound on a document's size and nesting (``YamlResult.bounds``), which lets the size check skip its
# walk: documents nested as deep as the fast path allows for their indentation, mappings and sequences in any
# order, sequences written compactly (``- - x``, ``- k: v``) or not, with steps of one column.
def _nested(levels: list[tuple[bool, bool]], step: int) -> str:
    """Block YAML nesting one collection in the next: ``levels`` holds (mapping?, compact?) from the outside in."""
    lines: list[str] = []
    col, head = 0, ""  # head: what is already written on the current line (a compact sequence's dashes)
    for index, (mapping, compact) in enumerate(levels):
        last = index == len(levels) - 1
        start = head or " " * col
        if mapping:
            lines.append(start + ("k: v" if last else "k:"))
            head = ""
            if not last and levels[index + 1][0]:
                col += step  # a mapping under a key: further right
            # a sequence under a key may start in the key's column
        elif last:
            lines.append(start + "- v")
        elif compact:
            head = start + "- "
            col = len(head)
        else:
            lines.append(start + "-")
            head, col = "", col + step
    return "\n".join(lines) + "\n"


def _depth_and_size(value: Any) -> tuple[int, int]:
    """How deep collections nest in ``value`` and how many values it holds (as the limits count them)."""
    if not isinstance(value, (dict, list)):
        return 0, 1
    depth, size = 0, 1
    for child in value.values() if isinstance(value, dict) else value:
        child_depth, child_size = _depth_and_size(child)
        depth, size = max(depth, child_depth), size + child_size
    return depth + 1, size


@needs_backend
@FUZZ
@given(levels=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=90), step=st.sampled_from([1, 2]))
def test_a_documents_text_bounds_its_nesting_and_size(levels: list[tuple[bool, bool]], step: int) -> None:
    text = _nested(levels, step)
    result = fastyaml.load_yaml(text)
    assert _typed(result.data) == _typed(reference_load(text).data)
    if result.bounds is not None:
        depth, size = _depth_and_size(result.data)
        assert depth <= result.bounds[1] and size <= result.bounds[0], (text, depth, size, result.bounds)
    if fastyaml.is_fast_candidate(text) and "\n" + " " * 11 not in text:
        assert result.bounds is not None  # the fast path gives a bound whenever no line is indented more than 10


@needs_backend
def test_the_bound_holds_at_its_deepest() -> None:
    """Mapping, sequence, mapping ... a column apart (two levels a column) until a line is indented 10 spaces,
    then 10 compact dashes: as deep as the fast path nests without losing its bound; one more space loses it."""
    text = _nested([(index % 2 == 0, False) for index in range(21)] + [(False, True)] * 10 + [(True, False)], 1)
    assert max(len(line) - len(line.lstrip(" ")) for line in text.splitlines()) == 10
    result = fastyaml.load_yaml(text)
    assert result.bounds is not None and fastyaml.is_fast_candidate(text)
    depth, size = _depth_and_size(result.data)
    assert depth == 32 and depth <= result.bounds[1] and size <= result.bounds[0]
    assert fastyaml.load_yaml(text.replace("\n", "\n ")).bounds is None  # indented further: walked


@needs_backend
def test_a_limit_below_the_bound_still_walks_the_data() -> None:
    """The bound spares the walk only within the limits in force: a lower nesting or size limit is checked."""
    from mif_rdf.core.limits import Limits
    from mif_rdf.source.parse import parse_yaml_mapping

    text = "a:\n  b:\n    c:\n      d: 1\n"
    assert fastyaml.load_yaml(text).bounds is not None
    for limits, words in ((Limits(max_yaml_depth=3), "nested"), (Limits(max_yaml_values=4), "values")):
        problems: list[Any] = []
        assert parse_yaml_mapping(text, "x.md", problems, limits=limits) is None
        assert words in problems[0].message and problems[0].rule == "limit"
    assert parse_yaml_mapping(text, "x.md", [], limits=Limits(max_yaml_depth=4, max_yaml_values=5)) is not None
