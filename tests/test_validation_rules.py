"""Each SHACL rule and bundle rule, proved by a memory that breaks exactly that rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURE_BUNDLES, write_file
from conftest import validate_but_spec_dates as validate
from mif_rdf import load_bundle
from mif_rdf.core.errors import Severity
from mif_rdf.source.markdown import render_memory
from mif_rdf.source.yamlio import load_yaml
from mif_rdf.validation import validate as validate_all
from mif_rdf.validation.shapes import rules

TARGET_ID = "11111111-1111-4111-8111-111111111111"
MEMORY_ID = "22222222-2222-4222-8222-222222222222"

#: A memory that conforms at level 3 and uses every field family the shapes check.
BASE = f"""\
id: {MEMORY_ID}
type: semantic
created: 2026-01-15T10:30:00Z
modified: 2026-01-20T14:22:00Z
namespace: _semantic/decisions
title: Valid memory
tags: [a, b]
aliases: [Alias]
summary: A short summary.
compressed_at: 2026-01-24T10:00:00Z
entities:
  - "@type": EntityReference
    entity: {{"@id": urn:mif:entity:person:jane-doe}}
    entityType: Person
    name: Jane Doe
relationships:
  - type: derived-from
    target: /target.md
    strength: 0.5
temporal:
  validFrom: 2026-01-15T00:00:00Z
  validUntil: null
  recordedAt: 2026-01-15T10:30:00Z
  ttl: P90D
  decay: {{model: exponential, halfLife: P7D, currentStrength: 0.85, lastReinforced: 2026-01-18T09:00:00Z}}
  accessCount: 5
  lastAccessed: 2026-01-20T14:22:00Z
provenance:
  "@type": prov:Entity
  sourceType: user_explicit
  trustLevel: user_stated
  confidence: 0.95
  wasGeneratedBy: {{"@id": urn:mif:activity:a1}}
  wasAttributedTo: {{"@id": urn:mif:entity:person:jane-doe}}
  wasDerivedFrom: {{"@id": urn:mif:conversation:c1}}
embedding: {{model: text-embedding-3-small, dimensions: 1536, normalized: true, vectorUri: "urn:mif:vector:{MEMORY_ID}"}}
citations:
  - "@type": Citation
    citationType: article
    title: A paper
    url: https://example.com/paper
    citationRole: supports
    author: Jane Smith
    date: "2024-06-15"
    accessed: "2026-01-20"
    relevance: 0.9
    note: Short note.
documents:
  - "@type": DocumentReference
    url: https://example.com/doc.pdf
    byteLength: 10
    retrievedAt: 2026-01-20T10:00:00Z
