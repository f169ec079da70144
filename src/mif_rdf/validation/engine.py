"""A fast SHACL engine for the constraint components mif-rdf's shapes use.

pyshacl is the reference (and the fallback): general, but it spends most of
its time on per-focus-node machinery, about 5 ms a memory.  The shapes in
``shapes/`` use a small part of SHACL Core -- class/subjectsOf/objectsOf
targets, simple predicate paths, cardinality, value type, value range,
string and logical ``sh:or``/``sh:not`` constraints, ``sh:in``, ``sh:hasValue`` -- so
this engine compiles them once and evaluates them with one index scan per
predicate, then writes its results as a standard SHACL validation report
graph.  Tests require its results to equal pyshacl's on every fixture and on
generated bundles with seeded violations.  A shapes graph that uses anything
else raises :class:`Unsupported` and the caller runs pyshacl instead.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Callable, Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH, XSD

from ..oxigraph_sink import OxigraphSink, oxigraph_store, query_dataset, rdflib_term

Check = Callable[[Any], bool]


class Unsupported(Exception):
    """The shapes graph uses a SHACL feature this engine does not implement."""


_TARGETS = {SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf}
_IGNORED = {RDF.type, SH.message, SH.severity, SH.name, SH.description, SH.order, SH.group, SH.deactivated}
_NODE_KINDS = {
    SH.IRI: (URIRef,), SH.BlankNode: (BNode,), SH.Literal: (Literal,),
    SH.BlankNodeOrIRI: (BNode, URIRef), SH.BlankNodeOrLiteral: (BNode, Literal), SH.IRIOrLiteral: (URIRef, Literal),
}
#: The Python type rdflib gives a well-formed literal of each datatype; others are not checked further.
_VALUE_TYPES: dict[Any, type | tuple[type, ...]] = {
    XSD.string: str, RDF.langString: str, XSD.integer: int, XSD.decimal: Decimal, XSD.float: float,
    XSD.boolean: bool, XSD.date: date, XSD.time: time, XSD.dateTime: datetime,
}


@dataclass
class Constraint:
    component: URIRef
    check: Check | None = None  # value node -> conforms? (None for sh:or and sh:not)
    alternatives: list["Shape"] | None = None  # sh:or: conforms to any of these
    negated: "Shape | None" = None  # sh:not: must not conform to this


@dataclass
class Shape:
    iri: Any
    path: URIRef | None
    severity: Any
    message: Any
    constraints: list[Constraint] = field(default_factory=list)
    min_count: int | None = None
    max_count: int | None = None
    has_value: Any = None
    properties: list["Shape"] = field(default_factory=list)


@dataclass
class NodeShape:
    shape: Shape
    targets: list[tuple[Any, Any]]  # (target predicate, object)


class Compiler:
    """Shapes graph -> :class:`NodeShape` list (raises :class:`Unsupported`)."""

    def __init__(self, shapes: Graph) -> None:
        self.g = shapes
        self.paths: set[URIRef] = set()

    def compile(self) -> list[NodeShape]:
        nodes = set(self.g.subjects(RDF.type, SH.NodeShape))
        for target in _TARGETS:
            nodes |= set(self.g.subjects(target, None))
        if any(self.g.triples((None, SH.target, None))) or any(self.g.triples((None, SH.sparql, None))):
            raise Unsupported("SPARQL-based targets or constraints")
        compiled = []
        for node in sorted(nodes, key=str):
            targets = [(p, o) for p in _TARGETS for o in self.g.objects(node, p)]
            if targets:
                compiled.append(NodeShape(self.shape(node), targets))
        return compiled

    def shape(self, node: Any) -> Shape:
        path = self.g.value(node, SH.path)
        if path is not None and not isinstance(path, URIRef):
            raise Unsupported(f"complex property path on {node}")
        if path is not None:
            self.paths.add(path)
        shape = Shape(node, path, self.g.value(node, SH.severity) or SH.Violation, self.g.value(node, SH.message))
        for predicate, value in self.g.predicate_objects(node):
            if predicate in _IGNORED or predicate in _TARGETS or predicate == SH.path or str(predicate).startswith("https://mif-spec.dev/ns/shapes/") or predicate == URIRef("http://www.w3.org/2000/01/rdf-schema#label"):
                continue
            if predicate == SH.property:
                shape.properties.append(self.shape(value))
            elif predicate == SH.minCount:
                shape.min_count = int(str(value))
            elif predicate == SH.maxCount:
                shape.max_count = int(str(value))
            elif predicate == SH.hasValue:
                shape.has_value = value
            elif predicate == SH.flags:
                continue  # read with sh:pattern
            else:
                shape.constraints.append(self.constraint(node, predicate, value))
        return shape

    def constraint(self, node: Any, predicate: Any, value: Any) -> Constraint:
        if predicate == SH["or"]:
            return Constraint(SH.OrConstraintComponent, alternatives=[self.shape(m) for m in Collection(self.g, value)])
        if predicate == SH["not"]:
            return Constraint(SH.NotConstraintComponent, negated=self.shape(value))
        if predicate == SH.pattern:
            flags = str(self.g.value(node, SH.flags) or "")
            regex = re.compile(str(value), sum(flag for letter, flag in _FLAGS.items() if letter in flags))
            return Constraint(SH.PatternConstraintComponent, lambda v: not isinstance(v, BNode) and regex.search(str(v)) is not None)
        if predicate == SH["in"]:
            allowed = frozenset(Collection(self.g, value))
            return Constraint(SH.InConstraintComponent, lambda v: v in allowed)
        if predicate in _RANGES:
            component, accept = _RANGES[predicate]
            return Constraint(component, lambda v: _in_range(v, value, accept))
        builder = _SIMPLE.get(predicate)
        if builder is None:
            raise Unsupported(f"{predicate} on {node}")
        component, check = builder(value)
        return Constraint(component, check)


def _datatype(value: Any) -> tuple[URIRef, Check]:
    return SH.DatatypeConstraintComponent, lambda v: _has_datatype(v, value)


def _node_kind(value: Any) -> tuple[URIRef, Check]:
    kinds = _NODE_KINDS[value]
    return SH.NodeKindConstraintComponent, lambda v: isinstance(v, kinds)


def _min_length(value: Any) -> tuple[URIRef, Check]:
    limit = int(value)
    return SH.MinLengthConstraintComponent, lambda v: limit == 0 or (not isinstance(v, BNode) and len(str(v)) >= limit)


def _max_length(value: Any) -> tuple[URIRef, Check]:
    limit = int(value)
    return SH.MaxLengthConstraintComponent, lambda v: not isinstance(v, BNode) and len(str(v)) <= limit


_SIMPLE: dict[Any, Callable[[Any], tuple[URIRef, Check]]] = {
    SH.datatype: _datatype, SH.nodeKind: _node_kind, SH.minLength: _min_length, SH.maxLength: _max_length,
}
_RANGES: dict[Any, tuple[URIRef, Callable[[int], bool]]] = {
    SH.minInclusive: (SH.MinInclusiveConstraintComponent, lambda order: order >= 0),
    SH.maxInclusive: (SH.MaxInclusiveConstraintComponent, lambda order: order <= 0),
    SH.minExclusive: (SH.MinExclusiveConstraintComponent, lambda order: order > 0),
    SH.maxExclusive: (SH.MaxExclusiveConstraintComponent, lambda order: order < 0),
}
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def _has_datatype(value: Any, datatype: Any) -> bool:
    if not isinstance(value, Literal):
        return False
    actual = value.datatype or (None if value.language else XSD.string)
    if value.language and datatype == RDF.langString:
        actual = RDF.langString
    if actual != datatype or getattr(value, "ill_typed", False):
        return False
    expected = _VALUE_TYPES.get(datatype)
    return expected is None or isinstance(value.value, expected)


def _in_range(value: Any, bound: Literal, test: Callable[[int], bool]) -> bool:
    if not isinstance(value, Literal) or isinstance(value.value, str) != isinstance(bound.value, str):
        return False
    try:
        order = 0 if value.eq(bound) else 1 if value > bound else -1 if value < bound else None
    except (TypeError, NotImplementedError):
        return False
    return order is not None and test(order)


# -- the data -------------------------------------------------------------------------------
class Data:
    """The graph being validated as the engine reads it: one scan per predicate, terms in the store's own form.

    For an rdflib graph the terms are rdflib's.  For a graph in Oxigraph they
    are pyoxigraph's, read by one SPARQL scan per predicate (2-3x faster than
    ``quads_for_pattern`` on an on-disk store) and never copied into rdflib:
    only the values a constraint looks at and the nodes a result names are
    converted, once each, with their lexical form kept
    (:func:`~mif_rdf.oxigraph_sink.rdflib_term`).
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.store = oxigraph_store(graph)
        if self.store is None:
            self.term: Callable[[Any], Any] = _same_term
            self.native: Callable[[Any], Any] = _same_term
        else:
            self.term, self.native = rdflib_term, OxigraphSink.term
            self.options = query_dataset(graph)

    def values(self, predicate: URIRef) -> dict[Any, list[Any]]:
        """Subject -> the distinct objects of its triples with ``predicate`` (one scan; millions of rows at scale,
        so each row is handled in one loop with no tuple of its own)."""
        by_subject: defaultdict[Any, list[Any]] = defaultdict(list)
        if self.store is None:
            for s, _, o in self.graph.triples((None, predicate, None)):
                by_subject[s].append(o)
        else:
            iri = self.native(predicate)  # a pyoxigraph NamedNode: a well-formed IRI, written as <...>
            for row in self.store.query(f"SELECT ?s ?o WHERE {{ ?s {iri} ?o }}", **self.options):
                by_subject[row[0]].append(row[1])
        for subject, objects in by_subject.items():
            if len(objects) > 1:  # the same triple in two graphs of the union is one value
                by_subject[subject] = list(dict.fromkeys(objects))
        return by_subject


