"""A fresh Oxigraph load writes each memory's layout line and place in the links graph as it accepts the memory,
and the edges after the last one (issue 34): the links and layout graphs are the memory store's, and a memory
the store refuses leaves nothing behind, as if its file were not there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

import mif_rdf.load.oxigraph_sink
import mif_rdf.load.pipeline
import mif_rdf.load.stages
import mif_rdf.load.stores
from conftest import EXAMPLES, FIXTURE_BUNDLES, FIXTURES, write_file
from mif_rdf import load_bundle
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.oxigraph_sink import OxigraphSink
from mif_rdf.load.pipeline import CHUNK
from synthetic import generate_bundle


def _graph(bundle: LoadedBundle, name: str) -> set[tuple[Any, Any, Any]]:
    """The triples of one graph, an ``xsd:string`` literal as the plain one it equals (Oxigraph types them)."""
    found = set()
    for s, p, o in bundle.dataset.graph(URIRef(name)):
        if isinstance(o, Literal) and o.datatype == XSD.string:
            o = Literal(str(o))
        found.add((s, p, o))
    return found


def _shared(bundle: LoadedBundle) -> tuple[set[Any], set[Any]]:
    return _graph(bundle, bundle.links_graph_iri), _graph(bundle, bundle.layout_graph_iri)


def _same_shared_graphs(root: Path, **options: Any) -> LoadedBundle:
    memory = load_bundle(root, progress=False, workers=0)
    oxigraph = load_bundle(root, store="Oxigraph", progress=False, **options)
    links, layout = _shared(oxigraph)
    assert len(layout) == len(memory.memories)
    assert (links, layout) == _shared(memory)
    assert [str(p) for p in oxigraph.problems] == [str(p) for p in memory.problems]  # broken links in the same order
    assert list(oxigraph.memories) == list(memory.memories)
    return oxigraph


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every field family, entities, more memories than a worker's chunk, and broken links."""
    root = tmp_path_factory.mktemp("shared") / "bundle"
    generate_bundle(root, CHUNK + 40, seed=11)
    write_file(
        root,
        "semantic/broken.md",
        "---\nid: 7d1f0c6e-5a4b-4c3d-8e2f-1a0b9c8d7e6f\ntype: semantic\ncreated: 2026-01-15T10:00:00Z\n"
        "relationships:\n  - {type: relates-to, target: semantic/nowhere.md}\n"
        "  - {type: supersedes, target: urn:mif:no-such-memory}\n  - {type: relates-to, target: https://example.org/x}\n"
        "---\nBody\n",
    )
    return root


@pytest.mark.parametrize("name", ["generated", *sorted(FIXTURE_BUNDLES)])
def test_the_links_and_layout_graphs_are_the_memory_store_s(name: str, generated: Path) -> None:
    root = generated if name == "generated" else FIXTURE_BUNDLES[name]
    oxigraph = _same_shared_graphs(root, workers=0)
    if name == "generated":
        assert any(p.rule == "link" for p in oxigraph.problems)


def test_with_workers_and_with_the_pyld_engine(generated: Path) -> None:
    """Memories from workers, and memories that come as triples (the pyld engine): their quads at the end."""
    _same_shared_graphs(generated, workers=2)
    memory = load_bundle(EXAMPLES, progress=False, engine="pyld")
    oxigraph = load_bundle(EXAMPLES, store="Oxigraph", progress=False, engine="pyld")
    assert _shared(oxigraph) == _shared(memory)


