"""Trait inheritance and conflict resolution: every rule of spec 10.8.6, with the spec's own examples."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES, write_file
from mif_rdf.core.errors import MifRdfError
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.registry import Registry
from mif_rdf.ontology.resolution import resolve
from mif_rdf.ontology.traits import ComposedEntity, Composer

SPEC_TRAITS = FIXTURES / "ontology" / "spec-traits.ontology.yaml"
CORPUS = FIXTURES / "ontology" / "corpus"

#: The spec's 10.8.6 traits, as written there.
SPEC_TRAIT_BLOCK = """
traits:
  timestamped:
    fields:
      created: { type: string, format: date-time }
      modified: { type: string, format: date-time }
  auditable:
    extends: [timestamped]
    fields:
      audit_log: { type: array }
      last_audited: { type: string, format: date-time }
  lifecycle:
    extends: [timestamped]
    fields:
      status: { type: string, enum: [draft, active, archived] }
  trait_a:
    fields:
      status: { type: string, enum: [open, closed] }
  trait_b:
    fields:
      status: { type: string, enum: [draft, published] }
"""


def ontology(tmp_path: Path, body: str, name: str = "test", extends: str = "") -> Path:
    header = f'ontology:\n  id: {name}\n  version: "1.0.0"\n' + (f"  extends: [{extends}]\n" if extends else "")
    return write_file(tmp_path, f"{name}.ontology.yaml", header + textwrap.dedent(body))


def composed(path: Path, entity: str, folders: tuple[Path, ...] = ()) -> ComposedEntity:
    registry = Registry(list(folders))
    view = resolve(registry, registry.add_file(path))
    return Composer(view).compose(entity)


def test_diamond_through_a_shared_ancestor_is_not_a_conflict(tmp_path: Path) -> None:
    """Spec example: document uses auditable and lifecycle, both inherit `created` from timestamped."""
    path = ontology(
        tmp_path,
        SPEC_TRAIT_BLOCK
        + """
entity_types:
  - name: document
    base: semantic
    traits: [auditable, lifecycle]
""",
    )
    doc = composed(path, "document")
    assert set(doc.fields) == {"created", "modified", "audit_log", "last_audited", "status"}
    assert doc.fields["created"].origin.name == "timestamped"  # the shared ancestor's definition
    assert set(doc.traits) == {"auditable", "lifecycle", "timestamped"}


def test_independent_traits_defining_a_field_differently_is_an_error_naming_field_traits_and_files(
    tmp_path: Path,
) -> None:
    """Spec example: conflicting_entity uses trait_a and trait_b without resolving `status`."""
    path = ontology(
        tmp_path,
        SPEC_TRAIT_BLOCK
        + """
entity_types:
  - name: conflicting_entity
    base: semantic
    traits: [trait_a, trait_b]
""",
    )
    with pytest.raises(MifRdfError) as err:
        compile_ontologies([path])
    message = str(err.value)
    assert "field 'status'" in message
    assert "trait 'trait_a'" in message and "trait 'trait_b'" in message
    assert message.count(str(path)) >= 2  # both definitions' files (here the same file)
    assert "conflicting_entity" in message
    assert "[open, closed]" in message and "[draft, published]" in message  # both definitions


def test_conflict_across_files_names_both_files(tmp_path: Path) -> None:
    ontology(
        tmp_path,
        """
traits:
  trait_a:
    fields:
      status: { type: string, enum: [open, closed] }
""",
        name="base-a",
    )
    ontology(
        tmp_path,
        """
traits:
  trait_b:
    fields:
      status: { type: integer }
""",
        name="base-b",
    )
    child = ontology(
        tmp_path,
        """
entity_types:
  - name: thing
    base: semantic
    traits: [trait_a, trait_b]
""",
        name="child",
        extends="base-a, base-b",
    )
    with pytest.raises(MifRdfError) as err:
        compile_ontologies([child], search_path=[tmp_path])
    message = str(err.value)
    assert "base-a.ontology.yaml" in message and "base-b.ontology.yaml" in message
    assert "'status'" in message


def test_entity_schema_resolves_the_conflict(tmp_path: Path) -> None:
    """Spec: "Resolution: Override explicitly in entity schema" (entity definition wins)."""
    doc = composed(SPEC_TRAITS, "conflicting_entity")
    assert doc.fields["status"].schema["enum"] == ["draft", "open", "published", "closed"]
    assert doc.fields["status"].origin.kind == "entity type"


def test_child_trait_overrides_its_parent(tmp_path: Path) -> None:
    """auditable redefines `modified` of timestamped: the child's definition wins."""
    doc = composed(SPEC_TRAITS, "document")
    assert doc.fields["modified"].origin.name == "auditable"
    assert doc.fields["modified"].schema["format"] == "date"
    assert doc.fields["created"].origin.name == "timestamped"


