"""Ontology YAML (spec 10.8, upstream ``ontology.schema.json``) -> :class:`OntologyFile`.

The file is checked as it is read, so a malformed ontology fails with one
clear message naming the file, the element and what is wrong instead of a
traceback somewhere in the compiler.  Keys the spec does not define are kept
as annotations, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import ONTOLOGY_LIMITS, yaml_shape_problem
from mif_rdf.ontology.model import (
    EntityTypeDef,
    FieldDef,
    NamespaceDef,
    OntologyFile,
    Origin,
    RelationshipDef,
    TraitDef,
)
from mif_rdf.source.identity import BASE_TYPES, canonical_relationship_name
from mif_rdf.source.leanyaml import load_yaml_lean as load_yaml
from mif_rdf.source.yamlio import yaml_error_line

ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")
JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")
_ENTITY_KEYS = {"name", "base", "description", "traits", "subtype_of", "schema"}
_RELATIONSHIP_KEYS = {"description", "from", "to", "symmetric", "inverse"}
_TOP_KEYS = {"ontology", "namespaces", "entity_types", "traits", "relationships", "discovery"}


class _Reader:
    """Reads one file; every error names the file and the element."""

    def __init__(self, path: Path, warnings: list[Problem]) -> None:
        self.path = path
        self.id = "?"
        self.label = "ontology '?'"  # how messages name the document
        self.warnings = warnings

    def fail(self, element: str, message: str) -> MifRdfError:
        return MifRdfError(f"{self.path}: {self.label}, {element}: {message}")

    def warn(self, element: str, message: str) -> None:
        self.warnings.append(
            Problem(
                str(self.path), f"{self.label}, {element}: {message}", Severity.WARNING, key=element, rule="ontology"
            )
        )

    def origin(self, kind: str, name: str) -> Origin:
        return Origin(self.id, self.path, kind, name)

    # -- typed getters -------------------------------------------------------------
    def mapping(self, value: Any, element: str, *, empty_ok: bool = True) -> dict[str, Any]:
        if value is None and empty_ok:
            return {}
        if not isinstance(value, dict):
            raise self.fail(element, f"must be a mapping, not {_kind(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.fail(element, f"key {key!r} must be a string")
        return value

    def strings(self, value: Any, element: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(element, f"must be a list of strings, not {value!r}")
        return tuple(value)

    def text(self, value: Any, element: str) -> str | None:
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise self.fail(element, f"must be a string, not {_kind(value)}")


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", type(None): "empty"}.get(
        type(value), type(value).__name__
    )


def read_ontology(path: Path, *, source_index: int = 0) -> OntologyFile:
    """Parse and check one ontology YAML file (its warnings are in ``.warnings``)."""
    warnings: list[Problem] = []
    reader = _Reader(path, warnings)
    limit = ONTOLOGY_LIMITS.max_file_bytes
    try:
        size = path.stat().st_size
        if size > limit:  # never read: a 50 MB ontology took minutes and gigabytes to compile
            raise MifRdfError(
                f"ontology file {path} is {size:,} bytes, over the limit of {limit:,} "
                "(mif_rdf.core.limits.ONTOLOGY_LIMITS); not read"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MifRdfError(f"cannot read ontology file {path}: {exc}") from None
    try:
        result = load_yaml(text)
    except yaml.YAMLError as exc:
        line = yaml_error_line(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MifRdfError(f"{path}{f':{line}' if line else ''}: YAML syntax error: {problem}") from None
    except RecursionError:
        raise MifRdfError(
            f"{path}: YAML is nested deeper than {ONTOLOGY_LIMITS.max_yaml_depth} levels "
            "(mif_rdf.core.limits.ONTOLOGY_LIMITS); not read"
        ) from None
    too_big = yaml_shape_problem(result.data, ONTOLOGY_LIMITS)
    if too_big is not None:
        raise MifRdfError(f"{path}: {too_big} (mif_rdf.core.limits.ONTOLOGY_LIMITS); not read")
    data = result.data
    if not isinstance(data, dict):
        raise MifRdfError(
            f"{path}: an ontology file must be a YAML mapping with an 'ontology' section, not {_kind(data)}"
        )
    header = reader.mapping(data.get("ontology"), "ontology", empty_ok=False) if "ontology" in data else None
    if header is None:
        raise MifRdfError(f"{path}: no 'ontology' section (ontology: {{id: ..., version: ...}})")
    ontology_id = header.get("id")
    if not isinstance(ontology_id, str) or not ID_RE.match(ontology_id):
        raise MifRdfError(
            f"{path}: ontology.id {ontology_id!r} must be a lowercase identifier like 'mif-base' ([a-z][a-z0-9-]*)"
        )
    reader.id, reader.label = ontology_id, f"ontology '{ontology_id}'"
    for issue in result.issues:
        reader.warn(f"line {issue.line}", issue.message)
    extends = reader.strings(header.get("extends"), "ontology.extends")
    for parent in extends:
        if not ID_RE.match(parent):
            raise reader.fail("ontology.extends", f"{parent!r} is not an ontology id ([a-z][a-z0-9-]*)")
    onto = OntologyFile(
        id=ontology_id,
        path=path,
        version=reader.text(header.get("version"), "ontology.version"),
        description=reader.text(header.get("description"), "ontology.description"),
        schema_url=reader.text(header.get("schema_url"), "ontology.schema_url"),
        extends=extends,
        source_index=source_index,
        warnings=warnings,
        annotations={k: v for k, v in data.items() if k not in _TOP_KEYS},
    )
    onto.annotations.update(
        {k: v for k, v in header.items() if k not in ("id", "version", "description", "schema_url", "extends")}
    )
    onto.namespaces = _namespaces(reader, data.get("namespaces"))
    onto.traits = _traits(reader, data.get("traits"))
    onto.entity_types = _entity_types(reader, data.get("entity_types"))
    onto.relationships = relationship_map(reader, data.get("relationships"))
    onto.discovery = reader.mapping(data.get("discovery"), "discovery")
    return onto


# -- namespaces -------------------------------------------------------------------------
def _namespaces(reader: _Reader, value: Any, parent: str = "") -> dict[str, NamespaceDef]:
    element = f"namespaces.{parent.replace('/', '.children.')}" if parent else "namespaces"
    out: dict[str, NamespaceDef] = {}
    for name, spec in reader.mapping(value, element if not parent else f"{element}.children").items():
        path = f"{parent}/{name}" if parent else name
        where = f"namespaces.{path.replace('/', '.children.')}"
        spec = reader.mapping(spec, where)
        hint = spec.get("type_hint")
        if hint is not None and hint not in BASE_TYPES:
            raise reader.fail(where, f"type_hint {hint!r} must be one of {', '.join(BASE_TYPES)}")
        if not parent and name in BASE_TYPES:
            reader.warn(
                where,
                f"top-level namespace '{name}' is not the base-type prefix '_{name}' of spec 10.2; it is kept as its "
                "own namespace",
            )
        out[name] = NamespaceDef(
            path=path,
            origin=reader.origin("namespace", path),
            description=reader.text(spec.get("description"), f"{where}.description"),
            type_hint=hint,
            replaces=reader.text(spec.get("replaces"), f"{where}.replaces"),
            children=_namespaces(reader, spec.get("children"), path),
        )
    return out


# -- fields (JSON Schema properties) ------------------------------------------------------
def check_schema(schema: Any, element: str, fail: Callable[[str, str], MifRdfError]) -> dict[str, Any]:
    """Check a property schema (type, format, enum, pattern, items, properties) recursively."""
    if schema is None:
        return {}
    if not isinstance(schema, dict):
        raise fail(element, f"must be a JSON Schema mapping such as {{type: string}}, not {_kind(schema)}")
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for item in kinds:
        if item not in JSON_TYPES:
            raise fail(element, f"type {item!r} is not a JSON Schema type ({', '.join(JSON_TYPES)})")
    if "enum" in schema and not isinstance(schema["enum"], list):
        raise fail(element, f"enum must be a list of allowed values, not {_kind(schema['enum'])}")
    for key in ("format", "pattern"):
        if key in schema and not isinstance(schema[key], str):
            raise fail(element, f"{key} must be a string, not {_kind(schema[key])}")
    if isinstance(schema.get("pattern"), str):
        try:
            re.compile(schema["pattern"])
        except re.error as exc:
            raise fail(element, f"pattern {schema['pattern']!r} is not a valid regular expression ({exc})") from None
    if "items" in schema:
        check_schema(schema["items"], f"{element}.items", fail)
    if "properties" in schema:
        properties = schema["properties"]
        if not isinstance(properties, dict):
            raise fail(f"{element}.properties", f"must be a mapping of field schemas, not {_kind(properties)}")
        for name, sub in properties.items():
            if not isinstance(name, str):
                raise fail(f"{element}.properties", f"field name {name!r} must be a string")
            check_schema(sub, f"{element}.properties.{name}", fail)
    if "required" in schema and not (
        isinstance(schema["required"], list) and all(isinstance(r, str) for r in schema["required"])
    ):
        raise fail(f"{element}.required", "must be a list of field names")
    return schema


def _fields(reader: _Reader, value: Any, element: str, origin: Origin) -> dict[str, FieldDef]:
    return {
        name: FieldDef(name, check_schema(schema, f"{element}.{name}", reader.fail), origin)
        for name, schema in reader.mapping(value, element).items()
    }


# -- traits -----------------------------------------------------------------------------------
def _traits(reader: _Reader, value: Any) -> dict[str, TraitDef]:
    out: dict[str, TraitDef] = {}
    for name, spec in reader.mapping(value, "traits").items():
        where = f"traits.{name}"
        spec = reader.mapping(spec, where)
        origin = reader.origin("trait", name)
        out[name] = TraitDef(
            name=name,
            origin=origin,
            description=reader.text(spec.get("description"), f"{where}.description"),
            extends=reader.strings(spec.get("extends"), f"{where}.extends"),
            fields=_fields(reader, spec.get("fields"), f"{where}.fields", origin),
            requires=reader.strings(spec.get("requires"), f"{where}.requires"),
            raw=spec,
        )
    return out


# -- entity types ---------------------------------------------------------------------------------
def _named_definitions(reader: _Reader, value: Any, key: str, what: str) -> Iterator[tuple[int, dict[str, Any], str]]:
    """``(index, mapping, name)`` for each item of a list of named
    definitions (``entity_types``, ``relationship_types``)."""
    if value is None:
        return
    if not isinstance(value, list):
        raise reader.fail(key, f"must be a list of {what}, not {_kind(value)}")
    for index, spec in enumerate(value):
        where = f"{key}[{index}]"
        spec = reader.mapping(spec, where, empty_ok=False)
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise reader.fail(where, "has no name")
        yield index, spec, name


def _symmetric(reader: _Reader, spec: dict[str, Any], where: str) -> bool:
    symmetric = spec.get("symmetric", False)
    if not isinstance(symmetric, bool):
        raise reader.fail(where, f"symmetric must be true or false, not {symmetric!r}")
    return symmetric


def _entity_types(reader: _Reader, value: Any) -> dict[str, EntityTypeDef]:
    out: dict[str, EntityTypeDef] = {}
    for index, spec, name in _named_definitions(reader, value, "entity_types", "entity type definitions"):
        where = f"entity_types[{index}] ('{name}')"
        if name in out:
            raise reader.fail(where, f"entity type '{name}' is defined twice in this file")
        base = spec.get("base")
        if base not in BASE_TYPES:
            raise reader.fail(where, f"base {base!r} must be one of {', '.join(BASE_TYPES)} (spec 10.8.3)")
        origin = reader.origin("entity type", name)
        schema = reader.mapping(spec.get("schema"), f"{where}.schema")
        subtype_of = reader.strings(spec.get("subtype_of"), f"{where}.subtype_of")
        out[name] = EntityTypeDef(
            name=name,
            base=base,
            origin=origin,
            description=reader.text(spec.get("description"), f"{where}.description"),
            traits=reader.strings(spec.get("traits"), f"{where}.traits"),
            subtype_of=subtype_of,
            properties=_fields(reader, schema.get("properties"), f"{where}.schema.properties", origin),
            required=reader.strings(schema["required"], f"{where}.schema.required") if "required" in schema else None,
            annotations={k: v for k, v in spec.items() if k not in _ENTITY_KEYS},
            raw=spec,
        )
    return out


# -- relationships: the ontology map and the bundle config list ----------------------------------------
def relationship_map(reader: _Reader, value: Any) -> dict[str, RelationshipDef]:
    """An ontology's ``relationships:`` map; spellings of one name are merged (with a warning)."""
    out: dict[str, RelationshipDef] = {}
    for name, spec in reader.mapping(value, "relationships").items():
        where = f"relationships.{name}"
        spec = reader.mapping(spec, where)
        symmetric = _symmetric(reader, spec, where)
        description = reader.text(spec.get("description"), f"{where}.description")
        rel = RelationshipDef(
            name=canonical_relationship_name(name),
            origin=reader.origin("relationship", name),
            spellings=(name,),
            descriptions=(description,) if description else (),
            sources=reader.strings(spec.get("from"), f"{where}.from"),
            targets=reader.strings(spec.get("to"), f"{where}.to"),
            symmetric=symmetric,
            inverse=reader.text(spec.get("inverse"), f"{where}.inverse"),
            annotations={k: v for k, v in spec.items() if k not in _RELATIONSHIP_KEYS},
        )
        _add_relationship(reader, out, rel, where)
    return out


