"""The drop-in SHACL validator and the engine's right-or-refuse property on a bare clone (issue 36, items 1-2).

``tests/fixtures/shacl`` holds the project's own W3C-style cases (one
manifest each, the layout of the W3C SHACL test suite): the fast engine must
give each expected report, on an rdflib graph and on Oxigraph; pySHACL is
the independent check of the expected reports, and where pySHACL reads
SHACL differently (date/time order without a time zone) Oxigraph's SPARQL
is.  The W3C suite itself runs in tests/conformance/test_w3c_shacl.py.
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pyoxigraph as ox
import pyshacl
import pytest
from pyshacl.errors import ReportableRuntimeError
from rdflib import Graph, Literal
from rdflib.namespace import SH, XSD

from conftest import FIXTURES
from mif_rdf.core.errors import MifRdfError
from mif_rdf.validation.engine import validate_graph
from mif_rdf.validation.order import compare
from mif_rdf.validation.shacl import Unsupported, run, validate
from shacl_manifest import Case, agrees, cases

CORPUS = [case for path in sorted((FIXTURES / "shacl").glob("*.ttl")) for case in cases(path)]
#: Cases where pySHACL's reading is not SHACL's, and the oracle that decides instead.
PYSHACL_DIFFERS = {
    "datetime-zones": "pySHACL calls a dateTime without a zone out of range of one with a zone whatever their "
    "distance, "
    "and a date in range of a dateTime; test_order_is_oxigraphs checks this order against Oxigraph",
}


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 11


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_fast_engine_gives_the_expected_report(case: Case) -> None:
    result = run(case.data, case.shapes, engine="fast")
    assert result.engine == "fast" and agrees(case, result.graph)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_fast_engine_on_oxigraph_gives_the_expected_report(case: Case) -> None:
    data = Graph(store="Oxigraph")
    for triple in case.data:
        data.add(triple)
    assert agrees(case, run(data, case.shapes, engine="fast").graph, by_value=True)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_pyshacl_agrees_with_the_expected_report(case: Case) -> None:
    _, report, _ = pyshacl.validate(case.data, shacl_graph=case.shapes)
    assert agrees(case, report) != (case.name in PYSHACL_DIFFERS)


_DATES = [
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00",
    "2025-12-31T10:00:00",
    "2025-12-31T09:59:59",
    "2026-01-01T14:00:00",
    "2026-01-01T14:00:01",
    "2026-01-01T00:00:00+14:00",
    "2026-01-01T00:00:00-14:00",
    "2026-01-01T05:30:00+05:30",
    "2025-12-31T23:59:59.999",
    "2026-01-01T24:00:00",
    "2024-02-29T12:00:00-03:00",
    "0001-01-01T00:00:00",
    "2026-01-15",
    "2026-02-30T00:00:00",
]  # ill-formed: a type error, not rdflib's lenient reading
_DAYS = ["2026-01-01", "2026-01-01Z", "2026-01-01+14:00", "2026-01-02-10:00", "2025-12-31", "2026-01-02"]
_TIMES = ["12:00:00", "12:00:00Z", "23:59:59+01:00", "00:00:00-14:00", "13:59:59.5", "02:00:00Z"]


def test_order_is_oxigraphs() -> None:
    """``order.compare`` gives SPARQL's <, = and > (Oxigraph's, which follows XSD's 14-hour rule) on date, time and
    dateTime pairs, with and without zones, and a type error across types.  (Literals as written: rdflib's
    normalizing constructor drops the zone of an ``xsd:date``.)"""
    rng = random.Random(3)
    typed = [(d, XSD.dateTime) for d in _DATES] + [(d, XSD.date) for d in _DAYS] + [(t, XSD.time) for t in _TIMES]
    pairs = list(itertools.product(typed, typed))
    store = ox.Store()
    disagree = []
    for (a, ta), (b, tb) in rng.sample(pairs, 250) + [p for p in pairs if p[0][1] == p[1][1] == XSD.dateTime]:
        query = (
            f'SELECT ("{a}"^^<{ta}> < "{b}"^^<{tb}> AS ?lt) ("{a}"^^<{ta}> = "{b}"^^<{tb}> AS ?eq) '
            f'("{a}"^^<{ta}> > "{b}"^^<{tb}> AS ?gt) {{}}'
        )
        row = next(iter(store.query(query)))
        truth = [None if row[i] is None else row[i].value == "true" for i in range(3)]
        expected = -1 if truth[0] else 0 if truth[1] else 1 if truth[2] else None
        if compare(Literal(a, datatype=ta, normalize=False), Literal(b, datatype=tb, normalize=False)) != expected:
            disagree.append((a, b, expected))
    assert disagree == []


# -- refusals: features outside the engine raise Unsupported before any result, and auto runs pySHACL ----------
_PREFIXES = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> . "
_DATA = "ex:a a ex:C ; ex:p ex:b . ex:b a ex:C ."
REFUSED = {
    "qualified on a node shape": "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:qualifiedValueShape [ sh:class ex:D "
    "] ; "
    "sh:qualifiedMinCount 1 .",
    "sparql": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:sparql [ sh:select "SELECT $this WHERE { }" ] .',
    "recursive": "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:node ex:S ] .",
    "unknown parameter": "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:someNewConstraint 3 .",
    "untargeted unknown": (
        "ex:T a sh:NodeShape ; sh:fancy true . ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:nodeKind sh:IRI ."
    ),
    "custom component": "ex:K a sh:ConstraintComponent ; sh:parameter [ sh:path ex:size ] . "
    "ex:S a sh:NodeShape ; sh:targetClass ex:C ; ex:size 3 .",
    "sparql target": (
        'ex:S a sh:NodeShape ; sh:target [ a sh:SPARQLTarget ; sh:select "SELECT ?this {}" ] ; sh:nodeKind sh:IRI .'
    ),
    "ill-formed count": (
        'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:minCount "many" ] .'
    ),
    "two paths": "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p, ex:q ; sh:minCount 1 ] .",
    "word escape": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^\\\\w+$" .',
    "class subtraction": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^[a-z-[aeiou]]+$" .',
    "XPath-only escape": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^\\\\i\\\\c*$" .',
    "Python-only escape": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^\\\\x41" .',
    "Python-only quantifier": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^a{,3}$" .',
    "RE2-only class": 'ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:pattern "^[[:alpha:]]+$" .',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_shapes_outside_the_engine_are_refused(name: str) -> None:
    graph = Graph().parse(data=_PREFIXES + _DATA + REFUSED[name], format="turtle")
    with pytest.raises(Unsupported):
        validate_graph(graph, graph)
    try:
        auto = run(graph, engine="auto")
    except (ReportableRuntimeError, re.error):  # pySHACL's own word on an ill-formed shape, as a pySHACL user gets it
        return
    assert auto.engine == "pyshacl"


# -- the drop-in: pySHACL's arguments and return value ---------------------------------------------------------
_SHAPES = (
    _PREFIXES
    + """
