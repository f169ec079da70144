"""SHACL from entity schemas, proven with pyshacl on loaded bundles (the contract with `validate --ontology`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyshacl import validate
from rdflib import Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH

from conftest import FIXTURES, write_file
from mif_rdf import load_bundle
from mif_rdf.core.context import mif_context
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import compile_shapes

CORPUS = FIXTURES / "ontology" / "corpus"
RECALL = CORPUS / "recall.ontology.yaml"


def memory(root: Path, name: str, entity: str, ontology: str | None = None, extra: str = "") -> None:
    head = f"---\nid: {name}\ntype: episodic\ncreated: 2026-01-15T10:30:00Z\n"
    if ontology:
        head += f"ontology:\n  id: {ontology}\n"
    write_file(root, f"episodic/{name}.md", head + "entity:\n" + entity + extra + "---\nbody\n")


@pytest.fixture(scope="module")
def session_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions")
    memory(
        root,
        "good",
        """  entity_type: session
  session_type: debug
  summary: Found the race in the outbox relay
  started_at: 2026-01-15T10:30:00Z
  participants: [ana, ben]
  strength: 0.5
  accessCount: 3
  logged_at: '2026-01-15T10:30:00Z'
  decay_model: linear
""",
        ontology="recall",
    )
    memory(
        root,
        "bad",
        """  entity_type: session
  session_type: brainstorm
  started_at: yesterday
  participants: ben
  accessCount: three
  logged_at: soon
  decay_model: {model: linear}
""",
    )
    memory(root, "other", "  entity_type: unknown-thing\n  summary: 3\n")
    return root


@pytest.fixture(scope="module")
def session_report(session_bundle: Path) -> tuple[bool, Graph, Graph]:
    shapes = compile_shapes([RECALL], search_path=[CORPUS])
    bundle = load_bundle(session_bundle)
    conforms, report, _ = validate(bundle.dataset, shacl_graph=shapes, advanced=True)
    return conforms, report, shapes


def results(report: Graph) -> list[dict[str, object]]:
    out = []
    for result in report.objects(None, SH.result):  # top-level results, not sh:detail
        out.append(
            {
                "focus": report.value(result, SH.focusNode),
                "message": str(report.value(result, SH.resultMessage)),
                "severity": report.value(result, SH.resultSeverity),
                "shape": report.value(result, SH.sourceShape),
                "path": report.value(result, SH.resultPath),
            }
        )
    return out


def test_focus_nodes_are_the_memories_carrying_the_entity_type(session_report: tuple[bool, Graph, Graph]) -> None:
    conforms, report, _ = session_report
    assert not conforms
    found = results(report)
    assert {r["focus"] for r in found} == {URIRef("urn:mif:bad")}  # good conforms, other is no session


@pytest.mark.parametrize(
    "needle, source",
    [
        ("required field 'summary' is missing", "entity type 'session' of ontology 'recall'"),
        ("field 'session_type' must be one of: debug, work, meeting", "entity type 'session' of ontology 'recall'"),
        (
            "field 'started_at' must be a date-time such as 2026-01-15T10:30:00Z",
            "entity type 'session' of ontology 'recall'",
        ),
        # `participants: ben` makes the same triple as `[ben]` (JSON-LD keeps no array form): not in the graph
        ("field 'accessCount' must be a whole number", "trait 'recallable' of ontology 'recall'"),
        ("field 'logged_at' must be a date-time", "trait 'stamped' of ontology 'kit-base'"),
        ("field 'decay_model' must be text", "trait 'fading' of ontology 'recall'"),
    ],
)
def test_wrong_data_gets_an_actionable_report(
    session_report: tuple[bool, Graph, Graph], needle: str, source: str
) -> None:
    _, report, shapes = session_report
    matching = [r for r in results(report) if needle in str(r["message"])]
    assert matching, f"no result says {needle!r}: {[r['message'] for r in results(report)]}"
    for result in matching:
        assert source in str(result["message"])
        assert result["severity"] == SH.Violation
        shape = result["shape"]
        assert shapes.value(shape, MIF.sourceOntology) == Literal(source.rsplit("'", 2)[-2])
        assert str(shapes.value(shape, MIF.sourceFile)).endswith(".yaml")


def test_no_violation_for_conforming_fields(session_report: tuple[bool, Graph, Graph]) -> None:
    _, report, _ = session_report
    messages = " ".join(str(r["message"]) for r in results(report))
    assert "'strength'" not in messages and "'summary' must" not in messages


def test_paths_start_at_the_memory_and_use_the_loaders_field_iris(session_report: tuple[bool, Graph, Graph]) -> None:
    _, _, shapes = session_report
    predicates = set()
    for path in shapes.objects(None, SH.path):
        if (path, RDF.first, None) in shapes:
            steps = list(Collection(shapes, path))
            if steps[0] == MIF.entity and isinstance(steps[1], URIRef):
                predicates.add(steps[1])
    ctx = mif_context()
    for key in ("summary", "session_type", "accessCount", "lastAccessed", "logged_at", "name"):
        assert URIRef(ctx.expand_key(key)[0]) in predicates, key


def test_a_trait_requirement_on_the_memory_and_rules_of_two_versions(tmp_path: Path) -> None:
    """recall and field-notes both define `observation`: each memory is checked by the one it names."""
    root = tmp_path / "b"
    memory(root, "ai", "  entity_type: observation\n  variable: x\n", ontology="recall")
    memory(root, "res", "  entity_type: observation\n  statement: x\n", ontology="field-notes")
    shapes = compile_shapes([RECALL, "field-notes"], search_path=[CORPUS])
    conforms, report, _ = validate(load_bundle(root).dataset, shacl_graph=shapes, advanced=True)
    assert not conforms
    by_focus: dict[str, set[str]] = {}
    for r in results(report):
        by_focus.setdefault(str(r["focus"]), set()).add(str(r["message"]).split(" (rule from")[0])
    assert by_focus["urn:mif:ai"] == {"entity type 'observation': required field 'statement' is missing"}
    assert by_focus["urn:mif:res"] == {
        "entity type 'observation': required field 'variable' is missing",
        "entity type 'observation': required field 'value' is missing",
        "entity type 'observation': the memory field 'citations' is required",  # kit-base's trait `checked`
    }


def test_nested_objects_and_list_items(tmp_path: Path) -> None:
    write_file(
        tmp_path / "o",
        "geo.ontology.yaml",
        """ontology: {id: geo, version: "1.0.0"}
