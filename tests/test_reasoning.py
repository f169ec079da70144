"""Reasoning: the fast profile gives owlrl's triples for its rules; inferences get their own graph."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from conftest import EXAMPLES, write_file
from mif_rdf import load_bundle
from mif_rdf.bundle import Bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import MIF
from mif_rdf.reasoning import fast_closure, infer, ontology_graph, owlrl_closure
from mif_rdf.source.identity import GRAPH_INFERENCES, GRAPH_ONTOLOGY, graph_iri

ONT = "https://mif-spec.dev/ontologies/lab/"
EX = "https://example.org/lab#"


def note(root: Path, name: str, kind: str, relationships: list[tuple[str, str]]) -> None:
    rels = "".join(f"  - type: {t}\n    target: /{kind}/{target}.md\n" for t, target in relationships)
    write_file(
        root,
        f"{kind}/{name}.md",
        f"---\nid: {name}\ntype: {kind}\ncreated: 2026-01-01T00:00:00Z\n"
        + (f"relationships:\n{rels}" if rels else "")
        + "---\nbody\n",
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bundle, list[object]]:
    """A small bundle whose edges exercise every fast rule, and its ontologies (YAML + Turtle)."""
    root = tmp_path_factory.mktemp("lab")
    note(root, "a", "semantic", [("relates-to", "b"), ("derived-from", "c"), ("measures", "d")])
    note(root, "b", "semantic", [("supersedes", "c"), ("lab:cites", "d")])
    note(root, "c", "semantic", [("conflicts-with", "a")])
    note(root, "d", "semantic", [("part-of", "a"), ("measures", "b")])
    write_file(root, ".mif/config.yaml", "relationship_types:\n  - {name: Cites, namespace: lab, inverse: CitedBy}\n")
    write_file(
        root,
        ".mif/ontologies/lab.ontology.yaml",
        """ontology: {id: lab, version: "1.0.0", extends: [mif-base]}
entity_types:
  - {name: instrument, base: semantic}
  - {name: probe, base: semantic, subtype_of: [instrument]}
  - {name: quantity, base: semantic}
relationships:
  measures: {from: [probe], to: [quantity], inverse: measured_by}
""",
    )
    turtle = Graph().parse(
        data=f"""
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
        @prefix mif: <https://mif-spec.dev/ns/> .
        mif:measures rdfs:subPropertyOf <{EX}observes> .
        <{EX}observes> owl:equivalentProperty <{EX}looksAt> .
        <{ONT}quantity> owl:equivalentClass <{EX}Quantity> .
        """,
        format="turtle",
    )
    return load_bundle(root), ["lab", turtle]


def owlrl_for_fast_rules(bundle: Bundle, ontology: Graph) -> set[tuple[object, object, object]]:
    """owlrl's OWL 2 RL closure of links + ontology, kept to what the fast rules speak about:
    statements about the bundle's memories and entities, types by named classes."""
    nodes = {s for s, _, _ in bundle.links}
    return {
        t
        for t in owlrl_closure(bundle.links, ontology, "owlrl")
        if t[0] in nodes and (t[1] != RDF.type or isinstance(t[2], URIRef))
    }


def test_fast_profile_gives_the_same_triples_as_owlrl(lab: tuple[Bundle, list[object]]) -> None:
    bundle, ontologies = lab
    ontology = ontology_graph(bundle, ontologies)
    fast = fast_closure(bundle.links, ontology)
    assert fast == owlrl_for_fast_rules(bundle, ontology)
    a, b, c, d = (URIRef(f"urn:mif:{n}") for n in "abcd")
    expected = {
        (b, MIF["relates-to"], a),  # symmetric
        (c, MIF.derives, a),  # inverse (mif-base)
        (c, MIF["superseded-by"], b),
        (a, MIF["conflicts-with"], c),
        (a, MIF.contains, d),
        (d, URIRef("lab:cited-by"), b),  # inverse from the bundle config, namespaced
        (a, URIRef(EX + "observes"), d),
        (a, URIRef(EX + "looksAt"), d),  # subproperty, equivalent property
        (d, MIF["measured-by"], a),
        (a, RDF.type, URIRef(ONT + "probe")),
        (a, RDF.type, URIRef(ONT + "instrument")),  # domain, subclass
        (a, RDF.type, MIF.SemanticType),
        (a, RDF.type, MIF.SemanticMemory),  # base type, equivalent class
        (b, RDF.type, URIRef(EX + "Quantity")),  # range, equivalent class
    }
    assert expected <= fast


