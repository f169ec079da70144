"""A catastrophic pattern cannot hold validation (issue 39, item 6).

An ontology field ``pattern: "^(a+)+$"`` and ``a`` * 29 + ``!`` took 38 s in
``validate`` (Python's ``re`` through pySHACL), doubling per character.  Now
the fast engine runs ``sh:pattern`` on RE2 (linear), a back-reference on the
time-limited fallback, and pySHACL (for shapes graphs the engine refuses)
searches with a time limit per value.  The times asserted are bounds a
backtracking search misses by hours; the verdicts are checked against
Python's ``re`` where it finishes.
"""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

import pytest
from rdflib import Graph, Literal

from conftest import write_file
from mif_rdf import load_bundle
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, take_stopped
from mif_rdf.ontology.fields import FORMAT_PATTERNS
from mif_rdf.validation import validate
from mif_rdf.validation.engine.checks import _pattern_check
from mif_rdf.validation.shacl import run

#: Nested quantifiers: a backtracking search on ``a`` * n + ``!`` takes 2^n steps (hours at 40).
HOSTILE = [r"^(a+)+$", r"^(a|aa)+$", r"^(a|a?)+$", r"^(a*)*$", r"(a+a+)+b"]
BAD = ["a" * 29 + "!", "a" * 40 + "!"]
#: Seconds a loaded machine may add to a bounded search (two suites on two cores took 0.8 s for a 0.25 s limit);
#: an unbounded search of BAD takes 38 s to hours, so bounds with this slack still tell the two apart.
SLACK = 5.0
#: Outside the engine (XPath's \w is not Python's): these go to pySHACL, bounded per value.
REFUSED_BY_ENGINE = [r"^(\w+\s?)+$", r"^(a|aa)+\w$"]


def _check(pattern: str, flags: str = ""):
    return _pattern_check(pattern, flags, lambda v: Literal, lambda v: v)


@pytest.mark.parametrize("pattern", HOSTILE)
def test_the_engine_runs_hostile_patterns_in_linear_time(pattern: str) -> None:
    check = _check(pattern)
    start = time.perf_counter()
    verdicts = [check(value) for value in [*BAD, "a" * 100_000 + "!", "a" * 40]]
    assert time.perf_counter() - start < SLACK
    short = ["a" * 12 + "!", "a" * 12]  # where Python's re finishes: the same verdicts
    assert verdicts == [re.search(pattern, v) is not None for v in (short[0], short[0], short[0], short[1])]


def test_a_back_reference_runs_on_the_fallback_and_a_stopped_value_fails() -> None:
    check = _check(r"^(a|aa)+\1$")
    start = time.perf_counter()
    assert check("a" * 40 + "!") is False  # stopped by the limit: not confirmed, so not passed
    assert time.perf_counter() - start < DEFAULT_TIME_LIMIT + SLACK
    assert check("aaaa") is True and check("ab") is False  # where the engine finishes, the answer


def _shapes(pattern: str) -> str:
    """A shape with a pattern and a SPARQL constraint: the engine refuses the graph, pySHACL runs it."""
    escaped = pattern.replace("\\", "\\\\")
    values = " ".join(f'ex:v{n} a ex:C ; ex:p "{v}" .' for n, v in enumerate([*BAD, "aaaa"]))
    return f"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:pattern "{escaped}" ] ;
  sh:sparql [ sh:select "SELECT $this WHERE {{ $this ex:never ?x }}" ] .
{values}"""


@pytest.mark.parametrize("pattern", [*HOSTILE[:3], *REFUSED_BY_ENGINE])
def test_pyshacl_searches_each_value_with_a_time_limit(pattern: str) -> None:
    graph = Graph().parse(data=_shapes(pattern), format="turtle")
    take_stopped()
    start = time.perf_counter()
    validation = run(graph, graph)
    elapsed = time.perf_counter() - start
    assert validation.engine == "pyshacl"
    assert elapsed < len(BAD) * DEFAULT_TIME_LIMIT + SLACK, elapsed  # at most the limit per hostile value
    failing = {str(o) for o in validation.graph.objects(None, Graph().namespace_manager.expand_curie("sh:value"))}
    assert failing == set(BAD)  # each hostile value fails the pattern; "aaaa" passes as re says
    noted = take_stopped()  # what the limit stopped (the regex package settles some of these quickly on its own)
    assert all(p == pattern and v in BAD for p, v in noted)
    assert noted or pattern in (r"^(a+)+$", r"^(a|a?)+$", r"^(\w+\s?)+$")


ONTOLOGY = """ontology:
  id: bounded
  version: "1.0.0"
  extends: [mif-base]
entity_types:
  - name: part
    base: semantic
    schema:
      properties:
        name: {type: string}
        code: {type: string, pattern: "PATTERN"}
        contact: {type: string, format: email}
"""
#: A nested field: its longer path sends the ontology's shapes to pySHACL (tests/test_validation_ontology.py).
NESTED = """        spec:
          type: object
          properties:
            code: {type: string, pattern: "PATTERN"}
