"""The graph being validated as the engine reads it: one scan per predicate, each term in its store's own form."""

from __future__ import annotations

import os
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from rdflib import BNode, ConjunctiveGraph, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, XSD
from rdflib.plugins.stores.memory import Memory

from mif_rdf.load.oxigraph_sink import OxigraphSink, ox, query_dataset, rdflib_term
from mif_rdf.load.stores import oxigraph_store


class Data:
    """The graph being validated as the engine reads it: one scan per predicate, terms in the store's own form.

    For an rdflib graph the terms are rdflib's.  For a graph in Oxigraph they
    are pyoxigraph's, read by one SPARQL scan per predicate (faster than
    ``quads_for_pattern`` on an on-disk store: docs/performance.md) and never copied into rdflib.
    Constraints ask a value for what they need: its kind, its text or its
    datatype, all answered from the store's own term, and only the checks
    that need rdflib's reading of a literal (a well-formed ``xsd:dateTime``,
    an order, ``sh:in``) convert it, with its lexical form kept
    (:func:`~mif_rdf.load.oxigraph_sink.rdflib_term`).  The conversions were
    a large part of a validation at scale (docs/performance.md), and most
    values (IRIs, blank nodes, strings) need none.
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
        """``cls`` and every class under it by ``rdfs:subClassOf`` in the data (its SHACL
        instances have one of these types)."""
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
        scan), so two cores read a bundle faster than one (docs/performance.md).
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
    which was most of a validation with user shapes (docs/performance.md).
    The index holds exactly the union's triples.  One of two places that
    look under rdflib's ``Memory`` store (the other: the update's Oxigraph
    copy, :mod:`mif_rdf.output.update.oxigraph_engine`): anything unexpected
    (another store, another rdflib) means None, and the caller asks ``triples``.
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
    """The datatype IRI of a literal as RDF 1.1 has it (plain: ``xsd:string``, tagged:
    ``rdf:langString``), else None."""
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


_NONE: tuple[Any, ...] = ()