def config_relationships(path: Path, value: Any, warnings: list[Problem] | None = None) -> dict[str, RelationshipDef]:
    """A bundle config's ``relationship_types:`` list (spec 8.1) as relationship definitions.

    ``namespace: team`` makes the IRI ``team:<kebab-name>`` (spec 8.3); the
    inverse is named in the same namespace.
    """
    reader = _Reader(path, warnings if warnings is not None else [])
    reader.id = reader.label = "bundle config"
    out: dict[str, RelationshipDef] = {}
    for index, spec, name in _named_definitions(reader, value, "relationship_types", "relationship types"):
        where = f"relationship_types[{index}]"
        namespace = spec.get("namespace")
        if namespace is not None and (not isinstance(namespace, str) or not ID_RE.match(namespace.lower())):
            raise reader.fail(where, f"namespace {namespace!r} must be a short prefix such as 'team'")
        symmetric = _symmetric(reader, spec, where)
        qualified = f"{namespace}:{name}" if namespace else name
        inverse = reader.text(spec.get("inverse"), f"{where}.inverse")
        if inverse and namespace and ":" not in inverse:
            inverse = f"{namespace}:{inverse}"
        description = reader.text(spec.get("description"), f"{where}.description")
        rel = RelationshipDef(
            name=canonical_relationship_name(qualified),
            origin=reader.origin("relationship type", qualified),
            spellings=(qualified,),
            descriptions=(description,) if description else (),
            symmetric=symmetric,
            inverse=inverse,
            annotations={
                k: v for k, v in spec.items() if k not in ("name", "namespace", "description", "symmetric", "inverse")
            },
        )
        _add_relationship(reader, out, rel, where)
    return out


