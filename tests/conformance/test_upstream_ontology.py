"""The ontology compiler on the public MIF data: the corpus, the ai-memory profile, test/subtype_of, the vocabulary.

Every ontology of the published corpus must compile (the upstream validator
accepts them all), reason under owlrl, and carry no ill-typed literal; the
upstream subtype_of cases get the verdicts their names promise.  The main
suite proves the same properties on the project's own corpus
(tests/fixtures/ontology).
"""

from __future__ import annotations

import json
from pathlib import Path

import owlrl
import pytest
from pyshacl import validate
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH, SKOS, XSD
from upstream import AI_MEMORY_ONTOLOGY, CORPUS, SCHEMA, SPEC_DATA, SUBTYPES

from conftest import FIXTURES, assert_isomorphic, ill_typed_literals, relative_paths, write_file
from mif_rdf import load_bundle
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import compile_ontologies, vocabulary
from mif_rdf.ontology.compiler import Compilation
from mif_rdf.ontology.iris import MIFO
from test_ontology_owl import ONT, cls, restriction
from test_ontology_subtypes import assert_rejected

CORPUS_REFS = sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml")) + [str(AI_MEMORY_ONTOLOGY)]
GOLDEN = FIXTURES / "ontology" / "golden"


@pytest.fixture(scope="module")
def corpus() -> Compilation:
    return compile_ontologies(CORPUS_REFS, search_path=[CORPUS])


# -- the corpus compiles, parses back, reasons, and has no ill-typed literal ----------------------------
def test_every_corpus_ontology_compiles_and_parses_back(corpus: Compilation) -> None:
    assert len(CORPUS_REFS) == 11
    ontologies = {str(o) for o in corpus.owl.subjects(RDF.type, OWL.Ontology)}
    assert ontologies == {ONT + ref for ref in CORPUS_REFS[:-1]} | {ONT + "ai-memory"}
    for graph, fmt in ((corpus.owl, "turtle"), (corpus.owl, "xml"), (corpus.shapes, "turtle")):
        back = Graph().parse(data=graph.serialize(format=fmt), format=fmt)
        assert len(back) == len(graph), fmt


