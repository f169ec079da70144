"""A fast SHACL Core engine: right by the W3C SHACL Core tests, or it steps aside.

pyshacl is the reference (and the fallback): general, but it spends most of
its time on per-focus-node machinery, about 5 ms a memory.  This engine
compiles a shapes graph once and evaluates each shape on all its focus nodes
at once, with one index scan per predicate, then writes a standard SHACL
validation report graph.  It knows the targets (class with subclasses,
implicit class, node, subjects-of, objects-of), predicate/inverse/sequence/
alternative/repetition paths, and every constraint component of SHACL
Core; ``sh:deactivated`` shapes are skipped.  Every shape of the graph is
compiled before anything runs, and a shapes graph that uses anything else
(SHACL-SPARQL, custom components, advanced features, recursion, an
ill-formed shape, a pattern RE2 reads otherwise than XPath)
raises :class:`Unsupported`, so the caller runs pyshacl:
it never passes what it did not check.  ``tests/conformance/test_w3c_shacl.py``
runs the W3C suite through it; the project's tests hold its results to
pyshacl's on the shipped shapes.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from rdflib import BNode, ConjunctiveGraph, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.plugins.stores.memory import Memory

from mif_rdf.core.patterns import PatternError, PatternTimeout, compile_pattern, note_stopped
from mif_rdf.load.oxigraph_sink import OxigraphSink, ox, query_dataset, rdflib_term
from mif_rdf.load.stores import oxigraph_store
from mif_rdf.validation.order import compare

Check = Callable[[Any], bool]


class Unsupported(Exception):
    """The shapes graph uses a SHACL feature this engine does not implement."""


_NODE_KINDS = {
    SH.IRI: (URIRef,),
    SH.BlankNode: (BNode,),
    SH.Literal: (Literal,),
    SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal),
    SH.IRIOrLiteral: (URIRef, Literal),
}
#: The Python type rdflib gives a well-formed literal of each datatype; others are not checked further.
_VALUE_TYPES: dict[Any, type | tuple[type, ...]] = {
    XSD.string: str,
    RDF.langString: str,
    XSD.integer: int,
    XSD.decimal: Decimal,
    XSD.float: float,
    XSD.boolean: bool,
    XSD.date: date,
    XSD.time: time,
    XSD.dateTime: datetime,
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
    (:func:`~mif_rdf.load.oxigraph_sink.rdflib_term`).  At 100,000 memories the
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
        self.types: dict[Any, list[Any]] = {}
        self._subclass_of: dict[Any, list[Any]] = {}
        self._subclasses: dict[Any, frozenset[Any]] = {}
        self._outgoing: dict[Any, list[tuple[Any, Any]]] | None = None

    def bind(self, index: dict[URIRef, dict[Any, list[Any]]]) -> None:
        """Keep the type and subclass columns of the scans, for class targets and ``sh:class``."""
        self.types = index.get(RDF.type, {})
        self._subclass_of = _by_subject(
            (parent, child) for child, parents in index.get(RDFS.subClassOf, {}).items() for parent in parents
        )

    def subclasses(self, cls: Any) -> frozenset[Any]:
        """``cls`` and every class under it by ``rdfs:subClassOf`` in the data (its SHACL instances have one of these types)."""
        found = self._subclasses.get(cls)
        if found is None:
            reached, todo = {cls}, [cls]
            while todo:
                for child in self._subclass_of.get(todo.pop(), _NONE):
                    if child not in reached:
                        reached.add(child)
                        todo.append(child)
            found = self._subclasses[cls] = frozenset(reached)
        return found

    def outgoing(self, node: Any) -> list[tuple[Any, Any]]:
        """Every (predicate, object) of ``node``'s triples (for ``sh:closed``; Oxigraph: one scan, then kept)."""
        if self.store is None:
            return list(dict.fromkeys(self.graph.predicate_objects(node)))
        if self._outgoing is None:
            rows = self.store.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", **self.options)
            self._outgoing = _by_subject((s, (p, o)) for s, p, o in rows)
        return self._outgoing.get(node, [])

    def index(self, predicates: Iterable[URIRef]) -> dict[URIRef, dict[Any, list[Any]]]:
        """Predicate -> subject -> the distinct objects of its triples with that predicate (one scan each).

        On Oxigraph the scans run in threads that only collect the rows, while
        this thread files them by subject: Oxigraph decodes each term with
        the GIL released (on disk, a string-table lookup per term, most of a
        scan), so two cores read a bundle about 1.6x as fast as one.
        """
        predicates = list(predicates)
        if self.store is None:
            by_predicate = _memory_index(self.graph)
            if by_predicate is not None:
                return {
                    p: _by_subject((s, o) for o, subjects in by_predicate.get(p, {}).items() for s in subjects)
                    for p in predicates
                }
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


def _memory_index(graph: Graph) -> dict[Any, dict[Any, Any]] | None:
    """rdflib's in-memory store's own predicate -> object -> subjects index, when ``graph`` reads the whole store
    (a Dataset or ConjunctiveGraph whose default graph is the union), else None.

    ``triples((None, p, None))`` asks the store for each triple's contexts,
    about 15 µs a triple: at 10,000 memories most of a validation with user
    shapes.  The index holds exactly the union's triples.  The one place
    that looks under rdflib's ``Memory`` store: anything unexpected (another
    store, another rdflib) means None, and the caller asks ``triples``.
    """
    store = getattr(graph, "store", None)
    if type(store) is not Memory or not isinstance(graph, ConjunctiveGraph) or not graph.default_union:
        return None
    index = getattr(store, "_Memory__pos", None)
    return index if isinstance(index, dict) else None


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
    return (
        URIRef
        if isinstance(term, URIRef)
        else BNode
        if isinstance(term, BNode)
        else Literal
        if isinstance(term, Literal)
        else None
    )


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
_OXIGRAPH_KINDS: dict[type, type] = (
    {} if ox is None else {ox.NamedNode: URIRef, ox.BlankNode: BNode, ox.Literal: Literal}
)