"""


@pytest.mark.parametrize("nested", [False, True], ids=["engine", "pyshacl"])
@pytest.mark.parametrize("pattern", [r"^(a+)+$", r"^(a|aa)+$", r"^(\\w+\\s?)+$"])
def test_an_ontology_pattern_cannot_hold_validate(tmp_path: Path, pattern: str, nested: bool) -> None:
    """The issue's shape: an ontology field pattern, values of 29 and 40 characters (a nested field: pySHACL)."""
    write_file(
        tmp_path,
        ".mif/ontologies/bounded.ontology.yaml",
        (ONTOLOGY + (NESTED if nested else "")).replace("PATTERN", pattern),
    )
    for n, value in enumerate([*BAD, "aaaa"]):
        payload = f"spec: {{code: '{value}'}}" if nested else f"code: '{value}'"
        write_file(
            tmp_path,
            f"m/{n}.md",
            f"---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d{n:02d}\ntype: semantic\n"
            f"created: 2026-01-15T10:30:00Z\nontology: {{id: bounded}}\n"
            f"entity: {{name: P{n}, entity_type: part, {payload}}}\n---\nB.\n",
        )
    bundle = load_bundle(tmp_path, progress=False)
    start = time.perf_counter()
    report = validate(bundle, 3)
    assert time.perf_counter() - start < 3 * DEFAULT_TIME_LIMIT + SLACK  # was 38 s at 29 characters, hours at 40
    flagged = sorted({p.path for p in report.results if "code" in str(p.to_dict())})
    assert flagged == ["m/0.md", "m/1.md"]
    written = pattern.replace("\\\\", "\\")  # as YAML reads it
    said = [p.message for p in report.results if p.path in flagged and "code" in str(p.key)]
    assert len(said) == 2 and all(f"must be text matching {written}" in m for m in said), said
    stopped = [p for p in report.results if p.rule == "pattern-time-limit"]  # why a value is said not to match
    assert all(repr(written) in p.message and p.severity.name == "WARNING" for p in stopped)
    assert bool(stopped) == (nested and pattern == r"^(a|aa)+$")  # RE2 never needs the limit


def test_the_ontology_format_patterns_run_on_the_engine() -> None:
    """Every ``format`` the compiler writes is one the fast engine takes (so none reaches pySHACL's ``re``)."""
    for _name, pattern in FORMAT_PATTERNS.items():
        _check(pattern)  # raises Unsupported otherwise


OLD_EMAIL = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
VALID = [
    "name@example.org",
    "a.b+c@sub.example.co.uk",
    "x@y.z",
    "josé@exämple.org",
    "a@b.c.",
    "a@.b.c",
    "a@b..c",
    '"odd"@example.org',
    "a@localhost.localdomain",
    "a@1.2.3.4",
    "a@b.c.d.e.f.g",
]
INVALID = [
    "",
    "plain",
    "@example.org",
    "name@",
    "name@example",
    "a@b.",
    "a@.b",
    "a@.",
    "two@@example.org",
    "a b@example.org",
    "a@exa mple.org",
    "a@b.c d",
    "a@b@c.d",
    "a\u00a0@b.c",
    "a@b.c\u2028",
    "a@b.c\u3000x",
    "a\t@b.c",
    "a@b.c\x1c",
    "name@example.org ",
]


def test_the_email_pattern_keeps_the_old_verdicts() -> None:
    """The rewrite matches exactly what the old pattern matched (under Python's re, pySHACL's reading, and XPath's)."""
    new = FORMAT_PATTERNS["email"]
    check = _check(new)
    for value in VALID + INVALID:
        assert (re.search(new, value) is not None) == (re.search(OLD_EMAIL, value) is not None) == (value in VALID), (
            value
        )
        assert check(value) == (re.search(OLD_EMAIL.replace("$", r"\Z"), value) is not None), value
    alphabet = "a@. \u00a0\n"  # every split of local part and domain the old pattern could make, up to 7 characters
    for size in range(8):
        for letters in itertools.product(alphabet, repeat=size):
            value = "".join(letters)
            assert (re.search(new, value) is None) == (re.search(OLD_EMAIL, value) is None), value
            assert check(value) == (re.search(OLD_EMAIL.replace("$", r"\Z"), value) is not None), value


def test_the_email_pattern_is_linear_on_hostile_values() -> None:
    """The old pattern tried every dot of a hostile domain against the rest: quadratic (minutes at 100,000)."""
    new, check = FORMAT_PATTERNS["email"], _check(FORMAT_PATTERNS["email"])
    hostile = [
        "a@" + "a." * 100_000 + " ",
        "a@" + "." * 200_000 + "@",
        "a" * 200_000,
        "a@b" + ".c" * 100_000 + "\u3000",
    ]
    start = time.perf_counter()
    for value in hostile:
        assert check(value) is False
        assert re.search(new, value) is None  # pySHACL's reading, on Python's backtracking re
    assert time.perf_counter() - start < SLACK