@pytest.mark.parametrize("ref", CORPUS_REFS, ids=lambda r: Path(r).name)
def test_each_ontology_compiles_reasons_and_has_no_ill_typed_literal(ref: str) -> None:
    result = compile_ontologies([ref], search_path=[CORPUS])
    for graph in (result.owl, result.shapes):
        back = Graph().parse(data=graph.serialize(format="nt"), format="nt")
        assert not ill_typed_literals(back), ill_typed_literals(back)
    graph = Graph().parse(data=result.owl.serialize(format="nt"), format="nt")
    before = len(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
    assert len(graph) > before
    if ref == "observability":  # an IS-A tree: subclassing is transitive across ontologies
        assert (
            cls("observability", "observability-service"),
            RDFS.subClassOf,
            cls("mif-generic", "technology"),
        ) in graph


def test_the_observability_diamond_of_ontologies_resolves() -> None:
    """observability extends engineering-base and mif-generic, both above mif-base; engineering-base
    overrides mif-base's derived_from: the override wins, no conflict."""
    view = compile_ontologies(["observability"], search_path=[CORPUS]).roots[0]
    assert view.relationships["derived-from"].origin.ontology == "engineering-base"
    assert view.relationships["derived-from"].sources == ("artifact",)


def test_extends_resolves_by_id_along_the_search_path() -> None:
    result = compile_ontologies(["software-security"], search_path=[CORPUS])
    chain = [c.view.id for c in result.composers]
    assert chain[-1] == "software-security"
    assert chain.index("mif-base") < chain.index("shared-traits") < chain.index("engineering-base")
    assert len(chain) == len(set(chain)) == 4


# -- the OWL mapping on the corpus ---------------------------------------------------------------------
def test_header_classes_and_fields(corpus: Compilation) -> None:
    owl = corpus.owl
    security = URIRef(ONT + "software-security")
    assert (security, OWL.imports, URIRef(ONT + "engineering-base")) in owl
    assert (security, OWL.versionInfo, Literal("0.4.0")) in owl
    assert (cls("ai-memory", "session"), RDFS.subClassOf, MIF.EpisodicType) in owl
    assert (cls("ai-memory", "skill"), RDFS.subClassOf, MIF.ProceduralType) in owl
    assert (cls("software-security", "security-control"), RDFS.subClassOf, cls("engineering-base", "control")) in owl
    assert (MIF.started_at, RDFS.range, XSD.dateTime) in owl
    session = cls("ai-memory", "session")
    assert restriction(owl, session, MIF.accessCount, OWL.allValuesFrom) == XSD.integer
    enum = restriction(owl, session, MIF.session_type, OWL.allValuesFrom)
    assert [str(v) for v in Collection(owl, owl.value(enum, OWL.oneOf))] == [
        "debug",
        "work",
        "meeting",
        "exploration",
        "review",
    ]
    # a mapping in shared-traits, text in engineering-base: an annotation property (OWL 2 DL), no range, no restriction
    assert (
        set(owl.objects(MIF.owner, RDF.type)) == {OWL.AnnotationProperty} and (MIF.owner, RDFS.range, None) not in owl
    )
    assert (None, OWL.onProperty, MIF.owner) not in owl


def test_relationships_namespaces_and_annotations(corpus: Compilation) -> None:
    owl = corpus.owl
    union = owl.value(MIF.reinforces, RDFS.domain)
    assert set(Collection(owl, owl.value(union, OWL.unionOf))) == {
        cls("ai-memory", n) for n in ("observation", "skill", "session")
    }
    assert (MIF["recalled-in"], RDFS.range, cls("ai-memory", "session")) in owl
    assert {str(o) for o in owl.objects(MIF["depends-on"], MIFO.to)} == {"component", "technology"}
    decisions = URIRef(ONT + "mif-base/namespace/_semantic/decisions")
    assert (decisions, SKOS.notation, Literal("_semantic/decisions")) in owl
    contract = next(c for c in owl.subjects(RDFS.label, Literal("data-contract")))
    assert (contract, SKOS.altLabel, Literal("schema contract")) in owl
    assert (cls("observability", "observability-resource"), MIFO.abstract, Literal(True)) in owl
    assert (cls("software-security", "attack-tactic"), MIFO.source_vocab, Literal("MITRE ATT&CK")) in owl
    config = owl.value(URIRef(ONT + "ai-memory"), MIF.discoveryConfig)
    assert (config, MIF.confidenceThreshold, Literal("0.8", datatype=XSD.decimal)) in owl
    assert len(list(owl.objects(config, MIF.hasDiscoveryPattern))) == 4


# -- upstream test/subtype_of ----------------------------------------------------------------------------
def test_valid_and_extended_subtypes_compile() -> None:
    valid = compile_ontologies([SUBTYPES / "valid.ontology.yaml"]).owl
    assert (cls("valid-subtype", "security-control"), RDFS.subClassOf, cls("valid-subtype", "control")) in valid
    extended = compile_ontologies([SUBTYPES / "extended.ontology.yaml"], search_path=[CORPUS])
    assert (
        cls("extended-subtype", "security-control"),
        RDFS.subClassOf,
        cls("engineering-base", "control"),
    ) in extended.owl
    composer = next(c for c in extended.composers if c.view.id == "extended-subtype")
    assert "control_name" in composer.compose("security-control").fields


@pytest.mark.parametrize(
    "name, reason",
    [
        (
            "cyclic",
            r"entity type '[ab]' of ontology 'cyclic-subtype' is part of a subtype_of cycle: (a -> b -> a|b -> a -> b)",
        ),
        (
            "dangling",
            r"entity type 'security-control' of ontology 'dangling-subtype' is subtype_of 'control', which is not an "
            r"entity type of ontology 'dangling-subtype', which extends no other ontology",
        ),
        (
            "incompatible",
            r"entity type 'sub-thing' of ontology 'incompatible-subtype' is subtype_of 'base-thing' .* but does not "
            r"require 'b', which 'base-thing' requires",
        ),
        ("self", r"entity type 'a' of ontology 'self-subtype' is subtype_of itself"),
    ],
)
def test_invalid_subtypes_are_rejected_with_the_reason(name: str, reason: str) -> None:
    assert_rejected(SUBTYPES / f"{name}.ontology.yaml", reason, CORPUS)


def test_golden_valid_subtype() -> None:
    source = SUBTYPES / "valid.ontology.yaml"
    result = compile_ontologies([source], with_ancestors=False)
    assert_isomorphic(relative_paths(result.owl, source.parent), Graph().parse(GOLDEN / "valid-subtype.ttl"), "OWL")
    assert_isomorphic(
        relative_paths(result.shapes, source.parent), Graph().parse(GOLDEN / "valid-subtype-shapes.ttl"), "shapes"
    )


# -- SHACL from the ai-memory profile ----------------------------------------------------------------------
def memory(root: Path, name: str, entity: str, ontology: str | None = None) -> None:
    head = f"---\nid: {name}\ntype: episodic\ncreated: 2026-01-15T10:30:00Z\n" + (
        f"ontology:\n  id: {ontology}\n" if ontology else ""
    )
    write_file(root, f"episodic/{name}.md", head + "entity:\n" + entity + "---\nbody\n")


def messages(report: Graph) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for result in report.objects(None, SH.result):
        out.setdefault(str(report.value(result, SH.focusNode)), set()).add(
            str(report.value(result, SH.resultMessage)).split(" (rule from")[0]
        )
    return out


def test_ai_memory_session_shapes(tmp_path: Path) -> None:
    memory(
        tmp_path,
        "good",
        "  entity_type: session\n  session_type: debug\n  summary: s\n  started_at: 2026-01-15T10:30:00Z\n"
        "  strength: 0.5\n  accessCount: 3\n  created_at: '2026-01-15T10:30:00Z'\n",
        ontology="ai-memory",
    )
    memory(
        tmp_path,
        "bad",
        "  entity_type: session\n  session_type: brainstorm\n  accessCount: three\n  created_at: soon\n",
    )
    shapes = compile_ontologies([AI_MEMORY_ONTOLOGY], search_path=[CORPUS]).shapes
    conforms, report, _ = validate(load_bundle(tmp_path).dataset, shacl_graph=shapes, advanced=True)
    assert not conforms
    found = messages(report)
    assert set(found) == {"urn:mif:bad"}
    assert {
        "entity type 'session': required field 'summary' is missing",
        "entity type 'session': field 'session_type' must be one of: debug, work, meeting, exploration, review",
        "entity type 'session': field 'accessCount' must be a whole number",
    } <= found["urn:mif:bad"]
    assert any("created_at" in m for m in found["urn:mif:bad"])


def test_two_versions_of_observation(tmp_path: Path) -> None:
    """research and ai-memory both define `observation`: each memory is checked by the one it names."""
    memory(tmp_path, "ai", "  entity_type: observation\n  variable: x\n", ontology="ai-memory")
    memory(tmp_path, "res", "  entity_type: observation\n  statement: x\n", ontology="research")
    shapes = compile_ontologies([AI_MEMORY_ONTOLOGY, "research"], search_path=[CORPUS]).shapes
    _, report, _ = validate(load_bundle(tmp_path).dataset, shacl_graph=shapes, advanced=True)
    found = messages(report)
    assert found["urn:mif:ai"] == {"entity type 'observation': required field 'statement' is missing"}
    assert "entity type 'observation': the memory field 'citations' is required" in found["urn:mif:res"]


# -- the published vocabulary and the ontology context ----------------------------------------------------
def test_every_published_vocabulary_triple_is_kept() -> None:
    upstream = Dataset(default_union=True)
    upstream.parse(SPEC_DATA / "public" / "ns" / "vocabulary.jsonld", format="json-ld")
    ours = vocabulary()
    published = [(s, p, o) for s, p, o, _ in upstream.quads()]
    assert len(published) > 300
    missing = [t for t in published if t not in ours]
    # xsd:duration is not in the OWL 2 datatype map: these two ranges stay in
    # SHACL (shapes/level3.ttl), docs/ontology.md
    assert sorted(missing) == [(MIF.halfLife, RDFS.range, XSD.duration), (MIF.ttl, RDFS.range, XSD.duration)]


def test_base_type_names_of_the_ontology_context_are_equivalent() -> None:
    context = json.loads((SCHEMA / "ontology" / "ontology.context.jsonld").read_text())
    vocab = vocabulary()
    for base, ours in (("semantic", "SemanticType"), ("episodic", "EpisodicType"), ("procedural", "ProceduralType")):
        theirs = MIF[context["@context"][base].split(":", 1)[1]]
        assert (theirs, OWL.equivalentClass, MIF[ours]) in vocab
