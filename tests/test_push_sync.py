"""``mif-rdf push`` against a real Oxigraph server: first push, incremental sync, interruptions.

Every check reads the store back independently (plain SPARQL and Graph Store
GETs, see oxigraph_server.py) and compares it graph by graph with the bundle.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal, URIRef

from conftest import EXAMPLES, assert_isomorphic, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.push import GraphStore, HttpClient, RetryPolicy, StoreUnreachable, graph_hash, push_bundle
from mif_rdf.push.manifest import SYNC_GRAPH, SYNC_HASH, Manifest, manifest_iri
from oxigraph_server import (  # noqa: F401  (oxigraph: fixture)
    OxigraphServer,
    assert_store_matches,
    expected_graphs,
    oxigraph,
    oxigraph_command,
    stored_manifest,
)
from synthetic import generate_bundle

SCRATCH = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"
KEEP_IN_POSTGRES = "urn:mif:33117db3-8b95-4061-b487-746a415d912f"
PROTOCOLS = ["gsp", "update"]
NEW_ID = "99999999-9999-4999-8999-999999999999"
HAND_WRITTEN = [f"{n}{n}{n}{n}{n}{n}{n}{n}-0000-4000-8000-000000000000" for n in range(3)]


def store_for(server: OxigraphServer, protocol: str, retries: int = 3) -> GraphStore:
    client = HttpClient(timeout=10, retry=RetryPolicy(retries=retries, sleep=lambda _: None))
    return GraphStore(
        server.store_url, update_endpoint=server.update_url if protocol == "update" else None, client=client
    )


def endpoint_args(server: OxigraphServer, protocol: str) -> list[str]:
    return ["--endpoint", server.store_url] + (["--update-endpoint", server.update_url] if protocol == "update" else [])


def set_key(path: Path, key: str, value: str) -> None:
    """Set a top-level frontmatter key by editing the text (as a person would)."""
    text = path.read_text(encoding="utf-8")
    line = f"{key}: {value}"
    text, found = re.subn(rf"^{key}: .*$", line, text, count=1, flags=re.M)
    if not found:
        text = text.replace("\ntype: ", f"\n{line}\ntype: ", 1)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    root = tmp_path / "generated"
    generate_bundle(root, 12, seed=5)
    return root


def test_graph_hash_ignores_blank_node_labels_and_sees_every_change() -> None:
    def graph(first: str, second: str) -> Graph:
        g, m = Graph(), URIRef("urn:mif:m")
        for target, strength in ((URIRef("urn:x"), first), (URIRef("urn:y"), second)):
            rel = BNode()
            g.add((m, URIRef("urn:rel"), rel))
            g.add((rel, URIRef("urn:target"), target))
            g.add((rel, URIRef("urn:strength"), Literal(strength)))
        return g

    assert graph_hash(graph("0.9", "0.5")) == graph_hash(graph("0.9", "0.5"))  # fresh labels, same hash
    assert graph_hash(graph("0.9", "0.5")) != graph_hash(graph("0.5", "0.9"))  # values swapped between nodes
    assert graph_hash(graph("0.9", "0.5")).startswith("urdna2015-sha256:")
    bundle, again = load_bundle(EXAMPLES), load_bundle(EXAMPLES)
    record = next(iter(bundle.memories.values()))
    assert graph_hash(bundle.graph(record.id)) == graph_hash(again.graph(record.id))


def test_a_manifest_entry_that_is_not_clear_counts_as_pending() -> None:
    manifest = Manifest("urn:m", {"urn:a": "h1", "urn:b": None, "urn:c": "h3"})
    graph = Graph()
    for triple in manifest.triples():
        graph.add(triple)
    assert Manifest.from_graph("urn:m", graph).entries == manifest.entries  # round trip
    twice, two_hashes = BNode(), BNode()
    graph.add((twice, SYNC_GRAPH, URIRef("urn:a")))  # a second entry for urn:a
    graph.add((two_hashes, SYNC_GRAPH, URIRef("urn:d")))
    graph.add((two_hashes, SYNC_HASH, Literal("h4")))
    graph.add((two_hashes, SYNC_HASH, Literal("h5")))
    assert Manifest.from_graph("urn:m", graph).entries == {"urn:a": None, "urn:b": None, "urn:c": "h3", "urn:d": None}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_push_examples_the_store_then_equals_the_bundle(
    capsys, oxigraph: OxigraphServer, protocol: str, example_bundle
) -> None:
    code = main(["push", str(EXAMPLES), *endpoint_args(oxigraph, protocol), "--verbose"])
    out, err = capsys.readouterr()
    assert code == 0, err
    total = (
        len(example_bundle.memories) - 1 + len(example_bundle.entities) + 2
    )  # the _local memory stays, links and layout go
    assert f"sent {total}, deleted 0, unchanged 0, withheld 1" in out
    assert "withhold  semantic/redis-idempotency-idea.md: namespace '_local/scratch' is local-only" in out
    assert "note: semantic/decisions/keep-idempotency-keys-in-postgres.md names withheld" in out
    assert_store_matches(oxigraph, example_bundle)
    # the local-only memory is nowhere in the store but in the one memory that names it itself
    rows = oxigraph.select(
        f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ {{ <{SCRATCH}> ?p ?o }} UNION {{ ?s ?p <{SCRATCH}> }} }} }}"
    )
    assert [row["g"] for row in rows] == [KEEP_IN_POSTGRES]
    assert not oxigraph.select('SELECT ?s WHERE { GRAPH ?g { ?s ?p "semantic/redis-idempotency-idea.md" } }')

    code = main(["push", str(EXAMPLES), *endpoint_args(oxigraph, protocol)])
    out, _ = capsys.readouterr()
    assert code == 0 and f"sent 0, deleted 0, unchanged {total}, withheld 1" in out


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_incremental_push_sends_only_changes_and_deletes_what_left(
    oxigraph: OxigraphServer, generated: Path, protocol: str
) -> None:
    store = store_for(oxigraph, protocol)
    first = push_bundle(load_bundle(generated), store)
    assert first.sent == 12 + 17 + 2 and first.deleted == 0  # + links, layout
    assert_store_matches(oxigraph, load_bundle(generated))

    edited, removed, hidden, commented = (
        generated / p
        for p in (
            "semantic/decisions/rate-choice-1.md",
            "episodic/incidents/rate-spike-10.md",
            "procedural/runbooks/dashboard-runbook-3.md",
            "semantic/knowledge/index-fact-8.md",
        )
    )
    set_key(edited, "title", "Rate choice, revised")
    removed.unlink()
    set_key(hidden, "namespace", "_local/drafts")
    commented.write_text(
        commented.read_text(encoding="utf-8").replace("---\n", "---\n# reviewed, no change\n", 1), encoding="utf-8"
    )
    write_file(
        generated,
        "semantic/new-fact.md",
        f"---\nid: {NEW_ID}\ntype: semantic\ncreated: 2026-02-01T00:00:00Z\ntitle: New fact\n---\nNew.\n",
    )
    bundle = load_bundle(generated)

    second = push_bundle(bundle, store)
    labels = {verb: {a.label for a in second.plan.of(verb)} for verb in ("send", "delete", "keep", "withhold")}
    assert labels["send"] == {
        "semantic/decisions/rate-choice-1.md",
        "semantic/new-fact.md",
        bundle.links_graph_iri,
        bundle.layout_graph_iri,
    }
    assert len(labels["delete"]) == 2 and "procedural/runbooks/dashboard-runbook-3.md" in labels["delete"]
    assert labels["withhold"] == set()  # the newly local memory is deleted from the store, not just skipped
    assert "semantic/knowledge/index-fact-8.md" in labels["keep"]  # a comment changes no triple: nothing to send
    assert (second.sent, second.deleted) == (4, 2)
    assert_store_matches(oxigraph, bundle)
    assert push_bundle(bundle, store).sent == 0


def test_dry_run_writes_nothing(capsys, oxigraph: OxigraphServer, example_bundle) -> None:
    code = main(["push", str(EXAMPLES), "--endpoint", oxigraph.store_url, "--dry-run"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "dry run, nothing written: would send 28, delete 0" in out
    assert out.count("\n  send ") == 28
    assert oxigraph.graph_names() == set()


def test_deletions_wait_while_a_file_fails_to_load(capsys, oxigraph: OxigraphServer, tmp_path: Path) -> None:
    root = tmp_path / "hand-written"
    for n, memory_id in enumerate(HAND_WRITTEN):
        write_file(root, f"m{n}.md", memory_text(memory_id, f"title: M{n}\n"))
    assert main(["push", str(root), "--endpoint", oxigraph.store_url]) == 0
    (root / "m0.md").unlink()
    write_file(root, "m9.md", "---\nid: [unclosed\n---\nbody\n")  # could be m0, mangled
    capsys.readouterr()
    code, (out, err) = main(["push", str(root), "--endpoint", oxigraph.store_url]), capsys.readouterr()
    assert code == 1 and "m9.md" in err
    assert (
        f"hold      urn:mif:{HAND_WRITTEN[0]}: not deleted although gone from the bundle: it may be in a file that "
        "did not load (m9.md)" in out
    )
    assert f"urn:mif:{HAND_WRITTEN[0]}" in oxigraph.graph_names()
    (root / "m9.md").unlink()
    code, (out, _) = main(["push", str(root), "--endpoint", oxigraph.store_url, "--verbose"]), capsys.readouterr()
    assert code == 0 and f"delete    urn:mif:{HAND_WRITTEN[0]}: no longer in the bundle" in out
    assert f"urn:mif:{HAND_WRITTEN[0]}" not in oxigraph.graph_names()
    assert_store_matches(oxigraph, load_bundle(root))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_push_killed_half_way_leaves_a_true_manifest_and_the_next_completes(
    tmp_path: Path, oxigraph: OxigraphServer, generated: Path, protocol: str
) -> None:
    bundle = load_bundle(generated)
    total = len(expected_graphs(bundle))
    done: list[str] = []

    def crash_after_13(action) -> None:
        done.append(action.graph)
        if len(done) == 13:  # the second batch of 8 is half written
            oxigraph.kill()

    with pytest.raises(StoreUnreachable, match="cannot reach the store"):
        push_bundle(bundle, store_for(oxigraph, protocol, retries=1), batch_size=8, on_done=crash_after_13)
    oxigraph.start()  # same data folder, new port

    manifest = stored_manifest(oxigraph, bundle)
    expected = expected_graphs(bundle)
    recorded = {g for g, h in manifest.items() if h is not None}
    pending = {g for g, h in manifest.items() if h is None}
    assert recorded == set(done[:8])  # the first batch: confirmed and recorded
    assert len(pending) == 8 and set(done[8:13]) <= pending  # the second: marked before writing, never confirmed
    in_store = oxigraph.graph_names() - {manifest_iri(bundle.base_iri)}
    assert in_store == set(done) and in_store <= set(manifest)  # every graph written is accounted for
    for graph in recorded:  # a hash is a promise the store keeps
        assert manifest[graph] == graph_hash(expected[graph])
        assert_isomorphic(expected[graph], oxigraph.graph(graph), graph)

    second = push_bundle(bundle, store_for(oxigraph, protocol))
    assert second.sent == total - 8 and len(second.plan.of("keep")) == 8
    assert sum(a.reason == "state unknown after an interrupted push" for a in second.plan.of("send")) == 8
    assert_store_matches(oxigraph, bundle)


def test_a_bulk_dump_loads_into_oxigraph_as_the_docs_say(tmp_path: Path, example_bundle) -> None:
    """docs/export.md: mif-rdf export --format nquads, then oxigraph load, then serve."""
    dump = tmp_path / "examples.nq"
    assert main(["export", str(EXAMPLES), "--format", "nquads", "-o", str(dump)]) == 0
    server = OxigraphServer(tmp_path / "bulk")
    loaded = subprocess.run(
        [oxigraph_command(), "load", "--location", str(server.location), "--file", str(dump)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    server.start()
    try:
        expected = expected_graphs(example_bundle)
        assert server.graph_names() == set(expected)
        for name, graph in expected.items():
            assert_isomorphic(graph, server.graph(name), name)
    finally:
        server.stop()