def _add_relationship(reader: _Reader, out: dict[str, RelationshipDef], rel: RelationshipDef, where: str) -> None:
    """Add ``rel``; a second spelling of the same name merges when compatible, else fails."""
    other = out.get(rel.name)
    if other is None:
        out[rel.name] = rel
        return
    if other.symmetric != rel.symmetric or (
        other.inverse
        and rel.inverse
        and canonical_relationship_name(other.inverse) != canonical_relationship_name(rel.inverse)
    ):
        raise reader.fail(
            where,
            f"'{rel.spellings[0]}' and '{other.spellings[0]}' are the same relationship type ('{rel.name}') but "
            "disagree on symmetric/inverse",
        )
    reader.warn(
        where,
        f"'{rel.spellings[0]}' and '{other.spellings[0]}' are spellings of the same relationship type '{rel.name}'; "
        "their definitions are merged",
    )
    out[rel.name] = RelationshipDef(
        name=rel.name,
        origin=other.origin,
        spellings=other.spellings + rel.spellings,
        descriptions=other.descriptions + tuple(d for d in rel.descriptions if d not in other.descriptions),
        sources=other.sources + tuple(s for s in rel.sources if s not in other.sources),
        targets=other.targets + tuple(t for t in rel.targets if t not in other.targets),
        symmetric=other.symmetric,
        inverse=other.inverse or rel.inverse,
        annotations={**rel.annotations, **other.annotations},
    )