# -- the shapes -----------------------------------------------------------------------------
#: A compiled property path: an IRI, or (kind, part) for inverse/zero-or-more/one-or-more/zero-or-one,
#: or ("sequence" | "alternative", tuple of paths).
PathExpr = Any
Result = tuple[
    "Shape", Any, Any, URIRef, Any
]  # (shape, focus node, value node or None, component, result path or None)


@dataclass
class Constraint:
    """A constraint on each value node alone (the data being fixed): a check, or shapes the value must (not) conform to."""

    component: URIRef
    check: Check | None = None  # value node (the data's own term) -> conforms? (None when shapes decide)
    shapes: list[Shape] = field(default_factory=list)  # sh:or / sh:and / sh:xone members, sh:not / sh:node shape
    needs: Callable[[int, int], bool] | None = None  # (conforming shapes, all shapes) -> the value passes


@dataclass
class Shape:
    iri: Any
    path: PathExpr | None  # None: a node shape, whose value node is the focus node
    path_node: Any  # the sh:path object as written (an IRI or the blank-node structure), for the report
    severity: Any
    messages: list[Any]
    deactivated: bool = False
    constraints: list[Constraint] = field(default_factory=list)
    min_count: int | None = None
    max_count: int | None = None
    has_values: list[Any] = field(default_factory=list)
    properties: list[Shape] = field(default_factory=list)
    pairs: list[tuple[URIRef, URIRef]] = field(
        default_factory=list
    )  # (component, other predicate): equals, disjoint, lessThan...
    unique_lang: bool = False
    closed: frozenset[Any] | None = None  # sh:closed: the predicates allowed (node shapes only)
    qualified: Qualified | None = None


@dataclass
class Qualified:
    """``sh:qualifiedValueShape`` with its counts, and the sibling shapes a value must not conform to when disjoint."""

    shape: Shape
    least: int | None
    most: int | None
    siblings: list[Shape] = field(default_factory=list)


@dataclass
class Targeted:
    """A shape with its targets: the only shapes that produce results by themselves."""

    shape: Shape
    targets: list[tuple[Any, Any]]  # (target predicate, object); implicit class targets as (sh:targetClass, shape)


_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode)
#: SHACL words on a shape that say nothing to check (or are read with the constraint they belong to).
_NOT_CONSTRAINTS = {
    SH.message,
    SH.severity,
    SH.name,
    SH.description,
    SH.order,
    SH.group,
    SH.deactivated,
    SH.defaultValue,
    SH.path,
    SH.flags,
    SH.ignoredProperties,
    SH.qualifiedMinCount,
    SH.qualifiedMaxCount,
    SH.qualifiedValueShapesDisjoint,
    *_TARGETS,
}
_PAIRS = {
    SH.equals: SH.EqualsConstraintComponent,
    SH.disjoint: SH.DisjointConstraintComponent,
    SH.lessThan: SH.LessThanConstraintComponent,
    SH.lessThanOrEquals: SH.LessThanOrEqualsConstraintComponent,
}
_LOGICAL = {  # list-taking shape parameters: how many members a value must conform to
    SH["or"]: (SH.OrConstraintComponent, lambda good, total: good > 0),
    SH["and"]: (SH.AndConstraintComponent, lambda good, total: good == total),
    SH.xone: (SH.XoneConstraintComponent, lambda good, total: good == 1),
}
_SHAPE_VALUED = (SH.property, SH.node, SH["not"], SH.qualifiedValueShape)
_PATH_KINDS = {
    SH.inversePath: "inverse",
    SH.zeroOrMorePath: "zeroOrMore",
    SH.oneOrMorePath: "oneOrMore",
    SH.zeroOrOnePath: "zeroOrOne",
}
_RDFS_CLASS, _OWL_CLASS = RDFS.Class, URIRef("http://www.w3.org/2002/07/owl#Class")
_SHAPE_CLASSES = (SH.NodeShape, SH.PropertyShape, SH.Shape)


