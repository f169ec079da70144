"""Memories reach Oxigraph as N-Quads text: the same graphs as rdflib's walker output, read by Oxigraph's own parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD

import mif_rdf.load.pipeline
from conftest import EXAMPLES, FIXTURE_BUNDLES, isomorphic, write_file
from mif_rdf import load_bundle
from mif_rdf.load.pipeline import CHUNK
from mif_rdf.rdf.tordf import document_nquads, document_triples
from synthetic import dump_yaml, generate_bundle
from test_equivalence import GENERATED_FRONTMATTER, GENERATED_ID, generated_projection

#: Strings every escape of N-Triples has to get right: quotes, backslashes, line ends, controls, NUL, U+2028, astral.
AWKWARD_ID = "4f6c1a52-7a8e-4a8e-9b1c-0d2e3f4a5b6c"
AWKWARD = "a \"quoted\" \\ back\\slash\nnew line\r\ttab \x01\x1f\x7f nul:\x00 \u2028 \U0001f600 <b>&amp;</b> 'single'"


def _rdflib(term: Any) -> Any:
    """An Oxigraph term as the rdflib node the walker builds (plain strings plain, lexical forms as written)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    if term.datatype.value == str(XSD.string):
        return Literal(term.value)
    return Literal(term.value, datatype=URIRef(term.datatype.value), normalize=False)


def _parsed_by_oxigraph(text: str, graph: str) -> Graph:
    parsed = Graph()
    for quad in ox.parse(text.encode("utf-8"), format=ox.RdfFormat.N_QUADS):
        assert quad.graph_name == ox.NamedNode(graph)  # every line in the memory's own graph
        parsed.add((_rdflib(quad.subject), _rdflib(quad.predicate), _rdflib(quad.object)))
    return parsed


def _walker_graph(document: dict[str, Any], doc_iri: str) -> Graph:
    graph = Graph()
    for triple in document_triples(document, doc_iri):
        graph.add(triple)
    return graph


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "bundle"
    generate_bundle(root, CHUNK + 40, seed=5)  # every field family
    frontmatter = {
        "id": AWKWARD_ID,
        "type": "semantic",
        "created": "2026-01-15T10:30:00Z",
        "title": AWKWARD,
        "tags": [AWKWARD, "plain"],
    }
    write_file(root, "awkward.md", f"---\n{dump_yaml(frontmatter)}---\nBody\n")
    return root


@pytest.mark.parametrize("name", ["generated", *sorted(FIXTURE_BUNDLES)])
def test_oxigraph_reads_the_text_as_the_walkers_triples(name: str, generated: Path) -> None:
    check_oxigraph_reads_the_text_as_the_walkers_triples(generated if name == "generated" else FIXTURE_BUNDLES[name])


def check_oxigraph_reads_the_text_as_the_walkers_triples(root: Path) -> None:
    bundle = load_bundle(root, progress=False)
    assert bundle.memories
    for record in bundle.memories.values():
        text = document_nquads(record.document, record.doc_iri, record.iri)
        assert isomorphic(_parsed_by_oxigraph(text, record.iri), _walker_graph(record.document, record.doc_iri)), (
            record.relpath
        )


@pytest.mark.parametrize("workers", [0, 1])
def test_the_oxigraph_load_holds_what_the_memory_store_holds(generated: Path, workers: int) -> None:
    memory = load_bundle(generated, progress=False, workers=0)
    oxigraph = load_bundle(generated, store="Oxigraph", progress=False, workers=workers)
    assert [str(p) for p in oxigraph.problems] == [str(p) for p in memory.problems]
    assert list(oxigraph.memories) == list(memory.memories)
    assert memory.memories[AWKWARD_ID].frontmatter["title"] == AWKWARD
    assert AWKWARD in {str(o) for o in oxigraph.graph(AWKWARD_ID).objects()}
    for name in {str(g.identifier) for g in memory.dataset.graphs() if len(g)}:
        ours, theirs = Graph(), Graph()
        for triple in memory.dataset.graph(URIRef(name)):
            ours.add(triple)
        for triple in oxigraph.dataset.graph(URIRef(name)):
            theirs.add(triple)
        assert len(ours) == len(theirs), name
        assert {t for t in ours if not any(isinstance(n, (BNode, Literal)) for n in t)} == {
            t for t in theirs if not any(isinstance(n, (BNode, Literal)) for n in t)
        }, name  # oxrdflib reads literals back by value


def test_a_memory_oxigraph_refuses_is_reported_and_the_rest_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text Oxigraph will not parse (the walker never writes any; this test forges it) costs that one memory, named."""
    memory = load_bundle(EXAMPLES, progress=False)
    victim = next(iter(memory.memories.values()))
    real, real_one_pass = mif_rdf.load.pipeline.document_nquads, mif_rdf.load.pipeline.memory_nquads

    def forge(text: str, graph: str) -> str:
        return text + f"<{graph}> <http://example.org/p> <not an IRI> <{graph}> .\n" if graph == victim.iri else text

    def forged(document: dict[str, Any], base: str, graph: str) -> str:
        return forge(real(document, base, graph), graph)

    def forged_one_pass(*args: Any, graph: str, **kwargs: Any) -> tuple[str, list[Any]] | None:
        found = real_one_pass(*args, graph=graph, **kwargs)
        return None if found is None else (forge(found[0], graph), found[1])

    monkeypatch.setattr(mif_rdf.load.pipeline, "document_nquads", forged)  # memories with projection notes
    monkeypatch.setattr(mif_rdf.load.pipeline, "memory_nquads", forged_one_pass)  # the others
    oxigraph = load_bundle(EXAMPLES, store="Oxigraph", progress=False)
    refused = [p for p in oxigraph.problems if p.rule == "store"]
    assert [p.path for p in refused] == [victim.relpath]
    assert "not loaded" in refused[0].message and "IRI" in refused[0].message  # Oxigraph's own words on what is wrong
    assert set(memory.memories) - set(oxigraph.memories) == {victim.id}
    assert len(oxigraph.dataset.graph(URIRef(victim.iri))) == 0  # nothing half-stored
    for memory_id in oxigraph.memories:  # every other memory is stored whole
        assert len(oxigraph.graph(memory_id)) == len(memory.graph(memory_id)), memory_id


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter=GENERATED_FRONTMATTER, body=st.text(max_size=40))
def test_oxigraph_reads_generated_frontmatter_as_the_walkers_triples(frontmatter: dict, body: str) -> None:
    """Any text (controls, quotes, backslashes, astral characters) survives the N-Quads escaping exactly."""
    projection = generated_projection(frontmatter, body)
    graph = f"urn:mif:{GENERATED_ID}"
    text = document_nquads(projection.document, projection.doc_iri, graph)
    assert isomorphic(_parsed_by_oxigraph(text, graph), _walker_graph(projection.document, projection.doc_iri))