ex:Warn a sh:NodeShape ; sh:targetClass ex:C ; sh:severity sh:Warning ; sh:property [ sh:path ex:q ; sh:minCount 1 ] .
ex:Info a sh:NodeShape ; sh:targetClass ex:C ; sh:severity sh:Info ; sh:property [ sh:path ex:r ; sh:minCount 1 ] .
"""
)


@pytest.mark.parametrize("engine", ["fast", "pyshacl"])
@pytest.mark.parametrize("allow_warnings", [False, True])
def test_conforms_and_allow_warnings_as_pyshacl(engine: str, allow_warnings: bool) -> None:
    data = Graph().parse(data=_PREFIXES + _DATA, format="turtle")
    shapes = Graph().parse(data=_SHAPES, format="turtle")
    conforms, report, text = validate(data, shapes, allow_warnings=allow_warnings, engine=engine)  # type: ignore[arg-type]
    reference = pyshacl.validate(data, shacl_graph=shapes, allow_warnings=allow_warnings)
    assert conforms == reference[0] == allow_warnings
    assert len(set(report.objects(None, SH.result))) == 4
    assert text.startswith("Validation Report\nConforms: ") and "MinCountConstraintComponent" in text


def test_allow_infos_is_passed_as_pyshacl_reads_it() -> None:
    data = Graph().parse(data=_PREFIXES + _DATA, format="turtle")
    shapes = Graph().parse(
        data=_PREFIXES
        + "ex:Info a sh:NodeShape ; sh:targetClass ex:C ; sh:severity sh:Info ; sh:nodeKind sh:Literal .",
        format="turtle",
    )
    fast = run(data, shapes, engine="fast", allow_infos=True)
    assert fast.conforms is True and fast.conforms == pyshacl.validate(data, shacl_graph=shapes, allow_infos=True)[0]


def test_abort_on_first_stops_at_a_result() -> None:
    data = Graph().parse(data=_PREFIXES + _DATA, format="turtle")
    shapes = Graph().parse(data=_SHAPES, format="turtle")
    conforms, report, _ = validate(data, shapes, abort_on_first=True, engine="fast")
    assert conforms is False and len(set(report.objects(None, SH.result))) == 1


@pytest.mark.parametrize("engine", ["fast", "pyshacl"])
def test_rdfs_inference_as_pyshacl(engine: str) -> None:
    """``inference="rdfs"``: a value typed by a subproperty's range becomes an instance of the class."""
    data = Graph().parse(
        data=_PREFIXES
        + """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        ex:owner rdfs:range ex:Person . ex:thing ex:owner ex:ann . ex:ann ex:name "Ann" . ex:bob a ex:Person .""",
        format="turtle",
    )
    shapes = Graph().parse(
        data=_PREFIXES
        + "ex:S a sh:NodeShape ; sh:targetClass ex:Person ; sh:property [ sh:path ex:name ; sh:maxCount 0 ] .",
        format="turtle",
    )
    before = len(data)
    plain = validate(data, shapes, engine=engine)  # type: ignore[arg-type]
    inferred = validate(data, shapes, inference="rdfs", engine=engine)  # type: ignore[arg-type]
    reference = pyshacl.validate(data, shacl_graph=shapes, inference="rdfs")
    assert plain[0] is True and inferred[0] is False == reference[0]
    assert {str(f) for f in inferred[1].objects(None, SH.focusNode)} == {"http://example.org/ann"}
    assert len(data) == before  # the caller's graph is not expanded


