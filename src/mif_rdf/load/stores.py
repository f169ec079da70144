"""The stores a bundle's Dataset lives in, and the one module that knows them.

A Dataset is on rdflib's memory store, on Oxigraph (through oxrdflib), or on
any rdflib store plugin a user names.  Every stage works on each through
rdflib's API.  Oxigraph can also answer natively, with no rdflib term per
value, and the stages that read much (bulk loading, SPARQL, serializing, the
SHACL engine's scans, the cache's database) take that path: they ask
:func:`oxigraph_store` for the pyoxigraph ``Store`` and keep to rdflib when
they get None.  Everything done to a store beyond reading it (making one, the
bulk sink, a memory copy, compacting, a checkpoint, swapping in a compacted
one) is a function here, so this module is the only one that looks under
oxrdflib: a new store is named in :data:`mif_rdf.core.names.STORES` and, if it
has native answers, given them here.

An Oxigraph Dataset made here answers union queries on a default graph that
is a set, as SPARQL and rdflib's memory store do (:func:`_set_union_class`).
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rdflib import Dataset, Graph
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.stores.memory import Memory, SimpleMemory
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.store import Store

from mif_rdf.core.names import STORES
from mif_rdf.core.namespaces import bind_prefixes
from mif_rdf.load.oxigraph_sink import OxigraphSink, oxigraph_graph_name, rdflib_result, rdflib_terms

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None  # type: ignore[assignment]


def new_dataset(store: str | Store = "memory") -> Dataset:
    """An empty Dataset whose queries see the union of all graphs.

    ``store`` is ``"memory"``, ``"oxigraph"`` (needs oxrdflib), any rdflib
    store plugin name, or a store instance.  The project's prefixes are bound,
    ``dc:`` to DCMI terms as the loader writes them (rdflib's own default binds
    ``dc:`` to the older elements namespace, which would make
    ``dataset.query("... dc:title ...")`` silently find nothing).
    """
    if isinstance(store, str) and store.lower() == "oxigraph" and ox is not None:
        store = _set_union_store()
    dataset = Dataset(store=STORES.get(store.lower(), store) if isinstance(store, str) else store, default_union=True)
    bind_prefixes(dataset)
    return dataset


def oxigraph_installed() -> bool:
    """Whether the oxigraph extra (pyoxigraph and oxrdflib) is installed."""
    return ox is not None


def oxigraph_version() -> str:
    """pyoxigraph's version (``-`` without the extra): a cached database is only read by the version that wrote it."""
    return getattr(ox, "__version__", "-")


def oxigraph_dataset(database: Path) -> Dataset:
    """An empty Dataset on a new Oxigraph database in the folder ``database``."""
    return new_dataset(_set_union_store(ox.Store(str(database))))


def _set_union_store(inner: Any = None) -> Store:
    """oxrdflib's store whose union queries read a default graph that is a set (:func:`_set_union_class`);
    with no ``inner``, on a new in-memory pyoxigraph store, which it remembers as such (:func:`sink_for`)."""
    if inner is not None:
        return _set_union_class()(store=inner)
    store = _set_union_class()(store=ox.Store())
    store.made_in_memory = store._inner
    return store


@functools.cache
def _view_class() -> Any:
    """oxrdflib's ``OxigraphStore`` reading a query database, its results in the loader's terms.

    oxrdflib turns Oxigraph's literals into rdflib's normalized ones
    (``"2026-03-09T18:00:00Z"`` comes back ``...+00:00``); the loader's terms
    (:func:`~mif_rdf.load.oxigraph_sink.rdflib_term`: lexical forms kept,
    ``xsd:string`` plain) make a query print what it prints on rdflib's memory
    store.
    """
    from oxrdflib import OxigraphStore

    class ViewStore(OxigraphStore):
        def query(self, query: Any, initNs: Any, initBindings: Any, queryGraph: Any, **kwargs: Any) -> Any:  # noqa: N803
            if not isinstance(query, str) or kwargs or queryGraph != DATASET_DEFAULT_GRAPH_ID:
                return super().query(query, initNs, initBindings, queryGraph, **kwargs)
            found = self._inner.query(
                query,
                prefixes=dict(self._namespace_for_prefix, **initNs),
                substitutions={ox.Variable(k): OxigraphSink.term(v) for k, v in initBindings.items()},
            )
            return rdflib_result(found)

    return ViewStore


