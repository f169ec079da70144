"""Memories built from an ontology's own namespace tree and entity types, and mutants of each ontology rule.

Used by tests/test_validation_ontology.py (the suite's corpus-shaped
ontologies) and tests/conformance (the published ontologies): every valid
memory must conform, every mutant must be caught by the rule it breaks.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mif_rdf.ontology.binding import BoundOntologies
from mif_rdf.ontology.extended_types import TypeMap
from mif_rdf.ontology.iris import entity_class
from mif_rdf.ontology.namespace_tree import NamespaceTree
from mif_rdf.ontology.resolution import ResolvedOntology

CITATION = {
    "@type": "Citation",
    "citationType": "article",
    "citationRole": "supports",
    "title": "A paper",
    "url": "https://example.org/p",
    "accessed": "2026-03-09",
}
#: Texts tried, in order, for a string field with a pattern.
PATTERN_CANDIDATES = ("value", "1.0.0", "ABC-123", "2026-01-15", "https://example.org/x", "a", "1", "x_1")
#: Relationship types whose name is also a term of the MIF context, so the shipped shapes misread them (a
#: separate issue, not the ontology rules'): ``created`` (spec 8.2's Created) fails relationship-type-kebab,
#: since the context maps the word to dc:created; ``documents`` makes the links-graph edge's target look like a
#: DocumentReference (its IRI is the mif:documents term) to the level-3 shape.
TERM_COLLISIONS = frozenset({"created", "documents"})
OTHER_BASE = {"semantic": "episodic", "episodic": "procedural", "procedural": "semantic"}


@dataclass
class Corpus:
    """Files to write (bundle path -> text), and what each file is expected to show."""

    files: dict[str, str] = field(default_factory=dict)
    valid: set[str] = field(default_factory=set)
    #: mutant path -> the rule that must catch it
    mutants: dict[str, str] = field(default_factory=dict)
    #: path -> class IRI its namespace maps to (spec 4.2.1)
    classes: dict[str, str] = field(default_factory=dict)
    #: entity types no valid payload could be made for (a pattern none of the candidates fits), with why
    skipped: dict[str, str] = field(default_factory=dict)

    def write(self, root: Path) -> None:
        for relpath, text in self.files.items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def memory(
    ontology: ResolvedOntology,
    name: str,
    kind: str,
    namespace: str | None,
    extra: dict[str, Any] | None = None,
    relationships: list[tuple[str, str]] = (),
) -> str:
    fm: dict[str, Any] = {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{ontology.id}/{name}")),
        "type": kind,
        "created": "2026-01-15T10:30:00Z",
        "title": name,
        "ontology": {"id": ontology.id, "version": str(ontology.file.version or "1.0.0")},
    }
    if namespace is not None:
        fm["namespace"] = namespace
    if relationships:
        fm["relationships"] = [{"type": t, "target": target} for t, target in relationships]
    fm.update(extra or {})
    body = f"# {name}\n\nBody.\n"
    if relationships:
        body += "\n## Relationships\n\n" + "".join(f"- {t} [{target}]({target})\n" for t, target in relationships)
    return "---\n" + yaml.safe_dump(fm, sort_keys=False, allow_unicode=True) + "---\n" + body


def value_for(schema: Any) -> tuple[bool, Any]:
    """A value the schema accepts: (True, value), or (False, why) when none of the tries fits."""
    if not isinstance(schema, dict):
        return True, "value"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return True, schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return True, schema.get("minimum", 1)
    if kind == "number":
        return True, schema.get("minimum", 0.5)
    if kind == "boolean":
        return True, True
    if kind == "array":
        ok, item = value_for(schema.get("items", {}))
        return ok, [item] if ok else item
    if kind == "object":
        out = {}
        for key in schema.get("required", []):
            ok, value = value_for(schema.get("properties", {}).get(key, {}))
            if not ok:
                return False, value
            out[key] = value
        return True, out
    formats = {
        "date-time": "2026-01-15T10:30:00Z",
        "date": "2026-01-15",
        "uri": "https://example.org/x",
        "email": "a@example.org",
    }
    if schema.get("format") in formats:
        return True, formats[schema["format"]]
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        fits = next((c for c in PATTERN_CANDIDATES if re.search(pattern, c)), None)
        return (True, fits) if fits is not None else (False, f"no candidate fits pattern {pattern!r}")
    return True, "value"


def build(bound: BoundOntologies, ontology_id: str, folder: str = "m") -> Corpus:
    """Valid memories (one per namespace node, one per entity type) and mutants of each rule, for one ontology."""
    view = bound.view(ontology_id)
    assert view is not None and bound.compilation is not None
    composer = next(c for c in bound.compilation.composers if c.view.id == view.id)
    tree, types = NamespaceTree(view), TypeMap.of(view)
    corpus = Corpus()
    nodes = sorted(tree.nodes)
    relationship_names = sorted(n for n in view.relationships if ":" not in n and n not in TERM_COLLISIONS)

    def add(relpath: str, text: str, rule: str | None = None) -> None:
        corpus.files[relpath] = text
        if rule is None:
            corpus.valid.add(relpath)
        else:
            corpus.mutants[relpath] = rule

    for index, path in enumerate(nodes):
        kind = tree.implied_type(path) or "semantic"
        name = f"node-{index}"
        relpath = f"{folder}/{name}.md"
        # the first memory uses every relationship type the ontology defines, towards the second
        rels = [(r, "node-1.md") for r in relationship_names] if index == 0 and len(nodes) > 1 else []
        add(relpath, memory(view, name, kind, path, relationships=rels))
        mapped = types.type_of(path)
        if mapped is not None:
            corpus.classes[relpath] = str(entity_class(mapped.origin.ontology, mapped.name))
        wrong = path.rsplit("/", 1)
        wrong_path = "/".join(wrong[:-1] + [wrong[-1] + "qx"]) if len(wrong) > 1 else path + "qx"
        add(
            f"{folder}/bad-namespace-{index}.md",
            memory(view, f"bad-namespace-{index}", kind, wrong_path),
            "ontology-namespace",
        )
        if tree.implied_type(path):
            add(
                f"{folder}/bad-type-{index}.md",
                memory(view, f"bad-type-{index}", OTHER_BASE[kind], path),
                "ontology-namespace-type",
            )
    if nodes and relationship_names:
        add(
            f"{folder}/bad-relationship.md",
            memory(
                view,
                "bad-relationship",
                tree.implied_type(nodes[0]) or "semantic",
                nodes[0],
                relationships=[(relationship_names[0] + "-qx", "node-0.md")],
            ),
            "ontology-relationship-type",
        )

    for index, (name, entity) in enumerate(sorted(view.entity_types.items())):
        composed = composer.compose(name)
        payload: dict[str, Any] = {"name": f"{name} one", "entity_type": name}
        ok = True
        for key in composed.required:
            if key in ("name", "entity_type"):
                continue
            ok, value = value_for(composed.fields[key].schema if key in composed.fields else {})
            if not ok:
                corpus.skipped[name] = str(value)
                break
            payload[key] = value
        if not ok:
            continue
        home = next((n for n in nodes if types.type_of(n) is entity), None) or next(
            (n for n in nodes if tree.implied_type(n) == entity.base), None
        )
        extra: dict[str, Any] = {
            "entity": payload,
            "entities": [
                {
                    "@type": "EntityReference",
                    "entity": {"@id": f"urn:mif:entity:{name}:one"},
                    "entityType": name,
                    "name": f"{name} one",
                }
            ],
        }
        if composed.requires:
            extra["citations"] = [CITATION]
        add(f"{folder}/entity-{index}.md", memory(view, f"entity-{index}", entity.base, home, extra))
        bad_ref = dict(extra, entities=[dict(extra["entities"][0], entityType=name + "-qx")])
        add(
            f"{folder}/bad-entity-type-{index}.md",
            memory(view, f"bad-entity-type-{index}", entity.base, home, bad_ref),
            "ontology-entity-type",
        )
        missing = next((k for k in payload if k not in ("name", "entity_type")), None)
        if missing is not None:
            broken = dict(extra, entity={k: v for k, v in payload.items() if k != missing})
            add(
                f"{folder}/bad-payload-{index}.md",
                memory(view, f"bad-payload-{index}", entity.base, home, broken),
                "ontology-entity-schema",
            )
        enum_field = next(
            (
                k
                for k, f in composed.fields.items()
                if isinstance(f.schema.get("enum"), list) and f.schema.get("type", "string") == "string"
            ),
            None,
        )
        if enum_field is not None:
            wrong_enum = dict(extra, entity=dict(payload, **{enum_field: "qx-not-allowed"}))
            add(
                f"{folder}/bad-enum-{index}.md",
                memory(view, f"bad-enum-{index}", entity.base, home, wrong_enum),
                "ontology-entity-schema",
            )
    return corpus