def test_shapes_from_the_data_graph_and_from_a_file(tmp_path: Path) -> None:
    """``shacl_graph=None`` reads the shapes in the data graph; paths are loaded as pySHACL loads them."""
    path = tmp_path / "both.ttl"
    path.write_text(
        _PREFIXES + _DATA + "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:nodeKind sh:Literal .", encoding="utf-8"
    )
    conforms, report, _ = validate(str(path))
    assert conforms is False and len(set(report.objects(None, SH.result))) == 2
    assert validate(Graph().parse(path))[0] is False


def test_bad_arguments_are_clear_errors() -> None:
    graph = Graph()
    with pytest.raises(MifRdfError, match="inference"):
        validate(graph, inference="rdf")
    with pytest.raises(MifRdfError, match="engine"):
        validate(graph, engine="quick")  # type: ignore[arg-type]


def test_pyshacl_only_options_go_to_pyshacl() -> None:
    data = Graph().parse(data=_PREFIXES + _DATA, format="turtle")
    shapes = Graph().parse(data=_SHAPES, format="turtle")
    assert run(data, shapes, max_validation_depth=5).engine == "pyshacl"
    with pytest.raises(Unsupported):
        run(data, shapes, engine="fast", max_validation_depth=5)


_PATTERNS = [
    "^abc$",
    "abc$",
    "^[a-z$]+$",
    "^a.c$",
    "b",
    "^\\d{4}-\\d\\d$",
    "(?:ab)+$",
    "^[^\\n]*$",
    "A",
    "^x|y$",
    "^\\p{Lu}",
    "^[\\p{Ll}\\d]+$",
    "^\\D+$",
    "^(a+)+$",
    "^a b c$",
    "^[a b]+$",
    "a.c",
    "é",
    "^[]a]+$",
    "^[^]a]+$",
    "x{2,3}",
]
_TEXTS = [
    "abc",
    "abc\n",
    "xabc",
    "a$c",
    "aXc",
    "2026-01",
    "2026-01\n",
    "abab",
    "ab\nab",
    "y\n",
    "ABC",
    "x\ny",
    "Éa",
    "١٢٣٤-٥٦",
    "a b c",
    "a.c",
    "abc\r",
    "]a]",
    "É",
    "xxx",
    "^(a+)+$",
]


@pytest.mark.parametrize("flags", ["", "i", "m", "s", "x", "q", "iq", "sm"])
def test_patterns_match_as_xpath_does(flags: str) -> None:
    """``sh:pattern`` reads XPath's regular expressions as Oxigraph's SPARQL REGEX does (XPath's ``$`` is the end of
    the string: ``"abc\\n"`` does not match ``^abc$``, which Python's ``re``, and so pySHACL, would match; XPath's
    ``\\d`` and case folding are Unicode's; ``x`` drops whitespace outside classes,
    ``q`` reads every character as itself)."""
    from mif_rdf.validation.engine.checks import _pattern_check

    store = ox.Store()
    disagree = []
    for pattern in _PATTERNS:
        check = _pattern_check(pattern, flags, lambda v: Literal, lambda v: v)
        for text in _TEXTS:
            row = next(
                iter(
                    store.query(
                        f"SELECT (REGEX({ox.Literal(text)}, {ox.Literal(pattern)}, {ox.Literal(flags)}) AS ?m) {{}}"
                    )
                )
            )
            if check(text) != (row[0].value == "true"):
                disagree.append((pattern, text))
    assert disagree == []
