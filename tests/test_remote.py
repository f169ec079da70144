"""A remote store queried with the same code as a local bundle: rdflib SPARQLStore over a real Oxigraph."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from rdflib import BNode, Dataset, Literal, URIRef

from conftest import assert_isomorphic
from mif_rdf import MifRdfError, load_bundle
from mif_rdf.output.policy import export_policy
from mif_rdf.push import GraphStore, StoreUnreachable, push_bundle
from mif_rdf.push.manifest import manifest_iri
from mif_rdf.remote import OXIGRAPH_UNION, remote_dataset
from oxigraph_server import OxigraphServer, free_port, oxigraph  # noqa: F401  (oxigraph: fixture)
from synthetic import generate_bundle

PREFIXES = "PREFIX mif: <https://mif-spec.dev/ns/>\nPREFIX dc: <http://purl.org/dc/terms/>\n"
QUERIES = {
    "derived-from titles (README)": (
        "SELECT ?title ?source WHERE { ?m mif:derived-from ?s . ?m dc:title ?title . ?s dc:title ?source . }"
    ),
    "memories by type": (
        "SELECT ?type (COUNT(?m) AS ?n) WHERE { ?m a mif:Concept ; mif:conceptType ?type } GROUP BY ?type"
    ),
    "graph of each title": "SELECT ?g ?title WHERE { GRAPH ?g { ?m dc:title ?title } }",
    "paths from the links graph": "SELECT ?m ?path WHERE { ?m mif:path ?path } ORDER BY ?path",
    "typed values": (
        "SELECT ?m ?created ?confidence WHERE { ?m dc:created ?created ; mif:provenance ?p . ?p "
        "mif:confidence ?confidence }"
    ),
    "reachable by relates-to": "SELECT ?a ?b WHERE { ?a mif:relates-to+ ?b }",
}


def rows(result) -> Counter:
    """Result rows compared by value: the store keeps canonical literals ("1.0" comes back as "1")."""

    def value(term):
        assert not isinstance(term, BNode)
        return term.toPython() if isinstance(term, Literal) else term

    return Counter(tuple(value(term) for term in row) for row in result)


def push(server: OxigraphServer, bundle) -> Dataset:
    """Push, and return what the store should now hold, as a local Dataset."""
    push_bundle(bundle, GraphStore(server.store_url))
    return export_policy(bundle).restrict(bundle).dataset


@pytest.mark.parametrize("name", list(QUERIES))
def test_the_same_query_gives_the_same_rows(oxigraph: OxigraphServer, example_bundle, name: str) -> None:
    local = push(oxigraph, example_bundle)
    remote = remote_dataset(oxigraph.query_url, union_params=OXIGRAPH_UNION)
    expected = rows(local.query(PREFIXES + QUERIES[name]))
    assert expected  # every query finds something, so equality proves something
    assert rows(remote.query(PREFIXES + QUERIES[name])) == expected


def test_named_graphs_read_one_by_one_equal_the_local_ones(oxigraph: OxigraphServer, example_bundle) -> None:
    local = push(oxigraph, example_bundle)
    remote = remote_dataset(oxigraph.query_url, union_params=OXIGRAPH_UNION)
    names = {str(g.identifier) for g in local.graphs() if len(g)}
    assert {str(g.identifier) for g in remote.graphs()} >= names | {manifest_iri(example_bundle.base_iri)}
    for name in names:
        assert_isomorphic(local.graph(URIRef(name)), remote.graph(URIRef(name)), name)
    record = next(iter(example_bundle.memories.values()))
    assert len(remote.graph(URIRef(record.iri))) == len(example_bundle.graph(record.id))


def test_a_generated_bundle_answers_alike(oxigraph: OxigraphServer, tmp_path: Path) -> None:
    generate_bundle(tmp_path / "gen", 25, seed=11)
    local = push(oxigraph, load_bundle(tmp_path / "gen"))
    remote = remote_dataset(oxigraph.query_url, union_params=OXIGRAPH_UNION)
    for name in ("memories by type", "paths from the links graph", "typed values"):
        assert rows(remote.query(PREFIXES + QUERIES[name])) == rows(local.query(PREFIXES + QUERIES[name])), name


def test_without_union_params_oxigraphs_default_graph_is_empty(oxigraph: OxigraphServer, example_bundle) -> None:
    """Why ``union_params`` exists: Oxigraph's default graph is not the union unless asked."""
    push(oxigraph, example_bundle)
    plain = remote_dataset(oxigraph.query_url, union_params={})
    assert not list(plain.query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"))
    assert list(plain.query("SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1"))


def test_remote_faults_are_one_line_errors() -> None:
    with pytest.raises(StoreUnreachable, match="cannot reach the store"):  # the probe finds out
        remote_dataset(f"http://127.0.0.1:{free_port()}/query", timeout=2)
    dead = remote_dataset(f"http://127.0.0.1:{free_port()}/query", timeout=2, union_params={})
    with pytest.raises(StoreUnreachable, match="cannot reach the store"):
        dead.query("ASK { ?s ?p ?o }")
    with pytest.raises(MifRdfError, match="query endpoint must be an http"):
        remote_dataset("file:///etc/passwd")


def test_without_union_params_the_store_is_probed(oxigraph: OxigraphServer, example_bundle) -> None:
    """A store whose default graph is empty: the union parameter is found, so helpers do not return 0 rows silently."""
    from mif_rdf.queries import memories_with_tag

    local = push(oxigraph, example_bundle)
    remote = remote_dataset(oxigraph.query_url)
    assert remote.store.union_params == dict(OXIGRAPH_UNION)
    expected = sorted(memories_with_tag(local, "incident").column("path"))
    assert expected and sorted(memories_with_tag(remote, "incident").column("path")) == expected


def test_an_empty_store_needs_no_union_params(oxigraph: OxigraphServer) -> None:
    assert remote_dataset(oxigraph.query_url).store.union_params == {}


def test_a_store_no_parameter_can_unite_is_an_error(oxigraph: OxigraphServer, monkeypatch) -> None:
    """If no known parameter makes the default graph the union, say what to pass instead of returning nothing."""
    import mif_rdf.remote as remote

    oxigraph_graph = "INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }"
    from mif_rdf.remote.gsp import GraphStore as _Store

    _Store(oxigraph.store_url, update_endpoint=oxigraph.update_url).update(oxigraph_graph.encode(), "insert")
    monkeypatch.setattr(remote, "OXIGRAPH_UNION", {"no-such-parameter": ""})
    with pytest.raises(MifRdfError, match="union_params"):
        remote.remote_dataset(oxigraph.query_url)
