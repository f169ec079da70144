"""The W3C SHACL test suite through the drop-in validator (issue 36, items 1 and 2).

Every SHACL Core test: ``engine="auto"`` passes each test pySHACL passes,
and ``engine="fast"`` either passes or raises ``Unsupported`` -- never a
wrong verdict.  The SHACL-SPARQL tests go to pySHACL (the fast engine
refuses every one of them) and pass where pySHACL passes.  A table of which
engine handled which test is printed at the end of the module.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyshacl
import pytest
from rdflib import Graph

from mif_rdf.validation.shacl import Unsupported, run
from shacl_manifest import Case, agrees, cases

SUITE = Path(os.environ.get("MIF_SHARED_DIR", "../shared")) / "spec" / "w3c-shacl" / "tests"
CORE = cases(SUITE / "core" / "manifest.ttl", SUITE) if (SUITE / "core").is_dir() else []
SPARQL = cases(SUITE / "sparql" / "manifest.ttl", SUITE) if (SUITE / "sparql").is_dir() else []
_TABLE: list[tuple[str, str, str, str]] = []  # (test, pySHACL, fast, auto: which engine)


@pytest.fixture(scope="module", autouse=True)
def table(request: pytest.FixtureRequest) -> Iterator[None]:
    """Print which engine handled which test, after the module's tests."""
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None or not _TABLE:
        return
    with capture.global_and_fixture_disabled():  # teardown output is captured otherwise
        _write_table(reporter)


def _write_table(reporter: Any) -> None:
    reporter.write_line("")
    reporter.write_line(f"{'W3C SHACL test':50} {'pySHACL':8} {'fast':12} auto ran")
    for row in sorted(_TABLE):
        reporter.write_line(f"{row[0]:50} {row[1]:8} {row[2]:12} {row[3]}")
    counts = Counter(row[2] for row in _TABLE if row[0].startswith("core/"))
    reporter.write_line(f"core: fast engine {dict(counts)}; auto ran {dict(Counter(r[3] for r in _TABLE))}")


def test_the_suite_is_there() -> None:
    """A moved or emptied suite fails here, not by collecting fewer cases."""
    assert len(CORE) == 98 and len(SPARQL) == 22


def _reference(case: Case) -> tuple[bool, Any]:
    """pySHACL's verdict on ``case``: whether it passes, and its report (None when it raised)."""
    try:
        _, graph, _ = pyshacl.validate(case.data, shacl_graph=case.shapes, inference="none", advanced=True)
    except Exception:  # noqa: BLE001 -- a processor failure is the expected outcome of sht:Failure tests
        return case.conforms is None, None
    return agrees(case, graph), graph


@pytest.mark.parametrize("case", CORE, ids=[c.name for c in CORE])
def test_core(case: Case) -> None:
    reference, _ = _reference(case)
    try:
        fast = run(case.data, case.shapes, engine="fast", advanced=True)
        fast_verdict = "pass" if agrees(case, fast.graph) else "WRONG"
    except Unsupported:
        fast_verdict = "unsupported"
    auto = run(case.data, case.shapes, engine="auto", advanced=True)
    _TABLE.append((case.name, "pass" if reference else "fail", fast_verdict, auto.engine))
    assert fast_verdict != "WRONG", "the fast engine gave a verdict the suite does not expect"
    if reference:
        assert agrees(case, auto.graph)
    assert auto.engine == ("fast" if fast_verdict == "pass" else "pyshacl")


@pytest.mark.parametrize("case", SPARQL, ids=[c.name for c in SPARQL])
def test_sparql(case: Case) -> None:
    reference, _ = _reference(case)
    with pytest.raises(Unsupported):
        run(case.data, case.shapes, engine="fast", advanced=True)
    try:
        auto = run(case.data, case.shapes, engine="auto", advanced=True)
        passed = agrees(case, auto.graph)
    except Exception:  # noqa: BLE001 -- sht:Failure: the processor must fail
        passed = case.conforms is None
    _TABLE.append((case.name, "pass" if reference else "fail", "unsupported", "pyshacl"))
    if reference:
        assert passed, "the drop-in must pass every SPARQL test pySHACL passes"


def test_core_with_the_fast_engine_covers_the_suite() -> None:
    """The fast engine handles the whole Core suite, not only refuses it."""
    handled = 0
    for case in CORE:
        try:
            handled += agrees(case, run(case.data, case.shapes, engine="fast").graph)
        except Unsupported:
            continue
    assert handled == len(CORE)


@pytest.mark.parametrize("case", CORE, ids=[c.name for c in CORE])
def test_core_fast_on_oxigraph(case: Case) -> None:
    """The same verdicts when the data graph lives in Oxigraph (the engine then reads Oxigraph's own terms)."""
    data = Graph(store="Oxigraph")
    for triple in case.data:
        data.add(triple)
    shapes = case.shapes if case.shapes is not case.data else data
    try:
        report = run(data, shapes, engine="fast").graph
    except Unsupported:
        return
    assert agrees(case, report, by_value=True)  # Oxigraph keeps "4.0"^^xsd:decimal as "4"
