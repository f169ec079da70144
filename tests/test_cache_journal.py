"""The load cache's journal (issue 38, item 1): a warm load that read files again writes what changed, not the
whole entry, and the next warm load, replaying it, is the very bundle the changing load produced.

Oracles: the bundle the changing load handed out (same terms, blank node names included, same record order),
and an independent cold load of the same files (test_cache.assert_same_bundle).
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from rdflib import BNode, Literal, URIRef
from rdflib.graph import QuotedGraph

import mif_rdf.load.cache
from mif_rdf import load_bundle
from mif_rdf.load.cache_journal import recording, records_delta, replay
from mif_rdf.load.stores import new_dataset
from test_cache import assert_same_bundle, examples_with_generated, graphs, make_old

STORES = ["default", pytest.param("Oxigraph", id="oxigraph")]
NEW = (
    "---\nid: 0f8fad5b-d9cb-469f-a165-70867728950e\ntype: semantic\ncreated: 2026-02-01T00:00:00Z\n"
    "relationships:\n  - type: relates-to\n    target: /nowhere.md\n---\nNew memory\n"
)


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    root = examples_with_generated(tmp_path, 5, seed=3)
    make_old(root)
    return root


def edit(root: Path, step: int) -> None:
    """One round of changes: a retitled memory, a new one, a deleted one, an edited entity."""
    memories = sorted(p for p in (root / "generated").rglob("*.md"))
    text = memories[step].read_text(encoding="utf-8")
    memories[step].write_text(text.replace("\n---\n", f"\ntitle: Edited {step}\n---\n", 1), encoding="utf-8")
    (root / "semantic" / f"new-{step}.md").write_text(NEW.replace("0f8fad5b", f"0f8fad5{step}"), encoding="utf-8")
    memories[-1 - step].unlink()
    entity = sorted((root / ".mif" / "entities").rglob("*.yaml"))[0]
    entity.write_text(entity.read_text(encoding="utf-8") + f"\n# edit {step}\n", encoding="utf-8")


def same_as_handed_out(again, changed) -> None:  # type: ignore[no-untyped-def]
    """The replayed bundle is the one the changing load handed out: terms, record order, records, problems."""
    assert again.cache.state == "warm" and again.cache.reparsed == () and again.cache.removed == ()
    assert graphs(again) == graphs(changed)
    assert list(again.memories) == list(changed.memories) and list(again.entities) == list(changed.entities)
    assert {k: (m.relpath, m.frontmatter, m.body, m.document) for k, m in again.memories.items()} == {
        k: (m.relpath, m.frontmatter, m.body, m.document) for k, m in changed.memories.items()
    }
    assert {k: (e.relpath, e.data) for k, e in again.entities.items()} == {
        k: (e.relpath, e.data) for k, e in changed.entities.items()
    }
    assert sorted(map(str, again.problems)) == sorted(map(str, changed.problems))


@pytest.mark.parametrize("store", STORES)
def test_changes_are_journaled_and_replay_as_the_load_that_made_them(
    bundle_dir: Path, tmp_path: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setattr(mif_rdf.load.cache, "JOURNAL_SHARE", 10.0)  # a small bundle: its journal is a large share
    cold = load_bundle(bundle_dir, store=store, cache=cache)
    entry = cold.cache.entry  # type: ignore[union-attr]
    base = {name: (entry / name).read_bytes() for name in ("dataset", "records") if (entry / name).exists()}
    del cold
    for step in (1, 2):  # two segments: each replayed on the base in turn
        edit(bundle_dir, step)
        changed = load_bundle(bundle_dir, store=store, cache=cache)
        assert changed.cache.state == "warm" and changed.cache.reparsed  # type: ignore[union-attr]
        assert (entry / "journal").is_file()
        assert {name: (entry / name).read_bytes() for name in base} == base  # the base was not written again
        again = load_bundle(bundle_dir, store=store, cache=cache)
        same_as_handed_out(again, changed)
        if step == 2:  # (the handed-out bundle is the cold load's equal: tests/test_cache.py)
            assert_same_bundle(again, load_bundle(bundle_dir, store=store))
        del changed, again
        gc.collect()
    monkeypatch.setattr(mif_rdf.load.cache, "JOURNAL_SHARE", 0.0)  # past its share: the base is written again
    edit(bundle_dir, 3)
    changed = load_bundle(bundle_dir, store=store, cache=cache)
    assert not (entry / "journal").exists()
    assert {name: (entry / name).read_bytes() for name in base} != base
    again = load_bundle(bundle_dir, store=store, cache=cache)
    same_as_handed_out(again, changed)
    assert_same_bundle(again, load_bundle(bundle_dir, store=store))


@pytest.mark.parametrize("damage", ["flip", "delete"])
def test_a_damaged_journal_means_a_cold_load(
    bundle_dir: Path, tmp_path: Path, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mif_rdf.load.cache, "JOURNAL_SHARE", 10.0)
    cache = tmp_path / "cache"
    load_bundle(bundle_dir, cache=cache)
    edit(bundle_dir, 1)
    entry = load_bundle(bundle_dir, cache=cache).cache.entry  # type: ignore[union-attr]
    journal = entry / "journal"
    if damage == "delete":
        journal.unlink()
    else:
        data = bytearray(journal.read_bytes())
        data[len(data) // 2] ^= 0xFF
        journal.write_bytes(bytes(data))
    rebuilt = load_bundle(bundle_dir, cache=cache)
    assert rebuilt.cache.state == "cold"  # type: ignore[union-attr]
    assert_same_bundle(rebuilt, load_bundle(bundle_dir))
    assert load_bundle(bundle_dir, cache=cache).cache.state == "warm"  # type: ignore[union-attr]


def test_recorded_writes_replay_on_an_equal_store() -> None:
    """Every write method, graphs by name, terms exactly; a write that cannot be replayed by name is flagged."""
    one, two = new_dataset(), new_dataset()
    ex = "http://example.org/"
    for dataset in (one, two):
        dataset.graph(URIRef(ex + "g")).add((URIRef(ex + "s"), URIRef(ex + "p"), Literal("01", datatype=None)))
    blank = BNode("b1")
    with recording(one.store) as recorder:
        g = one.graph(URIRef(ex + "g"))
        g.add((URIRef(ex + "s"), URIRef(ex + "q"), Literal("2026-01-15T10:30:00Z", datatype=URIRef(ex + "dt"))))
        one.addN((blank, URIRef(ex + "p"), Literal(n), one.graph(URIRef(ex + "h"))) for n in range(3))
        one.remove((None, URIRef(ex + "p"), Literal(1), None))  # type: ignore[arg-type]
        one.remove_graph(URIRef(ex + "g"))
        one.bind("exx", ex)
    assert recorder.portable
    assert {"add_graph", "add", "addN", "remove", "remove_graph", "bind"} == {w[0] for w in recorder.writes}
    replay(two.store, recorder.writes)
    assert sorted(one.quads((None, None, None, None))) == sorted(two.quads((None, None, None, None)))  # type: ignore[arg-type]
    assert set(one.namespaces()) == set(two.namespaces())
    assert {str(c.identifier) for c in one.store.contexts()} == {str(c.identifier) for c in two.store.contexts()}
    with recording(one.store) as recorder:
        quoted = QuotedGraph(one.store, URIRef(ex + "formula"))
        quoted.add((URIRef(ex + "s"), URIRef(ex + "p"), URIRef(ex + "o")))
    assert not recorder.portable  # the cache then writes the whole entry
    assert (URIRef(ex + "s"), URIRef(ex + "p"), URIRef(ex + "o")) in quoted  # the write itself still happened
    assert "add" not in vars(one.store)  # the store's own methods are back: it pickles as before


def test_records_delta_gives_the_order_back() -> None:
    before = {"a": object(), "b": object(), "c": object()}
    replaced = {"a": before["a"], "b": object(), "c": before["c"], "d": object()}  # "b" replaced in place
    appended = {"a": before["a"], "c": before["c"], "d": object(), "b": object()}  # "b" dropped and added again
    for after in (replaced, appended):
        delta = records_delta(before, after)
        result = delta.apply(dict(before))
        assert list(result) == list(after) and all(result[k] is after[k] for k in after)
    assert records_delta(before, appended).order is None  # dropping and appending give it: no order stored
    assert records_delta(before, replaced).order == ("a", "b", "c", "d")


def test_the_store_after_replay_has_no_empty_graph_the_original_lacks() -> None:
    """A graph removed by the reload is not brought back as an empty one by naming it on replay."""
    one, two = new_dataset(), new_dataset()
    name = URIRef("http://example.org/g")
    for dataset in (one, two):
        dataset.graph(name).add((URIRef("http://example.org/s"), URIRef("http://example.org/p"), Literal("x")))
    with recording(one.store) as recorder:
        one.remove_graph(name)
    replay(two.store, recorder.writes)
    assert name not in {c.identifier for c in two.store.contexts()}
    assert {c.identifier for c in one.store.contexts()} == {c.identifier for c in two.store.contexts()}
    assert len(two) == len(one) == 0
