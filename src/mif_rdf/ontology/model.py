"""The ontology model: what an ontology YAML file (spec 10.8) declares, with provenance.

Every definition remembers where it came from (:class:`Origin`: ontology id,
file, element), because the spec asks that conflict errors name both sources
and SHACL reports must name the ontology a rule comes from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mif_rdf.core.errors import Problem, Severity

#: Rules of the warnings that ``--strict`` (``compile_ontologies(strict=True)``) turns into errors:
#: two definitions disagree and a precedence of docs/ontology.md chose one, or a trait is undefined.
PRECEDENCE = "ontology-precedence"
UNDEFINED_TRAIT = "ontology-undefined-trait"
STRICT_RULES = (PRECEDENCE, UNDEFINED_TRAIT)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a definition is written: ontology id, file, and which element (``trait``, ``auditable``)."""

    ontology: str
    file: Path
    kind: str  # "trait", "entity type", "relationship", "namespace", "relationship type"
    name: str

    @property
    def element(self) -> str:
        return f"{self.kind} '{self.name}'"

    @property
    def short(self) -> str:
        """Without the file, for messages that start with it."""
        return f"{self.element} of ontology '{self.ontology}'"

    def __str__(self) -> str:
        return f"{self.short} ({self.file})"


def without_descriptions(value: Any) -> Any:
    """A schema with every ``description`` removed: what matters when comparing definitions."""
    if isinstance(value, dict):
        return {k: without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [without_descriptions(v) for v in value]
    return value


def fingerprint(value: Any) -> str:
    """A canonical text of a definition's content (descriptions left out)."""
    return json.dumps(without_descriptions(value), sort_keys=True, default=str)


def shown(schema: dict[str, Any]) -> str:
    """A field definition as messages show it: ``{enum: [open, closed], type: string}``."""
    return fingerprint(schema).replace('"', "")


def lenient(file: Path, message: str, key: str, rule: str = PRECEDENCE) -> Problem:
    """A warning that ``--strict`` turns into an error (see :data:`STRICT_RULES`)."""
    return Problem(str(file), message, Severity.WARNING, key=key, rule=rule)


@dataclass(frozen=True, slots=True)
class FieldDef:
    """One field (a JSON Schema property) of a trait or an entity type."""

    name: str
    schema: dict[str, Any]
    origin: Origin

    def same_as(self, other: FieldDef) -> bool:
        """Same definition: the very same one (reached twice) or equal content."""
        return self is other or fingerprint(self.schema) == fingerprint(other.schema)


@dataclass(slots=True)  # slots: a vocabulary has thousands (issue 39, compile memory)
class TraitDef:
    name: str
    origin: Origin
    description: str | None = None
    extends: tuple[str, ...] = ()
    fields: dict[str, FieldDef] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict)

    def same_as(self, other: TraitDef) -> bool:
        return self is other or fingerprint(self.raw) == fingerprint(other.raw)


@dataclass(slots=True)
class EntityTypeDef:
    name: str
    base: str
    origin: Origin
    description: str | None = None
    traits: tuple[str, ...] = ()
    subtype_of: tuple[str, ...] = ()
    properties: dict[str, FieldDef] = field(default_factory=dict)
    #: ``schema.required`` as written; None when the schema does not say (a subtype then inherits its supertypes')
    required: tuple[str, ...] | None = None
    #: every other key of the entry (aliases, exemplars, negative_examples, abstract, ...)
    annotations: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    def same_as(self, other: EntityTypeDef) -> bool:
        return self is other or fingerprint(self.raw) == fingerprint(other.raw)


@dataclass
class RelationshipDef:
    """A relationship type; ``name`` is the canonical kebab-case form of its spellings."""

    name: str
    origin: Origin
    spellings: tuple[str, ...] = ()
    descriptions: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the ``from`` entity types
    targets: tuple[str, ...] = ()  # the ``to`` entity types
    symmetric: bool = False
    inverse: str | None = None  # as written
    annotations: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[Any, ...]:
        return (sorted(self.sources), sorted(self.targets), self.symmetric, self.inverse)

    def same_as(self, other: RelationshipDef) -> bool:
        return self is other or self.key() == other.key()


@dataclass
class NamespaceDef:
    """One node of a namespace tree; ``path`` is the full slash-separated path."""

    path: str
    origin: Origin
    description: str | None = None
    type_hint: str | None = None
    replaces: str | None = None
    children: dict[str, NamespaceDef] = field(default_factory=dict)


@dataclass
class OntologyFile:
    """One ontology YAML file as written (nothing inherited yet)."""

    id: str
    path: Path
    version: str | None = None
    description: str | None = None
    schema_url: str | None = None
    extends: tuple[str, ...] = ()
    namespaces: dict[str, NamespaceDef] = field(default_factory=dict)
    entity_types: dict[str, EntityTypeDef] = field(default_factory=dict)
    traits: dict[str, TraitDef] = field(default_factory=dict)
    relationships: dict[str, RelationshipDef] = field(default_factory=dict)
    discovery: dict[str, Any] = field(default_factory=dict)
    #: top-level keys the spec does not define, kept as annotations
    annotations: dict[str, Any] = field(default_factory=dict)
    #: index of the search-path source the file was found in (later wins)
    source_index: int = 0
    #: things that read fine but deserve a look (duplicate keys, merged spellings ...)
    warnings: list[Problem] = field(default_factory=list)
