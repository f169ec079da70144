"""``REGEX`` in rdflib's SPARQL engine runs with a time limit per value (issue 39, item 6).

pySHACL runs a user's SHACL-SPARQL constraint (``sh:sparql``) through rdflib's
engine, whose ``REGEX`` was Python's ``re``: ``^(a|aa)+$`` on 40 ``a`` and a
``!`` runs for hours there.  The same holds for ``mif-rdf query`` on the memory
store.  Each hostile case runs in a subprocess with a timeout (an unbounded
search would never end); the verdicts of values that finish are checked
against Python's ``re``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rdflib import Graph, Literal

from conftest import write_file
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, take_stopped
from mif_rdf.core.sparql_regex import bound_sparql_regex

HOSTILE_VALUE = "a" * 40 + "!"
#: ``^(a|aa)+$`` is one the ``regex`` package does not settle on its own: only the limit stops it.
PATTERNS = [r"^(a+)+$", r"^(a|aa)+$"]

SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
ex:S a sh:NodeShape ; sh:targetClass ex:C ;
  sh:sparql [ sh:message "code is not a run of a" ;
    sh:select "SELECT $this ?value WHERE { $this ex:code ?value . FILTER (!REGEX(?value, 'PATTERN')) }" ] .
ex:bad a ex:C ; ex:code "HOSTILE" .
ex:good a ex:C ; ex:code "aaaa" .
"""

VALIDATE = """
import json, sys, time
from rdflib import Graph
from rdflib.namespace import SH
from mif_rdf.core.patterns import take_stopped
from mif_rdf.validation.shacl import run
graph = Graph().parse(data=sys.stdin.read(), format="turtle")
start = time.perf_counter()
validation = run(graph, graph)
print(json.dumps({"seconds": time.perf_counter() - start, "engine": validation.engine,
                  "values": sorted(str(v) for v in validation.graph.objects(None, SH.value)),
                  "stopped": [p for p, _ in take_stopped()]}))
"""


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_shacl_sparql_regex_finishes_within_the_limit_and_reports_the_value(pattern: str) -> None:
    shapes = SHAPES.replace("PATTERN", pattern).replace("HOSTILE", HOSTILE_VALUE)
    done = subprocess.run(
        [sys.executable, "-c", VALIDATE], input=shapes, capture_output=True, text=True, timeout=60, check=True
    )
    found = json.loads(done.stdout)
    assert found["engine"] == "pyshacl"  # sh:sparql: the fast engine hands the graph to pySHACL
    assert found["seconds"] < DEFAULT_TIME_LIMIT + 2.0, found  # hours with Python's re
    assert found["values"] == [HOSTILE_VALUE]  # the stopped value does not match, so the constraint reports it
    assert set(found["stopped"]) <= {pattern}
    assert found["stopped"] or pattern == r"^(a+)+$"  # the regex package settles this one without the limit


@pytest.mark.parametrize("pattern", PATTERNS)
def test_query_regex_on_the_memory_store_is_bounded(tmp_path: Path, pattern: str) -> None:
    write_file(
        tmp_path,
        "semantic/m.md",
        "---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n---\nB.\n",
    )
    query = f'SELECT ?v WHERE {{ VALUES ?v {{ "{HOSTILE_VALUE}" "aaaa" "b" }} FILTER (REGEX(?v, "{pattern}")) }}'
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", "query", "--format", "csv", str(tmp_path), query, "--store", "memory"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["v", "aaaa"]  # the stopped value does not match; the others as re says
    assert time.perf_counter() - start < 30  # the process start and load; hours with Python's re


CASES = [
    (r"^a.c$", "", ["abc", "a\nc", "ABC"]),
    (r"^a.c$", "s", ["abc", "a\nc"]),
    (r"^a.c$", "i", ["abc", "ABC", "aXc"]),
    (r"^b$", "m", ["a\nb\nc", "b", "ab"]),
    (r"\w+\d", "", ["é9", "x", "ab1"]),
    (r"(x)\1", "", ["xx", "x"]),
    (r"é", "i", ["É", "e"]),
    (r"a b", "x", ["a b", "ab"]),  # rdflib ignores x: the bounded REGEX too
]


