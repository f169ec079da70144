"""``subtype_of`` checks (upstream ontology schema): parents exist, no cycles, substitutability.

A subtype must be usable wherever its supertype is, so its schema may only
add to the parent's: a ``required`` list it states includes the parent's (one
it does not state is the parent's), keeps the parent's base type, and narrows
the type, format, pattern and allowed values of the parent's fields.  The
upstream ``test/subtype_of`` fixtures give the verdicts: valid and extended
compile; self, dangling, cyclic and incompatible (a dropped required field)
are rejected with the reason.  A field that does not narrow its supertype's
(another type, a dropped enum ...) is a warning naming both definitions: the
published corpus has them (``physical-quantity.value`` a number under
``observation.value`` a string; ``farm.location`` a mapping from a trait under
a supertype's text) and the upstream validator accepts them.  The subtype's
definition is used for its memories (most specific wins).
"""

from __future__ import annotations

from typing import Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.ontology.model import EntityTypeDef, lenient, shown
from mif_rdf.ontology.resolution import ResolvedOntology
from mif_rdf.ontology.traits import Composer


def check_subtypes(view: ResolvedOntology, composer: Composer) -> list[Problem]:
    """Raise :class:`MifRdfError` for the first ``subtype_of`` error of the view; return the warnings.

    Errors: a missing or self parent, a cycle, a dropped required field.
    Warnings (the published corpus does each): another base type than the
    parent's; a field, of the subtype's own schema or of its traits, that does
    not narrow the parent's (another type, a dropped pattern, format or enum),
    for which the subtype's definition is used.
    """
    for entity in view.entity_types.values():
        for parent in entity.subtype_of:
            if parent == entity.name:
                raise _error(entity, "is subtype_of itself; a type cannot be its own subtype")
            if parent not in view.entity_types:
                reach = (
                    f"ontology '{view.id}' or the ontologies it extends ({', '.join(a.id for a in view.ancestors())})"
                    if view.parents
                    else f"ontology '{view.id}', which extends no other ontology"
                )
                raise _error(entity, f"is subtype_of '{parent}', which is not an entity type of {reach}")
    _check_cycles(view)
    warnings: list[Problem] = []
    for entity in view.entity_types.values():
        for parent_name in entity.subtype_of:
            warnings.extend(_check_compatible(entity, view.entity_types[parent_name], composer))
    return warnings


def _error(entity: EntityTypeDef, message: str) -> MifRdfError:
    return MifRdfError(f"{entity.origin.file}: {entity.origin.short} {message}")


def _check_cycles(view: ResolvedOntology) -> None:
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, path: tuple[str, ...]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = path[path.index(name) :] + (name,)
            raise _error(
                view.entity_types[name],
                f"is part of a subtype_of cycle: {' -> '.join(cycle)}; the subtype_of graph must be acyclic",
            )
        state[name] = 1
        for parent in view.entity_types[name].subtype_of:
            visit(parent, path + (name,))
        state[name] = 2

    for name in view.entity_types:
        visit(name, ())


def _check_compatible(sub: EntityTypeDef, parent: EntityTypeDef, composer: Composer) -> list[Problem]:
    warnings: list[Problem] = []
    if sub.base != parent.base:
        warnings.append(
            Problem(
                str(sub.origin.file),
                f"{sub.origin.short} has base '{sub.base}' but its supertype '{parent.name}' has base "
                f"'{parent.base}': its class is under both base types",
                Severity.WARNING,
                key=sub.name,
                rule="ontology",
            )
        )
    parent_required = composer.compose(parent.name).required
    missing = [r for r in parent_required if sub.required is not None and r not in sub.required]
    if missing:
        raise _error(
            sub,
            f"is subtype_of '{parent.name}' ({parent.origin}) but does not require "
            f"{', '.join(repr(m) for m in missing)}, "
            f"which '{parent.name}' requires: a '{sub.name}' used as a '{parent.name}' could lack it (schema must "
            "stay compatible)",
        )
    sub_fields = composer.compose(sub.name).fields
    for name, parent_field in composer.compose(parent.name).fields.items():
        child_field = sub_fields.get(name)
        if child_field is None or child_field is parent_field:
            continue
        why = narrowing_problem(parent_field.schema, child_field.schema)
        if why:
            warnings.append(
                lenient(
                    sub.origin.file,
                    f"{sub.origin.short}: field '{name}' is {shown(child_field.schema)} in {child_field.origin} but "
                    f"{shown(parent_field.schema)} in its supertype '{parent.name}' ({parent_field.origin}): {why}; "
                    f"the subtype's definition is used for memories of type '{sub.name}' (most specific wins), so a "
                    f"'{sub.name}' may not fit where a '{parent.name}' is expected",
                    name,
                )
            )
    return warnings


def _types(schema: dict[str, Any]) -> set[str] | None:
    kind = schema.get("type")
    if kind is None:
        return None
    return set(kind) if isinstance(kind, list) else {kind}


def narrowing_problem(parent: dict[str, Any], child: dict[str, Any]) -> str | None:
    """Why ``child`` does not narrow ``parent`` (None when every child value fits the parent)."""
    parent_types, child_types = _types(parent), _types(child)
    if parent_types is not None:
        widened = (child_types or {"any"}) - parent_types - ({"integer"} if "number" in parent_types else set())
        if widened:
            return f"type {sorted(child_types or ['any'])} is not within {sorted(parent_types)}"
    for key in ("format", "pattern"):
        if key in parent and child.get(key) != parent[key]:
            return f"{key} {child.get(key)!r} differs from {parent[key]!r}"
    if "enum" in parent:
        if "enum" not in child:
            return f"allows any value where the supertype allows only {parent['enum']}"
        extra = [v for v in child["enum"] if v not in parent["enum"]]
        if extra:
            return f"allows {extra} outside the supertype's enum {parent['enum']}"
    if isinstance(parent.get("items"), dict):
        return narrowing_problem(parent["items"], child.get("items") or {})
    return None
