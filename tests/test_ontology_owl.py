"""OWL/RDFS output: the project's ontology corpus compiles and reasons, golden files, and the mapping rules."""

from __future__ import annotations

import hashlib
from pathlib import Path

import owlrl
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from conftest import EXAMPLES, FIXTURES, assert_isomorphic, relative_paths, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.compiler import Compilation
from mif_rdf.ontology.iris import MIFO

ONTOLOGY_FIXTURES = FIXTURES / "ontology"
CORPUS = ONTOLOGY_FIXTURES / "corpus"
CORPUS_REFS = sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml"))
ONT = "https://mif-spec.dev/ontologies/"


def cls(ontology: str, name: str) -> URIRef:
    return URIRef(f"{ONT}{ontology}/{name}")


@pytest.fixture(scope="module")
def corpus() -> Compilation:
    return compile_ontologies(CORPUS_REFS, search_path=[CORPUS])


def tree_canonical(graph: Graph) -> set[tuple[object, object, object]]:
    """Triples with each blank node named by a hash of what hangs below it.

    The compiler's blank nodes form trees (restrictions, lists, unions, shapes),
    for which this is a canonical form; rdflib's general isomorphism takes
    minutes on graphs with thousands of blank nodes.
    """
    names: dict[BNode, Literal] = {}

    def name(node: object, depth: int = 0) -> object:
        if not isinstance(node, BNode):
            return node
        if node not in names:
            assert depth < 100, "blank nodes are not tree-shaped"
            below = sorted((str(p), repr(name(o, depth + 1))) for p, o in graph.predicate_objects(node))
            names[node] = Literal("_:" + hashlib.sha1(repr(below).encode()).hexdigest())
        return names[node]

    return {(name(s), p, name(o)) for s, p, o in graph}


def test_every_corpus_ontology_compiles_and_parses_back(corpus: Compilation) -> None:
    assert len(CORPUS_REFS) == 11
    ontologies = {str(o) for o in corpus.owl.subjects(RDF.type, OWL.Ontology)}
    assert ontologies == {ONT + ref for ref in CORPUS_REFS} | {ONT + "mif-base"}
    for graph, fmt in ((corpus.owl, "turtle"), (corpus.owl, "xml"), (corpus.shapes, "turtle")):
        back = Graph().parse(data=graph.serialize(format=fmt), format=fmt)
        assert len(back) == len(graph)
        assert tree_canonical(back) == tree_canonical(graph), fmt


def test_subclassing_is_transitive_across_ontologies_under_owlrl() -> None:
    """An IS-A tree over two ontologies: reading (lab) < quantity < measurement; sample (lab-field) < quantity."""
    graph = Graph().parse(
        data=compile_ontologies(["lab-field"], search_path=[CORPUS]).owl.serialize(format="nt"), format="nt"
    )
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
    assert (cls("lab-field", "sample"), RDFS.subClassOf, cls("lab", "measurement")) in graph
    assert (cls("lab", "reading"), RDFS.subClassOf, MIF.SemanticType) in graph


@pytest.mark.parametrize(
    "name, source",
    [
        ("spec-traits", ONTOLOGY_FIXTURES / "spec-traits.ontology.yaml"),
        ("own-valid-subtype", ONTOLOGY_FIXTURES / "subtype_of" / "valid.ontology.yaml"),
    ],
)
def test_golden_files(name: str, source: Path) -> None:
    result = compile_ontologies([source], with_ancestors=False)
    golden = ONTOLOGY_FIXTURES / "golden"
    assert_isomorphic(relative_paths(result.owl, source.parent), Graph().parse(golden / f"{name}.ttl"), f"{name} OWL")
    assert_isomorphic(
        relative_paths(result.shapes, source.parent), Graph().parse(golden / f"{name}-shapes.ttl"), f"{name} shapes"
    )


