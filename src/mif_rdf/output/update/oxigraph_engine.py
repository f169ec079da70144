"""Run a write-back's SPARQL Update on Oxigraph instead of rdflib's engine, and bring the change back as rdflib quads.

rdflib evaluates ``GRAPH ?m { ... }`` once per named graph and scans its
predicate index each time, so an update over every memory of a large bundle
is quadratic (at 10,000 memories, 243 s of a 268 s update).  Oxigraph answers
the same update in a fraction of that.  The dataset is copied into a fresh
in-memory pyoxigraph store, the update runs there, and the quads deleted and
inserted are computed Oxigraph against Oxigraph (its N-Quads dump before and
after, line by line): Oxigraph keeps some literals
in a canonical form (``+00:00`` comes back as ``Z``, ``"01"^^xsd:integer`` as
``"1"``), so its quads are never compared with rdflib's.  A deleted quad is
mapped back to the quad(s) of the original dataset that Oxigraph stored as it
(so a file edit deletes exactly what the file had); an inserted quad is
converted as the loader converts Oxigraph terms (lexical forms kept).

Only updates whose meaning is the same on both engines go this way
(:func:`oxigraph_can_run`): every quad pattern inside ``GRAPH`` (rdflib reads
and deletes the default graph of a bundle's Dataset as the union of all
graphs, Oxigraph as its own default graph), no ``WITH``/``USING``, no graph
management operation, and no text that mentions SERVICE or has a lone
carriage return (pyoxigraph cannot turn federation off; the checks that keep
it off read rdflib's parse).  Anything else runs on rdflib's engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rdflib import Dataset, Graph, Literal
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.stores.memory import Memory

from mif_rdf.load.oxigraph_sink import OxigraphSink, rdflib_term, rdflib_terms
from mif_rdf.output.update.changes import Quad

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None  # type: ignore[assignment]

#: Operations whose quad patterns both engines read alike once every pattern is inside GRAPH.
_QUAD_OPERATIONS = {"InsertData", "DeleteData", "DeleteWhere", "Modify"}


def oxigraph_can_run(update: str, algebra: Any) -> bool:
    """Whether ``update`` (``algebra``: rdflib's parse of it) means the same on Oxigraph as on rdflib's engine."""
    from mif_rdf.queries.sparql import mentions_service

    if ox is None or mentions_service(update) or "\r" in update.replace("\r\n", ""):
        return False
    for operation in algebra or []:
        if not isinstance(operation, CompValue) or operation.name not in _QUAD_OPERATIONS:
            return False
        if _part(operation, "withClause") is not None or _part(operation, "using"):
            return False
        for template in (operation, _part(operation, "delete"), _part(operation, "insert")):
            if isinstance(template, CompValue) and _part(template, "triples"):
                return False  # a template outside GRAPH: the default graph
        if _default_graph_pattern(_part(operation, "where")):
            return False
    return True


def _part(node: Any, key: str) -> Any:
    """A part of rdflib's algebra node, None when missing (``CompValue.get`` answers a missing key with the key)."""
    return dict.get(node, key) if isinstance(node, dict) else None


def _default_graph_pattern(node: Any) -> bool:
    """Whether a WHERE algebra has a triple pattern outside every GRAPH (read from the default graph)."""
    if isinstance(node, CompValue):
        if node.name == "Graph":
            return False
        if node.name == "BGP" and _part(node, "triples"):
            return True
        return any(_default_graph_pattern(value) for value in node.values())
    if isinstance(node, (list, tuple)):
        return any(_default_graph_pattern(item) for item in node)
    return False


def run_on_oxigraph(
    dataset: Dataset, update: str, prefixes: dict[str, str], algebra: Any = None
) -> tuple[set[Quad], set[Quad]]:
    """Run ``update`` on an Oxigraph copy of ``dataset``, apply the change to ``dataset``, return (added, removed).

    The quads are in the form ``dataset.quads`` gives (a named graph's
    identifier, None for the default graph), as :func:`plan_changes` takes them.
    ``algebra`` (rdflib's parse of the update) lets an update that only adds
    or only deletes be compared graph by graph (:func:`one_way`); without
    it, or for an update that does both, the whole store is compared.
    """
    store = _copy(dataset)
    if one_way(algebra) is not None:
        before_counts = _counts(store)
        store.update(update, prefixes=prefixes)
        deleted, inserted = _changed_graphs(dataset, store, before_counts)
    else:
        before = _lines(store)
        store.update(update, prefixes=prefixes)
        after = _lines(store)
        deleted, inserted = _quads(before - after), _quads(after - before)
    removed = set(_originals(dataset, deleted))
    back = rdflib_terms()
    added = {(back(q.subject), back(q.predicate), back(q.object), _rdflib_graph(q.graph_name)) for q in inserted}
    added -= removed  # a quad deleted and inserted again in its original form is no change
    for s, p, o, g in removed:
        _graph(dataset, g).remove((s, p, o))
    for s, p, o, g in added:
        _graph(dataset, g).add((s, p, o))
    return added, removed


def one_way(algebra: Any) -> str | None:
    """``"insert"`` when every operation of an update only adds quads, ``"delete"`` when every one only deletes,
    else None (both, or no parse).

    Such an update changes a graph's content exactly when it changes the
    graph's number of quads (a store is a set: an insert-only update makes
    each graph a superset of what it was, a delete-only one a subset), so
    the graphs to compare are found by counting, and only they are compared
    (:func:`_changed_graphs`), not the whole store twice.
    """
    ways: set[str] = set()
    for operation in algebra or [None]:
        if not isinstance(operation, CompValue) or operation.name not in _QUAD_OPERATIONS:
            return None
        if operation.name == "InsertData":
            ways.add("insert")
        elif operation.name in ("DeleteData", "DeleteWhere"):
            ways.add("delete")
        else:  # Modify: what its templates do
            for part in ("delete", "insert"):
                if _part(operation, part) is not None:
                    ways.add(part)
    return ways.pop() if len(ways) == 1 else None


def _counts(store: Any) -> dict[Any, int]:
    """The number of quads in each named graph of the store (an update that qualifies never writes the default one)."""
    found = store.query("SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
    return {row[0]: int(row[1].value) for row in found}


def _changed_graphs(dataset: Dataset, store: Any, before_counts: dict[Any, int]) -> tuple[list[Any], list[Any]]:
    """The quads deleted and inserted by a one-way update (:func:`one_way`), compared in the graphs it changed only.

    The graphs as they were are still in ``dataset`` (the change is applied
    to it after this): they are copied into a scratch Oxigraph store, so that
    both sides are in Oxigraph's canonical form, with the same blank node ids.
    """
    after_counts = _counts(store)
    changed = [g for g in before_counts.keys() | after_counts.keys() if before_counts.get(g) != after_counts.get(g)]
    if not changed:
        return [], []
    names = {_rdflib_graph(g) for g in changed}
    before_store = _copy(dataset, only=names)
    before: set[Any] = set()
    after: set[Any] = set()
    for name in changed:
        before.update(before_store.quads_for_pattern(None, None, None, name))
        after.update(store.quads_for_pattern(None, None, None, name))
    return list(before - after), list(after - before)


def _copy(dataset: Dataset, only: set[Any] | None = None) -> Any:
    """A pyoxigraph store holding the quads of ``dataset`` (of its graphs named in ``only``, when given)."""
    store = ox.Store()
    term = _ox_terms()
    quad = ox.Quad

    def quads() -> Iterator[Any]:
        for identifier, triples in _graph_triples(dataset):
            if only is not None and identifier not in only:
                continue
            name = _ox_graph(identifier)
            for s, p, o in triples:
                yield quad(term(s), term(p), term(o), name)

    store.bulk_extend(quads())
    return store


def _graph_triples(dataset: Dataset) -> Iterator[tuple[Any, Iterable[tuple[Any, Any, Any]]]]:
    """Each graph of ``dataset`` (its identifier) with its triples.

    ``Dataset.quads``, and a graph's own iteration, ask rdflib's memory store
    for every triple's graphs again (a list built per triple): two thirds of
    the copy (at 10,000 memories, 480,000 quads).  The store keeps each
    graph's triples as a set, read here directly; like the validation
    engine's predicate index (:mod:`mif_rdf.validation.engine.data`), this
    looks under rdflib's ``Memory`` store only when it is exactly that store
    with the attributes expected, and else reads the graphs as rdflib gives them.
    """
    store = dataset.store
    by_graph = getattr(store, "_Memory__contextTriples", None)
    graphs = getattr(store, "_Memory__context_obj_map", None)
    if type(store) is Memory and isinstance(by_graph, dict) and isinstance(graphs, dict):
        for key, triples in by_graph.items():
            if key is not None:  # None: every triple, whatever its graph
                yield graphs[key].identifier, triples
        return
    for graph in store.contexts():
        yield graph.identifier, graph


def _lines(store: Any) -> set[bytes]:
    """The store's quads as N-Quads lines: Oxigraph writes each quad the same way every time, and comparing two
    sets of byte strings costs a tenth of comparing two sets of pyoxigraph quads (hashed through Python)."""
    return set(store.dump(format=ox.RdfFormat.N_QUADS).splitlines())


def _quads(lines: set[bytes]) -> list[Any]:
    """The pyoxigraph quads of some N-Quads lines (blank node ids kept)."""
    return list(ox.parse(b"\n".join(lines), format=ox.RdfFormat.N_QUADS)) if lines else []


def _originals(dataset: Dataset, deleted: list[Any]) -> Iterator[Quad]:
    """The quads of ``dataset`` that Oxigraph stored as the ``deleted`` quads (looked up per graph, by value)."""
    canonical = _canonical_objects()
    back = rdflib_terms()
    for quad in deleted:
        g = _rdflib_graph(quad.graph_name)
        s, p = back(quad.subject), back(quad.predicate)
        for _, _, o in _graph(dataset, g).triples((s, p, None)):
            if canonical(o) == quad.object:
                yield s, p, o, g


def _canonical_objects() -> Any:
    """A term as Oxigraph gives it back (stored once in a scratch store: the constructor keeps the lexical form)."""
    scratch = ox.Store()
    known: dict[Any, Any] = {}
    subject = ox.NamedNode("urn:x-mif-rdf:canonical")

    def canonical(node: Any) -> Any:
        found = known.get(node)
        if found is None:
            if isinstance(node, Literal):
                scratch.add(ox.Quad(subject, subject, OxigraphSink.term(node)))
                stored = next(iter(scratch))
                scratch.remove(stored)
                found = stored.object
            else:
                found = OxigraphSink.term(node)
            known[node] = found
        return found

    return canonical


def _ox_terms() -> Any:
    """:meth:`OxigraphSink.term` with each term converted once (a bundle repeats its predicates and values).

    A dict that converts what it lacks: a lookup of a known term is the dict's
    own, with no Python call (three per quad of the copy)."""
    return _Converted().__getitem__


class _Converted(dict[Any, Any]):
    def __missing__(self, node: Any) -> Any:
        found = self[node] = OxigraphSink.term(node)
        return found


def _ox_graph(name: Any) -> Any:
    if name is None or name == DATASET_DEFAULT_GRAPH_ID:
        return ox.DefaultGraph()
    return OxigraphSink.term(name)


def _rdflib_graph(name: Any) -> Any:
    return None if isinstance(name, ox.DefaultGraph) else rdflib_term(name)


def _graph(dataset: Dataset, name: Any) -> Graph:
    return dataset.graph(name) if name is not None else dataset.default_graph