def test_fast_profile_matches_owlrl_on_the_example_bundle(example_bundle: Bundle) -> None:
    ontology = ontology_graph(example_bundle)
    fast = fast_closure(example_bundle.links, ontology)
    assert len(fast) > 20
    assert fast == owlrl_for_fast_rules(example_bundle, ontology)


def test_infer_writes_its_own_graph_and_replaces_it(lab: tuple[Bundle, list[object]]) -> None:
    bundle, ontologies = lab
    inferences = URIRef(graph_iri(bundle.base_iri, GRAPH_INFERENCES))
    ontology_graph_iri = URIRef(graph_iri(bundle.base_iri, GRAPH_ONTOLOGY))
    before = len(bundle.dataset.graph(URIRef("urn:mif:a")))
    count = infer(bundle, "fast", ontologies)
    assert count == len(bundle.dataset.graph(inferences)) > 0
    assert (URIRef(ONT + "probe"), RDFS.subClassOf, URIRef(ONT + "instrument")) in bundle.dataset.graph(
        ontology_graph_iri
    )
    assert len(bundle.dataset.graph(URIRef("urn:mif:a"))) == before  # memory graphs untouched
    rows = bundle.dataset.query("PREFIX mif: <https://mif-spec.dev/ns/> ASK { <urn:mif:c> mif:derives <urn:mif:a> }")
    assert rows.askAnswer  # the union default graph sees the inferences
    assert infer(bundle, "fast") < count  # without the lab ontologies: fewer, and the old ones are gone
    assert (URIRef("urn:mif:a"), RDF.type, URIRef(ONT + "probe")) not in bundle.dataset.graph(inferences)
    assert infer(bundle, "fast", ontologies) == count


@pytest.mark.parametrize("profile, scope", [("rdfs", "links"), ("rdfs", "all"), ("owlrl", "links"), ("owlrl", "all")])
def test_owlrl_profiles(lab: tuple[Bundle, list[object]], profile: str, scope: str) -> None:
    bundle, ontologies = lab
    count = infer(bundle, profile, ontologies, scope=scope)
    inferred = bundle.dataset.graph(URIRef(graph_iri(bundle.base_iri, GRAPH_INFERENCES)))
    assert count == len(inferred) > 0
    assert (URIRef("urn:mif:a"), RDF.type, URIRef(ONT + "instrument")) in inferred  # domain + subclass: both semantics
    assert (URIRef("urn:mif:c"), MIF.derives, URIRef("urn:mif:a")) in inferred if profile == "owlrl" else True
    assert not any(p == OWL.sameAs and s == o for s, p, o in inferred)  # tautologies left out


def test_bad_arguments(lab: tuple[Bundle, list[object]]) -> None:
    bundle, _ = lab
    with pytest.raises(MifRdfError, match="unknown reasoning profile 'owl'"):
        infer(bundle, "owl")
    with pytest.raises(MifRdfError, match="scope 'all' is not available for profile 'fast'"):
        infer(bundle, "fast", scope="all")
    with pytest.raises(MifRdfError, match=r"ontology file 'missing\.ttl' does not exist"):
        infer(bundle, "fast", ["missing.ttl"])


def test_cli_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "inferred.ttl"
    assert main(["reason", str(EXAMPLES), "--no-progress", "-o", str(out), "--include-local"]) == 0
    printed = capsys.readouterr().out
    count = int(printed.split()[0])
    graph = Graph().parse(out)
    assert len(graph) == count > 0
    assert "profile fast" in printed and "#inferences" in printed
    assert main(["reason", str(EXAMPLES), "--no-progress", "-o", str(out)]) == 0  # _local memories stay on this machine
    left_out = int(capsys.readouterr().err.split("left out ")[1].split()[0])
    assert 0 < left_out and len(Graph().parse(out)) == count - left_out
    assert (
        main(
            [
                "reason",
                str(EXAMPLES),
                "--profile",
                "owlrl",
                "--scope",
                "links",
                "--ontology",
                "mif-base",
                "--ontology",
                "nope",
            ]
        )
        == 2
    )
    assert "no ontology with id 'nope'" in capsys.readouterr().err