"""  # noqa: E501
BODY = "\n# Valid memory\n\nText.\n\n## Relationships\n\n- derived-from [Target](/target.md)\n"
TARGET = f"---\nid: {TARGET_ID}\ntype: episodic\ncreated: 2026-01-01T00:00:00Z\n---\n\nThe source.\n"


def _bundle(tmp_path: Path, frontmatter: dict, body: str = BODY):
    write_file(tmp_path, "target.md", TARGET)
    write_file(tmp_path, "memory.md", render_memory(frontmatter, body))
    return load_bundle(tmp_path)


def _base() -> dict:
    return load_yaml(BASE).data


def test_the_base_memory_conforms_at_level_3(tmp_path: Path) -> None:
    report = validate_all(_bundle(tmp_path, _base()), level=3)
    # the spec's own `accessed: 2026-01-20` under the context's xsd:dateTime: one note, nothing for the author to fix
    assert [(r.rule, r.key, r.severity.value) for r in report.results] == [
        ("ill-typed-literal", "citations[0].accessed", "info")
    ], report.to_text()


def _set(path: str, value):
    def change(fm: dict) -> None:
        *parents, last = path.split(".")
        node = fm
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value

    return change


_DELETE = object()
E, W = Severity.ERROR, Severity.WARNING

#: rule -> (change to the base frontmatter, expected key path, severity)
CASES = {
    "okf-type-required": (_set("type", _DELETE), "type", E),
    "type-base-value": (_set("type", "decision"), "type", E),
    "created-required": (_set("created", _DELETE), "created", E),
    "created-datetime": (_set("created", "2026-01-15"), "created", E),
    "modified-datetime": (_set("modified", "yesterday"), "modified", E),
    "namespace-path": (_set("namespace", "has space/x"), "namespace", E),
    "title-text": (_set("title", 42), "title", E),
    "tags-text": (_set("tags", ["a", 5]), "tags", E),
    "aliases-text": (_set("aliases", [True]), "aliases", E),
    "summary-length": (_set("summary", "x" * 501), "summary", E),
    "compressed-at-datetime": (_set("compressed_at", "soon"), "compressed_at", E),
    "compressedAt-datetime": (_set("compressedAt", "2026-13-01T00:00:00Z"), "compressedAt", E),
    "entity-reference-type": (_set("entities.0.@type", "Reference"), "entities[0].@type", E),
    "entity-reference-entity": (_set("entities.0.entity", _DELETE), "entities[0].entity", E),
    "entity-reference-entity-urn": (_set("entities.0.entity", {"@id": "urn:other:jane"}), "entities[0].entity", E),
    "entity-reference-entitytype": (_set("entities.0.entityType", "Not A Type"), "entities[0].entityType", E),
    "entity-reference-name": (_set("entities.0.name", 7), "entities[0].name", E),
    "relationships-objects": (_set("relationships", ["relates-to /target.md"]), "relationships", E),
    "relationship-type-required": (_set("relationships.0.type", _DELETE), "relationships[0].type", E),
    "relationship-target-required": (_set("relationships.0.target", _DELETE), "relationships[0].target", E),
    "relationship-target-iri": (_set("relationships.0.target", "http://bad host/x"), "relationships[0].target", E),
    "relationship-type-kebab": (_set("relationships.0.type", "DerivedFrom"), "relationships[0].type", E),
    "relationship-strength-range": (_set("relationships.0.strength", 1.5), "relationships[0].strength", E),
    "temporal-validFrom": (_set("temporal.validFrom", "2026-01-15"), "temporal.validFrom", E),
    "temporal-validUntil": (_set("temporal.validUntil", "never"), "temporal.validUntil", E),
    "temporal-recordedAt": (_set("temporal.recordedAt", "2026"), "temporal.recordedAt", E),
    "temporal-lastAccessed": (_set("temporal.lastAccessed", "2026-01-20 14:22"), "temporal.lastAccessed", E),
    "temporal-ttl": (_set("temporal.ttl", "90 days"), "temporal.ttl", E),
    "temporal-accessCount": (_set("temporal.accessCount", -1), "temporal.accessCount", E),
    "decay-model": (_set("temporal.decay.model", "cubic"), "temporal.decay.model", E),
    "decay-halfLife": (_set("temporal.decay.halfLife", "PT"), "temporal.decay.halfLife", E),
    "decay-currentStrength": (_set("temporal.decay.currentStrength", 1.2), "temporal.decay.currentStrength", E),
    "decay-strength": (_set("temporal.decay.strength", -0.1), "temporal.decay.strength", E),
    "decay-lastReinforced": (
        _set("temporal.decay.lastReinforced", "2026-02-30T00:00:00Z"),
        "temporal.decay.lastReinforced",
        E,
    ),
    "provenance-sourceType": (_set("provenance.sourceType", "hearsay"), "provenance.sourceType", E),
    "provenance-trustLevel": (_set("provenance.trustLevel", "total"), "provenance.trustLevel", E),
    "provenance-confidence": (_set("provenance.confidence", 2), "provenance.confidence", E),
    "prov-wasGeneratedBy": (_set("provenance.wasGeneratedBy", {"@value": "x"}), "provenance.wasGeneratedBy", E),
    "prov-wasAttributedTo": (_set("provenance.wasAttributedTo", "not an iri"), "provenance.wasAttributedTo", E),
    "prov-wasDerivedFrom": (_set("provenance.wasDerivedFrom", 5), "provenance.wasDerivedFrom", E),
    "embedding-dimensions": (_set("embedding.dimensions", 0), "embedding.dimensions", E),
    "embedding-model": (_set("embedding.model", 3), "embedding.model", E),
    "embedding-normalized": (_set("embedding.normalized", "yes please"), "embedding.normalized", E),
    "embedding-vectorUri": (_set("embedding.vectorUri", "has space"), "embedding.vectorUri", E),
    "citation-type": (_set("citations.0.@type", "Reference"), "citations[0].@type", E),
    "citation-title": (_set("citations.0.title", ""), "citations[0].title", E),
    "citation-url": (_set("citations.0.url", _DELETE), "citations[0].url", E),
    "citation-url-form": (_set("citations.0.url", "not a url"), "citations[0].url", E),
    "citation-citationType-required": (_set("citations.0.citationType", _DELETE), "citations[0].citationType", E),
    "citation-citationType-value": (_set("citations.0.citationType", "blogpost"), "citations[0].citationType", W),
    "citation-citationRole-required": (_set("citations.0.citationRole", _DELETE), "citations[0].citationRole", E),
    "citation-citationRole-value": (_set("citations.0.citationRole", "agrees"), "citations[0].citationRole", W),
    "citation-date": (_set("citations.0.date", "June 2024"), "citations[0].date", W),
    "citation-accessed": (_set("citations.0.accessed", "2026-01-20T10:00:00Z"), "citations[0].accessed", W),
    "citation-relevance": (_set("citations.0.relevance", 3), "citations[0].relevance", W),
    "citation-note": (_set("citations.0.note", "n" * 1001), "citations[0].note", W),
    "citation-author": (_set("citations.0.author", 42), "citations[0].author", W),
    "document-type": (_set("documents.0.@type", "Doc"), "documents[0].@type", E),
    "document-byteLength": (_set("documents.0.byteLength", -5), "documents[0].byteLength", E),
    "document-retrievedAt": (_set("documents.0.retrievedAt", "today"), "documents[0].retrievedAt", E),
    "Document": (_set("documents.0.url", _DELETE), "documents[0]", E),
    "provenance-external-trust": (_set("provenance.sourceType", "external_import"), "provenance", W),
    "entities-objects": (_set("entities", ["Jane Doe"]), "entities", E),
    "temporal-object": (_set("temporal", "always"), "temporal", E),
    "provenance-object": (_set("provenance", "a friend"), "provenance", E),
    "decay-object": (_set("temporal.decay", "exponential"), "temporal.decay", E),
    "embedding-object": (_set("embedding", "text-embedding-3-small"), "embedding", E),
    "citations-objects": (_set("citations", ["https://example.com"]), "citations", E),
    "documents-objects": (_set("documents", ["doc.pdf"]), "documents", E),
}
#: Shapes that only group property shapes (no constraint of their own to break).
GROUPING = {"Memory", "Relationship", "EntityReference", "Temporal", "Decay", "Provenance", "Embedding", "Citation"}
#: Rules a single memory cannot break on its own once loaded, proved below by other means.
ELSEWHERE = {"type-single", "content-required"}


def test_every_rule_has_a_case() -> None:
    names = {rule.name for rule in rules(3).values()}
    assert names - GROUPING - ELSEWHERE == set(CASES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_breaking_one_rule_gives_exactly_that_result(tmp_path: Path, rule: str) -> None:
    change, key, severity = CASES[rule]
    frontmatter = _base()
    change(frontmatter)
    body = BODY if frontmatter.get("relationships") == _base()["relationships"] else "\nText.\n"
    if (
        rule.startswith("relationship")
        and "type" in frontmatter["relationships"][0]
        and isinstance(frontmatter["relationships"][0].get("target"), str)
    ):
        rel = frontmatter["relationships"][0]
        body = f"\nText.\n\n## Relationships\n\n- {rel['type']} [T]({rel['target']})\n"
    report = validate(_bundle(tmp_path, frontmatter, body), level=3)
    found = [
        (r.rule, r.key, r.severity)
        for r in report.results
        if r.rule not in ("link", "okf-relationship-mirror", "projection")
    ]
    assert found == [(rule, key, severity)], report.to_text()
    (result,) = [r for r in report.results if r.rule == rule]
    assert result.path == "memory.md" and result.message
    assert result.level == rules(3)[next(k for k, v in rules(3).items() if v.name == rule)].level


@pytest.mark.parametrize(
    "namespace", ["_shared/acme+bigcorp/integration-api", "_semantic/decisions", "acme-corp/team_a"]
)
def test_namespaces_written_as_the_spec_writes_them_conform(tmp_path: Path, namespace: str) -> None:
    """Spec 10.2/10.4 name bilateral namespaces with a '+' (the upstream schema's pattern has none; the spec wins)."""
    frontmatter = _base()
    frontmatter["namespace"] = namespace
    report = validate(_bundle(tmp_path, frontmatter), level=3)
    assert not [r for r in report.results if r.rule == "namespace-path"], report.to_text()


def test_content_must_not_be_empty(tmp_path: Path) -> None:
    frontmatter = _base()
    frontmatter.pop("relationships")
    report = validate(_bundle(tmp_path, frontmatter, ""), level=1)
    assert [(r.rule, r.key) for r in report.results] == [("content-required", "content")]


def test_a_memory_has_one_type(tmp_path: Path) -> None:
    """Two conceptType values can only come from RDF built elsewhere (YAML keys are unique)."""
    from rdflib import URIRef

    bundle = _bundle(tmp_path, _base())
    bundle.graph(MEMORY_ID).add(
        (
            URIRef(f"urn:mif:{MEMORY_ID}"),
            URIRef("https://mif-spec.dev/ns/conceptType"),
            URIRef("https://mif-spec.dev/ns/EpisodicType"),
        )
    )
    report = validate(bundle, level=1)
    assert [(r.rule, r.key) for r in report.results] == [("type-single", "type")]


# -- levels -------------------------------------------------------------------------------
def test_levels_include_the_levels_below(tmp_path: Path) -> None:
    frontmatter = _base()
    frontmatter["created"] = "2026-01-15"  # level 1
    frontmatter["namespace"] = "bad space"  # level 2
    frontmatter["temporal"]["decay"]["model"] = "cubic"  # level 3
    bundle = _bundle(tmp_path, frontmatter)
    by_level = {level: {r.rule for r in validate(bundle, level=level).results} for level in (1, 2, 3)}
    assert by_level[1] == {"created-datetime"}
    assert by_level[2] == {"created-datetime", "namespace-path"}
    assert by_level[3] == {"created-datetime", "namespace-path", "decay-model"}


# -- bundle rules ----------------------------------------------------------------------------
def test_mirror_missing_in_body_and_in_frontmatter(tmp_path: Path) -> None:
    body = "\nText.\n\n## Relationships\n\n- relates-to [Other](/target.md)\n"
    report = validate(_bundle(tmp_path, _base(), body), level=3)
    mirror = sorted((r.key, r.severity) for r in report.results if r.rule == "okf-relationship-mirror")
    assert mirror == [("relationships", E), ("relationships[0]", E)]
    body_side = next(r for r in report.results if r.key == "relationships")
    assert "relates-to" in body_side.message and body_side.line is not None
    text = (tmp_path / "memory.md").read_text().split("\n")
    assert text[body_side.line - 1] == "- relates-to [Other](/target.md)"
    front_side = next(r for r in report.results if r.key == "relationships[0]")
    assert "derived-from" in front_side.message and "/target.md" in front_side.message


@pytest.mark.parametrize(
    ("verdict", "strict", "expected"),
    [
        ("good", False, []),
        ("bad", False, [("observation.md", W)]),
        ("bad", True, [("observation.md", E)]),
    ],
)
def test_temporal_fixtures(verdict: str, strict: bool, expected: list) -> None:
    check_temporal_fixture(FIXTURE_BUNDLES[f"temporal-{verdict}"], verdict, strict, expected)


def check_temporal_fixture(root: Path, verdict: str, strict: bool, expected: list) -> None:
    """A derived-from source created after the memory is a warning (an error with strict_temporal)."""
    bundle = load_bundle(root)
    report = validate(bundle, level=3, strict_temporal=strict)
    found = [(r.path, r.severity) for r in report.results if r.rule == "temporal-derivation"]
    assert found == expected
    assert report.conforms is (not strict or verdict == "good")
    if found:
        (result,) = [r for r in report.results if r.rule == "temporal-derivation"]
        assert result.key == "relationships[0].target" and "session.md" in result.message


def test_duplicate_ids_are_in_the_report(tmp_path: Path) -> None:
    write_file(tmp_path, "a.md", TARGET)
    write_file(tmp_path, "b.md", TARGET)
    report = validate(load_bundle(tmp_path), level=1)
    (dup,) = [r for r in report.results if r.rule == "duplicate-id"]
    assert dup.path == "b.md" and "a.md" in dup.message and not report.conforms


def test_legacy_bundle_gets_clear_problems() -> None:
    check_legacy_bundle_gets_clear_problems(FIXTURE_BUNDLES["legacy-0.1"])


def check_legacy_bundle_gets_clear_problems(root: Path) -> None:
    report = validate(load_bundle(root), level=3)
    rules_found = {r.rule for r in report.results}
    assert {"okf-wiki-link", "legacy", "id"} <= rules_found
    assert not report.conforms


# -- the valid fixtures conform at their level ------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("core", 3),
        ("properties", 3),
        ("temporal-good", 3),
        ("examples", 3),
    ],
)
def test_valid_bundles_conform(name: str, level: int) -> None:
    check_bundle_conforms(FIXTURE_BUNDLES[name], level)


