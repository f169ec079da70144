"""``mif:validAt``, ``mif:freshness`` and ``mif:strengthAt`` on Oxigraph's SPARQL engine.

pyoxigraph has no global registry of functions: ``Store.query`` takes them
with each query (``custom_functions``), as callables of the arguments'
terms.  :func:`temporal_functions` makes the three for one store; the
project hands them over wherever it runs SPARQL on Oxigraph: ``run_query``
on an Oxigraph Dataset (``query --store oxigraph``, ``Bundle.query``) through
:func:`~.oxigraph_calls.run_with_functions`, the Table path of :func:`~mif_rdf.queries.select`,
and ``serve``'s endpoint.

The values are those of rdflib's engine (:mod:`.functions`): the same code
reads the memory's triples, here through :class:`_StoreGraph`, a view of
the store with rdflib's ``Graph.value``.  The view reads every graph of the
store (a memory's temporal block is in its own graph, its inherited ttl in
``<base>#inherited``), whatever default graph the query reads.  A call that
cannot be evaluated returns None, which Oxigraph takes as an error: the
expression is unbound, as in rdflib.

Importing :mod:`mif_rdf.queries` registers them in :mod:`.oxigraph_calls`, which the
query runners read (they cannot import this module: the functions read times
as the helpers do, and the helpers import the runners).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rdflib import URIRef
from rdflib.namespace import XSD

from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.oxigraph_sink import OxigraphSink, rdflib_term
from mif_rdf.queries.asof import memory_strength_at, memory_valid_at
from mif_rdf.queries.functions import FRESHNESS, STRENGTH_AT, VALID_AT, moment_of
from mif_rdf.queries.oxigraph_calls import register

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None  # type: ignore[assignment]


class _StoreGraph:
    """A pyoxigraph store seen through rdflib's ``Graph.value``: one object of a subject and predicate, any graph."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def value(self, subject: Any, predicate: Any) -> Any:
        quads = self.store.quads_for_pattern(OxigraphSink.term(subject), OxigraphSink.term(predicate), None, None)
        return next((rdflib_term(quad.object) for quad in quads), None)


def temporal_functions(store: Any) -> dict[Any, Callable[..., Any]]:
    """The three functions for queries on ``store``, as ``Store.query(custom_functions=...)`` takes them."""
    graph = _StoreGraph(store)

    def arguments(memory: Any, when: Any) -> tuple[URIRef, datetime] | None:
        if not isinstance(memory, ox.NamedNode) or not isinstance(when, ox.Literal):
            return None
        moment = moment_of(rdflib_term(when))
        return None if moment is None else (URIRef(memory.value), moment)

    def valid_at(memory: Any, when: Any) -> Any:
        called = arguments(memory, when)
        if called is None:
            return None
        return ox.Literal(memory_valid_at(graph, *called))

    def strength_at(memory: Any, when: Any) -> Any:
        called = arguments(memory, when)
        if called is None:
            return None
        try:
            strength = memory_strength_at(graph, *called)
        except MifRdfError:
            return None
        return ox.Literal(repr(strength), datatype=ox.NamedNode(str(XSD.double)))

    return {
        ox.NamedNode(str(VALID_AT)): valid_at,
        ox.NamedNode(str(FRESHNESS)): strength_at,
        ox.NamedNode(str(STRENGTH_AT)): strength_at,
    }


register(temporal_functions)
