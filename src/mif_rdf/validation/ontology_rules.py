"""The ontology rules: each memory checked against the ontology its ``ontology: id`` names (spec 4.3).

Spec 4.3 makes the reference do work: "validation that namespace paths
conform to the ontology's defined namespaces" and "schema validation for
entity-specific fields"; 4.2 / 10.2 tie the base-type prefixes to the base
types; 7.2 / 8.2 name the core entity and relationship types.  These checks
read the parsed frontmatter (the same records on every store, so the
findings are the same on the memory store and on Oxigraph) and cost one
dictionary walk per memory.  The entity payload schemas are SHACL shapes
from the ontology compiler (:mod:`mif_rdf.validation.entity_schemas`).

Rules (docs/validation.md lists them with their spec sections):

* ``ontology-namespace``: the namespace is a node of the ontology's
  namespace tree (its own and every ontology it extends), or lies below a
  leaf node.  A node that lists children is closed: a path below it goes
  through one of them.  An error under a root the tree has; a warning for
  a path whose root the ontology does not describe at all (an
  organization's own scope, spec 10.3: ``acme/team-a``).  Namespaces under a visibility prefix (``_public``,
  ``_shared``, ``_local``, ``_system``; spec 10.2) are sharing scopes, not
  categories, and are not checked.
* ``ontology-namespace-type`` (error): the base type the namespace implies
  (the nearest ``type_hint`` on its path, else its base-type root
  ``_semantic`` / ``_episodic`` / ``_procedural``) is the memory's ``type``.
* ``ontology-entity-type`` (warning): an ``entities[].entityType`` or an
  ``entity.entity_type`` is an entity type of the ontology, a core type of
  7.2, an ``entity_types`` entry of the bundle config, or namespaced
  (``farm:Animal``, spec 7.3).
* ``ontology-relationship-type`` (warning): a relationship ``type`` is one of
  the ontology, of the bundle config, of the core list of 8.2 (or an inverse
  named there), or namespaced (``team:reviews``, spec 8.3).

Namespace paths are read as :mod:`mif_rdf.ontology.namespace_tree` reads them
(``semantic/x`` is ``_semantic/x``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.spelling import closest
from mif_rdf.load.bundle import LoadedBundle, MemoryRecord
from mif_rdf.nsmodel.model import VISIBILITY_PREFIXES  # sharing scopes, not categories of an ontology's tree
from mif_rdf.ontology.binding import BoundOntologies, bundle_ontologies, memory_references
from mif_rdf.ontology.loader import config_relationships
from mif_rdf.ontology.namespace_tree import NamespaceTree, Node, normalized_namespace
from mif_rdf.ontology.resolution import ResolvedOntology
from mif_rdf.source.identity import BASE_TYPES, canonical_relationship_name

RULE_NAMESPACE = "ontology-namespace"
RULE_NAMESPACE_TYPE = "ontology-namespace-type"
RULE_ENTITY_TYPE = "ontology-entity-type"
RULE_RELATIONSHIP_TYPE = "ontology-relationship-type"
#: The findings of the SHACL shapes compiled from entity schemas (the message names the ontology).
RULE_ENTITY_SCHEMA = "ontology-entity-schema"
#: The level the ontology rules belong to (spec 4.3's validation is a standard-level concern).
LEVEL = 2
#: Spec 7.2.
CORE_ENTITY_TYPES = ("Person", "Organization", "Technology", "Concept", "File")
#: Spec 8.2, each type and its inverse.
CORE_RELATIONSHIP_TYPES = (
    "RelatesTo",
    "DerivedFrom",
    "Derives",
    "Supersedes",
    "SupersededBy",
    "ConflictsWith",
    "PartOf",
    "Contains",
    "Implements",
    "ImplementedBy",
    "Uses",
    "UsedBy",
    "Created",
    "CreatedBy",
    "MentionedIn",
    "Mentions",
)


class CheckedTree(NamespaceTree):
    """The namespace tree with what validation says about a path outside it."""

    def unknown(self, path: str) -> str | None:
        """None when ``path`` is allowed; else what a person needs to fix it."""
        if path in self.nodes:
            return None
        parts = path.split("/")
        ancestor: Node | None = None
        for depth in range(len(parts) - 1, 0, -1):
            ancestor = self.nodes.get("/".join(parts[:depth]))
            if ancestor is not None:
                break
        if ancestor is not None and not ancestor.children:
            return None  # below a leaf: a sub-scope of it
        siblings = sorted(ancestor.children if ancestor is not None else self.roots)
        wrong = "/".join(parts[: len(ancestor.path.split("/")) + 1]) if ancestor is not None else parts[0]
        where = (
            f"its nearest known ancestor is '{ancestor.path}'" if ancestor is not None else "no ancestor of it is known"
        )
        shown = ", ".join(f"'{s}'" for s in siblings[:8]) + (", ..." if len(siblings) > 8 else "")
        by_name = {s.rsplit("/", 1)[-1]: s for s in siblings}
        near = closest(wrong.rsplit("/", 1)[-1], by_name)
        close = by_name[near] if near else None
        hint = f"; did you mean '{close}'?" if close else ""
        return f"{where} ({'children' if ancestor is not None else 'roots'}: {shown or 'none'}){hint}"


class OntologyChecker:
    """What one resolved ontology allows, precomputed once for every memory that names it."""

    def __init__(
        self, view: ResolvedOntology, config: Mapping[str, Any], config_relationship_names: Iterable[str]
    ) -> None:
        self.view = view
        self.tree = CheckedTree(view)
        entity_names = list(view.entity_types) + list(CORE_ENTITY_TYPES) + _config_entity_types(config)
        self.entity_types = {name.lower(): name for name in entity_names}
        relationships = set(config_relationship_names) | {
            canonical_relationship_name(n) for n in CORE_RELATIONSHIP_TYPES
        }
        for name, definition in view.relationships.items():
            relationships.add(name)
            if definition.inverse:
                relationships.add(canonical_relationship_name(definition.inverse))
        self.relationships = relationships
        self._unknown: dict[str, str | None] = {}  # namespaces repeat: each is looked up (and suggested) once
        self._unknown_types: dict[str, str | None] = {}

    def problems(self, record: MemoryRecord) -> Iterable[Problem]:
        fm = record.frontmatter

        def found(key: str, message: str, rule: str, value: Any, severity: Severity = Severity.ERROR) -> Problem:
            return Problem(record.relpath, message, severity, key=key, value=value, rule=rule, level=LEVEL)

        namespace = fm.get("namespace")
        if isinstance(namespace, str) and namespace.strip("/ "):
            path = normalized_namespace(namespace)
            if path.split("/")[0] not in VISIBILITY_PREFIXES:
                if path not in self._unknown:
                    self._unknown[path] = self.tree.unknown(path)
                wrong = self._unknown[path]
                if wrong is not None:
                    # under a root the ontology knows: an error; an organization's own scope (spec 10.3) the ontology
                    # does not describe at all: a warning
                    severity = Severity.ERROR if path.split("/")[0] in self.tree.roots else Severity.WARNING
                    yield found(
                        "namespace",
                        f"namespace '{namespace}' is not in the namespace tree of ontology '{self.view.id}': {wrong}",
                        RULE_NAMESPACE,
                        namespace,
                        severity,
                    )
                implied, kind = self.tree.implied_type(path), fm.get("type")
                if implied and kind in BASE_TYPES and kind != implied:
                    yield found(
                        "type",
                        f"type '{kind}' does not match namespace '{namespace}', which ontology '{self.view.id}' "
                        f"places under base type '{implied}' (spec 10.2): use type: {implied} or a namespace under "
                        f"_{kind}",
                        RULE_NAMESPACE_TYPE,
                        kind,
                    )
        entities = fm.get("entities")
        for index, ref in enumerate(entities if isinstance(entities, list) else []):
            if isinstance(ref, dict) and isinstance(ref.get("entityType"), str):
                problem = self._entity_type(ref["entityType"])
                if problem:
                    yield found(
                        f"entities[{index}].entityType", problem, RULE_ENTITY_TYPE, ref["entityType"], Severity.WARNING
                    )
        payload = fm.get("entity")
        if isinstance(payload, dict):
            for key in ("entity_type", "entityType"):
                if isinstance(payload.get(key), str):
                    problem = self._entity_type(payload[key])
                    if problem:
                        yield found(f"entity.{key}", problem, RULE_ENTITY_TYPE, payload[key], Severity.WARNING)
        relationships = fm.get("relationships")
        for index, rel in enumerate(relationships if isinstance(relationships, list) else []):
            kind = rel.get("type") if isinstance(rel, dict) else None
            if (
                isinstance(kind, str)
                and kind
                and ":" not in kind
                and canonical_relationship_name(kind) not in self.relationships
            ):
                close = closest(canonical_relationship_name(kind), self.relationships)
                hint = f"; did you mean '{close}'?" if close else ""
                yield found(
                    f"relationships[{index}].type",
                    f"relationship type '{kind}' is not defined by ontology '{self.view.id}', the bundle config or "
                    "the core "
                    "types of spec 8.2; define it or namespace it (as in "
                    f"team:{canonical_relationship_name(kind)}){hint}",
                    RULE_RELATIONSHIP_TYPE,
                    kind,
                    Severity.WARNING,
                )

    def _entity_type(self, name: str) -> str | None:
        if ":" in name or name.lower() in self.entity_types:
            return None
        if name not in self._unknown_types:
            self._unknown_types[name] = self._unknown_entity_type(name)
        return self._unknown_types[name]

    def _unknown_entity_type(self, name: str) -> str:
        close = closest(name, self.entity_types.values())
        hint = f"; did you mean '{close}'?" if close else ""
        return (
            f"entity type '{name}' is not defined by ontology '{self.view.id}', the core types of spec 7.2 or the "
            "bundle "
            f"config's entity_types; define it or namespace it (as in team:{name}){hint}"
        )


def _config_entity_types(config: Mapping[str, Any]) -> list[str]:
    value = config.get("entity_types")
    names = []
    for entry in value if isinstance(value, list) else []:
        name = entry.get("name") if isinstance(entry, dict) else entry
        if isinstance(name, str):
            names.append(name)
    return names


def ontology_binding(
    bundle: LoadedBundle,
    level: int,
    ontologies: Sequence[str | Path],
    search_path: Sequence[str | Path],
    user_dirs: Sequence[str | Path] | None,
    *,
    named: bool = True,
) -> BoundOntologies | None:
    """The ontologies a validation at ``level`` applies: what memories name (level 2 and up,
    with ``named``) plus ``ontologies``."""
    references = memory_references(bundle.memories.values()) if named and level >= LEVEL else []
    if not references and not ontologies:
        return None
    return bundle_ontologies(bundle.root, references, user_dirs=user_dirs, path_dirs=search_path, extra=ontologies)


def ontology_problems(bundle: LoadedBundle, bound: BoundOntologies) -> list[Problem]:
    """The binding's warnings and the ontology rules over every memory whose ontology resolved."""
    problems = [_leveled(p) for p in bound.problems]
    if not bound.ontologies:
        return problems
    config_names = _config_relationship_names(bundle)
    checkers: dict[str, OntologyChecker] = {}
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        ref = record.frontmatter.get("ontology")
        ontology_id = ref.get("id") if isinstance(ref, dict) else None
        view = bound.view(ontology_id.strip()) if isinstance(ontology_id, str) else None
        if view is None:
            continue
        checker = checkers.get(view.id)
        if checker is None:
            checker = checkers[view.id] = OntologyChecker(view, bundle.config, config_names)
        problems.extend(checker.problems(record))
    return problems


def _config_relationship_names(bundle: LoadedBundle) -> set[str]:
    """The config's relationship types and their inverses; a config that does not read is the load's to report."""
    try:
        defined = config_relationships(
            bundle.root / ".mif" / "config.yaml", bundle.config.get("relationship_types"), []
        )
    except MifRdfError:
        return set()
    names = set(defined)
    names.update(canonical_relationship_name(d.inverse) for d in defined.values() if d.inverse)
    return names


def _leveled(problem: Problem) -> Problem:
    return problem if problem.level is not None else dataclasses.replace(problem, level=LEVEL)