def check_bundle_conforms(root: Path, level: int) -> None:
    report = validate(load_bundle(root), level=level)
    assert report.conforms, report.to_text()
    assert {r.rule for r in report.results} <= {"link"}


@pytest.mark.parametrize(
    ("filename", "level"),
    [
        ("level-1-minimal.md", 1),
        ("level-2-standard.md", 2),
        ("level-3-citations.md", 3),
        ("level-3-full.md", 3),
    ],
)
def test_level_examples_conform_at_their_level(tmp_path: Path, filename: str, level: int) -> None:
    check_memory_conforms_at_its_level(FIXTURE_BUNDLES["levels"] / filename, level, tmp_path)


def check_memory_conforms_at_its_level(source: Path, level: int, tmp_path: Path) -> None:
    """A memory alone in a bundle conforms at its level; its targets outside are only link warnings."""
    (tmp_path / source.name).write_bytes(source.read_bytes())
    report = validate(load_bundle(tmp_path), level=level)
    assert report.conforms, report.to_text()
    # their targets live outside the example folder; their hashes are truncated digests (noted, not checked)
    assert {(r.rule, r.severity) for r in report.results} <= {("link", W), ("integrity", Severity.INFO)}


def test_report_formats(tmp_path: Path) -> None:
    frontmatter = _base()
    frontmatter["temporal"]["decay"]["model"] = "cubic"
    report = validate(_bundle(tmp_path, frontmatter), level=3)
    data = json.loads(report.to_json())
    assert data == json.loads(json.dumps(report.to_dict(), default=str))
    assert data["conforms"] is False and data["counts"]["error"] == 1
    (result,) = data["results"]
    assert result == {
        "path": "memory.md",
        "message": result["message"],
        "severity": "error",
        "key": "temporal.decay.model",
        "rule": "decay-model",
        "value": "cubic",
        "level": 3,
    }
    text = report.to_text()
    assert "memory.md" in text and "temporal.decay.model" in text and "cubic" in text and "decay-model" in text
    graph = report.report_graph()
    from rdflib.namespace import SH

    assert (None, SH.conforms, None) in graph and len(list(graph.subjects(SH.resultSeverity, None))) == 1