def _forgetting(write: Callable[..., Any]) -> Callable[..., Any]:
    """``write``, forgetting the store's view first (see :func:`_set_union_class`)."""

    @functools.wraps(write)
    def forgetting(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.changed()
        return write(self, *args, **kwargs)

    return forgetting


@functools.cache
def _set_union_class() -> Any:
    """oxrdflib's ``OxigraphStore``, with union queries answered on a view whose default graph is a set.

    SPARQL's default graph is a set of triples; Oxigraph's union of named
    graphs is a bag (a triple three memory graphs hold counts three times).
    So a query over the union runs on a view
    (:func:`mif_rdf.load.set_union.union_view`): a store of its own holding
    every named graph and their distinct triples as its default graph.  The
    view is never the bundle's data, so no export, push, stream, validation or
    graph-store read sees it.  It is made at the first union query and kept
    until the store changes: through rdflib (each write below), through the
    bulk sink (:func:`sink_for`) or a swap (:func:`replace_oxigraph_store`);
    code that writes the pyoxigraph store in any other way must call
    ``changed()``.  The class is made on first use: importing oxrdflib costs
    every importer of this module time.
    """
    from oxrdflib import OxigraphStore

    from mif_rdf.load.set_union import union_view

    class SetUnionOxigraphStore(OxigraphStore):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.version = 0
            #: the pyoxigraph store this one was made on when that was a new in-memory one (:func:`_set_union_store`)
            self.made_in_memory: Any = None
            self._view: tuple[Any, int, Any] | None = None  # (the store it copies, its version then, the view)

        def changed(self) -> None:
            """Forget the view: the store's content changed."""
            self.version += 1
            self._view = None

        def view(self) -> Any:
            """The view of the current content as an rdflib store (made now when there is none)."""
            inner = self._inner
            if self._view is None or self._view[0] is not inner or self._view[1] != self.version:
                self._view = (inner, self.version, _view_class()(store=union_view(inner)))
            return self._view[2]

        def query(self, query: Any, initNs: Any, initBindings: Any, queryGraph: Any, **kwargs: Any) -> Any:  # noqa: N803
            if queryGraph != "__UNION__":
                return super().query(query, initNs, initBindings, queryGraph, **kwargs)
            prefixes = dict(self._namespace_for_prefix, **initNs)  # the view has no prefix bindings of its own
            return self.view().query(query, prefixes, initBindings, DATASET_DEFAULT_GRAPH_ID, **kwargs)

    for name in ("add", "addN", "remove", "add_graph", "remove_graph", "update"):  # every write through rdflib
        setattr(SetUnionOxigraphStore, name, _forgetting(getattr(OxigraphStore, name)))
    return SetUnionOxigraphStore


def oxigraph_store(graph: object) -> Any:
    """The pyoxigraph ``Store`` under ``graph`` when its store is oxrdflib's ``OxigraphStore``, else None.

    Anything unexpected (another oxrdflib version) means None, and callers
    fall back to the rdflib API.
    """
    store: Any = getattr(graph, "store", None)
    if not _kept_in_oxigraph(type(graph), type(store)):
        return None
    inner = getattr(store, "_inner", None)
    return inner if isinstance(inner, ox.Store) else None


def _kept_in_oxigraph(graph_kind: type, store_kind: type) -> bool:
    """Whether an rdflib graph class over a store class of oxrdflib's ``OxigraphStore`` (or one made from it) may
    keep its quads in Oxigraph.  Asked by every helper's query: a program has a few such pairs, each looked at once
    (rdflib's classes check instances through ``abc``, a Python call each)."""
    found = _OXIGRAPH_KINDS.get((graph_kind, store_kind))
    if found is None:
        found = _OXIGRAPH_KINDS[graph_kind, store_kind] = (
            ox is not None
            and issubclass(graph_kind, Graph)
            and "OxigraphStore" in {c.__name__ for c in store_kind.__mro__}
        )
    return found


_OXIGRAPH_KINDS: dict[tuple[type, type], bool] = {}


def rdflib_memory(graph: Graph) -> bool:
    """Whether ``graph`` is on rdflib's own memory store, whose queries rdflib's engine evaluates (from a parse)."""
    return isinstance(graph.store, (Memory, SimpleMemory))


def remote_endpoint(graph: Graph) -> bool:
    """Whether ``graph`` is a remote SPARQL endpoint (rdflib's ``SPARQLStore``), which takes no bindings."""
    return isinstance(graph.store, SPARQLStore)


def replace_oxigraph_store(dataset: Dataset, store: Any) -> None:
    """Put the pyoxigraph ``store`` under ``dataset`` in place of the one there (a compacted copy of it)."""
    dataset.store._store = store  # type: ignore[attr-defined]  # oxrdflib's store; see oxigraph_store
    changed = getattr(dataset.store, "changed", None)
    if changed is not None:
        changed()


def sink_for(dataset: Dataset, on_failure: Callable[[str, str], None] | None = None) -> OxigraphSink | None:
    """A bulk sink when ``dataset`` is backed by oxrdflib's Oxigraph store, else None.

    The sink is told whether the store is one :func:`new_dataset` made in memory (a database on disk, a store
    a caller passed in or swapped in, are taken as on disk: :class:`OxigraphSink` explains the difference)."""
    inner = oxigraph_store(dataset)
    if inner is None:
        return None
    return OxigraphSink(
        inner, on_failure, on_write=getattr(dataset.store, "changed", None), in_memory=made_in_memory(dataset)
    )


def made_in_memory(dataset: Dataset) -> bool:
    """Whether ``dataset`` is on the in-memory pyoxigraph store :func:`new_dataset` made for it (False for a
    database on disk, a store a caller passed in or swapped in, and other stores)."""
    inner = oxigraph_store(dataset)
    return inner is not None and inner is getattr(dataset.store, "made_in_memory", None)


def memory_copy(graph: Graph) -> Graph | None:
    """An Oxigraph-backed graph (a Dataset: its union) as an rdflib memory Graph, or None for other stores.

    For code that asks one triple pattern at a time (pyshacl, the report's
    key paths): oxrdflib answers each by converting every term it returns,
    with rdflib's literal normalization, many times slower than one bulk
    read.  The terms are those of :func:`~mif_rdf.load.oxigraph_sink.rdflib_terms`
    (lexical forms kept).  mif-rdf's own SHACL engine reads the store directly
    and needs no copy.
    """
    inner = oxigraph_store(graph)
    if inner is None:
        return None
    term = rdflib_terms()
    copy = Graph()
    copy.addN(
        (term(q.subject), term(q.predicate), term(q.object), copy)
        for q in inner.quads_for_pattern(None, None, None, oxigraph_graph_name(graph))
    )
    return copy


def optimize(dataset: Dataset) -> None:
    """Merge the tables a bulk load left in an Oxigraph database (other stores have none)."""
    inner = oxigraph_store(dataset)
    if inner is not None:
        inner.optimize()


def write_union_view(dataset: Dataset, target: Path) -> None:
    """Write ``dataset``'s Oxigraph store as a new database in ``target``, with the union of its graphs as a set
    for default graph (:mod:`mif_rdf.load.set_union`): a query database, never bundle data."""
    from mif_rdf.load.set_union import add_union_as_default, union_view

    inner = oxigraph_store(dataset)
    inner.flush()
    try:
        inner.backup(str(target))  # an on-disk store: hard links, then the default graph added
    except (OSError, RuntimeError):  # an in-memory store has no files to link
        shutil.rmtree(target, ignore_errors=True)
        view = union_view(inner, target)
    else:
        view = ox.Store(str(target))
        add_union_as_default(view)
    view.optimize()
    view.flush()


def read_only_view(database: Path) -> Dataset:
    """A Dataset on the query database ``database`` (:func:`write_union_view`), opened read-only: its default
    graph is the union as a set, its named graphs the bundle's."""
    dataset = Dataset(store=_view_class()(store=ox.Store.read_only(str(database))), default_union=False)
    bind_prefixes(dataset)
    return dataset


def backup(dataset: Dataset, target: Path) -> None:
    """Write what is in ``dataset``'s Oxigraph database to the new folder ``target``, as a database of its own."""
    inner = oxigraph_store(dataset)
    inner.flush()
    inner.backup(str(target))


def copy_database(source: Path, target: Path) -> None:
    """Copy the Oxigraph database in ``source`` to the new folder ``target``, leaving ``source``'s files as they are."""
    ox.Store.read_only(str(source)).backup(str(target))
