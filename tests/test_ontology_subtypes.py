"""subtype_of: the verdicts of the upstream test/subtype_of cases on our own versions of them, and subclassing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import RDFS

from conftest import FIXTURES, write_file
from mif_rdf.core.errors import MifRdfError
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.subtypes import narrowing_problem

SUBTYPES = FIXTURES / "ontology" / "subtype_of"
CORPUS = FIXTURES / "ontology" / "corpus"
ONT = "https://mif-spec.dev/ontologies/"


def test_valid_subtype_compiles_to_subclassing() -> None:
    result = compile_ontologies([SUBTYPES / "valid.ontology.yaml"], strict=True)  # a narrowing: no warning
    assert (
        URIRef(ONT + "own-valid-subtype/sensor"),
        RDFS.subClassOf,
        URIRef(ONT + "own-valid-subtype/instrument"),
    ) in result.owl
    assert not result.warnings


def test_extended_subtype_resolves_its_parent_through_extends() -> None:
    result = compile_ontologies([SUBTYPES / "extended.ontology.yaml"], search_path=[CORPUS])
    child = URIRef(ONT + "own-extended-subtype/lockout")
    assert (child, RDFS.subClassOf, URIRef(ONT + "kit-base/control")) in result.owl
    # substitutable: the subtype carries the supertype's fields (and its rules)
    composer = next(c for c in result.composers if c.view.id == "own-extended-subtype")
    assert {"control_name", "level", "lock_id"} <= set(composer.compose("lockout").fields)


@pytest.mark.parametrize(
    "name, reason",
    [
        (
            "cyclic",
            r"entity type '(egg|hen)' of ontology 'own-cyclic-subtype' is part of a subtype_of cycle: (egg -> hen -> "
            r"egg|hen -> egg -> hen)",
        ),
        (
            "dangling",
            r"entity type 'lockout' of ontology 'own-dangling-subtype' is subtype_of 'control', which is not an "
            r"entity type of ontology 'own-dangling-subtype', which extends no other ontology",
        ),
        (
            "incompatible",
            r"entity type 'pump' of ontology 'own-incompatible-subtype' is subtype_of 'device' .* but does not "
            r"require 'serial', which 'device' requires",
        ),
        ("self", r"entity type 'loop' of ontology 'own-self-subtype' is subtype_of itself"),
    ],
)
def test_invalid_subtypes_are_rejected_with_the_reason(name: str, reason: str) -> None:
    assert_rejected(SUBTYPES / f"{name}.ontology.yaml", reason, CORPUS)


def assert_rejected(path: Path, reason: str, search: Path) -> None:
    """Compiling ``path`` fails with a message that starts with the file and matches ``reason``."""
    with pytest.raises(MifRdfError, match=reason) as err:
        compile_ontologies([path], search_path=[search])
    assert str(err.value).startswith(str(path))


def test_the_extended_verdict_needs_its_parent(tmp_path: Path) -> None:
    """Without the ontology it extends on the search path, `extended` cannot compile: missing parent."""
    with pytest.raises(MifRdfError, match="extends 'kit-base', which is not in the search path"):
        compile_ontologies([SUBTYPES / "extended.ontology.yaml"])


def test_a_field_type_that_excludes_the_parents_is_a_warning_and_the_subtype_wins(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "t.ontology.yaml",
        """
ontology: {id: t, version: "1.0.0"}
entity_types:
  - name: parent
    base: semantic
    schema: {properties: {size: {type: integer}}}
  - name: child
    base: semantic
    subtype_of: [parent]
    schema: {properties: {size: {type: string}}}
""",
    )
    result = compile_ontologies([path])
    text = "\n".join(str(w) for w in result.warnings)
    assert (
        "field 'size' is {type: string} in entity type 'child'" in text
        and "{type: integer} in its supertype 'parent'" in text
    )
    composer = result.composers[0]
    assert composer.compose("child").fields["size"].schema == {"type": "string"}
    with pytest.raises(MifRdfError, match=r"field 'size' is \{type: string\}.* \(--strict\)$"):
        compile_ontologies([path], strict=True)


def test_loosening_a_parent_field_and_changing_base_are_warnings(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "t.ontology.yaml",
        """
ontology: {id: t, version: "1.0.0"}
entity_types:
  - name: parent
    base: semantic
    schema: {properties: {state: {type: string, enum: [on, off]}}}
  - name: child
    base: episodic
    subtype_of: [parent]
    schema: {properties: {state: {type: string}}}
""",
    )
    result = compile_ontologies([path])
    text = "\n".join(str(w) for w in result.warnings)
    assert (
        "field 'state' is {type: string} in entity type 'child'" in text
        and "allows any value where the supertype allows only" in text
    )
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