class Compiler:
    """Shapes graph -> the targeted shapes (raises :class:`Unsupported` before anything is evaluated).

    Every shape of the graph is compiled, targeted or not -- anything typed
    ``sh:NodeShape``/``sh:PropertyShape``, with a target or a constraint
    parameter, or reached through ``sh:property``, ``sh:node`` and the
    logical constraints -- so a feature the engine does not know anywhere in
    the graph refuses the whole graph: nothing is skipped in silence.
    The checks are compiled for one :class:`Data`: they take its terms as they are.
    """

    def __init__(self, shapes: Graph, data: Data) -> None:
        self.g = shapes
        self.data = data
        self.paths: set[URIRef] = set()  # the predicates any path or pair constraint reads
        self.classes = False  # whether rdfs:subClassOf must be read (class targets, sh:class)
        self._compiled: dict[Any, Shape] = {}
        self._compiling: set[Any] = set()

    def compile(self) -> list[Targeted]:
        g = self.g
        for word in (SH.target, SH.sparql, SH.rule, SH.parameter, SH.shapesGraph, SH.entailment):
            if any(g.triples((None, word, None))):
                raise Unsupported(f"{word} (SHACL-SPARQL, advanced features or entailment)")
        if any(g.triples((None, RDF.type, SH.ConstraintComponent))) or any(
            (None, RDFS.subClassOf, c) in g for c in _SHAPE_CLASSES
        ):
            raise Unsupported("custom constraint components or subclasses of SHACL's shape classes")
        targeted = []
        for node in sorted(self._shape_nodes(), key=lambda n: (isinstance(n, BNode), str(n))):
            shape = self.shape(node)
            targets = [(p, o) for p in _TARGETS for o in g.objects(node, p)]
            if (node, RDF.type, _RDFS_CLASS) in g and any((node, RDF.type, c) in g for c in _SHAPE_CLASSES[:2]):
                targets.append((SH.targetClass, node))  # an implicit class target
            elif (node, RDF.type, _OWL_CLASS) in g:
                raise Unsupported(
                    f"{node} is an owl:Class and a shape (an implicit class target only if owl:Class is an rdfs:Class)"
                )
            if any(kind == SH.targetClass for kind, _ in targets):
                self.classes = True
            if targets:
                targeted.append(Targeted(shape, targets))
        return targeted

    def _shape_nodes(self) -> set[Any]:
        """Every node SHACL calls a shape in this graph (section 2.1), the ones reached through others included."""
        g = self.g
        nodes: set[Any] = set()
        for kind in _SHAPE_CLASSES[:2]:
            nodes |= set(g.subjects(RDF.type, kind))
        for predicate in (*_TARGETS, *_PARAMETERS):
            nodes |= set(g.subjects(predicate, None))
        for predicate in _SHAPE_VALUED:
            nodes |= set(g.objects(None, predicate))
        for predicate in _LOGICAL:
            for head in g.objects(None, predicate):
                nodes |= set(_members(g, head))
        return {node for node in nodes if not isinstance(node, Literal)}

    def shape(self, node: Any) -> Shape:
        known = self._compiled.get(node)
        if known is not None:
            return known
        if node in self._compiling:
            raise Unsupported(f"recursive shape {node}")
        if isinstance(node, Literal):
            raise Unsupported(f"a literal {node!r} where a shape belongs")
        self._compiling.add(node)
        try:
            shape = self._shape(node)
        except (ValueError, TypeError, KeyError, re.error) as error:  # an ill-formed shape: pyshacl says what
            raise Unsupported(f"{node}: {error}") from error
        finally:
            self._compiling.discard(node)
        self._compiled[node] = shape
        return shape

    def _shape(self, node: Any) -> Shape:
        g = self.g
        paths = list(g.objects(node, SH.path))
        if len(paths) > 1:
            raise Unsupported(f"{node} has {len(paths)} sh:path values")
        path_node = paths[0] if paths else None
        severities = list(g.objects(node, SH.severity))
        if len(severities) > 1:
            raise Unsupported(f"{node} has {len(severities)} sh:severity values")
        shape = Shape(
            node,
            None if path_node is None else self.path(path_node),
            path_node,
            severities[0] if severities else SH.Violation,
            sorted(g.objects(node, SH.message)),
        )
        if any(_is_true(value) for value in g.objects(node, SH.deactivated)):
            shape.deactivated = True  # conforms, produces nothing: what it says is never read
            return shape
        for predicate, value in g.predicate_objects(node):
            if predicate in _NOT_CONSTRAINTS or not predicate.startswith(_SH):
                continue  # rdf:type, labels, the project's own annotations: not SHACL constraints
            self._parameter(shape, node, predicate, value)
        return shape

    def _parameter(self, shape: Shape, node: Any, predicate: URIRef, value: Any) -> None:
        if predicate == SH.property:
            prop = self.shape(value)
            if prop.path is None and not prop.deactivated:
                raise Unsupported(f"sh:property {value} of {node} has no sh:path")
            shape.properties.append(prop)
        elif predicate in (SH.minCount, SH.maxCount):
            if shape.path is None or getattr(shape, _COUNTS[predicate]) is not None:
                raise Unsupported(f"{predicate} on {node}")
            setattr(shape, _COUNTS[predicate], _integer(value))
        elif predicate == SH.hasValue:
            shape.has_values.append(_rdf11(value))
        elif predicate in _PAIRS:
            if not isinstance(value, URIRef) or (
                shape.path is None and predicate in (SH.lessThan, SH.lessThanOrEquals)
            ):
                raise Unsupported(f"{predicate} {value} on {node}")
            self.paths.add(value)
            shape.pairs.append((_PAIRS[predicate], value))
        elif predicate == SH.uniqueLang:
            if shape.path is None:
                raise Unsupported(f"sh:uniqueLang on the node shape {node}")
            shape.unique_lang = shape.unique_lang or _is_true(value)
        elif predicate == SH.qualifiedValueShape:
            if shape.path is None or shape.qualified is not None:
                raise Unsupported(f"sh:qualifiedValueShape on {node} (a node shape, or twice)")
            shape.qualified = self._qualified(node, value)
        elif predicate == SH.closed:
            if _is_true(value):
                if shape.path is not None:
                    raise Unsupported(f"sh:closed on the property shape {node}")
                shape.closed = self._closed(node)
        else:
            shape.constraints.append(self.constraint(node, predicate, value))

    def _qualified(self, node: Any, value: Any) -> Qualified:
        """SHACL 4.7.3: the counts, and with ``sh:qualifiedValueShapesDisjoint true`` the siblings -- the
        qualified value shapes of the other property shapes of every shape that has ``node`` as a property."""
        g = self.g
        counts = [[_integer(v) for v in g.objects(node, p)] for p in (SH.qualifiedMinCount, SH.qualifiedMaxCount)]
        if any(len(c) > 1 for c in counts):
            raise Unsupported(f"{node}: more than one qualified count of a kind")
        qualified = Qualified(self.shape(value), *(c[0] if c else None for c in counts))
        if any(_is_true(v) for v in g.objects(node, SH.qualifiedValueShapesDisjoint)):
            siblings = {
                sibling
                for parent in g.subjects(SH.property, node)
                for prop in g.objects(parent, SH.property)
                for sibling in g.objects(prop, SH.qualifiedValueShape)
            } - {value}
            qualified.siblings = [self.shape(sibling) for sibling in sorted(siblings, key=str)]
        return qualified

    def _closed(self, node: Any) -> frozenset[Any]:
        allowed = set()
        for prop in self.g.objects(node, SH.property):
            path = self.g.value(prop, SH.path)
            if isinstance(path, URIRef):
                allowed.add(path)
        for head in self.g.objects(node, SH.ignoredProperties):
            allowed |= set(_members(self.g, head))
        return frozenset(self.data.native(p) for p in allowed if isinstance(p, URIRef))

    def path(self, node: Any) -> PathExpr:
        """A SHACL property path (section 2.3.1) compiled; its predicates join the scans."""
        g = self.g
        if isinstance(node, URIRef):
            self.paths.add(node)
            return node
        if not isinstance(node, BNode):
            raise Unsupported(f"path {node!r}")
        if (node, RDF.first, None) in g:
            steps = tuple(self.path(step) for step in _members(g, node))
            if len(steps) < 2:
                raise Unsupported("a sequence path of fewer than two steps")
            return ("sequence", steps)
        described = [(p, o) for p, o in g.predicate_objects(node)]
        if len(described) != 1:
            raise Unsupported(f"path {node} with {len(described)} descriptions")
        ((predicate, value),) = described
        if predicate == SH.alternativePath:
            choices = tuple(self.path(step) for step in _members(g, value))
            if len(choices) < 2:
                raise Unsupported("an alternative path of fewer than two paths")
            return ("alternative", choices)
        if predicate in _PATH_KINDS:
            return (_PATH_KINDS[predicate], self.path(value))
        raise Unsupported(f"path {node}: {predicate}")

    def constraint(self, node: Any, predicate: Any, value: Any) -> Constraint:
        data = self.data
        kind, text, term = data.kind, data.text, data.term
        if predicate in _LOGICAL:
            component, needs = _LOGICAL[predicate]
            return Constraint(component, shapes=[self.shape(m) for m in _members(self.g, value)], needs=needs)
        if predicate == SH["not"]:
            return Constraint(
                SH.NotConstraintComponent, shapes=[self.shape(value)], needs=lambda good, total: good == 0
            )
        if predicate == SH.node:
            return Constraint(
                SH.NodeConstraintComponent, shapes=[self.shape(value)], needs=lambda good, total: good == 1
            )
        if predicate == SH["class"]:
            self.classes = True
            return Constraint(SH.ClassConstraintComponent, _class_check(data, value))
        if predicate == SH.pattern:
            flags = [str(f) for f in self.g.objects(node, SH.flags)]
            if len(flags) > 1 or any(letter not in _FLAGS for letter in "".join(flags)):
                raise Unsupported(f"sh:flags {flags} on {node}")
            return Constraint(SH.PatternConstraintComponent, _pattern_check(str(value), "".join(flags), kind, text))
        if predicate == SH.languageIn:
            ranges = [str(r).lower() for r in _members(self.g, value)]
            return Constraint(SH.LanguageInConstraintComponent, lambda v: _language_in(term(v), ranges))
        if predicate == SH["in"]:
            allowed = frozenset(_rdf11(member) for member in _members(self.g, value))
            return Constraint(SH.InConstraintComponent, lambda v: _rdf11(term(v)) in allowed)
        if predicate in _RANGES:
            component, accept = _RANGES[predicate]
            if not isinstance(value, Literal):
                raise Unsupported(f"{predicate} {value} on {node}")
            return Constraint(component, lambda v: _in_range(term(v), value, accept))
        if predicate == SH.datatype:
            return Constraint(SH.DatatypeConstraintComponent, _datatype_check(data, value))
        if predicate == SH.nodeKind:
            kinds = _NODE_KINDS[value]
            return Constraint(SH.NodeKindConstraintComponent, lambda v: kind(v) in kinds)
        if predicate == SH.minLength:
            least = _integer(value)
            return Constraint(
                SH.MinLengthConstraintComponent,
                lambda v: least == 0 or (kind(v) is not BNode and len(text(v)) >= least),
            )
        if predicate == SH.maxLength:
            most = _integer(value)
            return Constraint(SH.MaxLengthConstraintComponent, lambda v: kind(v) is not BNode and len(text(v)) <= most)
        raise Unsupported(f"{predicate} on {node}")


