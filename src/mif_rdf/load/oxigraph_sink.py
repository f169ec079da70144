"""Bulk loading into an Oxigraph-backed Dataset (oxrdflib's store).

oxrdflib's ``addN`` opens a transaction per call and dispatches an rdflib event
per quad; a bundle load adds tens of thousands of small graphs.  Memories
arrive as N-Quads text (:func:`mif_rdf.rdf.memory_nquads.memory_nquads`, or
:func:`mif_rdf.rdf.tordf.document_nquads` of a projection), which
Oxigraph parses in Rust, many memories per call; the few graphs built as
rdflib triples (entities, the pyld engine, the links and layout graphs of a
reload) are converted to pyoxigraph terms and written with ``bulk_extend``.  In
a fresh load each memory's text comes with its layout line and its place in
the links graph (made by the worker that prepared it), stored with it or not
at all; the edges come as text after the last memory
(:mod:`mif_rdf.load.stages`).  Anything unexpected about the store
(another oxrdflib version) means no sink (:func:`mif_rdf.load.stores.sink_for`), and the loader falls back to ``addN``.

Text goes into an on-disk database through ``Store.bulk_load`` (twice as
fast as ``load`` there), small batches through ``Store.load`` and
``Store.extend`` (see :data:`SMALL_BATCH`); into an in-memory store always
through ``Store.load``, one transaction a batch, which costs 15-20 % less CPU
than ``bulk_load`` there (1.31-1.47 s against 1.61-1.88 s for the 460,000
quads of 10,000 generated memories in batches of 4 or 8 million characters;
the main process of a load parses every quad, so this is its largest cost).
A full batch is parsed in a thread of its own while the next one fills (Oxigraph
parses without holding the GIL): one batch at a time, in order, each finished
before the next starts and before anything else writes to the store.
A batch Oxigraph refuses (it cannot hold a lone surrogate; the walker never
writes a bad IRI, but a store is not the place to assume it) may be partly
written by ``bulk_load``, so each of its graphs is removed and loaded again on
its own with ``Store.load``, which is all or nothing; only the memories it
still refuses are reported, through ``on_failure``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rdflib import BNode, ConjunctiveGraph, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.query import Result
from rdflib.term import Variable

try:  # the oxigraph extra is optional
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - exercised only without the extra
    ox = None  # type: ignore[assignment]

BATCH = 200_000
#: Characters of N-Quads text per ``Store.load`` call: large enough to amortize the call.
TEXT_BATCH = 4_000_000
#: Below these sizes (quads; characters of text) a batch goes in through ``extend``/``load``, one transaction:
#: on an in-memory store that already holds a bundle, ``bulk_extend``/``bulk_load`` cost 100-200 ms a call
#: whatever the batch's size (measured at 10,000 memories, 480,000 quads; ``extend`` of 20 quads 0.3 ms),
#: which was most of the reload of one edited file (``mif-rdf serve``'s edit-to-visible delay).
SMALL_BATCH = 20_000
#: :data:`TEXT_BATCH` for an in-memory store (whose ``load`` costs no more per quad in batches of 0.6-1 million
#: characters than of 4 million): the text still queued after the last memory, which the main process parses alone
#: while the workers are done, stays small.
MEMORY_TEXT_BATCH = 1_000_000
SMALL_TEXT = 2_000_000
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _batches(pieces: Iterable[str], size: int) -> Iterator[str]:
    """``pieces`` joined into texts of at least ``size`` characters (the last may be shorter; none is empty)."""
    buffer: list[str] = []
    held = 0
    for piece in pieces:
        buffer.append(piece)
        held += len(piece)
        if held >= size:
            yield "".join(buffer)
            buffer, held = [], 0
    if held:
        yield "".join(buffer)


def _utf8(text: bytes | str) -> bytes:
    """N-Quads text as the UTF-8 bytes Oxigraph reads (UnicodeError for a lone surrogate, which it cannot hold)."""
    return text if isinstance(text, bytes) else text.encode("utf-8")


class OxigraphSink:
    """Buffers quads for one pyoxigraph store and writes them in bulk."""

    def __init__(
        self,
        store: Any,
        on_failure: Callable[[str, str], None] | None = None,
        on_write: Callable[[], None] | None = None,
        *,
        in_memory: bool = False,
    ) -> None:
        self.store = store
        self.in_memory = in_memory  # an in-memory store: text goes in through ``load`` (see the module's note)
        self.on_write = on_write  # told of every write: a view of the store (mif_rdf.load.stores) is stale
        self.pending: list[Any] = []
        self.texts: list[tuple[str, bytes | str]] = []  # (graph IRI, its N-Quads text and its shared lines)
        self.text_size = 0
        self.on_failure = on_failure  # called with the graph IRI and Oxigraph's message for a refused graph
        self.refused = 0  # graphs refused so far (each told to on_failure)
        #: graphs others share (the links and layout graphs) where a graph given as text has lines of its own,
        #: whose subject is that graph's name (a memory's IRI names its graph and its node)
        self.shared_graphs: tuple[str, ...] = ()
        #: the batch a thread is parsing: (thread, its graphs' texts or None, what it raised)
        self._parsing: tuple[threading.Thread, list[tuple[str, bytes | str]] | None, list[BaseException]] | None = None

    def add_text(self, graph: str, text: bytes | str) -> None:
        """Queue one graph given as N-Quads text (UTF-8 bytes, or a str): its quads, all in ``graph``, then its own
        lines in :attr:`shared_graphs` (a memory's layout line, its place in the links graph), stored with it or not
        at all.  A full batch is parsed in a thread while the next one fills (:meth:`flush_text`)."""
        self.texts.append((graph, text))
        self.text_size += len(text)
        if self.text_size >= (MEMORY_TEXT_BATCH if self.in_memory else TEXT_BATCH):
            self.flush_text(wait=False)

    def flush_text(self, *, wait: bool = True) -> None:
        """Store the queued graphs' text; ``wait=False``: in a thread of its own, finished by the next write
        (or :meth:`settle`), so that the caller goes on meanwhile: Oxigraph parses without holding the GIL, and
        the main process of a load, which parses every quad, is the busiest of its processes."""
        texts, self.texts, self.text_size = self.texts, [], 0
        if texts:
            if self.on_write is not None:
                self.on_write()
            try:
                data = b"".join([_utf8(text) for _, text in texts])
            except UnicodeError:  # a lone surrogate: the graphs one by one, after what is being parsed
                self.settle()
                self._one_by_one(texts)
            else:
                self._start(data, texts)
        if wait:
            self.settle()

    def _start(self, data: bytes, texts: list[tuple[str, bytes | str]] | None) -> None:
        """Parse ``data`` in a thread, once the batch before it is stored: one batch at a time, in order.
        ``texts``: the graphs it is made of, loaded one by one if Oxigraph refuses it (None: its refusal raises)."""
        self.settle()
        failure: list[BaseException] = []

        def parse() -> None:
            try:
                self.load(data)
            except BaseException as exc:  # noqa: BLE001 - handed to settle(), in the caller's thread
                failure.append(exc)

        thread = threading.Thread(target=parse, name="mif-rdf-parse", daemon=True)
        thread.start()
        self._parsing = (thread, texts, failure)

    def settle(self) -> None:
        """Wait for the batch being parsed; when Oxigraph refused it, load its graphs one by one
        (:attr:`on_failure` hears of each it refuses), or raise what it raised for text made piece by piece."""
        if self._parsing is None:
            return
        (thread, texts, failure), self._parsing = self._parsing, None
        thread.join()
        if not failure:
            return
        if texts is None or not isinstance(failure[0], (SyntaxError, ValueError)):
            raise failure[0]
        self._one_by_one(texts)

    def _one_by_one(self, texts: list[tuple[str, bytes | str]]) -> None:
        """Each graph of a refused batch on its own: bulk loading may have written part of the batch, so each
        graph and its lines in the shared graphs are taken out first, then loaded all or nothing."""
        for graph, text in texts:
            self.store.remove_graph(ox.NamedNode(graph))
            for other in self.shared_graphs:
                for quad in list(self.store.quads_for_pattern(ox.NamedNode(graph), None, None, ox.NamedNode(other))):
                    self.store.remove(quad)
            try:
                self.store.load(_utf8(text), format=ox.RdfFormat.N_QUADS)  # all or nothing
            except (SyntaxError, ValueError, UnicodeError) as exc:
                if self.on_failure is None:
                    raise
                self.refused += 1
                self.on_failure(graph, str(exc))

    def load_pieces(self, pieces: Iterable[str]) -> bool:
        """Store N-Quads text made piece by piece (the edges after the last memory) in batches, each parsed in a
        thread of its own while this one makes the next (once the last memory is in, the workers' core is free:
        at 100,000 memories making the edges' text and parsing it took 0.7 and 0.85 s of CPU, one after the other).

        The batch of memories still being parsed (``flush_text(wait=False)``) is stored first, while the first
        pieces are made.  If Oxigraph refused one of its graphs, the pieces were made with that memory in the
        bundle: none of them is stored, and False says so (the caller makes them again, nothing is in flight)."""
        if self.on_write is not None:
            self.on_write()
        refused = self.refused
        for text in _batches(pieces, MEMORY_TEXT_BATCH if self.in_memory else TEXT_BATCH):
            self.settle()
            if self.refused != refused:
                return False
            self._start(_utf8(text), None)
        self.settle()
        return self.refused == refused

    def load(self, text: bytes | str) -> None:
        """Store N-Quads text at once (a lone surrogate cannot be encoded: UnicodeError)."""
        data = _utf8(text)
        if self.in_memory or len(data) < SMALL_TEXT:
            self.store.load(data, format=ox.RdfFormat.N_QUADS)
        else:
            self.store.bulk_load(data, format=ox.RdfFormat.N_QUADS)

    def add(self, graph: URIRef, triples: Iterable[tuple[Any, Any, Any]]) -> None:
        name = ox.NamedNode(str(graph))
        term = self.term
        self.pending.extend(ox.Quad(term(s), term(p), term(o), name) for s, p, o in triples)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        self.flush_text()
        if self.pending:
            if self.on_write is not None:
                self.on_write()
            if len(self.pending) < SMALL_BATCH:
                self.store.extend(self.pending)
            else:
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


def query_dataset(graph: Graph) -> dict[str, Any]:
    """The default graph rdflib would ask Oxigraph for (its ``query_graph``), as ``Store.query`` options."""
    name = oxigraph_graph_name(graph)
    return {"use_default_graph_as_union": True} if name is None else {"default_graph": name}


def oxigraph_graph_name(graph: Graph) -> Any:
    """The pyoxigraph graph name of ``graph``: None for a Dataset that reads its union, else its default
    context (a Dataset) or its own name (a named graph)."""
    if graph.default_union:
        return None
    if isinstance(graph, Dataset):
        identifier = graph.default_graph.identifier
    elif isinstance(graph, ConjunctiveGraph):
        identifier = graph.default_context.identifier
    else:
        identifier = graph.identifier
    return ox.DefaultGraph() if identifier == DATASET_DEFAULT_GRAPH_ID else OxigraphSink.term(identifier)


def rdflib_term(node: Any) -> Any:
    """The rdflib term the loader made of a pyoxigraph term.

    Literals keep the lexical form Oxigraph holds (``normalize=False``:
    rdflib's default would turn an ill-typed ``"2026-01-15"^^xsd:dateTime``
    into ``"2026-01-15T00:00:00"``, which a date pattern then flags), and
    ``xsd:string`` literals become plain ones, as the loader wrote them
    (oxrdflib returns them typed, which rdflib, unlike RDF 1.1, does not take
    as equal, so a ``sh:in`` list of plain strings would not match).
    """
    if isinstance(node, ox.NamedNode):
        return URIRef(node.value)
    if isinstance(node, ox.BlankNode):
        return BNode(node.value)
    if node.language:
        return Literal(node.value, lang=node.language)
    if node.datatype.value == _XSD_STRING:
        return Literal(node.value)
    return Literal(node.value, datatype=_datatype_iri(node.datatype.value), normalize=False)


@functools.lru_cache(maxsize=1024)
def _datatype_iri(iri: str) -> URIRef:
    """A datatype's URIRef, made once: a bundle has a few dozen datatypes and millions of literals."""
    return URIRef(iri)


def rdflib_terms() -> Callable[[Any], Any]:
    """:func:`rdflib_term` with each term converted once: for copies, where the same terms come back again and again."""
    known: dict[Any, Any] = {}

    def term(node: Any) -> Any:
        found = known.get(node)
        if found is None:
            found = known[node] = rdflib_term(node)
        return found

    return term


def rdflib_result(found: Any, *, lazy: bool = True) -> Result:
    """An rdflib ``Result`` of what ``pyoxigraph.Store.query`` answered, in the loader's terms (:func:`rdflib_term`).

    ``lazy``: solutions are converted as the caller reads them; ``False`` reads them all now (a query whose
    custom functions read the store must be evaluated before the store changes).
    """
    term = rdflib_terms()
    if isinstance(found, ox.QueryBoolean):
        out = Result("ASK")
        out.askAnswer = bool(found)
    elif isinstance(found, ox.QuerySolutions):
        out = Result("SELECT")
        out.vars = names = [Variable(v.value) for v in found.variables]
        rows = ({n: term(value) for n, value in zip(names, row, strict=True) if value is not None} for row in found)
        out.bindings = rows if lazy else list(rows)
    else:
        out = Result("CONSTRUCT")
        out.graph = Graph()
        out.graph += ((term(t.subject), term(t.predicate), term(t.object)) for t in found)
    return out
