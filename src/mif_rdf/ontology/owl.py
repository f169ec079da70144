"""OWL/RDFS output: one ``owl:Ontology`` per ontology YAML (one document each), what LinkML or Protégé users expect.

* the ontology with ``owl:versionInfo`` and ``owl:imports`` of the ontologies
  it extends (a root imports the MIF vocabulary);
* entity types as ``owl:Class`` under their base type (``mif:SemanticType``
  ...) and, for ``subtype_of``, under their supertypes; the composed fields
  (traits resolved per spec 10.8.6) as class restrictions: ``owl:allValuesFrom``
  the field's range and ``owl:minCardinality 1`` for required fields (single
  values and every other closed-world rule are SHACL's, see shapes.py);
* fields as ``owl:DatatypeProperty``/``owl:ObjectProperty`` with a global
  ``rdfs:range`` when every definition in the compiled set agrees (the same
  key is one property for all entity types, because the loader gives it one
  IRI), an ``owl:AnnotationProperty`` when they disagree on the kind; keys
  that are MIF vocabulary terms are not redeclared, terms of other
  vocabularies (``schema:name``) are declared with their kind only;
* OWL 2 DL throughout, so Protégé, the OWL API and HermiT read the output:
  one kind per IRI, every borrowed term declared (:data:`SKOS_KINDS`), and
  no datatype outside the OWL 2 datatype map in an axiom or literal
  (``xsd:date``/``xsd:duration`` ranges are left to SHACL);
* relationship types as ``owl:ObjectProperty``: ``from``/``to`` as
  ``rdfs:domain``/``rdfs:range`` (a union for several), ``symmetric`` as
  ``owl:SymmetricProperty``, ``inverse`` as ``owl:inverseOf``;
* namespace trees as a SKOS concept scheme (``skos:notation`` is the path
  memories write in ``namespace:``, ``mif:typeHint`` the type hint);
* traits, discovery patterns, aliases, exemplars and every other key kept as
  annotations (upstream ontology context IRIs where it has one).

This module writes one ontology; the field properties are decided over the
whole compiled set first (:mod:`mif_rdf.ontology.owl_properties`), annotations
and borrowed SKOS terms are :mod:`mif_rdf.ontology.owl_annotations`'.
"""

from __future__ import annotations

from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology.fields import OWL2_DATATYPES, FieldSpec, field_spec
from mif_rdf.ontology.iris import (
    BASE_CLASSES,
    VOCABULARY,
    annotation_iri,
    entity_class,
    namespace_iri,
    ontology_iri,
    scheme_iri,
    trait_iri,
)
from mif_rdf.ontology.model import NamespaceDef, OntologyFile, Origin, RelationshipDef
from mif_rdf.ontology.owl_annotations import annotate, declare_borrowed
from mif_rdf.ontology.owl_properties import _KINDS, PropertyDeclaration, owl_datatype, own_fields
from mif_rdf.ontology.resolution import ResolvedOntology
from mif_rdf.ontology.traits import ComposedEntity, Composer
from mif_rdf.ontology.triple_stream import rdf_list
from mif_rdf.ontology.vocabulary import vocabulary_kinds
from mif_rdf.rdf.tordf import canonical_decimal
from mif_rdf.source.identity import relationship_iri


def _union(graph: Graph, members: list[URIRef]) -> URIRef | BNode:
    if len(members) == 1:
        return members[0]
    node = BNode()
    graph.add((node, RDF.type, OWL.Class))
    graph.add((node, OWL.unionOf, rdf_list(graph, members)))
    return node