def test_ontology_header_and_imports(corpus: Compilation) -> None:
    owl = corpus.owl
    joint = URIRef(ONT + "kit-joint")
    assert {joint} == set(owl.subjects(OWL.imports, URIRef(ONT + "kit-right")))
    assert (joint, OWL.imports, URIRef(ONT + "kit-left")) in owl
    assert (URIRef(ONT + "kit-left"), OWL.imports, URIRef(ONT + "kit-base")) in owl
    assert (URIRef(ONT + "mif-base"), OWL.imports, URIRef(str(MIF))) in owl  # a root imports the MIF vocabulary
    base = URIRef(ONT + "kit-base")
    assert (base, OWL.versionInfo, Literal("2.1.0")) in owl and (
        base,
        OWL.versionIRI,
        URIRef(ONT + "kit-base/2.1.0"),
    ) in owl
    assert (base, RDFS.isDefinedBy, URIRef("https://example.org/kit/schema.json")) in owl
    assert (URIRef(ONT + "rich"), MIFO.maintainer, Literal("greenhouse team")) in owl  # an unknown top-level key


def test_entity_types_are_classes_under_their_base_type(corpus: Compilation) -> None:
    owl = corpus.owl
    assert (cls("recall", "session"), RDF.type, OWL.Class) in owl
    assert (cls("recall", "session"), RDFS.subClassOf, MIF.EpisodicType) in owl
    assert (cls("rich", "watering"), RDFS.subClassOf, MIF.ProceduralType) in owl
    assert (cls("kit-base", "artifact"), RDFS.subClassOf, MIF.SemanticType) in owl
    assert (cls("lab-field", "sample"), RDFS.subClassOf, cls("lab", "quantity")) in owl


def restriction(owl: Graph, cls_iri: URIRef, prop: URIRef, kind: URIRef) -> object:
    for node in owl.objects(cls_iri, RDFS.subClassOf):
        if (node, OWL.onProperty, prop) in owl and (node, kind, None) in owl:
            return owl.value(node, kind)
    return None


def test_fields_become_properties_with_ranges_from_types_and_formats(corpus: Compilation) -> None:
    owl = corpus.owl
    assert (MIF.started_at, RDF.type, OWL.DatatypeProperty) in owl
    assert (MIF.started_at, RDFS.range, XSD.dateTime) in owl  # format: date-time, in rich and recall alike
    assert (MIF.serial, RDFS.range, XSD.string) in owl
    assert (MIF.tasks, RDF.type, OWL.ObjectProperty) in owl  # array of mappings
    session, gauge, shift = cls("recall", "session"), cls("rich", "gauge"), cls("rich", "shift")
    assert restriction(owl, session, MIF.accessCount, OWL.allValuesFrom) == XSD.integer  # from trait recallable
    assert restriction(owl, gauge, MIF.batch_count, OWL.allValuesFrom) == XSD.integer  # from trait tracked
    assert restriction(owl, session, MIF.summary, OWL.minCardinality) == Literal(
        1, datatype=XSD.nonNegativeInteger
    )  # required
    enum = restriction(owl, shift, MIF.shift_type, OWL.allValuesFrom)
    assert list(Collection(owl, owl.value(enum, OWL.oneOf))) == [Literal("day"), Literal("night"), Literal("weekend")]
    assert (MIF.manual_url, RDFS.range, XSD.anyURI) in owl  # format: uri
    # format: date: xsd:date is not in the OWL 2 datatype map, so no OWL range (SHACL checks it)
    assert (MIF.released_on, RDF.type, OWL.DatatypeProperty) in owl and (MIF.released_on, RDFS.range, None) not in owl
    # a key the MIF context defines is its term, declared with its kind only (OWL 2 DL), never defined here
    assert restriction(owl, gauge, URIRef("https://schema.org/name"), OWL.allValuesFrom) == XSD.string
    assert set(owl.predicate_objects(URIRef("https://schema.org/name"))) == {(RDF.type, OWL.DatatypeProperty)}
    # a field defined as a mapping here and as text there: an annotation property (one kind per IRI),
    # no range and no class restriction on it, and a warning says why
    assert (
        set(owl.objects(MIF.owner, RDF.type)) == {OWL.AnnotationProperty} and (MIF.owner, RDFS.range, None) not in owl
    )
    assert (None, OWL.onProperty, MIF.owner) not in owl
    assert any(
        "field 'owner'" in str(w) and "kit-base.ontology.yaml" in str(w) and "rich" in str(w) for w in corpus.warnings
    )


