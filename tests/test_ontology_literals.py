"""No ill-typed literal in any compiled OWL or SHACL, and owlrl's closure runs on every compiled test ontology.

The MIF context types some keys (``strength`` is an ``xsd:decimal`` term): an
entity field of that name declared as text must not make the compiler write
``"weak"^^xsd:decimal`` (owlrl stops on it, validation rejects valid data).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import owlrl
import pytest
from pyshacl import validate
from rdflib import Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDFS, SH, XSD

from conftest import FIXTURES, REPO, ill_typed_literals, write_file
from mif_rdf import load_bundle
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.fields import field_spec, fits

ONTOLOGIES = FIXTURES / "ontology"
CORPUS = ONTOLOGIES / "corpus"
#: every ontology the tests compile from files of their own
COMPILED = (
    ["mif-base"]
    + sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml"))
    + [str(ONTOLOGIES / "spec-traits.ontology.yaml")]
    + [str(ONTOLOGIES / "subtype_of" / f"{name}.ontology.yaml") for name in ("valid", "extended")]
)
GRAFT = URIRef("https://mif-spec.dev/ontologies/rich/graft")


def test_the_scan_finds_an_ill_typed_literal() -> None:
    """The oracle can fail: rdflib's and owlrl's readers both reject these."""
    graph = Graph()
    for lexical, datatype in (
        ("weak", XSD.decimal),
        ("strong", XSD.decimal),
        ("soon", XSD.dateTime),
        ("0.5", XSD.decimal),
    ):
        graph.add((URIRef("urn:x"), URIRef(f"urn:p:{lexical}"), Literal(lexical, datatype=datatype)))
    assert sorted(str(t) for t in ill_typed_literals(graph)) == ["soon", "strong", "weak"]


@pytest.mark.parametrize("ref", COMPILED, ids=lambda r: Path(r).name)
def test_no_ill_typed_literal_in_any_compiled_output(ref: str) -> None:
    result = compile_ontologies([ref], search_path=[CORPUS])
    for graph in (result.owl, result.shapes):
        back = Graph().parse(data=graph.serialize(format="nt"), format="nt")  # as a consumer reads it
        assert not ill_typed_literals(back), ill_typed_literals(back)


@pytest.mark.parametrize("ref", COMPILED, ids=lambda r: Path(r).name)
def test_owlrl_closure_runs_on_each_compiled_ontology(ref: str) -> None:
    owl = compile_ontologies([ref], search_path=[CORPUS]).owl
    graph = Graph().parse(data=owl.serialize(format="nt"), format="nt")
    before = len(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
    assert len(graph) > before


def typed_terms() -> dict[str, str]:
    """Every key the pinned MIF context types with an XSD datatype (top level and scoped)."""
    found: dict[str, str] = {}

    def walk(context: dict) -> None:
        for key, value in context.items():
            if isinstance(value, dict):
                if str(value.get("@type", "")).startswith("xsd:"):
                    found.setdefault(key, value["@type"])
                if isinstance(value.get("@context"), dict):
                    walk(value["@context"])

    walk(json.loads((REPO / "context" / "mif-context.jsonld").read_text(encoding="utf-8"))["@context"])
    return found


DECLARED = {"string": ["weak", "2026-01-15T10:30:00Z", "P30D"], "integer": [3], "number": [1.5], "boolean": [True]}


def test_no_ill_typed_literal_for_any_typed_term_and_declared_type(tmp_path: Path) -> None:
    """Each typed key of the MIF context as a field of every JSON type, with and without an enum."""
    terms = typed_terms()
    assert {
        "strength": "xsd:decimal",
        "created": "xsd:dateTime",
        "accessCount": "xsd:integer",
        "normalized": "xsd:boolean",
    }.items() <= terms.items()
    entities = []
    for key in terms:
        for kind, values in DECLARED.items():
            entities.append(
                {"name": f"{key}-{kind}", "base": "semantic", "schema": {"properties": {key: {"type": kind}}}}
            )
            entities.append(
                {
                    "name": f"{key}-{kind}-enum",
                    "base": "semantic",
                    "schema": {"properties": {key: {"type": kind, "enum": values}}},
                }
            )
    path = write_file(
        tmp_path, "typed.ontology.yaml", json.dumps({"ontology": {"id": "typed"}, "entity_types": entities})
    )
    result = compile_ontologies([path])
    for graph in (result.owl, result.shapes):
        back = Graph().parse(data=graph.serialize(format="nt"), format="nt")
        assert not ill_typed_literals(back), ill_typed_literals(back)


def test_an_enum_under_a_decimal_term_is_typed_by_its_declared_type() -> None:
    result = compile_ontologies(["rich"], search_path=[CORPUS])
    owl, shapes = result.owl, result.shapes
    ranges = {}
    for node in owl.objects(GRAFT, RDFS.subClassOf):
        datarange = owl.value(node, OWL.allValuesFrom)
        if datarange is not None:
            ranges[owl.value(node, OWL.onProperty)] = list(Collection(owl, owl.value(datarange, OWL.oneOf)))
    assert ranges[MIF.strength] == [Literal("weak"), Literal("moderate"), Literal("strong")]  # xsd:string, not decimal
    assert ranges[MIF.vigour] == [Literal(1), Literal(2), Literal(3)]  # declared integer
    assert ranges[MIF.rootstock] == [Literal("M9"), Literal("M26")]
    rules = [p for p in shapes.subjects(SH.name, Literal("strength"))]
    assert any(
        shapes.value(r, SH.pattern) == Literal("^(weak|moderate|strong)$")
        and shapes.value(r, SH.nodeKind) == SH.Literal
        for r in rules
    )
    assert not any((r, SH["in"], None) in shapes or (r, SH.datatype, None) in shapes for r in rules)
    assert any(
        "field 'strength' is declared {enum: [weak, moderate, strong], type: string}, but the MIF context types "
        "'strength'"
        in str(w)
        and "xsd:decimal" in str(w)
        for w in result.warnings
    )


@pytest.mark.parametrize(
    "types, enum, datatype, expected",
    [
        (["number"], [], XSD.decimal, True),
        (["integer"], [1, 2], XSD.decimal, True),
        (["string"], [], XSD.decimal, False),
        ([], ["weak"], XSD.decimal, False),
        (["number"], [True], XSD.decimal, False),  # a JSON boolean is no number
        (["string"], ["2026-01-15T10:30:00Z"], XSD.dateTime, True),
        (["string"], ["soon"], XSD.dateTime, False),
        (["boolean"], [True], XSD.boolean, True),
        (["integer"], [], XSD.boolean, False),
        (["string", "null"], [], XSD.duration, True),
    ],
)
def test_which_declared_types_fit_a_terms_datatype(
    types: list[str], enum: list, datatype: URIRef, expected: bool
) -> None:
    assert fits(types, enum, datatype) is expected


def test_a_number_under_the_decimal_term_keeps_its_datatype_rule_and_a_mapping_is_a_node() -> None:
    spec = field_spec("strength", {"type": "number"})
    assert spec.value.datatypes == (XSD.decimal,) and spec.value.written_as is None
    mapping = field_spec("strength", {"type": "object", "properties": {"grade": {"type": "string"}}})  # JSON-LD: a node
    assert mapping.value.node_kind == SH.BlankNodeOrIRI and [n.name for n in mapping.value.nested] == ["grade"]


def memory(root: Path, name: str, strength: str) -> None:
    write_file(
        root,
        f"semantic/{name}.md",
        f"""---
