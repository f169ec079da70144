"""Bulk loading into an Oxigraph-backed Dataset (oxrdflib's store).

oxrdflib's ``addN`` opens a transaction per call and dispatches an rdflib event
per quad; a bundle load adds tens of thousands of small graphs.  Collecting
the quads as pyoxigraph terms and handing them to pyoxigraph's
``bulk_extend`` in large batches loads about 1.5x faster (and faster than
rdflib's memory store).  Anything unexpected about the store (another
oxrdflib version) means no sink, and the loader falls back to ``addN``.
"""
from __future__ import annotations

from typing import Any, Iterable

from rdflib import BNode, Dataset, Literal, URIRef

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None

BATCH = 200_000


class OxigraphSink:
    """Buffers quads for one pyoxigraph store and writes them in bulk."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.pending: list[Any] = []

    def add(self, graph: URIRef, triples: Iterable[tuple[Any, Any, Any]]) -> None:
        name = ox.NamedNode(str(graph))
        term = self.term
        self.pending.extend(ox.Quad(term(s), term(p), term(o), name) for s, p, o in triples)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.store.bulk_extend(self.pending)
            self.pending = []

    @staticmethod
    def term(node: Any) -> Any:
        if isinstance(node, URIRef):
            return ox.NamedNode(str(node))
        if isinstance(node, BNode):
            return ox.BlankNode(str(node))  # the same id is the same node, in any graph
        if isinstance(node, Literal):
            if node.language:
                return ox.Literal(str(node), language=node.language)
            if node.datatype:
                return ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype)))
            return ox.Literal(str(node))
        raise TypeError(f"cannot store {node!r} in Oxigraph")


def sink_for(dataset: Dataset) -> OxigraphSink | None:
    """A bulk sink when ``dataset`` is backed by oxrdflib's Oxigraph store, else None."""
    inner = getattr(dataset.store, "_inner", None)
    if ox is None or type(dataset.store).__name__ != "OxigraphStore" or not hasattr(inner, "bulk_extend"):
        return None
    return OxigraphSink(inner)