entity_types:
  - name: site
    base: semantic
    schema:
      properties:
        location:
          type: object
          required: [city]
          properties:
            city: {type: string}
            coordinates: {type: object, properties: {latitude: {type: number}}}
        visits:
          type: array
          items: {type: object, properties: {date: {type: string, format: date}}}
""",
    )
    root = tmp_path / "b"
    memory(
        root,
        "ok",
        "  entity_type: site\n  location: {city: Oslo, coordinates: {latitude: 59.9}}\n"
        "  visits: [{date: 2026-01-02}]\n",
    )
    memory(
        root, "nok", "  entity_type: site\n  location: {coordinates: {latitude: north}}\n  visits: [{date: tomorrow}]\n"
    )
    shapes = compile_shapes(["geo"], search_path=[tmp_path / "o"])
    conforms, report, _ = validate(load_bundle(root).dataset, shacl_graph=shapes, advanced=True)
    assert not conforms
    found = results(report)
    assert {r["focus"] for r in found} == {URIRef("urn:mif:nok")}
    messages = " | ".join(str(r["message"]) for r in found)
    assert "field 'location' must have 'city'" in messages
    assert "field 'location.coordinates.latitude' must be a number" in messages
    assert "field 'visits.date' must be a date such as 2026-01-15" in messages  # `date` is the context's xsd:date term


def test_shapes_parse_back_and_are_valid_shacl() -> None:
    shapes = compile_shapes(sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml")), search_path=[CORPUS])
    shacl_shacl = Graph().parse(data=shapes.serialize(format="turtle"), format="turtle")
    # pyshacl checks the shapes graph itself when it loads it; a broken shape raises here
    conforms, _, text = validate(Graph(), shacl_graph=shacl_shacl, advanced=True)
    assert conforms, text
    for shape in shacl_shacl.subjects(RDF.type, SH.NodeShape):
        assert shacl_shacl.value(shape, MIF.sourceOntology) is not None
        for prop in shacl_shacl.objects(shape, SH.property):
            assert (prop, SH.message, None) in shacl_shacl and (prop, SH.severity, SH.Violation) in shacl_shacl
            assert (prop, MIF.sourceFile, None) in shacl_shacl
