"""The union of a dataset's graphs as a set: a store whose default graph holds each triple once (issue 36).

SPARQL's default graph is an RDF graph, a set.  Oxigraph's union of named
graphs is a bag (pyoxigraph 0.5 gives one both with
``use_default_graph_as_union`` and with an explicit list of default graphs):
a triple three memory graphs hold is counted three times.  So the stores that
queries read, ``serve``'s served store and the view of an Oxigraph Dataset
(:mod:`mif_rdf.load.stores`, and the load cache's query database), are
made here, with every named graph and their distinct triples as the default
graph; :func:`keep_default_graph` keeps that true as the named graphs change.

Such a store is only ever read by queries: the bundle's own store never holds
the materialised default graph, so no export, push, stream, validation or
graph-store read sees it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyoxigraph as ox

DEFAULT = ox.DefaultGraph()


def union_view(source: Any, path: Path | None = None) -> Any:
    """A new pyoxigraph store holding what ``source`` holds, with the union of its graphs as a set for default graph.

    ``source`` is a pyoxigraph ``Store`` (copied whole, in Rust: no Python
    object per quad) or the quads to hold (``serve`` gives the quads it may
    serve).  The store is in memory, or a database in the new folder ``path``.
    """
    view = ox.Store() if path is None else ox.Store(str(path))
    if isinstance(source, ox.Store):
        view.bulk_load(source.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)
        add_union_as_default(view)
    else:
        quads = list(source)
        view.bulk_extend(q for q in quads if q.graph_name != DEFAULT)
        view.bulk_extend(ox.Quad(q.subject, q.predicate, q.object, DEFAULT) for q in quads)
    return view


def add_union_as_default(store: Any) -> None:
    """Add the triples of every named graph of ``store`` to its default graph (where each is then held once)."""
    union = store.query("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert isinstance(union, ox.QueryTriples)  # a CONSTRUCT
    store.bulk_load(union.serialize(format=ox.RdfFormat.N_TRIPLES), format=ox.RdfFormat.N_TRIPLES, to_graph=DEFAULT)


def keep_default_graph(store: Any, added: Iterable[Any], removed: Iterable[Any]) -> None:
    """Make ``store``'s default graph the set of its named graphs' triples again, after
    the named-graph quads ``added`` and ``removed`` were written."""
    store.extend(ox.Quad(q.subject, q.predicate, q.object, DEFAULT) for q in added)
    for quad in removed:
        if not any(
            q.graph_name != DEFAULT for q in store.quads_for_pattern(quad.subject, quad.predicate, quad.object, None)
        ):
            store.remove(ox.Quad(quad.subject, quad.predicate, quad.object, DEFAULT))