_SH = str(SH)
_COUNTS = {SH.minCount: "min_count", SH.maxCount: "max_count"}
#: The parameters of SHACL Core's constraint components: a node with one of them is a shape (SHACL 2.1), whose
#: every ``sh:`` word is then compiled or refused.  Other ``sh:`` words on other nodes (data that uses SHACL's
#: vocabulary, such as W3C test ``property/qualifiedValueShape-001``'s ``sh:nodeShape``) make no shape.
_PARAMETERS = (
    SH["class"],
    SH.datatype,
    SH.nodeKind,
    SH.minCount,
    SH.maxCount,
    SH.minExclusive,
    SH.minInclusive,
    SH.maxExclusive,
    SH.maxInclusive,
    SH.minLength,
    SH.maxLength,
    SH.pattern,
    SH.languageIn,
    SH.uniqueLang,
    SH.equals,
    SH.disjoint,
    SH.lessThan,
    SH.lessThanOrEquals,
    SH["not"],
    SH["and"],
    SH["or"],
    SH.xone,
    SH.node,
    SH.property,
    SH.qualifiedValueShape,
    SH.closed,
    SH.hasValue,
    SH["in"],
    SH.sparql,
)


def _members(g: Graph, head: Any) -> list[Any]:
    """The members of an RDF list (a malformed list is an ill-formed shape: refused)."""
    members, seen = [], set()
    while head != RDF.nil:
        if head in seen or isinstance(head, Literal):
            raise Unsupported(f"malformed RDF list at {head}")
        seen.add(head)
        firsts, rests = list(g.objects(head, RDF.first)), list(g.objects(head, RDF.rest))
        if len(firsts) != 1 or len(rests) != 1:
            raise Unsupported(f"malformed RDF list at {head}")
        members.append(firsts[0])
        head = rests[0]
    return members


