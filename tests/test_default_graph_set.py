"""Issue 36.5: the default graph a query reads is a set on every store, and the set is never bundle data.

The corpus: three memories of one namespace naming the same ontology, so the
ontology reference's ``mif:version`` triple sits in all three memory graphs
(as it does in the shipped examples).  The oracle is the distinct triples of
every quad, counted in Python from the memory store's quads.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Literal, URIRef

from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.load.stores import oxigraph_store
from oxigraph_server import OxigraphServer, assert_store_matches, oxigraph  # noqa: F401  (oxigraph: fixture)

COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
VERSION = "https://mif-spec.dev/ns/version"
IDS = (
    "1b9f3c1e-2d4a-4b5c-8d6e-7f8091a2b3c4",
    "2c0a4d2f-3e5b-4c6d-9e7f-8091a2b3c4d5",
    "3d1b5e3a-4f6c-4d7e-8f80-91a2b3c4d5e6",
)


def memory(identifier: str, title: str) -> str:
    return (
        f"---\nid: {identifier}\ntype: semantic\ncreated: 2026-01-26T10:00:00Z\n"
        'ontology:\n  id: mif-base\n  version: "1.0.0"\n  uri: https://mif-spec.dev/ontologies/mif-base\n'
        f"namespace: _semantic/decisions\ntitle: {title}\n---\n\n{title}, said once.\n"
    )


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "shared"
    (root / "semantic" / "decisions").mkdir(parents=True)
    for n, identifier in enumerate(IDS):
        (root / "semantic" / "decisions" / f"d{n}.md").write_text(memory(identifier, f"Decision {n}"), "utf-8")
    return root


def distinct_triples(root: Path) -> int:
    """The oracle: the distinct triples of every graph of the bundle, counted in Python."""
    loaded = load_bundle(root, store="memory", cache=False)
    return len({(s, p, o) for s, p, o, _ in loaded.dataset.quads()})


def count_of(result: object) -> int:
    return int(next(iter(result))[0])  # type: ignore[call-overload]


def test_the_corpus_has_one_triple_in_three_memory_graphs(bundle: Path) -> None:
    loaded = load_bundle(bundle, store="oxigraph", cache=False)
    graphs = {
        q.graph_name.value
        for q in oxigraph_store(loaded.dataset).quads_for_pattern(None, ox.NamedNode(VERSION), None, None)
    }
    assert graphs == {f"urn:mif:{i}" for i in IDS}
    bag = oxigraph_store(loaded.dataset).query(COUNT, use_default_graph_as_union=True)
    assert int(next(iter(bag))[0].value) >= distinct_triples(bundle) + 2  # Oxigraph's own union counts it three times


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_count_star_is_the_number_of_distinct_triples(bundle: Path, store: str) -> None:
    loaded = load_bundle(bundle, store=store, cache=False)
    assert count_of(loaded.query(COUNT)) == distinct_triples(bundle) == len(loaded.dataset)
    rows = [tuple(r) for r in loaded.query("SELECT ?s ?o WHERE { ?s <" + VERSION + "> ?o }")]
    assert len(rows) == len(set(rows)) == 1  # one row, not one per graph
    assert count_of(loaded.query("SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")) == len(
        [g for g in loaded.dataset.graphs() if len(g)]
    )  # GRAPH ?g never sees the materialised default graph


def test_the_view_follows_changes_to_the_oxigraph_dataset(bundle: Path) -> None:
    loaded = load_bundle(bundle, store="oxigraph", cache=False)
    before = count_of(loaded.query(COUNT))
    extra = loaded.dataset.graph(URIRef("urn:example:extra"))
    extra.add((URIRef("urn:example:s"), URIRef("urn:example:p"), Literal("new")))
    assert count_of(loaded.query(COUNT)) == before + 1
    loaded.dataset.remove_graph(extra)
    assert count_of(loaded.query(COUNT)) == before


@pytest.mark.parametrize("args", [["--store", "oxigraph", "--no-cache"], ["--store", "oxigraph"], []])
def test_the_query_command_counts_distinct_triples(bundle: Path, capsys, args: list[str]) -> None:
    expected = distinct_triples(bundle)
    for _ in range(2):  # the second run of the cached ones is warm
        assert main(["query", str(bundle), COUNT, "--format", "csv", *args]) == 0
        assert capsys.readouterr().out.split() == ["n", str(expected)]


def test_exports_and_push_sizes_never_carry_the_materialised_graph(bundle: Path, tmp_path: Path) -> None:
    """Export before and after union queries are byte-identical, and hold the shared triple once per graph."""
    from mif_rdf.output import export_policy

    loaded = load_bundle(bundle, store="oxigraph", cache=False)
    loaded.export(tmp_path / "before.nq")
    counted_before = export_policy(loaded).sizes(loaded.dataset)
    assert count_of(loaded.query(COUNT)) == distinct_triples(bundle)
    loaded.export(tmp_path / "after.nq")
    assert (tmp_path / "after.nq").read_bytes() == (tmp_path / "before.nq").read_bytes()
    assert export_policy(loaded).sizes(loaded.dataset) == counted_before  # what a push sends, graph by graph
    lines = (tmp_path / "after.nq").read_text("utf-8").splitlines()
    assert sum(VERSION in line for line in lines) == 3
    assert all(line.rstrip(" .").endswith(">") for line in lines if line)  # every quad names its graph
    memory = load_bundle(bundle, store="memory", cache=False)
    memory.export(tmp_path / "memory.nq")
    assert sorted(lines) == sorted((tmp_path / "memory.nq").read_text("utf-8").splitlines())


def test_a_push_after_union_queries_sends_the_bundles_graphs_and_no_default_graph(
    bundle: Path, oxigraph: OxigraphServer
) -> None:
    """A real Oxigraph server (Graph Store Protocol) receives exactly the bundle's graphs; its default graph
    stays empty, so nothing of the view left the machine."""
    from mif_rdf.push import GraphStore, push_bundle

    loaded = load_bundle(bundle, store="oxigraph", cache=False)
    assert count_of(loaded.query(COUNT)) == distinct_triples(bundle)  # the view exists now
    push_bundle(loaded, GraphStore(oxigraph.store_url))
    assert_store_matches(oxigraph, loaded)
    assert oxigraph.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == [{"n": "0"}]


def test_serve_counts_the_same_set_as_the_query_command(bundle: Path) -> None:
    """serve's served store is built by the same function: its default graph holds the same distinct triples."""
    from mif_rdf.serve.served import ServedBundle

    served = ServedBundle(load_bundle(bundle, store="oxigraph", cache=False), include_local=True)
    assert served.current().triples == distinct_triples(bundle)
