"""Queries Oxigraph runs in parts, side by side: the parts are disjoint and together give every row.

The helpers that visit every memory mark where their query may be split
(:data:`mif_rdf.queries.native.SPLIT_HERE`); on Oxigraph the mark becomes a
FILTER on the MD5 of one variable and the parts run in threads.  Whatever
the number of parts, the tables must equal the whole query's, row for row;
a value without an MD5 (a blank node) must land in exactly one part; and a
query asked to split without the mark is refused on every store (each part
would hold every row).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from rdflib import BNode, Literal

from mif_rdf import load_bundle
from mif_rdf.core.namespaces import MIF
from mif_rdf.queries import decay_profiles, freshness, native, recorded_by, relationship_edges, valid_at
from mif_rdf.queries.native import SPLIT_HERE, select_trusted
from synthetic import generate_bundle
from test_helpers_stores import _typed, _when


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("split") / "bundle"
    generate_bundle(root, 150, seed=11)
    return {"memory": load_bundle(root), "oxigraph": load_bundle(root, store="Oxigraph")}


def _split_helpers(bundle) -> dict:
    times = sorted(_when(m.frontmatter["created"]) for m in bundle.memories.values())
    middle = times[len(times) // 2]
    return {
        "valid_at": lambda g: valid_at(g, middle),
        "valid_at known_at": lambda g: valid_at(g, middle, known_at=times[len(times) // 3]),
        "recorded_by": lambda g: recorded_by(g, middle),
        "freshness": lambda g: freshness(g, times[-1] + timedelta(days=20)),
        "decay_profiles": decay_profiles,
        "relationship_edges": relationship_edges,
    }


@pytest.mark.parametrize("parts", [2, 3, 4])
def test_split_helpers_give_the_whole_querys_table_in_any_number_of_parts(bundles, monkeypatch, parts: int) -> None:
    oxigraph = bundles["oxigraph"]
    calls = _split_helpers(oxigraph)
    monkeypatch.setattr(native, "_part_count", lambda: 1)
    whole = {name: call(oxigraph) for name, call in calls.items()}
    sent: list[str] = []
    store = native.oxigraph_store(oxigraph.dataset)
    real_query = type(store).query
    monkeypatch.setattr(native, "_part_count", lambda: parts)
    monkeypatch.setattr(native, "oxigraph_store", lambda graph: _Spy(store, real_query, sent))
    for name, call in calls.items():
        sent.clear()
        split = call(oxigraph)
        assert len(whole[name]) > 0, name
        assert split.columns == whole[name].columns, name
        assert _typed(split) == _typed(whole[name]), f"{name} in {parts} parts"  # row for row, in the same order
        assert len(sent) % parts == 0 and all("MD5" in text for text in sent), name  # really split


def test_split_tables_equal_the_memory_stores(bundles) -> None:
    for name, call in _split_helpers(bundles["oxigraph"]).items():
        assert _typed(call(bundles["oxigraph"])) == _typed(call(bundles["memory"])), name


class _Spy:
    """The Oxigraph store, recording the text of every query it is given."""

    def __init__(self, store, query, sent: list[str]) -> None:
        self.store, self.real_query, self.sent = store, query, sent

    def query(self, text: str, **options):
        self.sent.append(text)
        return self.real_query(self.store, text, **options)


NODES = "SELECT ?node ?path WHERE { ?node mif:path ?path .\n" + SPLIT_HERE + "}"


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_parts_are_disjoint_and_keep_a_blank_node(tmp_path, monkeypatch, parts: int) -> None:
    root = tmp_path / "bundle"
    generate_bundle(root, 40, seed=3)
    bundle = load_bundle(root, store="Oxigraph")
    blank = BNode()
    bundle.links.add((blank, MIF.path, Literal("nowhere.md")))  # STR() of a blank node is an error: no MD5
    monkeypatch.setattr(native, "_part_count", lambda: 1)
    whole = select_trusted(bundle.dataset, NODES, {})
    assert any(row["path"] == "nowhere.md" for row in whole)
    shares = [select_trusted(bundle.dataset, native._parts(NODES, "node", parts)[i], {}) for i in range(parts)]
    counted = [(row["node"], row["path"]) for share in shares for row in share]
    assert sorted(counted) == sorted((row["node"], row["path"]) for row in whole)  # each row in exactly one part
    monkeypatch.setattr(native, "_part_count", lambda: parts)
    assert sorted((r["node"], r["path"]) for r in select_trusted(bundle.dataset, NODES, {}, split_on="node")) == sorted(
        counted
    )


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_a_split_without_the_mark_is_refused_on_every_store(tmp_path, store: str) -> None:
    root = tmp_path / "bundle"
    generate_bundle(root, 5, seed=1)
    bundle = load_bundle(root, store=store)
    with pytest.raises(ValueError, match="needs the mark"):
        select_trusted(bundle.dataset, NODES.replace(SPLIT_HERE, ""), {}, split_on="node")


def test_split_helpers_on_the_cached_on_disk_store(bundles, tmp_path) -> None:
    """The cache hands out an on-disk (RocksDB) Oxigraph database: its parts run side by side too, with equal tables."""
    root = Path(bundles["oxigraph"].root)
    load_bundle(root, store="Oxigraph", cache=tmp_path / "cache")  # primes the cache
    warm = load_bundle(root, store="Oxigraph", cache=tmp_path / "cache")
    assert warm.cache.state == "warm"
    for name, call in _split_helpers(bundles["oxigraph"]).items():
        assert _typed(call(warm)) == _typed(call(bundles["oxigraph"])), name
