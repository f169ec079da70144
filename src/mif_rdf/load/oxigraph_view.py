"""A bundle's Oxigraph store whose union queries read a default graph that is a set (issue 36).

SPARQL's default graph is an RDF graph, a set of triples.  Oxigraph's union of
named graphs (``use_default_graph_as_union``, or a list of default graphs) is
a bag: a triple held by three memory graphs is counted three times, so
``SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`` disagrees with rdflib's memory store
and with ``serve``.  Oxigraph has no set union, so a query over the union runs
on a *view* (:func:`mif_rdf.load.set_union.union_view`): a store of its own that
holds every named graph and, as its default graph, their distinct triples.

The view is never the bundle's data: the Dataset's own store stays as loaded,
so exports, pushes, streams, validation and the graph store protocol never see
it.  It is made at the first union query and kept until the store changes
through rdflib (any add, remove or update, which bump :attr:`version`) or
through the loader's bulk sink (:meth:`SetUnionOxigraphStore.changed`).  Code
that writes the pyoxigraph store directly must call ``changed()`` too.
"""

from __future__ import annotations

from typing import Any

from oxrdflib import OxigraphStore
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from mif_rdf.load.set_union import union_view


class SetUnionOxigraphStore(OxigraphStore):
    """oxrdflib's store, with union queries answered on a view whose default graph is a set."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version = 0
        self._view: tuple[Any, int, OxigraphStore] | None = None  # (the inner store it copies, version, the view)

    def changed(self) -> None:
        """Forget the view: the store's content changed."""
        self.version += 1
        self._view = None

    def view(self) -> OxigraphStore:
        """The view of the current content (made now when there is none), as an rdflib store."""
        inner = self._inner
        if self._view is None or self._view[0] is not inner or self._view[1] != self.version:
            self._view = (inner, self.version, OxigraphStore(store=union_view(inner)))
        return self._view[2]

    def query(self, query: Any, initNs: Any, initBindings: Any, queryGraph: Any, **kwargs: Any) -> Any:  # noqa: N803 - rdflib's names
        if queryGraph != "__UNION__":
            return super().query(query, initNs, initBindings, queryGraph, **kwargs)
        prefixes = dict(self._namespace_for_prefix, **initNs)  # the view store has no bindings of its own
        return self.view().query(query, prefixes, initBindings, DATASET_DEFAULT_GRAPH_ID, **kwargs)

    # every write through rdflib forgets the view
    def add(self, *args: Any, **kwargs: Any) -> None:
        self.changed()
        super().add(*args, **kwargs)

    def addN(self, *args: Any, **kwargs: Any) -> None:  # noqa: N802 - rdflib's name
        self.changed()
        super().addN(*args, **kwargs)

    def remove(self, *args: Any, **kwargs: Any) -> None:
        self.changed()
        super().remove(*args, **kwargs)

    def add_graph(self, *args: Any, **kwargs: Any) -> None:
        self.changed()
        super().add_graph(*args, **kwargs)

    def remove_graph(self, *args: Any, **kwargs: Any) -> None:
        self.changed()
        super().remove_graph(*args, **kwargs)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.changed()
        super().update(*args, **kwargs)
