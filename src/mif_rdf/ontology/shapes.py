"""SHACL from entity schemas: one node shape per entity type, one rule per property shape.

Focus nodes are the *memories* that carry the entity type's data: those whose
``entity:`` payload (the object of ``mif:entity``) has ``entity_type:
<name>``; a SPARQL-based target finds them (SHACL-AF: run pyshacl with
``advanced=True``).  Paths start at the memory (``mif:entity/mif:<field>``),
so a report names the memory and the field.  Each rule is its own property
shape, so each violation carries its own ``sh:message`` and ``sh:severity``,
and names where the rule comes from: ``mif:sourceOntology`` (ontology id),
``mif:sourceFile`` and ``mif:sourceElement`` (``trait 'decaying'``,
``entity type 'session'``), plus ``rdfs:isDefinedBy`` the ontology IRI.

| schema | rule |
|---|---|
| ``required`` | ``sh:minCount 1`` |
| a single-valued field | ``sh:maxCount 1`` (arrays are repeatable) |
| ``type`` / ``format`` / ``pattern`` | ``sh:datatype`` (``sh:or`` of what the loader may write), ``sh:pattern`` for formats |
| ``enum`` | ``sh:in`` the RDF terms the loader writes for those values |
| a declared type the key's context term does not fit (``strength: {type: string}``, an ``xsd:decimal`` term) | ``sh:nodeKind sh:Literal`` and ``sh:pattern`` on its text (the loader writes an ill-typed literal) |
| ``type: array`` | each item a value, checked like a field (JSON-LD: one value and a one-item array are the same triples); under an ``@list`` term an RDF list, items checked along ``rdf:rest*/rdf:first`` |
| ``type: object`` with ``properties`` | the nested fields, by longer paths |
| trait ``requires`` | ``sh:minCount 1`` on the memory's own field (``citations`` ...) |
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD

from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology.fields import FieldSpec, ValueSpec, field_spec
from mif_rdf.ontology.iris import ontology_iri
from mif_rdf.ontology.model import Origin
from mif_rdf.ontology.traits import ComposedEntity
from mif_rdf.ontology.triple_stream import rdf_list

PathStep = Any  # a predicate IRI or a blank node of a SHACL path expression


@dataclass(frozen=True)
class Target:
    """Which memories a shape applies to.

    ``ontologies`` None: every memory whose payload has the entity type.
    Otherwise only memories whose ``ontology: id`` is one of them, plus, when
    ``fallback`` is set, memories naming no ontology or one outside ``known``
    (used when several compiled ontologies define one entity type differently).
    """

    entity_type: str
    ontologies: tuple[str, ...] | None = None
    fallback: bool = False
    known: tuple[str, ...] = ()

    def select(self) -> str:
        lines = [
            "SELECT ?this WHERE {",
            f"  ?this <{MIF.entity}> ?entity .",
            f"  ?entity <{MIF.entity_type}>|<{MIF.entityType}> ?type .",
            f"  FILTER (STR(?type) = {_quoted(self.entity_type)})",
        ]
        if self.ontologies is not None:
            declared = "?declared IN (" + ", ".join(_quoted(o) for o in self.ontologies) + ")"
            if self.fallback:
                declared += " || ?declared NOT IN (" + ", ".join(_quoted(o) for o in self.known) + ")"
            lines += [
                f"  OPTIONAL {{ ?this <{MIF.ontology}> ?ontology . FILTER (isIRI(?ontology)) }}",
                '  BIND (IF(BOUND(?ontology), REPLACE(STR(?ontology), "^.*[/#:]", ""), "") AS ?declared)',
                f"  FILTER ({declared})",
            ]
        return "\n".join(lines + ["}"])


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ShapeWriter:
    """Writes node shapes for composed entity types into a shapes graph."""

    def __init__(self, graph: Graph) -> None:
        self.g = graph
        self.node: URIRef = URIRef("")  # the node shape being written
        self.context = ""  # "entity type 'x'", the start of every message

    def entity(self, subject: URIRef, composed: ComposedEntity, target: Target) -> None:
        g, entity = self.g, composed.entity
        g.add((subject, RDF.type, SH.NodeShape))
        g.add((subject, RDFS.label, Literal(f"entity type '{entity.name}' ({entity.origin.ontology})")))
        self.provenance(subject, entity.origin)
        sparql = BNode()
        g.add((subject, SH.target, sparql))
        g.add((sparql, RDF.type, SH.SPARQLTarget))
        g.add((sparql, SH.select, Literal(target.select())))
        self.context = f"entity type '{entity.name}'"
        self.node = subject
        for name, fdef in composed.fields.items():
            self.field(field_spec(name, fdef.schema), [MIF.entity], name, fdef.origin)
        for name in composed.required:
            spec = field_spec(name, composed.fields[name].schema if name in composed.fields else {})
            if spec.predicate is not None:
                self.rule(
                    [MIF.entity, spec.predicate], f"required field '{name}' is missing", entity.origin, name, minCount=1
                )
        for key, origin in composed.requires.items():
            predicate = field_spec(key, {}).predicate
            if predicate is not None:
                self.rule([predicate], f"the memory field '{key}' is required", origin, key, minCount=1)

    def provenance(self, subject: URIRef | BNode, origin: Origin) -> None:
        self.g.add((subject, MIF.sourceOntology, Literal(origin.ontology)))
        self.g.add((subject, MIF.sourceFile, Literal(str(origin.file))))
        self.g.add((subject, MIF.sourceElement, Literal(origin.element)))
        self.g.add((subject, RDFS.isDefinedBy, ontology_iri(origin.ontology)))

    def path(self, steps: list[PathStep]) -> PathStep:
        return steps[0] if len(steps) == 1 else rdf_list(self.g, steps)

    def rule(self, steps: list[PathStep], what: str, origin: Origin, name: str, **constraints: Any) -> BNode:
        """One property shape: ``constraints`` are SHACL parameters (``minCount=1`` ...)."""
        g, shape = self.g, BNode()
        g.add((self.node, SH.property, shape))
        g.add((shape, SH.path, self.path(steps)))
        g.add((shape, SH.name, Literal(name)))
        g.add((shape, SH.severity, SH.Violation))
        g.add((shape, SH.message, Literal(f"{self.context}: {what} (rule from {origin})")))
        self.provenance(shape, origin)
        for key, value in constraints.items():
            if isinstance(value, list):
                value = rdf_list(g, value)
            elif isinstance(value, int) and not isinstance(value, bool):
                value = Literal(value)
            g.add((shape, SH[key], value))
        return shape

    def field(self, spec: FieldSpec, base: list[PathStep], name: str, origin: Origin) -> None:
        if spec.predicate is None:
            return
        steps = base + [spec.predicate]
        if not spec.array and spec.encoding == "value":
            self.rule(steps, f"field '{name}' takes a single value", origin, name, maxCount=1)
        if spec.encoding == "json":
            self.rule(steps, f"field '{name}' must be JSON", origin, name, datatype=spec.value.datatypes[0])
        elif spec.encoding == "list":
            self.rule(
                steps,
                f"field '{name}' must be a list",
                origin,
                name,
                **{"or": [self.shape(nil=True), self.shape(first=True)]},
            )
            self.values(spec.value, steps + self.items(), f"items of field '{name}'", name, origin)
        else:
            self.values(spec.value, steps, f"field '{name}'", name, origin)

    def items(self) -> list[PathStep]:
        """The path steps ``rdf:rest*/rdf:first`` (every item of an RDF list)."""
        rest = BNode()
        self.g.add((rest, SH.zeroOrMorePath, RDF.rest))
        return [rest, RDF.first]

    def shape(
        self, *, nil: bool = False, first: bool = False, datatype: URIRef | None = None, pattern: str | None = None
    ) -> BNode:
        """A small anonymous shape for ``sh:or`` alternatives."""
        node = BNode()
        if nil:
            self.g.add((node, SH["in"], rdf_list(self.g, [RDF.nil])))
        if first:
            inner = BNode()
            self.g.add((node, SH.property, inner))
            self.g.add((inner, SH.path, RDF.first))
            self.g.add((inner, SH.minCount, Literal(1)))
        if datatype is not None:
            self.g.add((node, SH.datatype, datatype))
        if pattern is not None:
            self.g.add((node, SH.pattern, Literal(pattern)))
        return node

    def values(self, value: ValueSpec, steps: list[PathStep], label: str, name: str, origin: Origin) -> None:
        """Rules for every value found at ``steps``."""
        if value.enum:
            shown = ", ".join(str(v) for v in value.enum)
            self.rule(steps, f"{label} must be one of: {shown}", origin, name, **{"in": list(value.enum)})
        if value.node_kind is not None:
            extra = {"pattern": Literal(value.pattern)} if value.pattern else {}
            self.rule(steps, f"{label} must be {value.label}", origin, name, nodeKind=value.node_kind, **extra)
        elif value.datatypes:
            options = [(d, value.pattern if d == XSD.string else None) for d in value.datatypes]
            if value.format_datatype is not None:
                options.append((value.format_datatype, None))
            if len(options) == 1:
                datatype, pattern = options[0]
                extra = {"pattern": Literal(pattern)} if pattern else {}
                self.rule(steps, f"{label} must be {value.label}", origin, name, datatype=datatype, **extra)
            else:
                alternatives = [self.shape(datatype=d, pattern=p) for d, p in options]
                self.rule(steps, f"{label} must be {value.label}", origin, name, **{"or": alternatives})
        for nested in value.nested:
            self.field(nested, steps, f"{name}.{nested.name}", origin)
        for required in value.nested_required:
            predicate = (
                next((n.predicate for n in value.nested if n.name == required), None)
                or field_spec(required, {}).predicate
            )
            if predicate is not None:
                inner = BNode()
                self.g.add((inner, SH.path, predicate))
                self.g.add((inner, SH.minCount, Literal(1)))
                holder = BNode()
                self.g.add((holder, SH.property, inner))
                self.rule(steps, f"{label} must have '{required}'", origin, f"{name}.{required}", node=holder)
