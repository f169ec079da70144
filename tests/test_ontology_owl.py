"""OWL/RDFS output: the upstream corpus compiles and reasons, golden files, and the mapping rules."""
from __future__ import annotations

import hashlib
from pathlib import Path

import owlrl
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from mif_rdf import load_bundle
from mif_rdf.cli import main
from mif_rdf.namespaces import MIF
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.compiler import Compilation, new_graph
from mif_rdf.ontology.iris import MIFO

from conftest import EXAMPLES, REPO, SHARED, assert_isomorphic, write_file

UPSTREAM = SHARED / "fixtures" / "upstream"
CORPUS = UPSTREAM / "ontologies"
AI_MEMORY = UPSTREAM / "mif" / "profiles" / "ai-memory" / "ontology.yaml"
CORPUS_REFS = sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml")) + [str(AI_MEMORY)]
FIXTURES = REPO / "tests" / "fixtures" / "ontology"
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
    assert ontologies == {ONT + ref for ref in CORPUS_REFS[:-1]} | {ONT + "ai-memory"}
    for graph, fmt in ((corpus.owl, "turtle"), (corpus.owl, "xml"), (corpus.shapes, "turtle")):
        back = Graph().parse(data=graph.serialize(format=fmt), format=fmt)
        assert len(back) == len(graph)
        assert tree_canonical(back) == tree_canonical(graph), fmt


