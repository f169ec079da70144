"""OWL that OWL tools read (issue 36 item 4): OWL 2 DL documents, one per ontology, with an XML catalog.

tests/owl_dl.py is the oracle (plain rdflib, written from the OWL 2 specs, not
from the compiler); the conformance suite adds the OWL API's profile check and
HermiT on the published ontologies.  tests/fixtures/ontology/owl-dl reproduces
the corpus shapes that used to break OWL tools.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pyshacl import validate
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from conftest import FIXTURES, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import builtin_dir, compile_ontologies, vocabulary
from mif_rdf.ontology.compiler import Compilation
from owl_dl import document_violations, violations
from test_ontology_shapes import memory

DL = FIXTURES / "ontology" / "owl-dl"
CORPUS = FIXTURES / "ontology" / "corpus"
ONT = "https://mif-spec.dev/ontologies/"
SCHEMA, DC = "https://schema.org/", "http://purl.org/dc/terms/"
CATALOG = "{urn:oasis:names:tc:entity:xmlns:xml:catalog}"
CASES = {
    "four-deep chain": (["dl-tip"], [DL]),
    "own corpus": (sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml")), [CORPUS]),
    "spec traits": ([FIXTURES / "ontology" / "spec-traits.ontology.yaml"], []),
    "subtype_of": ([FIXTURES / "ontology" / "subtype_of" / "valid.ontology.yaml"], []),
    "mif-base": (["mif-base"], []),
}


@pytest.fixture(scope="module")
def chain() -> Compilation:
    return compile_ontologies(["dl-tip"], search_path=[DL])


def cls(ontology: str, name: str) -> URIRef:
    return URIRef(f"{ONT}{ontology}/{name}")


def fillers(graph: Graph, subject: URIRef, prop: URIRef) -> set[object]:
    return {
        graph.value(r, OWL.allValuesFrom)
        for r in graph.objects(subject, RDFS.subClassOf)
        if (r, OWL.onProperty, prop) in graph
    }


# -- the oracle finds what it must ------------------------------------------------------------------------
BAD = """
@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix ex: <https://example.org/> .
ex:a a owl:Ontology ; owl:imports ex:missing . ex:b a owl:Ontology .
ex:only a rdf:Property . ex:p a owl:ObjectProperty, owl:DatatypeProperty .
ex:ttl a owl:DatatypeProperty ; rdfs:range xsd:duration .
ex:note a owl:AnnotationProperty . ex:C a owl:Class ; skos:prefLabel "c" ;
    rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:note ; owl:allValuesFrom xsd:string ] .