class OwlWriter:
    """Writes one ontology's view into a graph."""

    def __init__(
        self, graph: Graph, composer: Composer, declarations: dict[URIRef, PropertyDeclaration], warnings: list[Problem]
    ) -> None:
        self.g = graph
        self.composer = composer
        self.view: ResolvedOntology = composer.view
        self.file: OntologyFile = composer.view.file
        self.iri = ontology_iri(self.file.id)
        self.declarations = declarations
        self.warnings = warnings

    def warn(self, element: str, message: str) -> None:
        self.warnings.append(
            Problem(
                str(self.file.path),
                f"ontology '{self.file.id}', {element}: {message}",
                Severity.WARNING,
                key=element,
                rule="ontology",
            )
        )

    def write(self) -> None:
        self.header()
        for trait in self.file.traits.values():
            self.trait(trait.name)
        for entity in self.file.entity_types.values():
            self.entity(self.composer.compose(entity.name))
        self.properties()
        for rel in self.file.relationships.values():
            relationship(
                self.g,
                rel,
                self.iri,
                self.endpoint_classes(rel, rel.sources, "from"),
                self.endpoint_classes(rel, rel.targets, "to"),
            )
        for node in self.file.namespaces.values():
            self.namespace(node, None)
        if self.file.discovery:
            self.discovery()
        declare_borrowed(self.g)

    # -- the ontology ------------------------------------------------------------------------
    def header(self) -> None:
        g, f = self.g, self.file
        g.add((self.iri, RDF.type, OWL.Ontology))
        g.add((self.iri, RDFS.label, Literal(f.id)))
        if f.description:
            g.add((self.iri, RDFS.comment, Literal(f.description)))
        if f.version:
            g.add((self.iri, OWL.versionInfo, Literal(f.version)))
            g.add((self.iri, OWL.versionIRI, URIRef(f"{self.iri}/{f.version}")))
        if f.schema_url:
            g.add((self.iri, RDFS.isDefinedBy, URIRef(f.schema_url.strip())))
        parents = [ontology_iri(p.id) for p in self.view.parents if p.id != f.id]
        for parent in parents or [VOCABULARY]:
            g.add((self.iri, OWL.imports, parent))
        for key, value in f.annotations.items():
            annotate(g, self.iri, key, value)

    def defined(self, subject: URIRef, label: str, description: str | None) -> None:
        self.g.add((subject, RDFS.label, Literal(label)))
        self.g.add((subject, RDFS.isDefinedBy, self.iri))
        if description:
            self.g.add((subject, RDFS.comment, Literal(description)))

    # -- traits and entity types --------------------------------------------------------------------
    def trait_ref(self, name: str, used_by: Origin) -> URIRef | Literal:
        """The IRI of the trait ``name``; its name as text when nothing defines it (warned about in composition)."""
        trait = self.composer.trait(name, used_by)
        return trait_iri(trait.origin.ontology, name) if trait is not None else Literal(name)

    def trait(self, name: str) -> None:
        trait = self.view.traits[name]
        subject = trait_iri(self.file.id, name)
        self.g.add((subject, RDF.type, MIF.Trait))
        self.defined(subject, name, trait.description)
        for parent in trait.extends:
            self.g.add((subject, annotation_iri("extends"), self.trait_ref(parent, trait.origin)))
        for fdef in trait.fields.values():
            spec = field_spec(fdef.name, fdef.schema)
            if spec.predicate is not None:
                self.g.add((subject, MIF.hasField, spec.predicate))
        for key in trait.requires:
            self.g.add((subject, MIF.requiresField, field_spec(key, {}).predicate or Literal(key)))

    def class_ref(self, name: str) -> URIRef:
        return entity_class(self.view.entity_types[name].origin.ontology, name)

    def entity(self, composed: ComposedEntity) -> None:
        g, entity = self.g, composed.entity
        subject = entity_class(self.file.id, entity.name)
        g.add((subject, RDF.type, OWL.Class))
        self.defined(subject, entity.name, entity.description)
        g.add((subject, RDFS.subClassOf, BASE_CLASSES[entity.base]))
        for parent in entity.subtype_of:
            g.add((subject, RDFS.subClassOf, self.class_ref(parent)))
        for name in entity.traits:
            ref = self.trait_ref(name, entity.origin)
            if isinstance(ref, Literal):
                annotate(g, subject, "traits", str(ref))
            else:
                g.add((subject, MIF.definesTrait, ref))
        for key, value in entity.annotations.items():
            annotate(g, subject, key, value)
        for name, fdef in composed.fields.items():
            if name not in composed.inherited:
                self.restrictions(subject, field_spec(name, fdef.schema))
        for name in composed.required:
            predicate = field_spec(name, composed.fields[name].schema if name in composed.fields else {}).predicate
            if predicate is not None and self.kind(predicate) in _KINDS.values():
                self.restriction(subject, predicate, OWL.minCardinality, Literal(1, datatype=XSD.nonNegativeInteger))

    def kind(self, predicate: URIRef) -> URIRef | None:
        """How ``predicate`` is declared (here, by the vocabulary or as a relationship):
        restrictions need an object or datatype property."""
        declaration = self.declarations.get(predicate)
        if declaration is not None:
            return declaration.kind
        if predicate == RDF.type:
            return None
        return vocabulary_kinds().get(
            predicate, OWL.ObjectProperty
        )  # otherwise a relationship type (fields skip those)

    def restriction(self, subject: URIRef, predicate: URIRef, kind: URIRef, value: Any) -> None:
        node = BNode()
        self.g.add((node, RDF.type, OWL.Restriction))
        self.g.add((node, OWL.onProperty, predicate))
        self.g.add((node, kind, value))
        self.g.add((subject, RDFS.subClassOf, node))

    def restrictions(self, subject: URIRef, spec: FieldSpec) -> None:
        """``owl:allValuesFrom`` the field's range: only a datatype property, only a datatype of the OWL 2 map."""
        if spec.predicate is None or self.kind(spec.predicate) != OWL.DatatypeProperty:
            return
        value = spec.value
        enum = value.ontology_enum
        if enum and all(isinstance(v, Literal) and (v.datatype is None or v.datatype in OWL2_DATATYPES) for v in enum):
            datarange = BNode()
            self.g.add((datarange, RDF.type, RDFS.Datatype))
            self.g.add((datarange, OWL.oneOf, rdf_list(self.g, enum)))
            self.restriction(subject, spec.predicate, OWL.allValuesFrom, datarange)
        elif owl_datatype(value.owl_range) is not None:
            self.restriction(subject, spec.predicate, OWL.allValuesFrom, value.owl_range)

    def properties(self) -> None:
        """Declare the field properties this ontology's own traits and entity types introduce."""
        for fdef in own_fields(self.file):
            predicate = field_spec(fdef.name, fdef.schema).predicate
            declaration = self.declarations.get(predicate) if predicate is not None else None
            if predicate is None or declaration is None:
                continue
            self.g.add((predicate, RDF.type, declaration.kind))
            if declaration.borrowed:
                continue
            self.defined(predicate, declaration.label, declaration.description)
            if declaration.range is not None:
                self.g.add((predicate, RDFS.range, declaration.range))

    # -- relationships ----------------------------------------------------------------------------------
    def endpoint_classes(self, rel: RelationshipDef, names: tuple[str, ...], side: str) -> list[URIRef] | None:
        """Classes for ``from``/``to``; None (no axiom) when one of them is unknown here."""
        missing = [n for n in names if n not in self.view.entity_types]
        if missing:
            self.warn(
                f"relationship '{rel.spellings[0]}'",
                f"'{side}' names {', '.join(repr(m) for m in missing)}, not an entity type of this ontology or those "
                "it "
                f"extends; no rdfs:{'domain' if side == 'from' else 'range'} is stated (the names are kept as "
                "annotations)",
            )
            return None
        return [self.class_ref(n) for n in names]

    # -- namespaces (SKOS) ---------------------------------------------------------------------------------
    def namespace(self, node: NamespaceDef, parent: URIRef | None) -> None:
        g, scheme = self.g, scheme_iri(self.file.id)
        if parent is None:
            g.add((scheme, RDF.type, SKOS.ConceptScheme))
            g.add((scheme, RDFS.label, Literal(f"{self.file.id} namespaces")))
            g.add((scheme, RDFS.isDefinedBy, self.iri))
            g.add((self.iri, MIF.hasNamespace, scheme))
        subject = namespace_iri(self.file.id, node.path)
        g.add((subject, RDF.type, SKOS.Concept))
        g.add((subject, SKOS.inScheme, scheme))
        g.add((subject, SKOS.prefLabel, Literal(node.path.rsplit("/", 1)[-1])))
        g.add((subject, SKOS.notation, Literal(node.path)))
        if node.description:
            g.add((subject, SKOS.definition, Literal(node.description)))
        if node.type_hint:
            g.add((subject, MIF.typeHint, Literal(node.type_hint)))
        if node.replaces:
            g.add((subject, MIF.replaces, Literal(node.replaces)))
        if parent is None:
            g.add((subject, SKOS.topConceptOf, scheme))
            g.add((scheme, SKOS.hasTopConcept, subject))
        else:
            g.add((subject, SKOS.broader, parent))
            g.add((parent, SKOS.narrower, subject))
        for child in node.children.values():
            self.namespace(child, subject)

    # -- discovery -----------------------------------------------------------------------------------------
    def discovery(self) -> None:
        g, config = self.g, BNode()
        g.add((self.iri, MIF.discoveryConfig, config))
        for key, value in self.file.discovery.items():
            if key == "enabled" and isinstance(value, bool):
                g.add((config, MIF.discoveryEnabled, Literal(value)))
            elif key == "confidence_threshold" and isinstance(value, (int, float)) and not isinstance(value, bool):
                g.add((config, MIF.confidenceThreshold, Literal(canonical_decimal(value), datatype=XSD.decimal)))
            elif key in ("patterns", "content_patterns", "file_patterns") and isinstance(value, list):
                for pattern in value:
                    g.add((config, MIF.hasDiscoveryPattern, self.pattern(pattern, key)))
            else:
                annotate(g, config, key, value)

    def pattern(self, spec: Any, list_key: str) -> BNode:
        node = BNode()
        if not isinstance(spec, dict):
            annotate(self.g, node, "pattern", spec)
            return node
        keyed = {"content_patterns": MIF.contentPattern, "file_patterns": MIF.filePattern}
        for key, value in spec.items():
            if key == "pattern" and list_key in keyed:
                self.g.add((node, keyed[list_key], Literal(str(value))))
            elif key in ("content_pattern", "file_pattern"):
                self.g.add(
                    (node, MIF.contentPattern if key == "content_pattern" else MIF.filePattern, Literal(str(value)))
                )
            elif key in ("namespace", "namespaces", "suggest_namespace"):
                for ns in value if isinstance(value, list) else [value]:
                    self.g.add((node, MIF.suggestsNamespace, Literal(str(ns))))
            elif key == "suggest_entity" and isinstance(value, str):
                if value in self.view.entity_types:
                    self.g.add((node, MIF.suggestsEntityType, self.class_ref(value)))
                else:
                    self.warn(
                        "discovery",
                        f"suggest_entity '{value}' is not an entity type of this ontology or those it extends; kept "
                        "as text",
                    )
                    self.g.add((node, MIF.suggestsEntityType, Literal(value)))
            else:
                annotate(self.g, node, key, value)
        return node


