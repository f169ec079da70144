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
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rdflib import Dataset, Graph
from rdflib.plugins.stores.memory import Memory, SimpleMemory
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.store import Store

from mif_rdf.core.names import STORES
from mif_rdf.core.namespaces import bind_prefixes
from mif_rdf.load.oxigraph_sink import OxigraphSink, oxigraph_graph_name, rdflib_terms

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
    """oxrdflib's store whose union queries read a default graph that is a set (:mod:`.oxigraph_view`)."""
    from mif_rdf.load.oxigraph_view import SetUnionOxigraphStore  # here only: oxrdflib costs every importer time

    return SetUnionOxigraphStore(store=inner)


def oxigraph_store(graph: object) -> Any:
    """The pyoxigraph ``Store`` under ``graph`` when its store is oxrdflib's ``OxigraphStore``, else None.

    Anything unexpected (another oxrdflib version) means None, and callers
    fall back to the rdflib API.
    """
    store = getattr(graph, "store", None)
    if ox is None or "OxigraphStore" not in {c.__name__ for c in type(store).__mro__} or not isinstance(graph, Graph):
        return None
    inner = getattr(store, "_inner", None)
    return inner if isinstance(inner, ox.Store) else None


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
    """A bulk sink when ``dataset`` is backed by oxrdflib's Oxigraph store, else None."""
    inner = oxigraph_store(dataset)
    if inner is None:
        return None
    return OxigraphSink(inner, on_failure, on_write=getattr(dataset.store, "changed", None))


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


def backup(dataset: Dataset, target: Path) -> None:
    """Write what is in ``dataset``'s Oxigraph database to the new folder ``target``, as a database of its own."""
    inner = oxigraph_store(dataset)
    inner.flush()
    inner.backup(str(target))


def copy_database(source: Path, target: Path) -> None:
    """Copy the Oxigraph database in ``source`` to the new folder ``target``, leaving ``source``'s files as they are."""
    ox.Store.read_only(str(source)).backup(str(target))