def test_the_edges_after_the_last_memory_only_look_up_what_the_workers_resolved(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each memory's links come resolved with its lines (in the worker): what runs after the last memory, on one
    core, resolves no target again; the graphs and broken-link warnings stay the memory store's."""
    stages = mif_rdf.load.stages
    links, resolving, again = stages._Loader.links, stages.resolved_links, []

    def counted(*args: Any) -> Any:
        again.append(args)
        return resolving(*args)

    def tail(self: Any) -> None:
        if self.placed is None:  # the memory store's load, the baseline: it resolves them here
            return links(self)
        monkeypatch.setattr(stages, "resolved_links", counted)
        try:
            links(self)
        finally:
            monkeypatch.setattr(stages, "resolved_links", resolving)

    monkeypatch.setattr(stages._Loader, "links", tail)
    oxigraph = _same_shared_graphs(generated, workers=0, cache=False)  # a fresh load, not a cache's warm one
    assert len(oxigraph.memories) > CHUNK and again == []


#: One base IRI for a bundle and its copy without a file (the default one is made from the folder's path).
BASE = "https://example.org/bundle/"


def _without(root: Path, relpath: str, tmp_path: Path) -> LoadedBundle:
    """The memory store's load of ``root`` without the file ``relpath``: what a refused memory must leave."""
    copy = tmp_path / "without"
    shutil.copytree(root, copy)
    (copy / relpath).unlink()
    return load_bundle(copy, progress=False, base_iri=BASE)


@pytest.mark.parametrize(("bulk", "where"), [(False, "text"), (True, "text"), (True, "shared")])
def test_a_refused_memory_leaves_nothing_in_the_shared_graphs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bulk: bool, where: str
) -> None:
    """Oxigraph refuses a memory's text (forged here): no layout line, no place, no edge from it, and links to it
    are broken, exactly as if its file were not in the bundle.  ``bulk``: the batch goes through ``bulk_load``,
    which may write part of it before the bad line; ``where``: the bad line is in the memory's own text, or after
    its layout line (which a partial write stores, and which is taken out again)."""
    if bulk:  # as into a database on disk (an in-memory store takes text through ``load``, all or nothing)
        monkeypatch.setattr(mif_rdf.load.oxigraph_sink, "SMALL_TEXT", 0)
        monkeypatch.setattr(mif_rdf.load.stores, "made_in_memory", lambda dataset: False)
    root = tmp_path / "bundle"
    shutil.copytree(EXAMPLES, root)
    memory = load_bundle(root, progress=False, base_iri=BASE)
    linked = {
        link.resolved for link in memory.relationships() if link.resolved in {m.iri for m in memory.memories.values()}
    }
    victim = next(m for m in memory.memories.values() if m.iri in linked)  # another memory links to it
    bad = f"<{victim.iri}> <http://example.org/p> <not an IRI> <{victim.iri}> .\n"
    real, real_place = mif_rdf.load.pipeline.memory_nquads, mif_rdf.load.stages.place_nquads

    def forged(*args: Any, graph: str, **kwargs: Any) -> tuple[str, list[Any]] | None:
        found = real(*args, graph=graph, **kwargs)
        if found is None or graph != victim.iri or where != "text":
            return found
        return found[0] + bad, found[1]

    def forged_place(iri: str, *args: Any) -> str:
        return real_place(iri, *args) + (bad if iri == victim.iri and where == "shared" else "")

    monkeypatch.setattr(mif_rdf.load.stages, "place_nquads", forged_place)
    monkeypatch.setattr(mif_rdf.load.pipeline, "memory_nquads", forged)
    oxigraph = load_bundle(root, store="Oxigraph", progress=False, base_iri=BASE)
    assert [p.path for p in oxigraph.problems if p.rule == "store"] == [victim.relpath]
    store = oxigraph.dataset.store._inner  # type: ignore[attr-defined]
    assert not list(store.quads_for_pattern(ox.NamedNode(victim.iri), None, None, None))
    assert not list(store.quads_for_pattern(None, None, None, ox.NamedNode(victim.iri)))
    absent = _without(root, victim.relpath, tmp_path)
    assert _shared(oxigraph) == _shared(absent)
    assert list(oxigraph.memories) == list(absent.memories)
    broken = {p.value for p in oxigraph.problems if p.rule == "link"} - {
        p.value for p in memory.problems if p.rule == "link"
    }
    assert broken  # the links to it are broken now, as with the file gone


@pytest.mark.parametrize("workers", [0, 2])
def test_a_lone_surrogate_from_a_jsonld_memory_is_refused_by_name(
    tmp_path: Path, generated: Path, workers: int
) -> None:
    """JSON can spell a lone surrogate, which the memory store holds and Oxigraph cannot: that file is refused
    with a problem naming it (it used to stop the whole load with a traceback), the rest is loaded whole.  With
    workers, its text crosses as a str (no UTF-8 for it), the others' as bytes."""
    root = tmp_path / "bundle"
    shutil.copytree(EXAMPLES if workers == 0 else generated, root)
    text = (FIXTURES / "jsonld" / "spec-6.2-full-example.jsonld").read_text(encoding="utf-8")
    document = json.loads(text)
    document["title"] = "before \ud800 after"
    relpath = "semantic/lone-surrogate.jsonld"
    (root / relpath).write_text(json.dumps(document), encoding="utf-8")
    assert relpath in {m.relpath for m in load_bundle(root, progress=False).memories.values()}
    oxigraph = load_bundle(root, store="Oxigraph", progress=False, base_iri=BASE, workers=workers)
    refused = [p for p in oxigraph.problems if p.rule == "store"]
    assert [p.path for p in refused] == [relpath]
    assert "surrogate" in refused[0].message and "not loaded" in refused[0].message
    absent = _without(root, relpath, tmp_path)
    assert list(oxigraph.memories) == list(absent.memories)
    assert _shared(oxigraph) == _shared(absent)
    assert len(oxigraph.dataset) == len(absent.dataset)


class _WritesUntilTheBadLine:
    """A store whose ``bulk_load`` writes every quad before the first bad line, then fails: the partial write
    pyoxigraph's documentation allows for a large invalid input."""

    def __init__(self) -> None:
        self.inner = ox.Store()

    def bulk_load(self, data: bytes, format: Any) -> None:
        for quad in ox.parse(data, format=format):  # raises at the bad line, after the good ones went in
            self.inner.add(quad)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_partial_write_of_a_refused_graph_is_taken_out_of_the_shared_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    links, layout = "https://example.org/b/#links", "https://example.org/b/#layout"
    store = _WritesUntilTheBadLine()
    refused: list[str] = []
    sink = OxigraphSink(store, lambda graph, message: refused.append(graph))
    sink.shared_graphs = (links, layout)
    sink.add_text("urn:mif:a", f'<urn:mif:a> <urn:p> "a" <urn:mif:a> .\n<urn:mif:a> <urn:q> "x" <{layout}> .\n')
    shared = f'<urn:mif:b> <urn:q> "y" <{layout}> .\n<urn:mif:b> <urn:p> <not an IRI> <{links}> .\n'
    sink.add_text("urn:mif:b", b'<urn:mif:b> <urn:p> "b" <urn:mif:b> .\n' + shared.encode())
    monkeypatch.setattr(mif_rdf.load.oxigraph_sink, "SMALL_TEXT", 0)
    sink.flush_text()
    assert refused == ["urn:mif:b"]
    subjects = {quad.subject.value for quad in store.inner}
    assert subjects == {"urn:mif:a"}  # b's graph and its layout line, written before the bad line, are gone
    assert len(store.inner) == 2