def _rdf11(term: Any) -> Any:
    """``"x"^^xsd:string`` as the plain ``"x"``: one term in RDF 1.1, two to rdflib (oxrdflib gives the typed form,
    the loader and Turtle the plain one), so ``sh:in`` and ``sh:hasValue`` compare them as one."""
    if type(term) is Literal and term.datatype == XSD.string:
        return Literal(str(term))
    return term


def _is_true(value: Any) -> bool:
    """SHACL's boolean parameters are on only for the literal ``true`` (``"1"^^xsd:boolean`` is another term,
    W3C test ``property/uniqueLang-002``; rdflib turns it into ``true`` unless a graph is parsed without normalizing)."""
    return isinstance(value, Literal) and value.datatype == XSD.boolean and str(value) == "true"


def _integer(value: Any) -> int:
    if (
        not isinstance(value, Literal)
        or not isinstance(value.value, int)
        or isinstance(value.value, bool)
        or value.value < 0
    ):
        raise ValueError(f"{value!r} is not a non-negative integer")
    return value.value


def _class_check(data: Data, cls: Any) -> Check:
    """``sh:class``: a value is a SHACL instance of ``cls`` (rdf:type, then rdfs:subClassOf any number of times).

    Reads the evaluator's type and subclass columns, bound after the scans (:meth:`Evaluator.bind_classes`).
    """
    wanted = data.native(cls)
    holder: dict[str, Any] = {}

    def check(value: Any) -> bool:
        classes = holder.get("classes")
        if classes is None:
            classes = holder["classes"] = data.subclasses(wanted)
        return any(t in classes for t in data.types.get(value, _NONE))

    return check


def _language_in(value: Any, ranges: list[str]) -> bool:
    """SPARQL's ``langMatches`` (basic filtering, RFC 4647) against any of ``ranges``."""
    if not isinstance(value, Literal) or not value.language:
        return False
    tag = value.language.lower()
    return any(r == "*" or tag == r or tag.startswith(r + "-") for r in ranges)


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
_LEXICAL_PARSERS: dict[str, Callable[[str], Any]] = {
    str(XSD.dateTime): datetime.fromisoformat,
    str(XSD.time): time.fromisoformat,
}


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
_FLAGS = frozenset("imsxq")
#: Escapes Python's ``re`` and RE2 read otherwise than XPath (``\w``: XPath's takes symbols such as ``+``; ``\s``: XPath's
#: is four characters) or that XPath does not have (Python's anchors and word boundaries).
_NOT_XPATH_ESCAPES = frozenset("wWsSAZbBgG")
#: Letter escapes read alike by XPath, Python's ``re`` and RE2 (``\d``, ``\D`` are spelled as Unicode categories).
_ESCAPES = {"n": "\\n", "r": "\\r", "t": "\\t", "d": "\\p{Nd}", "D": "\\P{Nd}"}
_SPACES = frozenset("\t\n\r ")  # what the x flag removes outside character classes (XPath 3.1, 5.6.1)
_META = frozenset(".\\?*+{}()[]|^$")


def _pattern_check(pattern: str, flags: str, kind: Callable[[Any], Any], text: Callable[[Any], str]) -> Check:
    """The check of one ``sh:pattern``: the XPath pattern translated, run by :mod:`mif_rdf.core.patterns` (linear time).

    RE2 runs every pattern but one with a back-reference (``(a)\\1``), which
    the time-limited fallback runs; a value the limit stops fails the pattern
    (a validator that could not confirm a value does not pass it).
    """
    source, backreference = _xpath_regex(pattern, flags)
    try:
        compiled = compile_pattern(
            source, "".join(f for f in "ims" if f in flags and (f == "i" or "q" not in flags)), ascii=False
        )
    except PatternError as error:
        raise Unsupported(f"sh:pattern {pattern!r}: {error.reason}") from None
    if compiled.engine != "re2" and not backreference:
        raise Unsupported(f"sh:pattern {pattern!r}: not in the dialect RE2 and XPath share")

    def matches(v: Any) -> bool:
        if kind(v) is BNode:
            return False
        try:
            return compiled.matches(text(v))
        except PatternTimeout:
            note_stopped(pattern, text(v))
            return False

    return matches