def _same_term(term: Any) -> Any:
    return term


# -- evaluation ---------------------------------------------------------------------------------
class Evaluator:
    """Evaluates compiled shapes against an index: path -> subject -> values (scanned once per path).

    Nodes stay in the store's form (:class:`Data`); constraints see them as rdflib terms (``term``).
    Whether a value meets a constraint depends on the value alone (and, for
    ``sh:or``/``sh:not`` with nested shapes, on the fixed data), so each
    property shape checks each distinct value once and keeps the failures:
    most values repeat (trust levels, types, decay models, tags), and at
    100,000 memories the checks and the term conversions they need were most
    of a validation.  Terms are converted for a check and not kept.
    """

    def __init__(self, index: dict[URIRef, dict[Any, list[Any]]], term: Callable[[Any], Any] = _same_term) -> None:
        self.index = index
        self.term = term
        self._checked: dict[int, tuple[set[Any], list[set[Any]]]] = {}  # id(shape) -> (values checked, failing values per constraint)

    def failing(self, shape: Shape, values: list[Any]) -> list[set[Any]]:
        """For each constraint of ``shape``, the values of its path seen so far (``values`` included) that fail it."""
        checked = self._checked.get(id(shape))
        if checked is None:
            checked = self._checked[id(shape)] = (set(), [set() for _ in shape.constraints])
        seen, failing = checked
        for value in values:
            if value not in seen:
                seen.add(value)
                term = self.term(value)
                for position, constraint in enumerate(shape.constraints):
                    if not self.passes(constraint, value, term):
                        failing[position].add(value)
        return failing

    def values(self, focus: Any, path: URIRef) -> list[Any]:
        return self.index.get(path, {}).get(focus, [])

    def passes(self, constraint: Constraint, value: Any, term: Any) -> bool:
        """Whether ``value`` (``term`` as rdflib's) meets ``constraint``."""
        if constraint.alternatives is not None:
            return any(next(iter(self.violations(alt, value)), None) is None for alt in constraint.alternatives)
        if constraint.negated is not None:
            return next(iter(self.violations(constraint.negated, value)), None) is not None
        return constraint.check(term)  # type: ignore[misc]

    def violations(self, shape: Shape, focus: Any) -> Iterable[tuple[Shape, Any, Any, URIRef]]:
        """(shape, focus, value or None, component) for every failure of ``shape`` on ``focus``."""
        if shape.path is None:
            term = self.term(focus)
            if shape.has_value is not None and term != shape.has_value:
                yield shape, focus, focus, SH.HasValueConstraintComponent
            for constraint in shape.constraints:
                if not self.passes(constraint, focus, term):
                    yield shape, focus, focus, constraint.component
            for prop in shape.properties:
                yield from self.violations(prop, focus)
            return
        values = self.values(focus, shape.path)
        if shape.min_count is not None and len(values) < shape.min_count:
            yield shape, focus, None, SH.MinCountConstraintComponent
        if shape.max_count is not None and len(values) > shape.max_count:
            yield shape, focus, None, SH.MaxCountConstraintComponent
        if shape.has_value is not None and shape.has_value not in map(self.term, values):
            yield shape, focus, None, SH.HasValueConstraintComponent
        if shape.constraints:
            for constraint, failing in zip(shape.constraints, self.failing(shape, values)):
                if failing:
                    for value in values:
                        if value in failing:
                            yield shape, focus, value, constraint.component
        for prop in shape.properties:
            for value in values:
                yield from self.violations(prop, value)