def test_relationship_types_are_object_properties(corpus: Compilation) -> None:
    owl = corpus.owl
    assert (MIF.feeds, RDF.type, OWL.ObjectProperty) in owl
    assert (MIF.feeds, RDFS.domain, cls("rich", "valve")) in owl
    union = owl.value(MIF.feeds, RDFS.range)
    assert set(Collection(owl, owl.value(union, OWL.unionOf))) == {cls("rich", "gauge"), cls("rich", "valve")}
    assert (MIF.protects, RDFS.range, cls("kit-base", "artifact")) in owl
    assert (MIF.protects, OWL.inverseOf, MIF["protected-by"]) in owl
    assert (MIF.neighbours, RDF.type, OWL.SymmetricProperty) in owl
    assert (MIF["relates-to"], RDF.type, OWL.SymmetricProperty) in owl  # mif-base
    # an endpoint that names no entity type of the ontology's chain: no range, the names kept, a warning
    assert (MIF.calibrates, RDFS.range, None) not in owl and (MIF.calibrates, RDFS.domain, cls("rich", "gauge")) in owl
    assert {str(o) for o in owl.objects(MIF.calibrates, MIFO.to)} == {"tool"}
    assert any("'to' names 'tool'" in str(w) for w in corpus.warnings)
    # two spellings in one file are one relationship type, with both labels and a warning
    assert {str(o) for o in owl.objects(MIF["waters-plant"], RDFS.label)} == {"waters-plant", "waters_plant"}
    assert any(
        "'waters_plant' and 'waters-plant' are spellings of the same relationship type" in str(w)
        for w in corpus.warnings
    )