def _xpath_regex(pattern: str, flags: str) -> tuple[str, bool]:
    """An XPath regular expression (``sh:pattern``, SHACL 4.4.3) as RE2 (and the fallback) must read it to match the same.

    Returns the translation and whether it has a back-reference.  Without
    the ``m`` flag XPath's ``$`` is the end of the string, where Python's
    also matches before a final newline: it becomes ``\\z``.  ``\\d`` is
    Unicode's decimal digits (``\\p{Nd}``), as in XPath.  The ``x`` flag
    drops whitespace outside classes; the ``q`` flag makes every character
    itself.  What the readers read differently, or only one reads (``(?``
    groups other than ``(?:``, class subtraction ``[a-z-[aeiou]]``, a ``[``
    inside a class (RE2's ``[[:alpha:]]``), ``{,n}``, the escapes of
    :data:`_NOT_XPATH_ESCAPES` and letter escapes other than ``\\n \\r \\t
    \\d \\D \\p{..} \\P{..}`` and back-references), is refused;
    what RE2 refuses is refused by the caller.
    """
    if "q" in flags:
        return "".join("\\" + char if char in _META else char for char in pattern), False
    out: list[str] = []
    in_class = False
    backreference = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\" and at + 1 < len(pattern):
            escaped = pattern[at + 1]
            if escaped in _NOT_XPATH_ESCAPES:
                raise Unsupported(f"sh:pattern {pattern!r}: \\{escaped} means another thing in XPath")
            if escaped in "pP" and pattern[at + 2 : at + 3] == "{" and "}" in pattern[at + 3 :]:
                close = pattern.index("}", at + 3)
                out.append(pattern[at : close + 1])
                at = close + 1
                continue
            if escaped in "123456789" and not in_class:
                backreference = True
                out.append(pattern[at : at + 2])
            elif escaped in _ESCAPES:
                out.append(_ESCAPES[escaped])
            elif escaped.isascii() and not escaped.isalnum():
                out.append(pattern[at : at + 2])
            else:
                raise Unsupported(f"sh:pattern {pattern!r}: \\{escaped} is not read alike by XPath and RE2")
            at += 2
            continue
        if in_class:
            if char == "[":
                raise Unsupported(
                    f"sh:pattern {pattern!r}: [ inside a class (XPath's class subtraction, RE2's [:alpha:])"
                )
            in_class = char != "]"
        elif char == "[":
            in_class = True
            opening = "[^" if pattern[at + 1 : at + 2] == "^" else "["
            at += len(opening)
            out.append(opening)
            if pattern[at : at + 1] == "]":  # a first ] is itself (Python's and RE2's reading)
                out.append("\\]")
                at += 1
            continue
        elif char == "(" and pattern[at + 1 : at + 2] == "?" and pattern[at + 2 : at + 3] != ":":
            raise Unsupported(f"sh:pattern {pattern!r}: (? is not XPath")
        elif char == "{" and pattern[at + 1 : at + 2] == ",":
            raise Unsupported(f"sh:pattern {pattern!r}: {{,n}} is not XPath")
        elif char in _SPACES and "x" in flags:
            at += 1
            continue
        elif char == "$" and "m" not in flags:
            out.append("\\z")
            at += 1
            continue
        out.append(char)
        at += 1
    return "".join(out), backreference


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
    """Whether ``value`` compared with ``bound`` passes ``test``; a type error or an indeterminate order fails."""
    order = compare(value, bound)
    return order is not None and test(order)