@pytest.mark.parametrize(("pattern", "flags", "texts"), CASES)
def test_the_bounded_regex_answers_as_pythons_re(pattern: str, flags: str, texts: list[str]) -> None:
    """Values that finish get exactly rdflib's old answer: ``re.search`` with the flags i, s, m."""
    bound_sparql_regex()
    graph = Graph()
    rows = graph.query(
        "SELECT ?t ?r WHERE { VALUES ?t { " + " ".join(Literal(t).n3() for t in texts) + " } "
        f"BIND (REGEX(?t, {Literal(pattern).n3()}, {Literal(flags).n3()}) AS ?r) }}"
    )
    got = {str(row[0]): bool(row[1].toPython()) for row in rows}  # type: ignore[index]
    wanted = 0
    for flag, value in {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE}.items():
        wanted |= value if flag in flags else 0
    assert got == {t: re.search(pattern, t, wanted) is not None for t in texts}


def test_a_stopped_value_is_noted_and_a_bad_pattern_keeps_res_error() -> None:
    """The note of the stopped value shows the limit ended the search (the bound on time is the subprocess tests':
    30 ``a`` keep this one in process, where Python's ``re`` needs only a fraction of a second, so no wall-clock
    bound here could tell the two apart on a loaded machine)."""
    bound_sparql_regex()
    take_stopped()
    graph = Graph()
    ask = f'ASK {{ FILTER (REGEX("{"a" * 30 + "!"}", "^(a|aa)+$")) }}'
    assert not graph.query(ask).askAnswer
    assert take_stopped() == [("^(a|aa)+$", "a" * 30 + "!")]
    with pytest.raises(re.error):
        graph.query('ASK { FILTER (REGEX("a", "(")) }')


REPLACE_QUERY = """
import json, sys, time
from rdflib import Graph, Literal, URIRef
import mif_rdf.queries  # binds the bounded REGEX and REPLACE
from mif_rdf.core.patterns import take_stopped
graph = Graph()
graph.add((URIRef("urn:x"), URIRef("urn:code"), Literal(sys.argv[2])))
start = time.perf_counter()
query = "SELECT ?v ?out WHERE { ?s <urn:code> ?v BIND(REPLACE(?v, '%s', '[$1]') AS ?out) }"
rows = list(graph.query(query % sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - start, "out": [None if r.out is None else str(r.out) for r in rows],
                  "stopped": [p for p, _ in take_stopped()]}))
"""


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_hostile_replace_stops_at_the_limit_and_leaves_the_value_unbound(pattern: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", REPLACE_QUERY, pattern, HOSTILE_VALUE],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = json.loads(done.stdout)
    # the value does not match (it ends in "!"): the right answer is the value unchanged, and an answer the
    # limit stopped is an error (unbound) that is noted; ^(a|aa)+$ is the one only the limit stops
    if found["stopped"]:
        assert found["out"] == [None] and found["stopped"] == [pattern]
    else:
        assert found["out"] == [HOSTILE_VALUE] and pattern != r"^(a|aa)+$"
    assert found["seconds"] < 20 * DEFAULT_TIME_LIMIT


@pytest.mark.parametrize(
    "pattern, value, flags",
    [(r"(b+)", "abbbcb", ""), (r"^(\w+)@", "Alice@example.org", ""), (r"(A)", "banana", "i"), (r"x(y)?", "axz", "")],
)
def test_replace_within_the_limit_is_res_substitution(pattern: str, value: str, flags: str) -> None:
    bound_sparql_regex()
    graph = Graph()
    flag_arg = f", '{flags}'" if flags else ""
    literal = pattern.replace("\\", "\\\\")  # a backslash in a SPARQL string is written twice
    query = f"SELECT ?out WHERE {{ BIND(REPLACE('{value}', '{literal}', '<$1>'{flag_arg}) AS ?out) }}"
    expected = re.sub(pattern, r"<\1>", value, flags=re.IGNORECASE if "i" in flags else 0)
    assert [str(row.out) for row in graph.query(query)] == [expected]
