"""The shipped mif: vocabulary and mif-base: covering every mif:
term we write (upstream consistency: tests/conformance)."""

from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import OWL, RDF

from conftest import FIXTURES, REPO
from mif_rdf.core.context import MIF_CONTEXT_URL, MIF_NS, context_document, extension_context, mif_context
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import builtin_dir, compile_ontologies, vocabulary

SPEC_8_2 = {  # spec 8.2: type, inverse (None: symmetric)
    "relates-to": None,
    "derived-from": "derives",
    "supersedes": "superseded-by",
    "conflicts-with": None,
    "part-of": "contains",
    "implements": "implemented-by",
    "uses": "used-by",
    "created": "created-by",
    "mentioned-in": "mentions",
}


def declared() -> set[URIRef]:
    return {s for s in vocabulary().subjects(RDF.type, None) if isinstance(s, URIRef)}


def _context_iris() -> set[str]:
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith("mif:"):
            found.add(MIF_NS + value[4:])

    walk(context_document(MIF_CONTEXT_URL))
    walk(extension_context())
    return {iri for iri in found if iri != MIF_NS}


def test_every_mif_term_of_the_contexts_is_declared() -> None:
    terms, known = _context_iris(), declared()
    assert len(terms) > 100
    missing = sorted(t for t in terms if URIRef(t) not in known)
    assert not missing, missing
    # the OWL property kinds follow the contexts' coercions
    ctx = mif_context()
    assert (URIRef(ctx.expand_key("validFrom")[0]), RDF.type, OWL.DatatypeProperty) in vocabulary()
    assert (MIF.entity, RDF.type, OWL.ObjectProperty) in vocabulary()


def test_every_mif_term_the_loader_writes_is_declared(example_bundle) -> None:
    """Besides context terms: the links graph (paths, locations, core relationship edges) and the layout graph."""
    written = {p for _, p, _ in example_bundle.links if str(p).startswith(MIF_NS)}
    assert {MIF.path, MIF.location, MIF["part-of"], MIF["created-by"]} <= written
    written |= {p for _, p, _ in example_bundle.dataset.graph(URIRef(example_bundle.layout_graph_iri))}
    assert MIF.authoredFrontmatter in written
    known = declared()
    assert not sorted(p for p in written if p not in known)


def test_every_mif_term_the_compiler_writes_is_declared() -> None:
    corpus = FIXTURES / "ontology" / "corpus"
    result = compile_ontologies(
        sorted(p.name.split(".")[0] for p in corpus.glob("*.ontology.yaml")), search_path=[corpus]
    )
    fields = (
        set(result.owl.subjects(RDF.type, OWL.DatatypeProperty))
        | set(result.owl.subjects(RDF.type, OWL.ObjectProperty))
        | set(result.owl.subjects(RDF.type, RDF.Property))
    )
    used = {p for graph in (result.owl, result.shapes) for _, p, _ in graph} | set(result.owl.objects(None, RDF.type))
    used |= set(result.owl.objects(None, URIRef("http://www.w3.org/2000/01/rdf-schema#subClassOf")))
    annotations = set(result.owl.subjects(RDF.type, OWL.AnnotationProperty))  # YAML keys kept as mifo: annotations
    assert URIRef(MIF_NS + "ontology#source_vocab") in annotations
    known = declared() | fields | annotations
    missing = sorted(str(t) for t in used if str(t).startswith(MIF_NS) and t not in known)
    assert not missing, missing


def test_core_relationship_types_match_spec_8_2_and_mif_base() -> None:
    vocab = vocabulary()
    base = compile_ontologies(["mif-base"]).owl
    for name, inverse in SPEC_8_2.items():
        iri = MIF[name]
        for graph in (vocab, base):
            assert (iri, RDF.type, OWL.ObjectProperty) in graph
            if inverse is None:
                assert (iri, RDF.type, OWL.SymmetricProperty) in graph, name
            else:
                assert (iri, OWL.inverseOf, MIF[inverse]) in graph, name


def test_base_type_names_of_the_two_contexts_are_equivalent() -> None:
    """The MIF context names mif:SemanticType, the upstream ontology context mif:SemanticMemory (checked against
    that context in tests/conformance)."""
    vocab = vocabulary()
    for theirs, ours in (
        ("SemanticMemory", "SemanticType"),
        ("EpisodicMemory", "EpisodicType"),
        ("ProceduralMemory", "ProceduralType"),
    ):
        assert (MIF[theirs], OWL.equivalentClass, MIF[ours]) in vocab


def test_ontologies_readme_lists_the_shipped_files() -> None:
    readme = (REPO / "ontologies" / "README.md").read_text(encoding="utf-8")
    shipped = sorted(p.name for p in builtin_dir().iterdir() if p.name != "README.md")
    assert shipped == ["mif-base.ontology.yaml", "mif-vocabulary.ttl"]
    for name in shipped:
        assert name in readme