def relationship(
    graph: Graph, rel: RelationshipDef, defined_by: URIRef, domain: list[URIRef] | None, range_: list[URIRef] | None
) -> None:
    """A relationship type as an object property (with its inverse)."""
    subject = URIRef(relationship_iri(rel.name))
    graph.add((subject, RDF.type, OWL.ObjectProperty))
    graph.add((subject, RDFS.isDefinedBy, defined_by))
    for spelling in rel.spellings:
        graph.add((subject, RDFS.label, Literal(spelling)))
    for description in rel.descriptions:
        graph.add((subject, RDFS.comment, Literal(description)))
    if rel.symmetric:
        graph.add((subject, RDF.type, OWL.SymmetricProperty))
    for side, names, classes, axiom in (
        ("from", rel.sources, domain, RDFS.domain),
        ("to", rel.targets, range_, RDFS.range),
    ):
        if classes:
            graph.add((subject, axiom, _union(graph, classes)))
        elif names:
            annotate(graph, subject, side, list(names))
    if rel.inverse:
        inverse = URIRef(relationship_iri(rel.inverse))
        graph.add((subject, OWL.inverseOf, inverse))
        graph.add((inverse, RDF.type, OWL.ObjectProperty))
        graph.add((inverse, RDFS.label, Literal(rel.inverse)))
        graph.add((inverse, RDFS.isDefinedBy, defined_by))
    for key, value in rel.annotations.items():
        annotate(graph, subject, key, value)
