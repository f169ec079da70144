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

import os
import re
from collections import defaultdict, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Callable, Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH, XSD

from ..oxigraph_sink import OxigraphSink, ox, oxigraph_store, query_dataset, rdflib_term

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


# -- the data -------------------------------------------------------------------------------
class Data:
    """The graph being validated as the engine reads it: one scan per predicate, terms in the store's own form.

    For an rdflib graph the terms are rdflib's.  For a graph in Oxigraph they
    are pyoxigraph's, read by one SPARQL scan per predicate (2-3x faster than
    ``quads_for_pattern`` on an on-disk store) and never copied into rdflib.
    Constraints ask a value for what they need: its kind, its text or its
    datatype, all answered from the store's own term, and only the checks
    that need rdflib's reading of a literal (a well-formed ``xsd:dateTime``,
    an order, ``sh:in``) convert it, with its lexical form kept
    (:func:`~mif_rdf.oxigraph_sink.rdflib_term`).  At 100,000 memories the
    conversions were a third of a validation, and most values (IRIs, blank
    nodes, strings) need none.
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.store = oxigraph_store(graph)
        if self.store is None:
            self.term: Callable[[Any], Any] = _same_term
            self.native: Callable[[Any], Any] = _same_term
            self.kind: Callable[[Any], type | None] = _rdflib_kind
            self.text: Callable[[Any], str] = str
            self.datatype: Callable[[Any], str | None] = _rdflib_datatype
        else:
            self.term, self.native = rdflib_term, OxigraphSink.term
            self.kind, self.text, self.datatype = _oxigraph_kind, _oxigraph_text, _oxigraph_datatype
            self.options = query_dataset(graph)

    def index(self, predicates: Iterable[URIRef]) -> dict[URIRef, dict[Any, list[Any]]]:
        """Predicate -> subject -> the distinct objects of its triples with that predicate (one scan each).

        On Oxigraph the scans run in threads that only collect the rows, while
        this thread files them by subject: Oxigraph decodes each term with
        the GIL released (on disk, a string-table lookup per term, most of a
        scan), so two cores read a bundle about 1.6x as fast as one.
        """
        predicates = list(predicates)
        if self.store is None:
            return {p: _by_subject((s, o) for s, _, o in self.graph.triples((None, p, None))) for p in predicates}
        workers = max(1, min(_SCAN_THREADS, os.cpu_count() or 1))
        index: dict[URIRef, dict[Any, list[Any]]] = {}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            ahead: deque[tuple[URIRef, Future[list[Any]]]] = deque()
            for predicate in [*predicates, None]:
                if predicate is not None:
                    ahead.append((predicate, pool.submit(self._rows, predicate)))
                # rows wait as Oxigraph's own objects: no more than a scan per thread ahead of the filing
                while ahead and (predicate is None or len(ahead) > workers):
                    done, scan = ahead.popleft()
                    index[done] = _by_subject(scan.result())
        return index

    def _rows(self, predicate: URIRef) -> list[Any]:
        iri = self.native(predicate)  # a pyoxigraph NamedNode: a well-formed IRI, written as <...>
        return list(self.store.query(f"SELECT ?s ?o WHERE {{ ?s {iri} ?o }}", **self.options))


def _by_subject(rows: Iterable[Any]) -> dict[Any, list[Any]]:
    """(subject, object) rows -> subject -> distinct objects (millions of rows at scale: one loop, no copies)."""
    by_subject: defaultdict[Any, list[Any]] = defaultdict(list)
    for subject, value in rows:
        by_subject[subject].append(value)
    for subject, objects in by_subject.items():
        if len(objects) > 1:  # the same triple in two graphs of the union is one value
            by_subject[subject] = list(dict.fromkeys(objects))
    return by_subject


def _same_term(term: Any) -> Any:
    return term


def _rdflib_kind(term: Any) -> type | None:
    return URIRef if isinstance(term, URIRef) else BNode if isinstance(term, BNode) else Literal if isinstance(term, Literal) else None


def _rdflib_datatype(term: Any) -> str | None:
    """The datatype IRI of a literal as RDF 1.1 has it (plain: ``xsd:string``, tagged: ``rdf:langString``), else None."""
    if not isinstance(term, Literal):
        return None
    return str(term.datatype) if term.datatype else _LANG_STRING if term.language else _STRING


def _oxigraph_kind(term: Any) -> type | None:
    return _OXIGRAPH_KINDS.get(type(term))


def _oxigraph_text(term: Any) -> str:
    return term.value


def _oxigraph_datatype(term: Any) -> str | None:
    return term.datatype.value if type(term) is ox.Literal else None


_STRING, _LANG_STRING = str(XSD.string), str(RDF.langString)
_SCAN_THREADS = 4  # past a few, the threads queue for the GIL that takes each row out of Oxigraph
_OXIGRAPH_KINDS: dict[type, type] = {} if ox is None else {ox.NamedNode: URIRef, ox.BlankNode: BNode, ox.Literal: Literal}


# -- the shapes -----------------------------------------------------------------------------
@dataclass
class Constraint:
    component: URIRef
    check: Check | None = None  # value node (the data's own term) -> conforms? (None for sh:or and sh:not)
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
    """Shapes graph -> :class:`NodeShape` list (raises :class:`Unsupported`).

    The checks are compiled for one :class:`Data`: they take its terms as they are.
    """

    def __init__(self, shapes: Graph, data: Data) -> None:
        self.g = shapes
        self.data = data
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
        data = self.data
        kind, text, term = data.kind, data.text, data.term
        if predicate == SH["or"]:
            return Constraint(SH.OrConstraintComponent, alternatives=[self.shape(m) for m in Collection(self.g, value)])
        if predicate == SH["not"]:
            return Constraint(SH.NotConstraintComponent, negated=self.shape(value))
        if predicate == SH.pattern:
            flags = str(self.g.value(node, SH.flags) or "")
            regex = re.compile(str(value), sum(flag for letter, flag in _FLAGS.items() if letter in flags))
            return Constraint(SH.PatternConstraintComponent, lambda v: kind(v) is not BNode and regex.search(text(v)) is not None)
        if predicate == SH["in"]:
            allowed = frozenset(Collection(self.g, value))
            return Constraint(SH.InConstraintComponent, lambda v: term(v) in allowed)
        if predicate in _RANGES:
            component, accept = _RANGES[predicate]
            return Constraint(component, lambda v: _in_range(term(v), value, accept))
        if predicate == SH.datatype:
            return Constraint(SH.DatatypeConstraintComponent, _datatype_check(data, value))
        if predicate == SH.nodeKind:
            kinds = _NODE_KINDS[value]
            return Constraint(SH.NodeKindConstraintComponent, lambda v: kind(v) in kinds)
        if predicate == SH.minLength:
            least = int(value)
            return Constraint(SH.MinLengthConstraintComponent, lambda v: least == 0 or (kind(v) is not BNode and len(text(v)) >= least))
        if predicate == SH.maxLength:
            most = int(value)
            return Constraint(SH.MaxLengthConstraintComponent, lambda v: kind(v) is not BNode and len(text(v)) <= most)
        raise Unsupported(f"{predicate} on {node}")


def _datatype_check(data: Data, datatype: Any) -> Check:
    """``sh:datatype``: a literal of that datatype whose lexical form is well formed (rdflib's reading, as pyshacl's).

    A literal of another datatype fails without conversion; strings have no ill-formed lexical form.
    """
    wanted = str(datatype)
    if wanted in (_STRING, _LANG_STRING):
        return lambda v: data.datatype(v) == wanted
    parse = _LEXICAL_PARSERS.get(wanted)
    if parse is not None:
        return lambda v: data.datatype(v) == wanted and _parses(parse, data.text(v))
    return lambda v: data.datatype(v) == wanted and _has_datatype(data.term(v), datatype)


#: Datatypes whose well-formedness rdflib (7, on Python 3.11+) decides with exactly these parsers: a
#: literal is well formed when the parser accepts its lexical form.  Calling them directly spares an
#: rdflib Literal per value (timestamps are mostly distinct: 330,000 of them at 100,000 memories were a
#: fifth of a validation).  ``tests/test_validation_engine.py`` holds them to rdflib's reading.
_LEXICAL_PARSERS: dict[str, Callable[[str], Any]] = {str(XSD.dateTime): datetime.fromisoformat, str(XSD.time): time.fromisoformat}


def _parses(parse: Callable[[str], Any], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


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


# -- evaluation ---------------------------------------------------------------------------------
Result = tuple[Shape, Any, Any, URIRef]  # (shape, focus node, value node or None, constraint component)


class Evaluator:
    """Evaluates compiled shapes against an index: path -> subject -> values (scanned once per path).

    A shape is evaluated on all its focus nodes at once, column by column,
    not focus by focus: at 100,000 memories a node shape has a million
    focus-shape pairs, and a generator per pair was most of the engine's own
    time.  Whether a value meets a constraint depends on the value alone
    (and, for ``sh:or``/``sh:not`` with nested shapes, on the fixed data),
    so each shape checks each distinct value once and keeps the failures:
    most values repeat (trust levels, types, decay models, tags).
    """

    def __init__(self, index: dict[URIRef, dict[Any, list[Any]]], data: Data) -> None:
        self.index = index
        self.data = data
        self._checked: dict[int, tuple[set[Any], list[set[Any]]]] = {}  # id(shape) -> (values checked, failing values per constraint)
        self._matches: dict[int, dict[Any, bool]] = {}  # id(shape) -> value -> is its sh:hasValue

    def results(self, shape: Shape, foci: Iterable[Any]) -> list[Result]:
        """Every failure of ``shape`` on each of ``foci`` (a node that occurs twice is evaluated twice)."""
        found: list[Result] = []
        self._collect(shape, list(foci), found)
        return found

    def _collect(self, shape: Shape, foci: list[Any], found: list[Result]) -> None:
        if shape.path is None:
            if shape.has_value is not None:
                found.extend((shape, focus, focus, SH.HasValueConstraintComponent) for focus in foci if not self._is_value(shape, focus))
            self._constraint_failures(shape, foci, [(focus, (focus,)) for focus in foci], found)
            for prop in shape.properties:
                self._collect(prop, foci, found)
            return
        column = self.index.get(shape.path, {})
        rows = [(focus, column.get(focus, _NONE)) for focus in foci]
        low, high = shape.min_count, shape.max_count
        if low is not None:
            found.extend((shape, focus, None, SH.MinCountConstraintComponent) for focus, values in rows if len(values) < low)
        if high is not None:
            found.extend((shape, focus, None, SH.MaxCountConstraintComponent) for focus, values in rows if len(values) > high)
        if shape.has_value is not None:
            found.extend((shape, focus, None, SH.HasValueConstraintComponent)
                         for focus, values in rows if not any(self._is_value(shape, value) for value in values))
        self._constraint_failures(shape, [value for _, values in rows for value in values], rows, found, path=True)
        for prop in shape.properties:
            self._collect(prop, [value for _, values in rows for value in values], found)

    def _constraint_failures(self, shape: Shape, values: list[Any], rows: list[tuple[Any, Any]], found: list[Result],
                             path: bool = False) -> None:
        """The results of ``shape``'s value constraints: ``rows`` pairs each focus node with its value nodes."""
        if not shape.constraints:
            return
        failing = self._failing(shape, values)
        if not any(failing):
            return
        for focus, focus_values in rows:
            for value in focus_values:
                for constraint, bad in zip(shape.constraints, failing):
                    if value in bad:
                        found.append((shape, focus, value, constraint.component))

    def _failing(self, shape: Shape, values: list[Any]) -> list[set[Any]]:
        """For each constraint of ``shape``, the values seen so far (``values`` included) that fail it."""
        checked = self._checked.get(id(shape))
        if checked is None:
            checked = self._checked[id(shape)] = (set(), [set() for _ in shape.constraints])
        seen, failing = checked
        new = [value for value in dict.fromkeys(values) if value not in seen]
        if new:
            seen.update(new)
            for constraint, bad in zip(shape.constraints, failing):
                bad.update(self._failures(constraint, new))
        return failing

    def _is_value(self, shape: Shape, value: Any) -> bool:
        """Whether ``value`` is ``shape``'s ``sh:hasValue`` (decided once per value: an entity's type repeats)."""
        known = self._matches.setdefault(id(shape), {})
        same = known.get(value)
        if same is None:
            same = known[value] = self.data.term(value) == shape.has_value
        return same

    def _failures(self, constraint: Constraint, values: list[Any]) -> list[Any]:
        """The ``values`` (distinct) that fail ``constraint``; ``sh:or`` and ``sh:not`` evaluate their shapes on
        all of them at once, as focus nodes, like any other shape."""
        if constraint.alternatives is not None:
            passing: set[Any] = set()
            for alternative in constraint.alternatives:
                passing |= self._conforming(alternative, [value for value in values if value not in passing])
            return [value for value in values if value not in passing]
        if constraint.negated is not None:
            conforming = self._conforming(constraint.negated, values)
            return [value for value in values if value in conforming]
        check = constraint.check
        return [value for value in values if not check(value)]  # type: ignore[misc]

    def _conforming(self, shape: Shape, foci: list[Any]) -> set[Any]:
        """Those of ``foci`` (distinct) that conform to ``shape``."""
        failed = {focus for _, focus, _, _ in self.results(shape, foci)}
        return {focus for focus in foci if focus not in failed}


_NONE: tuple[Any, ...] = ()


def validate_graph(data: Graph, shapes: Graph) -> Graph:
    """SHACL validation of ``data`` by ``shapes``: a standard validation report graph.

    ``data`` is read where it lives: an rdflib store through its triples, a
    graph in Oxigraph through Oxigraph's own queries (:class:`Data`).
    Raises :class:`Unsupported` when the shapes use features outside this engine.
    """
    source = Data(data)
    compiler = Compiler(shapes, source)
    node_shapes = compiler.compile()
    wanted = compiler.paths | {p for n in node_shapes for t, p in n.targets if t != SH.targetClass} | {RDF.type}
    index = source.index(sorted(wanted))
    evaluator = Evaluator(index, source)
    found: list[Result] = []
    for node_shape in node_shapes:
        found.extend(evaluator.results(node_shape.shape, _focus_nodes(node_shape, index, source.native)))
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


def _report(found: list[Result]) -> Graph:
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