def test_override_on_one_path_of_a_diamond_wins_over_the_ancestor(tmp_path: Path) -> None:
    """document uses auditable (overrides `modified`) and lifecycle (inherits timestamped's): child wins."""
    doc = composed(SPEC_TRAITS, "document")
    assert doc.fields["modified"].schema == {"type": "string", "format": "date"}


def test_entity_field_overrides_a_trait_field(tmp_path: Path) -> None:
    path = ontology(
        tmp_path,
        SPEC_TRAIT_BLOCK
        + """
entity_types:
  - name: record
    base: episodic
    traits: [lifecycle]
    schema:
      properties:
        status: { type: string, enum: [open] }
""",
    )
    record = composed(path, "record")
    assert record.fields["status"].schema["enum"] == ["open"]
    assert record.fields["created"].origin.name == "timestamped"


def test_a_trait_whose_parents_conflict_must_redefine_the_field(tmp_path: Path) -> None:
    bad = ontology(
        tmp_path,
        SPEC_TRAIT_BLOCK
        + """
  both:
    extends: [trait_a, trait_b]
""",
    )
    with pytest.raises(MifRdfError, match=r"trait 'both'.*field 'status'"):
        compile_ontologies([bad])  # detected at load time, even though no entity type uses it
    good = ontology(
        tmp_path,
        SPEC_TRAIT_BLOCK
        + """
  both:
    extends: [trait_a, trait_b]
    fields:
      status: { type: string }
entity_types:
  - name: x
    base: semantic
    traits: [both]
""",
        name="good",
    )
    assert composed(good, "x").fields["status"].schema == {"type": "string"}


def test_identical_definitions_from_independent_traits_are_not_a_conflict(tmp_path: Path) -> None:
    path = ontology(
        tmp_path,
        """
traits:
  one:
    fields:
      code: { type: string, description: "one's code" }
  two:
    fields:
      code: { type: string, description: "two's code" }
entity_types:
  - name: x
    base: semantic
    traits: [one, two]
""",
    )
    assert composed(path, "x").fields["code"].schema["type"] == "string"


def test_a_trait_extends_cycle_is_an_error(tmp_path: Path) -> None:
    cyclic = ontology(
        tmp_path,
        """
traits:
  a: { extends: [b] }
  b: { extends: [a] }
""",
        name="cyclic",
    )
    with pytest.raises(MifRdfError, match=r"trait extends cycle: (a -> b -> a|b -> a -> b)"):
        compile_ontologies([cyclic])


def test_traits_resolve_through_extends_and_a_child_ontology_overrides_a_trait(tmp_path: Path) -> None:
    ontology(
        tmp_path,
        """
traits:
  versioned:
    fields:
      version_tag: { type: string, pattern: "^v[0-9]+$" }
entity_types:
  - name: release
    base: episodic
    traits: [versioned]
""",
        name="parent",
    )
    child = ontology(
        tmp_path,
        """
traits:
  versioned:
    fields:
      version_tag: { type: integer }
""",
        name="child",
        extends="parent",
    )
    registry = Registry([tmp_path])
    cache: dict = {}
    child_view = resolve(registry, registry.add_file(child), cache)
    parent_view = child_view.parents[0]
    assert Composer(parent_view).compose("release").fields["version_tag"].schema["type"] == "string"
    # in the child's view the inherited entity type composes with the child's trait (later source overrides)
    assert Composer(child_view).compose("release").fields["version_tag"].schema["type"] == "integer"


def test_corpus_diamond_of_ontologies_resolves() -> None:
    """kit-joint extends kit-left and kit-right, both above kit-base and mif-base; kit-left overrides
    mif-base's derived_from: the override wins over the shared ancestor, no conflict."""
    result = compile_ontologies(["kit-joint"], search_path=[CORPUS])
    view = result.roots[0]
    assert view.relationships["derived-from"].origin.ontology == "kit-left"
    assert view.relationships["derived-from"].sources == ("artifact",)
    dossier = Composer(view).compose("dossier")
    assert dossier.fields["logged_at"].origin.name == "stamped"  # reached through audited and phased
    assert dossier.fields["revised_at"].origin.name == "audited"  # one path overrides the ancestor: child wins
