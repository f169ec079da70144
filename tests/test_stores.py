"""The store seam (issue 30): mif_rdf.load.stores is the one module that knows the stores.

What the stages ask of it is checked on both stores against what rdflib itself
holds; and no other module reaches under oxrdflib, so a store is added in one
place.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore

from conftest import EXAMPLES, assert_isomorphic
from mif_rdf import load_bundle
from mif_rdf.load import stores
from mif_rdf.load.oxigraph_sink import OxigraphSink

SRC = Path(__file__).resolve().parent.parent / "src" / "mif_rdf"


def test_only_the_stores_module_reaches_under_oxrdflib() -> None:
    """No other source module imports oxrdflib or touches its private store attributes."""
    reaching = re.compile(r"\b(import oxrdflib|from oxrdflib|OxigraphStore\(|\._inner\b|store\._store\b)")
    offenders = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "stores.py" and reaching.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_each_store_is_told_apart() -> None:
    memory, oxigraph = stores.new_dataset(), stores.new_dataset("oxigraph")
    assert stores.oxigraph_store(memory) is None and stores.sink_for(memory) is None
    assert stores.memory_copy(memory) is None
    assert isinstance(stores.oxigraph_store(oxigraph), ox.Store)
    assert stores.rdflib_memory(memory) and not stores.rdflib_memory(oxigraph)
    assert not stores.remote_endpoint(memory) and not stores.remote_endpoint(oxigraph)
    assert stores.remote_endpoint(Graph(store=SPARQLStore("http://127.0.0.1:9/sparql")))
    assert stores.oxigraph_store("not a graph") is None


def test_a_new_dataset_reads_the_union_with_the_project_prefixes() -> None:
    for name in ("memory", "oxigraph", "Oxigraph"):
        dataset = stores.new_dataset(name)
        assert dataset.default_union
        assert dict(dataset.namespaces())["dc"] == URIRef("http://purl.org/dc/terms/")


def test_the_memory_copy_holds_what_the_memory_store_loads() -> None:
    """The copy pySHACL reads of an Oxigraph load is, up to blank-node labels, what the memory store loads."""
    copy = stores.memory_copy(load_bundle(EXAMPLES, store="oxigraph", progress=False).dataset)
    union = Graph()
    for triple in load_bundle(EXAMPLES, progress=False).dataset.triples((None, None, None)):
        union.add(triple)
    assert copy is not None and len(copy) > 100
    assert_isomorphic(copy, union, "copy")


def _raw_quads(dataset) -> set:
    return set(stores.oxigraph_store(dataset).quads_for_pattern(None, None, None, None))


def test_backup_copy_and_reopen_keep_every_quad(tmp_path: Path) -> None:
    """The cache's round trip: checkpoint an on-disk database, copy it read-only, open the copy as a Dataset."""
    loaded = load_bundle(EXAMPLES, store="oxigraph", progress=False).dataset
    disk = stores.oxigraph_dataset(tmp_path / "database")
    stores.oxigraph_store(disk).bulk_extend(stores.oxigraph_store(loaded).quads_for_pattern(None, None, None, None))
    stores.optimize(disk)  # compacting changes no quad
    stores.backup(disk, tmp_path / "checkpoint")
    stores.copy_database(tmp_path / "checkpoint", tmp_path / "session")
    reopened = stores.oxigraph_dataset(tmp_path / "session")
    assert _raw_quads(reopened) == _raw_quads(loaded) and len(_raw_quads(loaded)) > 100
    stores.optimize(stores.new_dataset())  # a memory store has nothing to compact: no error


def test_a_replaced_oxigraph_store_is_the_one_read() -> None:
    dataset = stores.new_dataset("oxigraph")
    fresh = ox.Store()
    fresh.add(ox.Quad(ox.NamedNode("urn:a"), ox.NamedNode("urn:p"), ox.Literal("x"), ox.NamedNode("urn:g")))
    stores.replace_oxigraph_store(dataset, fresh)
    assert stores.oxigraph_store(dataset) is fresh
    assert [(s, p, str(o)) for s, p, o in dataset.triples((None, None, None))] == [
        (URIRef("urn:a"), URIRef("urn:p"), "x")
    ]


def test_the_bulk_sink_writes_into_the_store() -> None:
    dataset = stores.new_dataset("oxigraph")
    sink = stores.sink_for(dataset)
    assert sink is not None
    sink.add(URIRef("urn:g"), [(URIRef("urn:a"), URIRef("urn:p"), Literal("x", lang="en"))])
    sink.flush()
    assert set(dataset.graph(URIRef("urn:g"))) == {(URIRef("urn:a"), URIRef("urn:p"), Literal("x", lang="en"))}


