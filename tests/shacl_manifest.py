"""Reading W3C SHACL test manifests (the data-shapes test suite layout) and comparing reports as that suite says.

A manifest (``mf:Manifest``) lists ``sht:Validate`` entries and may include
other manifests.  Each entry names its data and shapes graphs (usually the
manifest file itself) and the expected ``sh:ValidationReport``.  Two reports
agree when ``sh:conforms`` is equal and the multisets of results are equal by
focus node, result path, source shape, source constraint component and
severity, blank nodes comparing as blank nodes (any blank node equals any).
Used by the W3C suite in tests/conformance and by the project's own corpus
in tests/fixtures/shacl (the main suite).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote, urlparse

import rdflib
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, SH

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")
_KEYS = (SH.focusNode, SH.resultPath, SH.sourceShape, SH.sourceConstraintComponent, SH.resultSeverity)


@dataclass
class Case:
    """One ``sht:Validate`` entry."""

    name: str  # the entry's path below the suite root, without .ttl (``node/minInclusive-003``)
    data: Graph
    shapes: Graph
    conforms: bool | None  # None when the processor must fail (sht:Failure)
    results: Counter[tuple[object, ...]]


def cases(manifest: Path, root: Path | None = None) -> list[Case]:
    """Every entry of ``manifest`` and the manifests it includes, in order."""
    root = root or manifest.parent
    graph = _parse(manifest)
    found: list[Case] = []
    for m in graph.subjects(RDF.type, MF.Manifest):
        for included in sorted(graph.objects(m, MF.include)):
            found += cases(_path(included), root)
        for entries in graph.objects(m, MF.entries):
            for entry in graph.items(entries):
                found.append(_case(graph, entry, root))
    return found


def _case(graph: Graph, entry: URIRef, root: Path) -> Case:
    action = graph.value(entry, MF.action)
    data_path, shapes_path = _path(graph.value(action, SHT.dataGraph)), _path(graph.value(action, SHT.shapesGraph))
    data = _parse(data_path)
    shapes = data if shapes_path == data_path else _parse(shapes_path)
    expected = graph.value(entry, MF.result)
    name = _path(entry).relative_to(root.resolve()).as_posix().removesuffix(".ttl")
    if expected == SHT.Failure:
        return Case(name, data, shapes, None, Counter())
    conforms = graph.value(expected, SH.conforms)
    return Case(
        name,
        data,
        shapes,
        bool(conforms.toPython()) if isinstance(conforms, Literal) else None,
        results(graph, expected),
    )


def results(report: Graph, root: object | None = None, by_value: bool = False) -> Counter[tuple[object, ...]]:
    """The results of a report (the one at ``root``, else every ``sh:ValidationReport``
    of the graph) as comparable keys.

    ``by_value`` compares literals by value (a store that keeps canonical forms, as Oxigraph does for decimals).
    """
    roots = [root] if root is not None else list(report.subjects(RDF.type, SH.ValidationReport))
    keys: Counter[tuple[object, ...]] = Counter()
    for report_node in roots:
        for result in report.objects(report_node, SH.result):
            keys[tuple(_comparable(report.value(result, key), by_value) for key in _KEYS)] += 1
    return keys


def conforms(report: Graph) -> bool:
    value = report.value(next(report.subjects(RDF.type, SH.ValidationReport)), SH.conforms)
    return bool(value.toPython())


def agrees(case: Case, report: Graph, by_value: bool = False) -> bool:
    """Whether ``report`` is the report ``case`` expects (the suite's comparison)."""
    if case.conforms is None or conforms(report) != case.conforms:
        return False
    if by_value:
        expected = Counter({tuple(_comparable(t, True) for t in key): n for key, n in case.results.items()})
        return results(report, by_value=True) == expected
    return results(report) == case.results


def _comparable(term: object, by_value: bool = False) -> object:
    if isinstance(term, BNode):
        return "_:"
    if by_value and isinstance(term, Literal):
        number = isinstance(term.value, (int, float, Decimal)) and not isinstance(term.value, bool)
        return (term.value if number else str(term), term.datatype, term.language)
    return term


def _parse(path: Path) -> Graph:
    """The file's graph with every literal as written (rdflib would turn ``"1"^^xsd:boolean`` into ``true``)."""
    rdflib.NORMALIZE_LITERALS = False
    try:
        return Graph().parse(path, format="turtle", publicID=path.resolve().as_uri())
    finally:
        rdflib.NORMALIZE_LITERALS = True


def _path(iri: object) -> Path:
    return Path(unquote(urlparse(str(iri)).path))