# -- evaluation ---------------------------------------------------------------------------------
class Evaluator:
    """Evaluates compiled shapes against an index: path -> subject -> values (scanned once per path).

    A shape is evaluated on all its focus nodes at once, column by column,
    not focus by focus: at 100,000 memories a node shape has a million
    focus-shape pairs, and a generator per pair was most of the engine's own
    time.  Whether a value meets a constraint depends on the value alone
    (and, for ``sh:or``/``sh:not``/``sh:node`` with nested shapes, on the fixed data),
    so each shape checks each distinct value once and keeps the failures:
    most values repeat (trust levels, types, decay models, tags).
    """

    def __init__(
        self, index: dict[URIRef, dict[Any, list[Any]]], data: Data, lenient: frozenset[Any] = frozenset()
    ) -> None:
        self.index = index
        self.data = data
        self.lenient = lenient  # severities whose shapes conform whatever they find (pyshacl's allow_warnings/infos)
        self.lenient_spans: list[tuple[int, int]] = []  # (start, end) of the top-level results such shapes made
        self._top: list[Result] | None = None
        self._checked: dict[
            int, tuple[set[Any], list[set[Any]]]
        ] = {}  # id(shape) -> (values checked, failing values per constraint)
        self._matches: dict[tuple[int, int], dict[Any, bool]] = {}  # (id(shape), which) -> value -> is that sh:hasValue
        self._inverse: dict[URIRef, dict[Any, list[Any]]] = {}

    def results(self, shape: Shape, foci: Iterable[Any]) -> list[Result]:
        """Every failure of ``shape`` on each of ``foci`` (a node that occurs twice is evaluated twice)."""
        found: list[Result] = []
        self._collect(shape, list(foci), found)
        return found

    def top_results(self, shape: Shape, foci: Iterable[Any], found: list[Result]) -> None:
        """:meth:`results` of a targeted shape, appended to ``found``, noting the spans of lenient shapes."""
        self._top = found
        self._collect(shape, list(foci), found)
        self._top = None

    def _collect(self, shape: Shape, foci: list[Any], found: list[Result]) -> None:
        if shape.deactivated:
            return
        if shape.severity in self.lenient and found is self._top:
            start = len(found)
            self._evaluate(shape, foci, found)
            self.lenient_spans.append((start, len(found)))
        else:
            self._evaluate(shape, foci, found)

    def _evaluate(self, shape: Shape, foci: list[Any], found: list[Result]) -> None:
        if shape.path is None:
            for which, wanted in enumerate(shape.has_values):
                found.extend(
                    (shape, focus, focus, SH.HasValueConstraintComponent, None)
                    for focus in foci
                    if not self._is_value(shape, which, wanted, focus)
                )
            rows: list[tuple[Any, Any]] = [(focus, (focus,)) for focus in foci]
            values = foci
        else:
            rows = self._rows(shape.path, foci)
            values = [value for _, focus_values in rows for value in focus_values]
            low, high = shape.min_count, shape.max_count
            if low is not None:
                found.extend(
                    (shape, focus, None, SH.MinCountConstraintComponent, None)
                    for focus, vals in rows
                    if len(vals) < low
                )
            if high is not None:
                found.extend(
                    (shape, focus, None, SH.MaxCountConstraintComponent, None)
                    for focus, vals in rows
                    if len(vals) > high
                )
            for which, wanted in enumerate(shape.has_values):
                found.extend(
                    (shape, focus, None, SH.HasValueConstraintComponent, None)
                    for focus, vals in rows
                    if not any(self._is_value(shape, which, wanted, value) for value in vals)
                )
        self._constraint_failures(shape, values, rows, found)
        if shape.pairs or shape.unique_lang or shape.closed is not None:
            self._focus_failures(shape, rows, found)
        if shape.qualified is not None:
            self._qualified_failures(shape, shape.qualified, rows, values, found)
        for prop in shape.properties:
            self._collect(prop, values, found)

    def _rows(self, path: PathExpr, foci: list[Any]) -> list[tuple[Any, Any]]:
        """Each focus node with its value nodes along ``path`` (one column lookup for a predicate path)."""
        if isinstance(path, URIRef):
            column = self.index.get(path, {})
            return [(focus, column.get(focus, _NONE)) for focus in foci]
        return [(focus, self._walk(path, focus)) for focus in foci]

    def _walk(self, path: PathExpr, node: Any) -> list[Any]:
        """The distinct nodes reached from ``node`` along a path that is not a single predicate."""
        if isinstance(path, URIRef):
            return self.index.get(path, {}).get(node, [])
        kind, part = path
        if kind == "inverse":
            if not isinstance(part, URIRef):
                return self._inverse_walk(part, node)
            inverse = self._inverse.get(part)
            if inverse is None:
                inverse = self._inverse[part] = _by_subject(
                    (o, s) for s, objects in self.index.get(part, {}).items() for o in objects
                )
            return inverse.get(node, [])
        if kind == "sequence":
            reached = [node]
            for step in part:
                reached = list(dict.fromkeys(v for r in reached for v in self._walk(step, r)))
            return reached
        if kind == "alternative":
            return list(dict.fromkeys(v for step in part for v in self._walk(step, node)))
        if kind == "zeroOrOne":
            return list(dict.fromkeys([node, *self._walk(part, node)]))
        seen: dict[Any, None] = {node: None} if kind == "zeroOrMore" else {}
        frontier = [node]
        while frontier:
            frontier = [v for r in frontier for v in self._walk(part, r) if v not in seen]
            for v in frontier:
                seen[v] = None
        return list(seen)

    def _inverse_walk(self, path: PathExpr, node: Any) -> list[Any]:
        """``^path`` for a path that is not a predicate: the nodes from which ``path`` reaches ``node``."""
        subjects = {s for column in self.index.values() for s in column} | {node}
        return [s for s in subjects if node in self._walk(path, s)]

    def _focus_failures(self, shape: Shape, rows: list[tuple[Any, Any]], found: list[Result]) -> None:
        """Constraints on a focus node's values as a set: property pairs, sh:uniqueLang, sh:closed."""
        term = self.data.term
        for component, predicate in shape.pairs:
            column = self.index.get(predicate, {})
            for focus, values in rows:
                others = column.get(focus, _NONE)
                if component == SH.EqualsConstraintComponent:
                    bad = [v for v in values if v not in others] + [o for o in others if o not in values]
                elif component == SH.DisjointConstraintComponent:
                    bad = [v for v in values if v in others]
                else:
                    strict = component == SH.LessThanConstraintComponent
                    bad = [
                        v
                        for v in values
                        for o in others
                        if compare(term(v), term(o)) not in ((-1,) if strict else (-1, 0))
                    ]
                found.extend((shape, focus, value, component, None) for value in bad)
        if shape.unique_lang:
            for focus, values in rows:
                languages = [
                    term(v).language.lower() for v in values if isinstance(term(v), Literal) and term(v).language
                ]
                repeated = sorted({tag for tag in languages if languages.count(tag) > 1})
                found.extend((shape, focus, None, SH.UniqueLangConstraintComponent, None) for _ in repeated)
        if shape.closed is not None:
            for focus, _ in rows:
                found.extend(
                    (shape, focus, value, SH.ClosedConstraintComponent, predicate)
                    for predicate, value in self.data.outgoing(focus)
                    if predicate not in shape.closed
                )

    def _qualified_failures(
        self, shape: Shape, qualified: Qualified, rows: list[tuple[Any, Any]], values: list[Any], found: list[Result]
    ) -> None:
        """``sh:qualifiedMinCount``/``sh:qualifiedMaxCount``: how many of a focus node's values conform to the
        qualified shape (and, when disjoint, to none of its siblings)."""
        distinct = list(dict.fromkeys(values))
        counted = self._conforming(qualified.shape, distinct)
        for sibling in qualified.siblings:
            counted -= self._conforming(sibling, [value for value in distinct if value in counted])
        for focus, focus_values in rows:
            count = sum(1 for value in focus_values if value in counted)
            if qualified.least is not None and count < qualified.least:
                found.append((shape, focus, None, SH.QualifiedMinCountConstraintComponent, None))
            if qualified.most is not None and count > qualified.most:
                found.append((shape, focus, None, SH.QualifiedMaxCountConstraintComponent, None))

    def _constraint_failures(
        self, shape: Shape, values: list[Any], rows: list[tuple[Any, Any]], found: list[Result]
    ) -> None:
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
                        found.append((shape, focus, value, constraint.component, None))

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

    def _is_value(self, shape: Shape, which: int, wanted: Any, value: Any) -> bool:
        """Whether ``value`` is ``shape``'s ``sh:hasValue`` (decided once per value: an entity's type repeats)."""
        known = self._matches.setdefault((id(shape), which), {})
        same = known.get(value)
        if same is None:
            same = known[value] = _rdf11(self.data.term(value)) == wanted
        return same

    def _failures(self, constraint: Constraint, values: list[Any]) -> list[Any]:
        """The ``values`` (distinct) that fail ``constraint``; shape-based constraints evaluate their shapes on
        all of them at once, as focus nodes, like any other shape."""
        if constraint.check is not None:
            check = constraint.check
            return [value for value in values if not check(value)]
        if constraint.component == SH.OrConstraintComponent:  # the common case: stop at the first shape a value meets
            passing: set[Any] = set()
            for alternative in constraint.shapes:
                passing |= self._conforming(alternative, [value for value in values if value not in passing])
            return [value for value in values if value not in passing]
        good: defaultdict[Any, int] = defaultdict(int)
        for member in constraint.shapes:
            for value in self._conforming(member, values):
                good[value] += 1
        needs, total = constraint.needs, len(constraint.shapes)
        return [value for value in values if not needs(good[value], total)]  # type: ignore[misc]

    def _conforming(self, shape: Shape, foci: list[Any]) -> set[Any]:
        """Those of ``foci`` (distinct) that conform to ``shape``."""
        failed = {focus for _, focus, _, _, _ in self.results(shape, foci)}
        return {focus for focus in foci if focus not in failed}


