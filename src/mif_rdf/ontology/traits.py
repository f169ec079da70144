"""Trait inheritance and entity composition, exactly as spec 10.8.6 says.

| scenario                                          | resolution                     |
|---------------------------------------------------|--------------------------------|
| same field inherited via different paths          | the shared ancestor's definition (no conflict) |
| same field defined differently by independent traits | error at composition time, naming the field, both traits and both files |
| field in a trait overrides an inherited field     | the child trait's definition   |
| field in an entity's schema overrides a trait field | the entity's definition (this also resolves a conflict) |

An entity type that is ``subtype_of`` others also inherits their fields (a
subtype must be usable wherever its supertype is): its traits' fields override
them ("field in trait overrides inherited field"), and its own schema
overrides both ("most specific wins"); of two supertypes that disagree, the
one listed first in ``subtype_of`` wins.  A subtype field that does not fit
its supertype's is reported by :mod:`.subtypes` (a warning).  A trait that
nothing defines is a warning: the entity type compiles without its fields.
Definitions are "the same" when they are one definition reached twice or have
equal content (descriptions aside): the corpus repeats traits verbatim across
ontologies.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.ontology.model import (
    UNDEFINED_TRAIT,
    EntityTypeDef,
    FieldDef,
    Origin,
    TraitDef,
    fingerprint,
    lenient,
    shown,
)
from mif_rdf.ontology.resolution import ResolvedOntology

Sources = list[tuple[str, dict[str, FieldDef]]]


@dataclass(slots=True)
class ComposedEntity:
    """An entity type with every field it ends up with, each with its origin."""

    entity: EntityTypeDef
    fields: dict[str, FieldDef]
    #: the entity's ``schema.required``, or its supertypes' when it states none
    required: tuple[str, ...] = ()
    #: fields taken unchanged from a supertype (OWL subclassing carries them already)
    inherited: set[str] = field(default_factory=set)
    #: MIF memory fields the entity's traits require (``requires:``), with the trait's origin
    requires: dict[str, Origin] = field(default_factory=dict)
    #: every trait that applies, directly or through ``extends``
    traits: dict[str, TraitDef] = field(default_factory=dict)

    def fingerprint(self) -> str:
        """Content of the composition, to tell apart two views of one entity type."""
        return fingerprint(
            {
                "entity": self.entity.raw,
                "fields": {k: v.schema for k, v in sorted(self.fields.items())},
                "required": self.required,
                "requires": sorted(self.requires),
            }
        )


def merge(
    sources: Sources, descends: Callable[[Origin, Origin], bool]
) -> tuple[dict[str, FieldDef], dict[str, list[tuple[str, FieldDef]]]]:
    """Union of the sources' fields, and the fields two independent sources define differently.

    ``descends(a, b)``: the trait (or entity type) that wrote ``a`` extends the
    one that wrote ``b``, so ``a`` overrides ``b`` (child definition wins).
    """
    merged: dict[str, FieldDef] = {}
    first: dict[str, str] = {}
    conflicts: dict[str, list[tuple[str, FieldDef]]] = {}
    for label, fields in sources:
        for name, definition in fields.items():
            known = merged.get(name)
            if known is None or descends(definition.origin, known.origin):
                merged[name], first[name] = definition, label
            elif not known.same_as(definition) and not descends(known.origin, definition.origin):
                entries = conflicts.setdefault(name, [(first[name], known)])
                if not any(d.same_as(definition) for _, d in entries):
                    entries.append((label, definition))
    return merged, conflicts


def conflict_error(owner: Origin, name: str, entries: list[tuple[str, FieldDef]], how: str) -> MifRdfError:
    sides = " and ".join(
        f"{d.origin if label == d.origin.element else f'{label} (from {d.origin})'} as {shown(d.schema)}"
        for label, d in entries
    )
    return MifRdfError(
        f"{owner.file}: {owner.short}: field '{name}' is defined differently by {sides}; {how} (spec 10.8.6)"
    )


class Composer:
    """Resolves traits and composes entity types within one ontology's view."""

    def __init__(self, view: ResolvedOntology) -> None:
        self.view = view
        self._traits: dict[str, dict[str, FieldDef]] = {}
        self._entities: dict[str, ComposedEntity] = {}
        #: undefined traits, once per user and trait
        self.warnings: dict[tuple[Origin, str], Problem] = {}

    def trait(self, name: str, used_by: Origin, stack: tuple[str, ...] = ()) -> TraitDef | None:
        """The trait ``name`` as this view sees it; None (and a warning) when nothing defines it."""
        trait = self.view.traits.get(name)
        if trait is None:
            self.warnings.setdefault(
                (used_by, name),
                lenient(
                    used_by.file,
                    f"{used_by.short} uses trait '{name}', which is not defined by ontology '{self.view.id}' or any "
                    f"ontology it extends; it compiles without that trait's fields",
                    name,
                    UNDEFINED_TRAIT,
                ),
            )
            return None
        if name in stack:
            raise MifRdfError(
                f"{trait.origin.file}: trait extends cycle: {' -> '.join(stack + (name,))} ({trait.origin})"
            )
        return trait

    def trait_fields(self, name: str, used_by: Origin, stack: tuple[str, ...] = ()) -> dict[str, FieldDef]:
        """A trait's fields after its ``extends`` (child definitions win)."""
        found = self._traits.get(name)
        if found is not None:
            return found
        trait = self.trait(name, used_by, stack)
        if trait is None:
            return {}
        sources: Sources = [
            (f"trait '{p}'", self.trait_fields(p, trait.origin, stack + (name,))) for p in trait.extends
        ]
        merged, conflicts = merge(sources, self.descends)
        for field_name, entries in conflicts.items():
            if field_name not in trait.fields:
                raise conflict_error(
                    trait.origin, field_name, entries, f"define '{field_name}' in trait '{name}' to resolve"
                )
        result = {**merged, **trait.fields}
        self._traits[name] = result
        return result

    def trait_closure(self, names: tuple[str, ...], used_by: Origin) -> dict[str, TraitDef]:
        """The traits ``names`` and everything they extend (undefined ones left out, each warned about once)."""
        out: dict[str, TraitDef] = {}
        todo = [(name, used_by) for name in names]
        while todo:
            name, user = todo.pop(0)
            trait = self.trait(name, user) if name not in out else None
            if trait is not None:
                out[name] = trait
                todo.extend((parent, trait.origin) for parent in trait.extends)
        return out

    def compose(self, name: str, stack: tuple[str, ...] = ()) -> ComposedEntity:
        """An entity type's fields: its supertypes', overridden by its traits', overridden by its own schema."""
        found = self._entities.get(name)
        if found is not None:
            return found
        entity = self.view.entity_types[name]
        if name in stack:
            raise MifRdfError(f"{entity.origin.file}: subtype_of cycle: {' -> '.join(stack + (name,))}")
        supers = [
            self.compose(parent, stack + (name,)) for parent in entity.subtype_of if parent in self.view.entity_types
        ]
        inherited_fields, _ = merge([(f"supertype '{s.entity.name}'", s.fields) for s in supers], self.descends)
        merged, conflicts = merge(
            [(f"trait '{t}'", self.trait_fields(t, entity.origin)) for t in entity.traits], self.descends
        )
        for field_name, entries in conflicts.items():
            if field_name not in entity.properties:
                raise conflict_error(
                    entity.origin,
                    field_name,
                    entries,
                    f"override '{field_name}' in the entity type's schema.properties to resolve",
                )
        fields = {**inherited_fields, **merged, **entity.properties}
        inherited = {f for f in fields if any(f in s.fields and s.fields[f] is fields[f] for s in supers)}
        traits = self.trait_closure(entity.traits, entity.origin)
        requires: dict[str, Origin] = {}
        for s in supers:
            requires.update(s.requires)
        for used in traits.values():
            for key in used.requires:
                requires.setdefault(key, used.origin)
        required = (
            entity.required
            if entity.required is not None
            else tuple(dict.fromkeys(r for s in supers for r in s.required))
        )
        composed = ComposedEntity(entity, fields, required, inherited, requires, traits)
        self._entities[name] = composed
        return composed

    def descends(self, newer: Origin, older: Origin) -> bool:
        """Whether the trait or entity type that wrote ``newer`` extends the one that wrote ``older``."""
        if newer == older:
            return False
        if newer.kind == "trait":
            trait = self.view.traits.get(newer.name)
            if trait is None or trait.origin != newer:
                return False
            return any(t.origin == older for t in self.trait_closure(trait.extends, trait.origin).values())
        if newer.kind == "entity type":
            return older.kind == "entity type" and older in self.supertypes(newer.name)
        return False

    def supertypes(self, name: str) -> set[Origin]:
        """Origins of every entity type ``name`` is (transitively) a subtype of."""
        out: set[Origin] = set()
        todo = list(self.view.entity_types[name].subtype_of) if name in self.view.entity_types else []
        while todo:
            parent = self.view.entity_types.get(todo.pop())
            if parent is not None and parent.origin not in out:
                out.add(parent.origin)
                todo.extend(parent.subtype_of)
        return out

    def all_traits(self) -> None:
        """Resolve every trait the view defines, so conflicts show at load time (10.8.6 guidance)."""
        for name, trait in self.view.traits.items():
            self.trait_fields(name, trait.origin)
