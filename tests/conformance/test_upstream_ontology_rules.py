"""The ontology rules and extended types on each published ontology available (issue 28 item 2, spec 4.3).

For each ontology of the corpus, a bundle of memories built from that
ontology's own namespace tree and entity types (tests/ontology_memories.py):
one valid memory per namespace node and per entity type, which must conform,
and mutants of each rule, which must be caught; on both stores.  Memories at
a node that offers one entity type get that type's class in ``<base>#types``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from rdflib import URIRef
from upstream import AI_MEMORY_ONTOLOGY, CORPUS

from mif_rdf import load_bundle
from mif_rdf.ontology import OntologyReference, add_types_graph, bundle_ontologies
from mif_rdf.queries import run_query
from mif_rdf.source.identity import GRAPH_TYPES, graph_iri
from mif_rdf.validation import validate
from mif_rdf.validation.entity_schemas import entity_schema_report
from mif_rdf.validation.ontology_rules import ontology_binding
from mif_rdf.validation.run import shacl_problems, shacl_report
from ontology_memories import build

PUBLISHED = sorted(p.name.removesuffix(".ontology.yaml") for p in CORPUS.glob("*.ontology.yaml"))
RULES = {
    "ontology-namespace",
    "ontology-namespace-type",
    "ontology-entity-type",
    "ontology-relationship-type",
    "ontology-entity-schema",
}


def test_the_corpus_is_there() -> None:
    assert len(PUBLISHED) >= 10 and "mif-base" in PUBLISHED


def corpus_bundle(root: Path, ontology_id: str):
    shutil.copytree(CORPUS, root / ".mif" / "ontologies")
    bound = bundle_ontologies(root, [OntologyReference("x.md", ontology_id)], user_dirs=[])
    assert bound.problems == [], [str(p) for p in bound.problems]
    corpus = build(bound, ontology_id)
    corpus.write(root)
    return corpus


@pytest.mark.parametrize("ontology_id", PUBLISHED)
def test_valid_memories_conform_and_mutants_are_caught(tmp_path: Path, ontology_id: str) -> None:
    corpus = corpus_bundle(tmp_path, ontology_id)
    assert corpus.valid, ontology_id
    reports = {}
    for store in ("memory", "oxigraph"):
        report = validate(load_bundle(tmp_path, store=store, progress=False), 3)
        reports[store] = sorted(json.dumps(p.to_dict(), sort_keys=True, default=str) for p in report.results)
        by_path: dict[str, list] = {}
        for p in report.results:
            if not (
                p.rule == "ill-typed-literal" and p.severity.value == "info"
            ):  # the spec's own date form of citations (a note)
                by_path.setdefault(p.path, []).append(p)
        for relpath in corpus.valid:
            assert [str(p) for p in by_path.get(relpath, [])] == [], relpath
        for relpath, rule in corpus.mutants.items():
            rules = {p.rule for p in by_path.get(relpath, [])}
            assert rule in rules, (relpath, rule, [str(p) for p in by_path.get(relpath, [])])
            also = set()
            namespace = yaml.safe_load((tmp_path / relpath).read_text(encoding="utf-8").split("---")[1])["namespace"]
            if (
                rule == "ontology-namespace" and "/" not in namespace
            ):  # '_semanticqx' is also no reserved prefix (spec 10.2)
                assert "reserved-prefix-unknown" in rules, (relpath, rules)
                also.add("reserved-prefix-unknown")
            assert rules <= RULES | also, (relpath, rules)
    assert reports["memory"] == reports["oxigraph"]


@pytest.mark.parametrize("ontology_id", PUBLISHED)
def test_entity_schema_findings_equal_the_whole_sparql_target_run(tmp_path: Path, ontology_id: str) -> None:
    """The payload-only run (engine or pyshacl) finds what pyshacl's SHACL-AF run over the whole dataset finds."""
    corpus_bundle(tmp_path, ontology_id)
    bundle = load_bundle(tmp_path, progress=False)
    bound = ontology_binding(bundle, 3, [], [], [])
    report, shapes = entity_schema_report(bound, bundle)
    fast = sorted(str(p) for p in shacl_problems(bundle, report, 3, shapes))
    assert fast == sorted(
        str(p) for p in shacl_problems(bundle, shacl_report(bundle.dataset, shapes, "pyshacl"), 3, shapes)
    )


@pytest.mark.parametrize("ontology_id", PUBLISHED)
def test_namespace_nodes_with_one_entity_type_type_their_memories(tmp_path: Path, ontology_id: str) -> None:
    corpus = corpus_bundle(tmp_path, ontology_id)
    bundle = load_bundle(tmp_path, progress=False)
    add_types_graph(bundle, user_dirs=[])
    types = URIRef(graph_iri(bundle.base_iri, GRAPH_TYPES))
    rows = run_query(
        bundle.dataset, f"SELECT ?path ?class WHERE {{ GRAPH <{types}> {{ ?m a ?class }} ?m mif:path ?path }}"
    )
    nodes = {str(path): str(cls) for path, cls in rows if "/node-" in str(path)}  # one memory per namespace node
    assert nodes == corpus.classes


def test_the_corpus_maps_namespace_paths_to_extended_types() -> None:
    """Not vacuous: most published domain ontologies type some of their namespace nodes."""
    typed = {}
    for ontology_id in PUBLISHED:
        bound = bundle_ontologies(CORPUS, [OntologyReference("x.md", ontology_id)], user_dirs=[], path_dirs=[CORPUS])
        typed[ontology_id] = len(build(bound, ontology_id).classes)
    assert sum(1 for n in typed.values() if n) >= 6 and typed["software-engineering"] >= 3, typed


def test_the_ai_memory_profile_binds_from_the_bundle(tmp_path: Path) -> None:
    """The ai-memory profile's ontology (not in the corpus folder) found in a bundle's .mif/ontologies/domain/."""
    shutil.copytree(CORPUS, tmp_path / ".mif" / "ontologies")  # it extends shared-traits
    target = tmp_path / ".mif" / "ontologies" / "domain"
    target.mkdir(parents=True)
    shutil.copy(AI_MEMORY_ONTOLOGY, target / "ai-memory.ontology.yaml")
    bound = bundle_ontologies(tmp_path, [OntologyReference("x.md", "ai-memory")], user_dirs=[])
    assert bound.view("ai-memory") is not None and bound.problems == []