id: {name}
type: semantic
created: 2026-01-15T10:30:00Z
ontology:
  id: rich
entity:
  entity_type: graft
  strength: {strength}
---
A graft.
""",
    )


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mif_rdf.cli", *args], capture_output=True, text=True, check=False)


def test_cli_validate_and_owlrl_reasoning_accept_an_enum_value_under_the_decimal_term(tmp_path: Path) -> None:
    bundle = tmp_path / "grafts"
    memory(bundle, "g1", "weak")
    memory(bundle, "g2", "strong")
    checked = run("validate", str(bundle), "--ontology", "rich", "--path", str(CORPUS), "--no-progress")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "conforms" in checked.stdout
    inferred = tmp_path / "inferred.ttl"
    reasoned = run(
        "reason",
        str(bundle),
        "--profile",
        "owlrl",
        "--ontology",
        "rich",
        "--path",
        str(CORPUS),
        "-o",
        str(inferred),
        "--no-progress",
    )
    assert reasoned.returncode == 0, reasoned.stderr
    assert "triples inferred (profile owlrl)" in reasoned.stdout
    assert len(Graph().parse(inferred)) > 0
    memory(bundle, "g3", "feeble")
    rejected = run("validate", str(bundle), "--ontology", "rich", "--path", str(CORPUS), "--no-progress")
    assert rejected.returncode == 1
    assert (
        "semantic/g3.md" in rejected.stdout
        and "field 'strength' must be one of: weak, moderate, strong" in rejected.stdout
    )
    for done in (checked, reasoned, rejected):
        assert "Traceback" not in done.stdout + done.stderr


def test_enum_text_is_matched_literally(tmp_path: Path) -> None:
    """Regular-expression characters in enum values under a typed term match only themselves."""
    write_file(
        tmp_path / "o",
        "e.ontology.yaml",
        "ontology: {id: e}\nentity_types:\n  - {name: knot, base: semantic, schema: "
        "{properties: {strength: {type: string, enum: ['a.b', '(c)', 'd|e']}}}}\n",
    )
    result = compile_ontologies(["e"], search_path=[tmp_path / "o"])
    for value, ok in (("a.b", True), ("axb", False), ("(c)", True), ("c", False), ("d|e", True), ("d", False)):
        root = tmp_path / f"b-{abs(hash(value))}"
        write_file(
            root,
            "semantic/k.md",
            "---\nid: k\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\nentity:\n  entity_type: knot\n"
            f"  strength: '{value}'\n---\nx\n",
        )
        conforms, _, text = validate(load_bundle(root).dataset, shacl_graph=result.shapes, advanced=True)
        assert conforms is ok, (value, text)


def test_enum_values_of_any_declared_type_under_any_typed_term_validate_as_written(tmp_path: Path) -> None:
    """The first enum value of each field conforms and a value
    outside the enum does not, whatever the term's datatype."""
    entities = [
        {"name": f"{key}-{kind}", "base": "semantic", "schema": {"properties": {key: {"type": kind, "enum": values}}}}
        for key in typed_terms()
        for kind, values in DECLARED.items()
    ]
    path = write_file(
        tmp_path, "typed.ontology.yaml", json.dumps({"ontology": {"id": "typed"}, "entity_types": entities})
    )
    shapes = compile_ontologies([path]).shapes
    for allowed in (True, False):
        root = tmp_path / f"allowed-{allowed}"
        for entity in entities:
            ((key, field),) = entity["schema"]["properties"].items()
            entity_data = {"entity_type": entity["name"], key: field["enum"][0] if allowed else "not-in-the-enum"}
            frontmatter = {
                "id": entity["name"],
                "type": "semantic",
                "created": "2026-01-15T10:30:00Z",
                "entity": entity_data,
            }
            write_file(root, f"semantic/{entity['name']}.md", f"---\n{json.dumps(frontmatter)}\n---\nx\n")
        conforms, report, _ = validate(load_bundle(root).dataset, shacl_graph=shapes, advanced=True)
        flagged = {str(report.value(r, SH.focusNode)) for r in report.objects(None, SH.result)}
        assert conforms is allowed
        assert flagged == (set() if allowed else {f"urn:mif:{e['name']}" for e in entities})