_NONE: tuple[Any, ...] = ()
#: Severities that pyshacl's ``allow_warnings`` and ``allow_infos`` let a conforming report have.
_WARNINGS, _INFOS = (SH.Warning, SH.Info), (SH.Info,)


def validate_graph(
    data: Graph, shapes: Graph, *, allow_warnings: bool = False, allow_infos: bool = False, abort_on_first: bool = False
) -> Graph:
    """SHACL validation of ``data`` by ``shapes``: a standard validation report graph.

    ``data`` is read where it lives: an rdflib store through its triples, a
    graph in Oxigraph through Oxigraph's own queries (:class:`Data`).
    Raises :class:`Unsupported` when the shapes use features outside this
    engine, always before any shape is evaluated.  The report conforms when
    it has no result (SHACL 3.6.2).  ``allow_warnings`` (``sh:Warning`` and
    ``sh:Info``) and ``allow_infos`` (``sh:Info``) are pyshacl's readings: a
    shape of such a severity conforms whatever it and the shapes under it
    find, and a result of such a severity does not count.
    ``abort_on_first`` keeps the first result only.
    """
    source = Data(data)
    compiler = Compiler(shapes, source)
    targeted = compiler.compile()
    wanted = (
        compiler.paths
        | {p for n in targeted for t, p in n.targets if t in (SH.targetSubjectsOf, SH.targetObjectsOf)}
        | {RDF.type}
    )
    if compiler.classes:
        wanted.add(RDFS.subClassOf)
    index = source.index(sorted(wanted))
    source.bind(index)
    lenient = frozenset(_WARNINGS if allow_warnings else _INFOS if allow_infos else ())
    evaluator = Evaluator(index, source, lenient)
    found: list[Result] = []
    for node_shape in targeted:
        evaluator.top_results(node_shape.shape, _focus_nodes(node_shape, index, source), found)
        if abort_on_first and found:
            del found[1:]
            break
    excused = {i for start, end in evaluator.lenient_spans for i in range(start, end)}
    conforms = all(i in excused or shape.severity in lenient for i, (shape, *_) in enumerate(found))
    term = source.term
    return _report(
        [
            (
                shape,
                term(focus),
                None if value is None else term(value),
                component,
                None if path is None else term(path),
            )
            for shape, focus, value, component, path in found
        ],
        shapes,
        conforms,
    )


def _focus_nodes(node_shape: Targeted, index: dict[URIRef, dict[Any, list[Any]]], data: Data) -> set[Any]:
    nodes: set[Any] = set()
    native = data.native
    for kind, value in node_shape.targets:
        if kind == SH.targetSubjectsOf:
            nodes |= set(index.get(value, {}))
        elif kind == SH.targetObjectsOf:
            nodes |= {o for objects in index.get(value, {}).values() for o in objects}
        elif kind == SH.targetNode:
            nodes.add(native(value))
        else:
            classes = data.subclasses(native(value))
            nodes |= {s for s, types in index[RDF.type].items() if any(t in classes for t in types)}
    return nodes


def _report(found: list[Result], shapes: Graph, conforms: bool) -> Graph:
    report = Graph()
    report.bind("sh", SH)
    root = BNode()
    add = report.add
    add((root, RDF.type, SH.ValidationReport))
    add((root, SH.conforms, Literal(conforms)))
    copied: set[Any] = set()
    # the vocabulary's terms once (SH.x is a lookup in rdflib's namespace class: thousands of results, nine each)
    result_of, kind, result_type, focus_of, severity_of, shape_of, component_of, path_of, value_of, message_of = (
        SH.result,
        RDF.type,
        SH.ValidationResult,
        SH.focusNode,
        SH.resultSeverity,
        SH.sourceShape,
        SH.sourceConstraintComponent,
        SH.resultPath,
        SH.value,
        SH.resultMessage,
    )
    for shape, focus, value, component, path in found:
        result = BNode()
        add((root, result_of, result))
        add((result, kind, result_type))
        add((result, focus_of, focus))
        add((result, severity_of, shape.severity))
        add((result, shape_of, shape.iri))
        add((result, component_of, component))
        if path is None and shape.path_node is not None:
            path = shape.path_node
            if isinstance(path, BNode) and path not in copied:
                copied.add(path)
                copy_structure(shapes, path, report)
        if path is not None:
            add((result, path_of, path))
        if value is not None:
            add((result, value_of, value))
        for message in shape.messages:
            add((result, message_of, message))
    return report


def copy_structure(source: Graph, node: BNode, target: Graph) -> None:
    """The triples of a blank-node structure (a complex path, an RDF list) from ``source`` into ``target``."""
    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for predicate, value in source.predicate_objects(current):
            target.add((current, predicate, value))
            if isinstance(value, BNode):
                todo.append(value)