@pytest.mark.parametrize("ref", CORPUS_REFS, ids=lambda r: Path(r).name)
def test_owlrl_closure_runs_on_each_compiled_ontology(ref: str) -> None:
    owl = compile_ontologies([ref], search_path=[CORPUS], with_ancestors=False).owl
    graph = Graph().parse(data=owl.serialize(format="nt"), format="nt")
    before = len(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
    assert len(graph) > before
    if ref == "observability":  # an IS-A tree: subclassing is transitive across ontologies
        assert (cls("observability", "observability-service"), RDFS.subClassOf, cls("mif-generic", "technology")) in graph


@pytest.mark.parametrize("name, source", [("spec-traits", FIXTURES / "spec-traits.ontology.yaml"), ("valid-subtype", UPSTREAM / "mif" / "test" / "subtype_of" / "valid.ontology.yaml")])
def test_golden_files(name: str, source: Path) -> None:
    result = compile_ontologies([source], with_ancestors=False)
    golden = FIXTURES / "golden"
    assert_isomorphic(relative_paths(result.owl, source.parent), Graph().parse(golden / f"{name}.ttl"), f"{name} OWL")
    assert_isomorphic(relative_paths(result.shapes, source.parent), Graph().parse(golden / f"{name}-shapes.ttl"), f"{name} shapes")


def relative_paths(graph: Graph, folder: Path) -> Graph:
    """File paths in literals (sourceFile, messages) made relative to ``folder``, as in the golden files."""
    out = new_graph()
    for s, p, o in graph:
        if isinstance(o, Literal) and o.datatype is None:
            o = Literal(str(o).replace(f"{folder}/", ""), lang=o.language)
        out.add((s, p, o))
    return out


def test_ontology_header_and_imports(corpus: Compilation) -> None:
    owl = corpus.owl
    security = URIRef(ONT + "software-security")
    assert (security, OWL.imports, URIRef(ONT + "engineering-base")) in owl
    assert (URIRef(ONT + "engineering-base"), OWL.imports, URIRef(ONT + "shared-traits")) in owl
    assert (URIRef(ONT + "mif-base"), OWL.imports, URIRef(str(MIF))) in owl  # a root imports the MIF vocabulary
    assert (security, OWL.versionInfo, Literal("0.4.0")) in owl


def test_entity_types_are_classes_under_their_base_type(corpus: Compilation) -> None:
    owl = corpus.owl
    assert (cls("ai-memory", "session"), RDF.type, OWL.Class) in owl
    assert (cls("ai-memory", "session"), RDFS.subClassOf, MIF.EpisodicType) in owl
    assert (cls("ai-memory", "skill"), RDFS.subClassOf, MIF.ProceduralType) in owl
    assert (cls("engineering-base", "component"), RDFS.subClassOf, MIF.SemanticType) in owl
    assert (cls("software-security", "security-control"), RDFS.subClassOf, cls("engineering-base", "control")) in owl


def restriction(owl: Graph, cls_iri: URIRef, prop: URIRef, kind: URIRef) -> object:
    for node in owl.objects(cls_iri, RDFS.subClassOf):
        if (node, OWL.onProperty, prop) in owl and (node, kind, None) in owl:
            return owl.value(node, kind)
    return None


def test_fields_become_properties_with_ranges_from_types_and_formats(corpus: Compilation) -> None:
    owl = corpus.owl
    assert (MIF.started_at, RDF.type, OWL.DatatypeProperty) in owl
    assert (MIF.started_at, RDFS.range, XSD.dateTime) in owl  # format: date-time
    assert (MIF.statement, RDFS.range, XSD.string) in owl
    assert (MIF.steps, RDF.type, OWL.ObjectProperty) in owl  # array of objects
    session = cls("ai-memory", "session")
    assert restriction(owl, session, MIF.accessCount, OWL.allValuesFrom) == XSD.integer  # from trait recallable
    assert restriction(owl, session, MIF.summary, OWL.minCardinality) == Literal(1, datatype=XSD.nonNegativeInteger)  # required
    enum = restriction(owl, session, MIF.session_type, OWL.allValuesFrom)
    assert [str(v) for v in Collection(owl, owl.value(enum, OWL.oneOf))] == ["debug", "work", "meeting", "exploration", "review"]
    assert (MIF.documentation_url, RDFS.range, XSD.anyURI) in owl  # format: uri
    assert (MIF.effective_date, RDFS.range, XSD.date) in owl  # format: date
    # a key the MIF context defines is its term, not redeclared: schema:name, dc:description
    assert (URIRef("https://schema.org/name"), RDF.type, None) not in owl
    # a field defined as a mapping here and as text there: no range is claimed, and a warning says why
    assert (MIF.owner, RDF.type, RDF.Property) in owl and (MIF.owner, RDFS.range, None) not in owl
    assert any("field 'owner'" in str(w) for w in corpus.warnings)


def test_relationship_types_are_object_properties(corpus: Compilation) -> None:
    owl = corpus.owl
    reinforces = MIF.reinforces
    assert (reinforces, RDF.type, OWL.ObjectProperty) in owl
    union = owl.value(reinforces, RDFS.domain)
    assert set(Collection(owl, owl.value(union, OWL.unionOf))) == {cls("ai-memory", n) for n in ("observation", "skill", "session")}
    assert (MIF["recalled-in"], RDFS.range, cls("ai-memory", "session")) in owl
    assert (MIF["relates-to"], RDF.type, OWL.SymmetricProperty) in owl
    assert (MIF["governs"], RDFS.domain, None) in owl
    # an endpoint that names no entity type of the ontology's chain: no range, the names kept, a warning
    assert (MIF["depends-on"], RDFS.range, None) not in owl
    assert {str(o) for o in owl.objects(MIF["depends-on"], MIFO.to)} == {"component", "technology"}
    assert any("'to' names 'technology'" in str(w) for w in corpus.warnings)


def test_three_spellings_of_a_relationship_name_are_one_iri(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    write_file(bundle, ".mif/config.yaml", """relationship_types:
  - {name: RelatesTo, symmetric: true}
  - {name: DerivedFrom, inverse: Derives}
  - {name: Reinforces, namespace: team, inverse: ReinforcedBy}
""")
    write_file(tmp_path / "o", "x.ontology.yaml", "ontology: {id: x}\nrelationships:\n  relates_to: {symmetric: true}\n  derived_from: {}\n")
    owl = compile_ontologies(["x"], search_path=[tmp_path / "o"], bundle=bundle, with_ancestors=False).owl
    assert {str(label) for label in owl.objects(MIF["relates-to"], RDFS.label)} == {"RelatesTo", "relates_to"}
    assert (MIF["derived-from"], OWL.inverseOf, MIF.derives) in owl
    assert (URIRef("team:reinforces"), OWL.inverseOf, URIRef("team:reinforced-by")) in owl
    config = URIRef("mif://local/b/.mif/config.yaml")
    assert (config, RDF.type, OWL.Ontology) in owl and (MIF["relates-to"], RDFS.isDefinedBy, config) in owl


def test_bundle_config_relationships_match_the_links_graph() -> None:
    """The example bundle's memories write `part-of`, its config `PartOf`: the same predicate."""
    bundle = load_bundle(EXAMPLES)
    owl = compile_ontologies([], bundle=bundle).owl
    used = {p for _, p, _ in bundle.links if p not in (MIF.path, MIF.location)}
    declared = set(owl.subjects(RDF.type, OWL.ObjectProperty))
    assert used and used <= declared | {MIF["created-by"]}  # created-by is the declared inverse of Created
    assert (MIF.created, OWL.inverseOf, MIF["created-by"]) in owl


def test_namespace_trees_are_skos_concept_schemes(corpus: Compilation) -> None:
    owl = corpus.owl
    scheme = URIRef(ONT + "mif-base/namespaces")
    decisions = URIRef(ONT + "mif-base/namespace/_semantic/decisions")
    semantic = URIRef(ONT + "mif-base/namespace/_semantic")
    assert (scheme, RDF.type, SKOS.ConceptScheme) in owl
    assert (URIRef(ONT + "mif-base"), MIF.hasNamespace, scheme) in owl
    assert (decisions, SKOS.broader, semantic) in owl and (semantic, SKOS.topConceptOf, scheme) in owl
    assert (decisions, SKOS.notation, Literal("_semantic/decisions")) in owl
    assert (decisions, MIF.typeHint, Literal("semantic")) in owl
    assert any("'semantic' is not the base-type prefix '_semantic'" in str(w) for w in corpus.warnings)


def test_annotations_are_kept(corpus: Compilation) -> None:
    owl = corpus.owl
    contract = next(c for c in owl.subjects(RDFS.label, Literal("data-contract")))
    assert (contract, SKOS.altLabel, Literal("schema contract")) in owl
    assert len(list(owl.objects(contract, SKOS.example))) == 3
    assert list(owl.objects(contract, MIFO.negative_examples))
    assert (cls("observability", "observability-resource"), MIFO.abstract, Literal(True)) in owl
    assert (cls("software-security", "attack-tactic"), MIFO.source_vocab, Literal("MITRE ATT&CK")) in owl
    # discovery: patterns with the suggested entity type as a class
    config = owl.value(URIRef(ONT + "ai-memory"), MIF.discoveryConfig)
    assert (config, MIF.confidenceThreshold, Literal("0.8", datatype=XSD.decimal)) in owl
    patterns = list(owl.objects(config, MIF.hasDiscoveryPattern))
    assert len(patterns) == 4
    assert any((p, MIF.suggestsEntityType, cls("ai-memory", "session")) in owl for p in patterns)
    base = owl.value(URIRef(ONT + "mif-base"), MIF.discoveryConfig)
    assert len(list(owl.objects(base, MIF.hasDiscoveryPattern))) == 19  # 11 content + 8 file patterns
    # traits as annotations: a trait names its fields and what it extends
    assert (URIRef(ONT + "ai-memory/trait/decaying"), MIF.hasField, MIF.decay_model) in owl


def test_only_the_named_ontologies(tmp_path: Path) -> None:
    owl = compile_ontologies([AI_MEMORY], search_path=[CORPUS], with_ancestors=False).owl
    assert set(owl.subjects(RDF.type, OWL.Ontology)) == {URIRef(ONT + "ai-memory")}
    assert (URIRef(ONT + "ai-memory"), OWL.imports, URIRef(ONT + "shared-traits")) in owl


def test_cli_compile_writes_owl_and_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, shapes = tmp_path / "ai.owl", tmp_path / "ai-shapes.ttl"
    code = main(["ontology", "compile", str(AI_MEMORY), "--path", str(CORPUS), "-o", str(out), "--shapes", str(shapes)])
    assert code == 0
    owl = Graph().parse(out, format="xml")  # .owl is RDF/XML, what Protégé opens
    assert (cls("ai-memory", "session"), RDF.type, OWL.Class) in owl
    assert (URIRef(ONT + "mif-base"), RDF.type, OWL.Ontology) in owl  # ancestors included
    assert len(Graph().parse(shapes)) > 100
    assert "compiled 3 ontologies" in capsys.readouterr().err
    assert main(["ontology", "compile", "mif-base"]) == 0
    assert "mif-base:" in capsys.readouterr().out  # Turtle on standard output


def test_a_field_that_json_ld_reads_as_the_node_id_is_reported(tmp_path: Path) -> None:
    path = write_file(tmp_path, "i.ontology.yaml", "ontology: {id: i}\nentity_types:\n  - {name: thing, base: semantic, schema: {properties: {id: {type: string}, code: {type: string}}}}\n")
    result = compile_ontologies([path])
    assert any("field 'id' is JSON-LD's @id" in str(w) for w in result.warnings)
    assert (MIF.code, RDF.type, OWL.DatatypeProperty) in result.owl
