"""What an ontology sees: its own definitions over everything it extends.

Ontology inheritance follows the same rules as trait inheritance (spec
10.8.5/10.8.6): the ontology's own definition of a name wins; the same
definition reached through two parents (a shared ancestor) is fine; a parent
that overrides the shared ancestor's definition wins (child wins).  Two
parents that define one name differently, with no definition in the child,
are a warning naming both definitions and both files, and the parent listed
later in ``extends`` wins (spec 10.8.5: "later sources can extend or override
earlier definitions"); ``--strict`` makes it an error.  The published corpus
has such a pair (a trait two parents define differently that no entity type
composes), which the upstream validator accepts.  Nothing is resolved
silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from mif_rdf.core.errors import Problem
from mif_rdf.ontology.model import EntityTypeDef, OntologyFile, Origin, RelationshipDef, TraitDef, lenient
from mif_rdf.ontology.registry import Registry


class _Definition(Protocol):
    origin: Origin

    def same_as(self, other: Any) -> bool: ...  # pragma: no cover - protocol


D = TypeVar("D", bound=_Definition)


@dataclass
class ResolvedOntology:
    """An ontology with the definitions it inherits (its *view*)."""

    file: OntologyFile
    parents: list[ResolvedOntology]
    traits: dict[str, TraitDef] = field(default_factory=dict)
    entity_types: dict[str, EntityTypeDef] = field(default_factory=dict)
    relationships: dict[str, RelationshipDef] = field(default_factory=dict)
    #: parents that define one name differently (the later parent's definition is used)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.file.id

    def ancestors(self) -> list[ResolvedOntology]:
        """Every ontology this one extends, directly or not (each once)."""
        seen: dict[int, ResolvedOntology] = {}
        stack = list(self.parents)
        while stack:
            node = stack.pop()
            if id(node) not in seen:
                seen[id(node)] = node
                stack.extend(node.parents)
        return list(seen.values())


def inherit(
    kind: str,
    child: OntologyFile,
    own: dict[str, D],
    parents: list[ResolvedOntology],
    get: Callable[[ResolvedOntology], dict[str, D]],
    descends: Callable[[Origin, Origin], bool],
    warnings: list[Problem],
) -> dict[str, D]:
    """Merge the ``kind`` definitions of ``parents`` under ``own`` (see the module docstring).

    ``descends(a, b)``: ``a`` is written in an ontology that extends the one
    of ``b``, so ``a`` overrides ``b`` (one path of a diamond overrode the
    shared ancestor's definition: the child definition wins).  Parents that
    disagree add a warning to ``warnings``.
    """
    merged: dict[str, D] = {}
    via: dict[str, str] = {}
    for parent in parents:
        for name, definition in get(parent).items():
            if name in own:
                continue
            known = merged.get(name)
            if known is None or descends(definition.origin, known.origin):
                merged[name], via[name] = definition, parent.id
            elif not known.same_as(definition) and not descends(known.origin, definition.origin):
                warnings.append(
                    lenient(
                        child.path,
                        f"ontology '{child.id}' extends '{via[name]}' and '{parent.id}', which define {kind} '{name}' "
                        f"differently: {known.origin} and {definition.origin}; the later parent in extends wins "
                        f"('{parent.id}'); define {kind} '{name}' in '{child.id}' to choose",
                        name,
                    )
                )
                merged[name], via[name] = definition, parent.id
    merged.update(own)
    return merged


def resolve(
    registry: Registry, root: OntologyFile, cache: dict[int, ResolvedOntology] | None = None
) -> ResolvedOntology:
    """The view of ``root`` (and, through ``cache``, of every ontology it extends)."""
    cache = cache if cache is not None else {}
    by_file = {view.file.path: view for view in cache.values()}

    def descends(newer: Origin, older: Origin) -> bool:
        view = by_file.get(newer.file)
        return (
            view is not None and newer.file != older.file and any(a.file.path == older.file for a in view.ancestors())
        )

    for onto in registry.closure(root):  # parents come first
        if id(onto) in cache:
            continue
        parents = [cache[id(registry.parent(onto, p))] for p in onto.extends]
        view = ResolvedOntology(onto, parents)
        view.traits = inherit("trait", onto, onto.traits, parents, lambda r: r.traits, descends, view.warnings)
        view.entity_types = inherit(
            "entity type", onto, onto.entity_types, parents, lambda r: r.entity_types, descends, view.warnings
        )
        view.relationships = inherit(
            "relationship", onto, onto.relationships, parents, lambda r: r.relationships, descends, view.warnings
        )
        cache[id(onto)] = by_file[onto.path] = view
    return cache[id(root)]