# -- ontology shapes (validate --ontology) ----------------------------------------------------------
#: An ontology of the suite's own: a session entity type with an enum field, over mif-base.
FIELD_WORK_ONTOLOGY = """\
ontology:
  id: field-work
  version: "1.0.0"
  extends: [mif-base]
entity_types:
  - name: session
    base: episodic
    schema:
      required: [session_type, summary]
      properties:
        session_type:
          type: string
          enum: [debug, inspection, calibration]
        summary:
          type: string
"""


def test_ontology_shapes_join_validation(tmp_path: Path) -> None:
    profile = write_file(tmp_path / "ontologies", "field-work.ontology.yaml", FIELD_WORK_ONTOLOGY)
    check_ontology_shapes_join_validation(tmp_path / "bundle", profile, "field-work", [tmp_path / "ontologies"])


def check_ontology_shapes_join_validation(
    tmp_path: Path, profile: Path, ontology_id: str, search_path: list[Path]
) -> None:
    """An enum violation of an ontology's entity schema is an error naming the file, key and ontology."""
    from mif_rdf.cli.main import main

    session = {
        "id": "s1",
        "type": "episodic",
        "created": "2026-01-15T10:30:00Z",
        "entity": {"name": "Debug", "entity_type": "session", "session_type": "karaoke", "summary": "x"},
    }
    write_file(tmp_path, "s1.md", render_memory(session, "\nA session.\n"))
    plain = validate(load_bundle(tmp_path), level=1)
    assert plain.conforms
    report = validate(load_bundle(tmp_path), level=1, ontologies=[str(profile)], search_path=search_path)
    (finding,) = [r for r in report.results if r.rule and r.rule.startswith("ontology")]
    assert (finding.path, finding.key, finding.severity, finding.rule) == (
        "s1.md",
        "entity.session_type",
        E,
        "ontology-entity-schema",
    )
    assert finding.value == "karaoke" and ontology_id in finding.message
    paths = [arg for folder in search_path for arg in ("--path", str(folder))]
    assert main(["validate", str(tmp_path), "--level", "1", "--ontology", str(profile), *paths]) == 1
