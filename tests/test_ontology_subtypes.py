"""subtype_of: the upstream test/subtype_of verdicts, and subclassing in the output."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import RDFS

from mif_rdf.errors import MifRdfError
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.subtypes import narrowing_problem

from conftest import SHARED, write_file

SUBTYPES = SHARED / "fixtures" / "upstream" / "mif" / "test" / "subtype_of"
CORPUS = SHARED / "fixtures" / "upstream" / "ontologies"
ONT = "https://mif-spec.dev/ontologies/"


def test_valid_subtype_compiles_to_subclassing() -> None:
    owl = compile_ontologies([SUBTYPES / "valid.ontology.yaml"]).owl
    assert (URIRef(ONT + "valid-subtype/security-control"), RDFS.subClassOf, URIRef(ONT + "valid-subtype/control")) in owl


def test_extended_subtype_resolves_its_parent_through_extends() -> None:
    result = compile_ontologies([SUBTYPES / "extended.ontology.yaml"], search_path=[CORPUS])
    child = URIRef(ONT + "extended-subtype/security-control")
    assert (child, RDFS.subClassOf, URIRef(ONT + "engineering-base/control")) in result.owl
    # substitutable: the subtype carries the supertype's fields (and its rules)
    composer = next(c for c in result.composers if c.view.id == "extended-subtype")
    assert "control_name" in composer.compose("security-control").fields


@pytest.mark.parametrize(
    "name, reason",
    [
        ("cyclic", r"entity type '[ab]' of ontology 'cyclic-subtype' is part of a subtype_of cycle: (a -> b -> a|b -> a -> b)"),
        ("dangling", r"entity type 'security-control' of ontology 'dangling-subtype' is subtype_of 'control', which is not an entity type of ontology 'dangling-subtype', which extends no other ontology"),
        ("incompatible", r"entity type 'sub-thing' of ontology 'incompatible-subtype' is subtype_of 'base-thing' .* but does not require 'b', which 'base-thing' requires"),
        ("self", r"entity type 'a' of ontology 'self-subtype' is subtype_of itself"),
    ],
)
def test_invalid_subtypes_are_rejected_with_the_reason(name: str, reason: str) -> None:
    path = SUBTYPES / f"{name}.ontology.yaml"
    with pytest.raises(MifRdfError, match=reason) as err:
        compile_ontologies([path], search_path=[CORPUS])
    assert str(err.value).startswith(str(path))


def test_the_extended_verdict_needs_its_parent(tmp_path: Path) -> None:
    """Without the ontology it extends on the search path, `extended` cannot compile: missing parent."""
    with pytest.raises(MifRdfError, match="extends 'engineering-base', which is not in the search path"):
        compile_ontologies([SUBTYPES / "extended.ontology.yaml"])


def test_a_field_type_that_excludes_the_parents_is_an_error(tmp_path: Path) -> None:
    path = write_file(tmp_path, "t.ontology.yaml", """
ontology: {id: t, version: "1.0.0"}
entity_types:
  - name: parent
    base: semantic
    schema: {properties: {size: {type: integer}}}
  - name: child
    base: semantic
    subtype_of: [parent]
    schema: {properties: {size: {type: string}}}
""")
    with pytest.raises(MifRdfError, match="redefines field 'size' of its supertype 'parent' with type 'string'"):
        compile_ontologies([path])


def test_loosening_a_parent_field_and_changing_base_are_warnings(tmp_path: Path) -> None:
    path = write_file(tmp_path, "t.ontology.yaml", """
ontology: {id: t, version: "1.0.0"}
entity_types:
  - name: parent
    base: semantic
    schema: {properties: {state: {type: string, enum: [on, off]}}}
  - name: child
    base: episodic
    subtype_of: [parent]
    schema: {properties: {state: {type: string}}}
""")
    result = compile_ontologies([path])
    text = "\n".join(str(w) for w in result.warnings)
    assert "field 'state' loosens its supertype 'parent'" in text
    assert "has base 'episodic' but its supertype 'parent' has base 'semantic'" in text


@pytest.mark.parametrize(
    "parent, child, ok",
    [
        ({"type": "number"}, {"type": "integer"}, True),
        ({"type": "string", "enum": ["a", "b"]}, {"type": "string", "enum": ["a"]}, True),
        ({"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["a", "c"]}, False),
        ({"type": "string", "format": "date"}, {"type": "string"}, False),
        ({"type": "array", "items": {"type": "string"}}, {"type": "array", "items": {"type": "integer"}}, False),
        ({"type": "string"}, {"type": "string", "pattern": "^x"}, True),
    ],
)
def test_narrowing(parent: dict, child: dict, ok: bool) -> None:
    assert (narrowing_problem(parent, child) is None) is ok