def test_three_spellings_of_a_relationship_name_are_one_iri(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    write_file(
        bundle,
        ".mif/config.yaml",
        """bundle_id: b
relationship_types:
  - {name: RelatesTo, symmetric: true}
  - {name: DerivedFrom, inverse: Derives}
  - {name: Reinforces, namespace: team, inverse: ReinforcedBy}
""",
    )
    write_file(
        tmp_path / "o",
        "x.ontology.yaml",
        "ontology: {id: x}\nrelationships:\n  relates_to: {symmetric: true}\n  derived_from: {}\n",
    )
    owl = compile_ontologies(["x"], search_path=[tmp_path / "o"], bundle=bundle, with_ancestors=False).owl
    assert {str(label) for label in owl.objects(MIF["relates-to"], RDFS.label)} == {"RelatesTo", "relates_to"}
    assert (MIF["derived-from"], OWL.inverseOf, MIF.derives) in owl
    assert (URIRef("team:reinforces"), OWL.inverseOf, URIRef("team:reinforced-by")) in owl
    config = URIRef("mif://b/.mif/config.yaml")
    assert (config, RDF.type, OWL.Ontology) in owl and (MIF["relates-to"], RDFS.isDefinedBy, config) in owl


def test_bundle_config_relationships_match_the_links_graph() -> None:
    """The example bundle's memories write `part-of`, its config `PartOf`: the same predicate."""
    bundle = load_bundle(EXAMPLES)
    owl = compile_ontologies([], bundle=bundle).owl
    used = {p for _, p, _ in bundle.links if p not in (MIF.path, MIF.location, MIF.namespaceUri)}
    declared = set(owl.subjects(RDF.type, OWL.ObjectProperty))
    assert used and used <= declared | {MIF["created-by"]}  # created-by is the declared inverse of Created
    assert (MIF.created, OWL.inverseOf, MIF["created-by"]) in owl


def test_namespace_trees_are_skos_concept_schemes(corpus: Compilation) -> None:
    owl = corpus.owl
    scheme = URIRef(ONT + "kit-base/namespaces")
    assets = URIRef(ONT + "kit-base/namespace/_semantic/assets")
    semantic = URIRef(ONT + "kit-base/namespace/_semantic")
    assert (scheme, RDF.type, SKOS.ConceptScheme) in owl
    assert (URIRef(ONT + "kit-base"), MIF.hasNamespace, scheme) in owl
    assert (assets, SKOS.broader, semantic) in owl and (semantic, SKOS.narrower, assets) in owl
    assert (semantic, SKOS.topConceptOf, scheme) in owl and (scheme, SKOS.hasTopConcept, semantic) in owl
    assert (assets, SKOS.notation, Literal("_semantic/assets")) in owl
    assert (assets, SKOS.definition, Literal("Tools and machines")) in owl
    assert (semantic, MIF.typeHint, Literal("semantic")) in owl
    assert (URIRef(ONT + "rich/namespace/semantic/plants"), SKOS.notation, Literal("semantic/plants")) in owl
    assert any("'semantic' is not the base-type prefix '_semantic'" in str(w) for w in corpus.warnings)


def test_annotations_are_kept(corpus: Compilation) -> None:
    owl = corpus.owl
    gauge = cls("rich", "gauge")
    assert {str(o) for o in owl.objects(gauge, SKOS.altLabel)} == {"meter", "dial"}
    assert len(list(owl.objects(gauge, SKOS.example))) == 3
    assert (gauge, MIFO.negative_examples, Literal("a reading")) in owl
    assert (cls("rich", "valve"), MIFO.abstract, Literal(True)) in owl
    assert (gauge, MIFO.source_vocab, Literal("Greenhouse Handbook")) in owl
    # discovery: patterns with the suggested entity type as a class
    config = owl.value(URIRef(ONT + "rich"), MIF.discoveryConfig)
    assert (config, MIF.confidenceThreshold, Literal("0.75", datatype=XSD.decimal)) in owl
    assert (config, MIF.discoveryEnabled, Literal(True)) in owl
    patterns = list(owl.objects(config, MIF.hasDiscoveryPattern))
    assert len(patterns) == 2
    assert any(
        (p, MIF.suggestsEntityType, cls("rich", "shift")) in owl
        and (p, MIF.filePattern, Literal("**/shifts/*.md")) in owl
        for p in patterns
    )
    base = owl.value(URIRef(ONT + "mif-base"), MIF.discoveryConfig)
    assert len(list(owl.objects(base, MIF.hasDiscoveryPattern))) == 19  # 11 content + 8 file patterns
    # traits as annotations: a trait names its fields and what it extends; classes name their traits
    assert (URIRef(ONT + "recall/trait/recallable"), MIF.hasField, MIF.accessCount) in owl
    assert (URIRef(ONT + "kit-left/trait/audited"), MIFO.extends, URIRef(ONT + "kit-base/trait/stamped")) in owl
    assert (URIRef(ONT + "kit-base/trait/checked"), MIF.requiresField, MIF.citations) in owl
    assert (gauge, MIF.definesTrait, URIRef(ONT + "rich/trait/tracked")) in owl


def test_only_the_named_ontologies(tmp_path: Path) -> None:
    owl = compile_ontologies(["recall"], search_path=[CORPUS], with_ancestors=False).owl
    assert set(owl.subjects(RDF.type, OWL.Ontology)) == {URIRef(ONT + "recall")}
    assert (URIRef(ONT + "recall"), OWL.imports, URIRef(ONT + "kit-base")) in owl


def test_cli_compile_writes_owl_and_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, shapes = tmp_path / "recall.owl", tmp_path / "recall-shapes.ttl"
    code = main(
        [
            "ontology",
            "compile",
            str(CORPUS / "recall.ontology.yaml"),
            "--path",
            str(CORPUS),
            "-o",
            str(out),
            "--shapes",
            str(shapes),
        ]
    )
    assert code == 0
    owl = Graph().parse(out, format="xml")  # .owl is RDF/XML, what Protégé opens
    assert (cls("recall", "session"), RDF.type, OWL.Class) in owl
    assert (URIRef(ONT + "mif-base"), RDFS.label, Literal("mif-base")) in owl  # ancestors included ...
    assert set(owl.subjects(RDF.type, OWL.Ontology)) == {URIRef(ONT + "recall")}  # ... in one ontology, recall
    assert len(Graph().parse(shapes)) > 100
    assert "compiled 3 ontologies" in capsys.readouterr().err
    assert main(["ontology", "compile", "mif-base"]) == 0
    assert "mif-base:" in capsys.readouterr().out  # Turtle on standard output


def test_a_field_that_json_ld_reads_as_the_node_id_is_reported(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "i.ontology.yaml",
        "ontology: {id: i}\nentity_types:\n  - {name: thing, base: semantic, schema: {properties: {id: {type: "
        "string}, code: {type: string}}}}\n",
    )
    result = compile_ontologies([path])
    assert any("field 'id' is JSON-LD's @id" in str(w) for w in result.warnings)
    assert (MIF.code, RDF.type, OWL.DatatypeProperty) in result.owl
