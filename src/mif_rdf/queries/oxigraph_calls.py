"""Queries on Oxigraph with the project's SPARQL functions at hand (``mif:validAt`` & co.).

pyoxigraph takes custom functions with each ``Store.query``, made for the
store they read.  :mod:`.oxigraph_functions` registers its maker here when
:mod:`mif_rdf.queries` is imported; every place that runs SPARQL on Oxigraph
asks :func:`functions_for` (``select``'s Table path, ``serve``'s endpoint) or
goes through :func:`run_with_functions` (``run_query``).  The table lives in a
module of its own because the functions read times as the query helpers do,
and the helpers import the query runners.

oxrdflib takes no functions (its ``query`` refuses any extra option), so a
query on an Oxigraph Dataset that names one of them runs on the pyoxigraph
store directly, with the prefixes, default graph and bindings oxrdflib would
give, and its answer is wrapped in an rdflib ``Result`` as oxrdflib wraps it
(terms as the loader made them: :func:`~mif_rdf.load.oxigraph_sink.rdflib_term`).
Other queries take oxrdflib's path, as ever.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from rdflib import Graph
from rdflib.query import Result
from rdflib.term import Identifier

from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.load.oxigraph_sink import OxigraphSink, query_dataset, rdflib_result
from mif_rdf.load.stores import oxigraph_store

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None  # type: ignore[assignment]

FunctionTable = dict[Any, Callable[..., Any]]

_MAKERS: list[Callable[[Any], FunctionTable]] = []
#: The local names a query must mention for :func:`run_with_functions` to run it outside oxrdflib.
_NAMES = ("validAt", "freshness", "strengthAt")
#: Every query's predeclared prefixes (``mif_rdf.queries.sparql.INIT_NS``; that module imports this one).
_INIT_NS = {prefix: str(namespace) for prefix, namespace in PREFIXES.items()}


def register(make: Callable[[Any], FunctionTable]) -> None:
    """Add the functions ``make(store)`` gives to every query the project runs on Oxigraph."""
    if make not in _MAKERS:
        _MAKERS.append(make)


def functions_for(store: Any) -> FunctionTable:
    """The functions for a query on the pyoxigraph ``store`` (``Store.query(custom_functions=...)``)."""
    table: FunctionTable = {}
    for make in _MAKERS:
        table.update(make(store))
    return table


def functions_named_in(store: Any, query: str) -> FunctionTable:
    """:func:`functions_for` the store when ``query`` may call one of the functions, else no table.

    pyoxigraph turns the table into its own with every query, about 10 us
    of a 0.15 ms one, whether the query calls a function or not.  A query
    calls one only by writing its name (an IRI or a prefixed name), or its
    IRI with SPARQL's codepoint escapes (``\\u0041``): either keeps the table.
    """
    return functions_for(store) if _may_call(query) else {}


@functools.lru_cache(maxsize=256)
def _may_call(query: str) -> bool:
    """Whether ``query`` writes a function's name or a codepoint escape (a helper asks with the same text each
    time, before its parameters go in as ``VALUES``, which hold terms, never a call)."""
    return any(name in query for name in _NAMES) or "\\u" in query or "\\U" in query


def run_with_functions(graph: Graph, query: str, bindings: Mapping[str, Identifier]) -> Result | None:
    """``graph.query(query)`` on an Oxigraph Dataset with the mif: functions at hand;
    None when ``graph`` is not in Oxigraph or the query names none of them (oxrdflib runs it, as ever)."""
    store = oxigraph_store(graph)
    if store is None or not any(name in query for name in _NAMES):
        return None
    prefixes = {**{prefix: str(namespace) for prefix, namespace in graph.store.namespaces()}, **_INIT_NS}
    found = store.query(
        query,
        prefixes=prefixes,
        substitutions={ox.Variable(name): OxigraphSink.term(term) for name, term in bindings.items()},
        custom_functions=functions_for(store),
        **query_dataset(graph),
    )
    return rdflib_result(found, lazy=False)  # the functions read the store: evaluated now