class _Calls:
    """A pyoxigraph store that records which of its loading methods was called."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def load(self, data: bytes, format: object) -> None:
        self.calls.append("load")

    def bulk_load(self, data: bytes, format: object) -> None:
        self.calls.append("bulk_load")


def test_text_goes_into_an_in_memory_store_through_load_and_onto_disk_through_bulk_load(tmp_path: Path) -> None:
    """``Store.load`` costs less CPU than ``bulk_load`` in memory, half as much on disk: the sink knows which
    store it has from the one that made it (a store passed in or swapped in counts as on disk)."""
    made = stores.new_dataset("oxigraph")
    assert stores.made_in_memory(made) and stores.sink_for(made).in_memory  # type: ignore[union-attr]
    on_disk = stores.oxigraph_dataset(tmp_path / "db")
    assert not stores.made_in_memory(on_disk) and not stores.sink_for(on_disk).in_memory  # type: ignore[union-attr]
    assert not stores.made_in_memory(stores.new_dataset())
    stores.replace_oxigraph_store(made, ox.Store())
    assert not stores.made_in_memory(made)
    large = '<urn:a> <urn:p> "x" <urn:g> .\n' * 100_000  # over SMALL_TEXT
    for in_memory, method in ((True, "load"), (False, "bulk_load")):
        store = _Calls()
        OxigraphSink(store, in_memory=in_memory).load(large)
        assert store.calls == [method]


def test_a_full_batch_is_parsed_while_the_next_fills_and_a_refusal_is_heard_by_the_next_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``add_text`` hands a full batch to a thread and returns; the next batch (or ``flush_text``) waits for it,
    and a batch Oxigraph refused is then loaded graph by graph, so only the bad graph is lost and reported."""
    import threading

    import mif_rdf.load.oxigraph_sink as oxigraph_sink

    monkeypatch.setattr(oxigraph_sink, "MEMORY_TEXT_BATCH", 100)
    store, refused, threads = ox.Store(), [], []
    real_load = OxigraphSink.load

    def load(self: OxigraphSink, text: bytes | str) -> None:
        threads.append(threading.current_thread() is not threading.main_thread())
        real_load(self, text)

    monkeypatch.setattr(OxigraphSink, "load", load)
    sink = OxigraphSink(store, lambda graph, message: refused.append(graph), in_memory=True)
    good = [f'<urn:s{i}> <urn:p> "{"x" * 80}" <urn:g{i}> .\n' for i in range(4)]
    sink.add_text("urn:g0", good[0])
    sink.add_text("urn:bad", "<urn:s> <urn:p> <not an IRI> <urn:bad> .\n" + "#" * 100 + "\n")  # full: in a thread
    sink.add_text("urn:g1", good[1])
    sink.add_text("urn:g2", good[2])  # the second full batch waits for the first, then goes to a thread
    sink.add_text("urn:g3", good[3])
    sink.flush_text()
    assert refused == ["urn:bad"] and sink.refused == 1
    assert {quad.graph_name.value for quad in store} == {"urn:g0", "urn:g1", "urn:g2", "urn:g3"}
    assert threads[:2] == [True, True]  # the batches; the refused one's graphs then go in one by one, here


def test_pieces_made_while_a_memory_was_refused_are_not_stored() -> None:
    """The edges are made while the last memories' batch is parsed: when Oxigraph refuses one of its graphs,
    ``load_pieces`` stores none of the pieces and says so, and the caller's second try stores them."""
    store, refused = ox.Store(), []
    sink = OxigraphSink(store, lambda graph, message: refused.append(graph), in_memory=True)
    sink.add_text("urn:bad", "<urn:s> <urn:p> <not an IRI> <urn:bad> .\n")
    sink.add_text("urn:good", '<urn:s> <urn:p> "x" <urn:good> .\n')
    sink.flush_text(wait=False)
    edges = ["<urn:s> <urn:q> <urn:bad> <urn:links> .\n"]
    assert sink.load_pieces(iter(edges)) is False and refused == ["urn:bad"]
    assert not list(store.quads_for_pattern(None, None, None, ox.NamedNode("urn:links")))
    assert sink.load_pieces(iter(["<urn:s> <urn:q> <urn:good> <urn:links> .\n"])) is True
    assert [quad.object.value for quad in store.quads_for_pattern(None, None, None, ox.NamedNode("urn:links"))] == [
        "urn:good"
    ]


def test_text_made_piece_by_piece_is_stored_in_batches_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edges after the last memory: batches parsed in a thread while the next is made, every piece stored,
    and a piece the store refuses raises here, as a load of the whole text would."""
    import mif_rdf.load.oxigraph_sink as oxigraph_sink

    monkeypatch.setattr(oxigraph_sink, "MEMORY_TEXT_BATCH", 200)
    pieces = [f"<urn:s{i}> <urn:p> <urn:o{i}> <urn:g> .\n" for i in range(100)]
    assert [len(text) >= 200 for text in oxigraph_sink._batches(iter(pieces), 200)][:-1] == [True] * 16
    assert "".join(oxigraph_sink._batches(iter(pieces), 200)) == "".join(pieces)
    assert list(oxigraph_sink._batches(iter(["", ""]), 200)) == []  # no empty batch
    store = ox.Store()
    written: list[int] = []
    sink = OxigraphSink(store, on_write=lambda: written.append(1), in_memory=True)
    sink.load_pieces(iter(pieces))
    assert len(store) == 100 and written == [1]
    with pytest.raises(SyntaxError):
        sink.load_pieces(iter([*pieces[:10], "<urn:s> <urn:p> <not an IRI> <urn:g> .\n"]))