ex:D a owl:Class ; ex:note "{}"^^rdf:JSON . ex:x a ex:Undeclared . rdf:JSON a rdfs:Datatype .
"""


def test_the_checker_reports_each_kind_of_violation() -> None:
    found = "\n".join(violations([Graph().parse(data=BAD, format="turtle")]))
    for expected in (
        "document has 2 owl:Ontology headers",
        "owl:imports <https://example.org/missing> is not in the set",
        "<https://example.org/only> is typed only rdf:Property",
        "property punning: <https://example.org/p>",
        "datatype property <https://example.org/ttl> has range <http://www.w3.org/2001/XMLSchema#duration>",
        "restriction on <https://example.org/note>, which is no object or datatype property",
        "not declared as exactly one OWL kind: <http://www.w3.org/2004/02/skos/core#prefLabel>",
        "typed <http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON>, outside the OWL 2 datatype map",
        "<https://example.org/x> a <https://example.org/Undeclared>: class not declared",
        "reserved IRI declared: <http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON>",
    ):
        assert expected in found, expected


# -- every compiled document set is OWL 2 DL, in documents and merged -------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_compiled_documents_and_merged_view_are_owl2_dl(case: str) -> None:
    refs, path = CASES[case]
    result = compile_ontologies(refs, search_path=path)
    vocab = vocabulary()
    assert violations([vocab]) == []
    assert violations([vocab, *result.documents.values()]) == []
    for iri, document in result.documents.items():
        assert set(document.subjects(RDF.type, OWL.Ontology)) == {iri}
        assert set(document.objects(iri, OWL.imports)) <= set(result.documents) | {URIRef(str(MIF))}
    merged = result.merged()
    assert document_violations(merged) == [] and violations([vocab, merged]) == []
    assert set(merged.objects(None, OWL.imports)) == {URIRef(str(MIF))}  # the whole chain is inside


def test_merged_view_names_one_ontology_and_loses_nothing_else(chain: Compilation) -> None:
    merged = chain.merged()
    tip = URIRef(ONT + "dl-tip")
    assert set(merged.subjects(RDF.type, OWL.Ontology)) == {tip}
    assert set(merged.objects(tip, OWL.versionIRI)) == {URIRef(ONT + "dl-tip/0.4.0")}
    comment = " ".join(str(c) for c in merged.objects(tip, RDFS.comment))
    assert "merged view" in comment and ONT + "dl-root" in comment
    dropped = {RDF.type, OWL.versionIRI, OWL.imports}
    for document in chain.documents.values():
        for s, p, o in document:
            assert (s, p, o) in merged or (s in chain.documents and p in dropped), (s, p, o)
    assert (
        URIRef(ONT + "dl-root"),
        RDFS.label,
        Literal("dl-root"),
    ) in merged  # the parents' headers stay as annotations


# -- the shapes of the corpus -------------------------------------------------------------------------------------
def test_each_property_has_one_kind_and_borrowed_terms_are_declared(chain: Compilation) -> None:
    owl = chain.owl
    kinds = lambda iri: set(owl.objects(iri, RDF.type))  # noqa: E731
    assert kinds(URIRef(SCHEMA + "name")) == {OWL.DatatypeProperty}
    assert kinds(URIRef(SCHEMA + "datePublished")) == {OWL.DatatypeProperty}  # `date`, an xsd:date term
    assert kinds(URIRef(DC + "created")) == {OWL.DatatypeProperty}
    assert (URIRef(SCHEMA + "name"), RDFS.label, None) not in owl  # declared, never redefined
    assert kinds(MIF.steward) == {OWL.AnnotationProperty}  # a mapping in dl-root, text in dl-leaf
    assert (None, OWL.onProperty, MIF.steward) not in owl
    assert any("field 'steward'" in str(w) and "owl:AnnotationProperty" in str(w) for w in chain.warnings)
    assert kinds(MIF.notes) == {OWL.AnnotationProperty}  # no type at all
    assert kinds(MIF.feeds) == {OWL.ObjectProperty}  # a relationship type; the `feeds: string` field only warns
    assert any("field 'feeds' has the IRI of a relationship type" in str(w) for w in chain.warnings)
    assert kinds(MIF.ports) == {OWL.ObjectProperty} and kinds(MIF.flow) == {OWL.DatatypeProperty}
    skos = URIRef("http://www.w3.org/2004/02/skos/core#")
    root = chain.documents[URIRef(ONT + "dl-root")]
    used = {p for p in root.predicates() if p.startswith(skos)} | {
        o for o in root.objects(None, RDF.type) if o.startswith(skos)
    }
    assert len(used) >= 8 and all(len(set(root.objects(t, RDF.type))) == 1 for t in used)


def test_datatypes_outside_the_owl2_map_stay_out_of_owl(chain: Compilation) -> None:
    outside = {XSD.date, XSD.duration, XSD.time, URIRef(str(RDF) + "JSON")}
    for graph in (chain.owl, vocabulary()):
        assert not [t for t in graph if t[2] in outside or getattr(t[2], "datatype", None) in outside]
    pump, site = cls("dl-mid", "pump"), cls("dl-root", "site")
    assert fillers(chain.owl, pump, MIF.observed_on) == {XSD.dateTime}  # the child trait's date-time wins
    assert fillers(chain.owl, site, MIF.observed_on) == set()  # the parent trait's date: SHACL only
    assert fillers(chain.owl, pump, MIF.review_by) == {XSD.dateTime}
    enum = next(iter(fillers(chain.owl, cls("dl-leaf", "well"), MIF.level)))
    assert isinstance(enum, BNode) and (enum, RDF.type, RDFS.Datatype) in chain.owl


def test_shacl_still_checks_dates_and_durations(tmp_path: Path) -> None:
    """What OWL leaves out is checked by the compiled shapes (and shapes/level3.ttl for ttl, halfLife)."""
    memory(
        tmp_path,
        "good",
        "  entity_type: test-well\n  name: w1\n  depth: 3\n  sampled_on: 2026-01-15\n"
        "  interval: P30D\n  retention: PT12H\n  date: 2026-02-01\n",
        ontology="dl-tip",
    )
    memory(
        tmp_path,
        "bad",
        "  entity_type: test-well\n  name: w2\n  depth: 4\n  sampled_on: someday\n"
        "  interval: monthly\n  retention: 30 days\n",
        ontology="dl-tip",
    )
    shapes = compile_ontologies(["dl-tip"], search_path=[DL]).shapes
    _, report, _ = validate(load_bundle(tmp_path).dataset, shacl_graph=shapes, advanced=True)
    failed = {
        (
            str(report.value(r, URIRef("http://www.w3.org/ns/shacl#focusNode"))).rsplit(":", 1)[-1],
            str(
                shapes.value(
                    report.value(r, URIRef("http://www.w3.org/ns/shacl#sourceShape")),
                    URIRef("http://www.w3.org/ns/shacl#name"),
                )
            ),
        )
        for r in report.subjects(RDF.type, URIRef("http://www.w3.org/ns/shacl#ValidationResult"))
    }
    assert failed == {("bad", "sampled_on"), ("bad", "interval"), ("bad", "retention")}
    level3 = Graph().parse(Path(__file__).parent.parent / "shapes" / "level3.ttl")
    sh = "http://www.w3.org/ns/shacl#"
    for prop in (MIF.ttl, MIF.halfLife):
        shape = level3.value(None, URIRef(sh + "path"), prop)
        assert "P" in str(level3.value(shape, URIRef(sh + "pattern")))


# -- the CLI: a folder of documents with a catalog, or one merged file -----------------------------------------
def test_output_dir_writes_one_document_per_ontology_and_a_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "owl"
    assert main(["ontology", "compile", "--output-dir", str(out), "dl-tip", "--path", str(DL)]) == 0
    assert "wrote 5 ontology documents" in capsys.readouterr().err
    names = {p.name for p in out.iterdir()}
    assert names == {
        "dl-root.ttl",
        "dl-mid.ttl",
        "dl-leaf.ttl",
        "dl-tip.ttl",
        "mif-base.ttl",
        "mif-vocabulary.ttl",
        "catalog-v001.xml",
    }
    assert (out / "mif-vocabulary.ttl").read_bytes() == (builtin_dir() / "mif-vocabulary.ttl").read_bytes()
    catalog = {e.get("name"): e.get("uri") for e in ET.parse(out / "catalog-v001.xml").getroot().iter(CATALOG + "uri")}
    documents = {p.name: Graph().parse(p) for p in out.glob("*.ttl")}
    headers = {name: set(g.subjects(RDF.type, OWL.Ontology)) for name, g in documents.items()}
    assert all(len(h) == 1 for h in headers.values())
    for _name, graph in documents.items():
        for imported in graph.objects(None, OWL.imports):
            assert headers[catalog[str(imported)]] == {imported}  # every import resolves to the file of that ontology
    assert catalog[str(MIF)] == "mif-vocabulary.ttl" and catalog[ONT + "dl-mid/0.2.0"] == "dl-mid.ttl"
    assert violations(documents.values()) == []


def test_single_output_file_is_one_ontology(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "one.owl"
    assert (
        main(
            ["ontology", "compile", "dl-tip", "-o", str(target), "--path", str(DL), "--shapes", str(tmp_path / "s.ttl")]
        )
        == 0
    )
    graph = Graph().parse(target, format="xml")
    assert set(graph.subjects(RDF.type, OWL.Ontology)) == {URIRef(ONT + "dl-tip")}
    assert violations([vocabulary(), graph]) == []
    assert "compiled 5 ontologies" in capsys.readouterr().err
    assert main(["ontology", "compile", "dl-leaf", "--only", "--path", str(DL), "-o", str(tmp_path / "leaf.ttl")]) == 0
    leaf = Graph().parse(tmp_path / "leaf.ttl")
    assert set(leaf.subjects(RDF.type, OWL.Ontology)) == {URIRef(ONT + "dl-leaf")}
    assert set(leaf.objects(URIRef(ONT + "dl-leaf"), OWL.imports)) == {
        URIRef(ONT + "dl-mid")
    }  # not in the file: imported


def test_bundle_config_relationships_are_their_own_document(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    write_file(bundle, ".mif/config.yaml", "relationship_types:\n  - name: Blocks\n    inverse: BlockedBy\n")
    result = compile_ontologies(["mif-base"], bundle=bundle)
    config = [iri for iri in result.documents if not str(iri).startswith(ONT)]
    assert (
        len(config) == 1 and (URIRef(str(MIF) + "blocks"), RDF.type, OWL.ObjectProperty) in result.documents[config[0]]
    )
    assert violations([vocabulary(), *result.documents.values()]) == []
    assert (
        main(["ontology", "compile", "mif-base", "--bundle", str(bundle), "--output-dir", str(tmp_path / "owl")]) == 0
    )
    catalog = {
        e.get("name"): e.get("uri")
        for e in ET.parse(tmp_path / "owl" / "catalog-v001.xml").getroot().iter(CATALOG + "uri")
    }
    assert catalog[str(config[0])] == "bundle-config.ttl" and (tmp_path / "owl" / "bundle-config.ttl").is_file()


def test_the_shipped_vocabulary_is_owl2_dl() -> None:
    """New vocabulary terms need an OWL kind (object, datatype or annotation property), not only rdf:Property."""
    assert violations([vocabulary()]) == []
