"""The Dataset contract (DESIGN 3): graphs, links, nothing dropped, serializers, the rdflib plugin."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pyld import jsonld
from rdflib import Dataset, Graph, URIRef

from conftest import EXAMPLES, FIXTURE_BUNDLES, assert_isomorphic, isomorphic, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.core.context import MIF_CONTEXT_URL, MIF_NS, PROPERTY_NS, document_loader, mif_context
from mif_rdf.core.namespaces import MIF
from mif_rdf.output.serialize import serialize_bundle
from mif_rdf.output.writeback import lexical_literals
from mif_rdf.rdf.reference import pyld_graph
from mif_rdf.source.identity import relationship_iri


def test_one_named_graph_per_memory_and_entity_plus_links_and_layout(example_bundle) -> None:
    names = {str(g.identifier) for g in example_bundle.dataset.graphs() if len(g)}
    memories = {r.iri for r in example_bundle.memories.values()}
    entities = set(example_bundle.entities)
    assert memories <= names and entities <= names
    assert names - memories - entities == {example_bundle.links_graph_iri, example_bundle.layout_graph_iri}
    assert len(memories) == 17 and len(entities) == 10
    for record in example_bundle.memories.values():
        graph = example_bundle.graph(record.id)
        assert (URIRef(record.iri), MIF.content, None) in graph


def test_queries_see_the_union(example_bundle) -> None:
    rows = list(
        example_bundle.dataset.query(
            "PREFIX mif: <https://mif-spec.dev/ns/> PREFIX dc: <http://purl.org/dc/terms/> "
            "SELECT ?m ?path WHERE { ?m mif:supersedes ?old ; mif:path ?path . ?old dc:title ?t }"
        )
    )
    assert rows, "supersedes edge (links graph) joined with a title (memory graph) must match"
    assert all(str(r.path).endswith(".md") for r in rows)


def test_links_graph_resolves_every_target_form(tmp_path: Path) -> None:
    write_file(
        tmp_path,
        "semantic/a.md",
        memory_text(
            "a",
            "relationships:\n- type: relates-to\n  target: /episodic/b.md\n"
            "- type: RelatesTo\n  target: ../episodic/c.md\n- type: relates_to\n  target: urn:mif:d\n"
            "- type: part-of\n  target: sibling.md#section\n- type: uses\n  target: urn:mif:entity:technology:redis\n"
            "- type: supersedes\n  target: /gone.md\n- type: relates-to\n  target: https://example.org/x\n",
        ),
    )
    for name, mid in (
        ("episodic/b.md", "b"),
        ("episodic/c.md", "c"),
        ("semantic/d.md", "d"),
        ("semantic/sibling.md", "s"),
    ):
        write_file(tmp_path, name, memory_text(mid))
    write_file(tmp_path, ".mif/entities/technology/redis.yaml", "id: redis\ntype: Technology\nname: Redis\n")
    bundle = load_bundle(tmp_path)
    links = bundle.links
    a = URIRef("urn:mif:a")
    relates = URIRef(relationship_iri("relates-to"))
    assert set(links.objects(a, relates)) == {URIRef("urn:mif:b"), URIRef("urn:mif:c"), URIRef("urn:mif:d")}
    assert (a, URIRef(MIF_NS + "part-of"), URIRef("urn:mif:s")) in links
    assert (a, URIRef(MIF_NS + "uses"), URIRef("urn:mif:entity:technology:redis")) in links
    assert not list(links.objects(a, URIRef(MIF_NS + "supersedes")))
    broken = [p for p in bundle.problems if p.rule == "link"]
    assert [(p.path, p.key, p.value) for p in broken] == [("semantic/a.md", "relationships[5].target", "/gone.md")]
    assert str(links.value(a, MIF.path)) == "semantic/a.md"


def test_three_relationship_spellings_are_one_iri() -> None:
    assert (
        relationship_iri("RelatesTo")
        == relationship_iri("relates-to")
        == relationship_iri("relates_to")
        == MIF_NS + "relates-to"
    )
    assert relationship_iri("MentionedIn") == relationship_iri("mentioned_in") == MIF_NS + "mentioned-in"
    assert relationship_iri("team:Reinforces") == relationship_iri("team:reinforces")


# -- nothing silently dropped -------------------------------------------------------------
def _predicates(graph: Graph) -> set[str]:
    return {str(p) for p in graph.predicates()}


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_every_frontmatter_key_becomes_triples(name: str) -> None:
    check_every_frontmatter_key_becomes_triples(FIXTURE_BUNDLES[name])


def check_every_frontmatter_key_becomes_triples(root: Path) -> None:
    bundle = load_bundle(root)
    ctx = mif_context()
    for record in bundle.memories.values():
        predicates = _predicates(bundle.graph(record.id))
        for key in record.frontmatter:
            expected = {"id": None, "type": MIF_NS + "conceptType"}.get(key, ctx.expand_key(key)[0])
            if expected is None or expected.startswith("@"):
                continue
            assert expected in predicates, f"{record.relpath}: key {key!r} left no triple"


def test_keys_the_upstream_context_drops_are_kept(example_bundle) -> None:
    """What a plain spec-15 projection loses under the upstream context alone, we keep."""
    lost: set[str] = set()
    for record in example_bundle.memories.values():
        naive = {k: v for k, v in record.frontmatter.items() if k not in ("id", "type")}
        naive.update({"@context": MIF_CONTEXT_URL, "@id": record.iri, "@type": "Concept", "content": record.body})
        naive.update({"conceptType": record.frontmatter["type"], "timestamp": record.frontmatter["created"]})
        lost |= _predicates(pyld_graph(json.loads(json.dumps(naive, default=str)), record.doc_iri))
    kept = {p for r in example_bundle.memories.values() for p in _predicates(example_bundle.graph(r.id))}
    for iri in (
        MIF_NS + "summary",
        MIF_NS + "timestamp",
        MIF_NS + "compressed_at",
        MIF_NS + "properties",
        PROPERTY_NS + "tier",
        MIF_NS + "domain",  # extensions payloads, through @vocab
        MIF_NS + "ticket",
        MIF_NS + "owner_team",
    ):
        assert iri not in lost, f"{iri} was expected to be dropped by the upstream context alone"
        assert iri in kept, iri


def test_entity_payload_fields_are_kept(example_bundle) -> None:
    record = next(r for r in example_bundle.memories.values() if "entity" in r.frontmatter)
    graph = example_bundle.graph(record.id)
    payload = graph.value(URIRef(record.iri), MIF.entity)
    keys = {str(p).rsplit("/", 1)[-1].rsplit("#", 1)[-1] for p in graph.predicates(payload)}
    for key in record.frontmatter["entity"]:
        assert key in keys or key == "name", key


# -- serializers ---------------------------------------------------------------------------
def _graphs(ds: Dataset) -> dict[str, Graph]:
    return {str(g.identifier): g for g in ds.graphs() if len(g)}


@pytest.mark.parametrize("fmt", ["nquads", "trig"])
def test_quad_formats_keep_every_graph(example_bundle, fmt: str) -> None:
    buffer = io.BytesIO()
    serialize_bundle(example_bundle, fmt, buffer)
    parsed = Dataset()
    with lexical_literals():
        parsed.parse(data=buffer.getvalue(), format=fmt)
    ours, theirs = _graphs(example_bundle.dataset), _graphs(parsed)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert_isomorphic(ours[name], theirs[name], name)  # by value: TriG abbreviates doubles


@pytest.mark.parametrize("fmt", ["turtle", "nt"])
def test_triple_formats_hold_the_union(example_bundle, fmt: str) -> None:
    buffer = io.BytesIO()
    serialize_bundle(example_bundle, fmt, buffer)
    with lexical_literals():
        parsed = Graph().parse(data=buffer.getvalue(), format=fmt)
    union = Graph()
    for triple in example_bundle.dataset.triples((None, None, None)):
        union.add(triple)
    assert_isomorphic(union, parsed, fmt)  # by value: Turtle writes 9.995E1 as 9.995e+01


def test_jsonld_export_means_the_same_graphs_to_pyld(example_bundle) -> None:
    """An independent JSON-LD processor reading our JSON-LD export gets our dataset back."""
    buffer = io.BytesIO()
    serialize_bundle(example_bundle, "json-ld", buffer)
    document = json.loads(buffer.getvalue())
    nquads = jsonld.to_rdf(
        document, {"base": example_bundle.base_iri, "documentLoader": document_loader, "format": "application/n-quads"}
    )
    parsed = Dataset()
    parsed.parse(data=nquads, format="nquads")
    ours, theirs = _graphs(example_bundle.dataset), _graphs(parsed)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert_isomorphic(ours[name], theirs[name], name)
    assert (
        "@context" not in document
    )  # expanded, terms exact: no context to load (the MIF-shaped form is `convert to-jsonld`)


# -- rdflib plugin -------------------------------------------------------------------------
def test_rdflib_parses_a_bundle_folder(example_bundle) -> None:
    import mif_rdf  # noqa: F401  (installs the folder hook)

    ds = Dataset(default_union=True)
    ds.parse(str(EXAMPLES), format="mif")
    ours, theirs = _graphs(example_bundle.dataset), _graphs(ds)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert isomorphic(ours[name], theirs[name]), name


def test_rdflib_parses_a_file_inside_the_bundle(example_bundle) -> None:
    ds = Dataset(default_union=True)
    ds.parse(str(EXAMPLES / ".mif" / "config.yaml"), format="mif")
    assert len(ds) == len(example_bundle.dataset)


def test_reverse_on_other_engine_is_identical() -> None:
    check_engines_give_isomorphic_datasets(FIXTURE_BUNDLES["levels"])


def check_engines_give_isomorphic_datasets(root: Path) -> None:
    """engine='pyld' and engine='fast' give isomorphic datasets, graph by graph."""
    fast = load_bundle(root, engine="fast")
    slow = load_bundle(root, engine="pyld")
    a, b = _graphs(fast.dataset), _graphs(slow.dataset)
    assert a.keys() == b.keys()
    for name in a:
        assert_isomorphic(a[name], b[name], name)


def test_the_oxigraph_store_holds_the_same_graphs(example_bundle) -> None:
    """Bulk loading into Oxigraph gives, graph by graph, what the memory store holds."""
    from mif_rdf.load.stores import sink_for

    oxigraph = load_bundle(EXAMPLES, store="Oxigraph")
    assert sink_for(oxigraph.dataset) is not None  # the bulk path is the one under test
    ours = {str(g.identifier): g for g in example_bundle.dataset.graphs() if len(g)}
    theirs = {str(g.identifier): g for g in oxigraph.dataset.graphs() if len(g)}
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert_isomorphic(ours[name], theirs[name], name)
    memory_id = next(iter(oxigraph.memories))
    before = len(oxigraph.graph(memory_id))
    oxigraph.reload(oxigraph.memories[memory_id].relpath)  # reload flushes its one graph
    assert len(oxigraph.graph(memory_id)) == before