def validate_graph(data: Graph, shapes: Graph) -> Graph:
    """SHACL validation of ``data`` by ``shapes``: a standard validation report graph.

    ``data`` is read where it lives: an rdflib store through its triples, a
    graph in Oxigraph through Oxigraph's own queries (:class:`Data`).
    Raises :class:`Unsupported` when the shapes use features outside this engine.
    """
    compiler = Compiler(shapes)
    node_shapes = compiler.compile()
    source = Data(data)
    wanted = compiler.paths | {p for n in node_shapes for t, p in n.targets if t != SH.targetClass} | {RDF.type}
    index = {path: source.values(path) for path in wanted}
    evaluator = Evaluator(index, source.term)
    found: list[tuple[Shape, Any, Any, URIRef]] = []
    for node_shape in node_shapes:
        for focus in _focus_nodes(node_shape, index, source.native):
            found.extend(evaluator.violations(node_shape.shape, focus))
    term = source.term
    return _report([(shape, term(focus), None if value is None else term(value), component) for shape, focus, value, component in found])


def _focus_nodes(node_shape: NodeShape, index: dict[URIRef, dict[Any, list[Any]]], native: Callable[[Any], Any]) -> set[Any]:
    nodes: set[Any] = set()
    for kind, value in node_shape.targets:
        if kind == SH.targetSubjectsOf:
            nodes |= set(index.get(value, {}))
        elif kind == SH.targetObjectsOf:
            nodes |= {o for objects in index.get(value, {}).values() for o in objects}
        else:
            wanted = native(value)
            nodes |= {s for s, types in index[RDF.type].items() if wanted in types}
    return nodes


def _report(found: list[tuple[Shape, Any, Any, URIRef]]) -> Graph:
    report = Graph()
    root = BNode()
    report.add((root, RDF.type, SH.ValidationReport))
    report.add((root, SH.conforms, Literal(not any(s.severity == SH.Violation for s, *_ in found))))
    for shape, focus, value, component in found:
        result = BNode()
        report.add((root, SH.result, result))
        report.add((result, RDF.type, SH.ValidationResult))
        report.add((result, SH.focusNode, focus))
        report.add((result, SH.resultSeverity, shape.severity))
        report.add((result, SH.sourceShape, shape.iri))
        report.add((result, SH.sourceConstraintComponent, component))
        if shape.path is not None:
            report.add((result, SH.resultPath, shape.path))
        if value is not None:
            report.add((result, SH.value, value))
        if shape.message is not None:
            report.add((result, SH.resultMessage, shape.message))
    return report
