"""The field properties of a compiled ontology set, for the OWL output (:mod:`mif_rdf.ontology.owl`).

Fields become ``owl:DatatypeProperty``/``owl:ObjectProperty`` with a global
``rdfs:range`` when every definition in the compiled set agrees (the same key
is one property for all entity types, because the loader gives it one IRI),
an ``owl:AnnotationProperty`` when they disagree on the kind; keys that are
MIF vocabulary terms are not redeclared, terms of other vocabularies
(``schema:name``) are declared with their kind only.  This module decides
that over the whole set, before any ontology is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, SH

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.ontology.fields import OWL2_DATATYPES, FieldSpec, field_spec
from mif_rdf.ontology.model import FieldDef, OntologyFile, shown
from mif_rdf.ontology.traits import Composer
from mif_rdf.ontology.vocabulary import vocabulary_terms
from mif_rdf.source.identity import relationship_iri


@dataclass(slots=True)
class PropertyDeclaration:
    """What every definition of one field property in the compiled set says."""

    label: str
    kind: URIRef  # owl:DatatypeProperty, owl:ObjectProperty or owl:AnnotationProperty (mixed or untyped values)
    range: URIRef | None
    description: str | None
    borrowed: bool = False  # a term of another vocabulary (schema:, dc:): declared, never defined here


_KINDS = {"object": OWL.ObjectProperty, "datatype": OWL.DatatypeProperty}


def _field_kind(spec: FieldSpec) -> tuple[str | None, URIRef | None]:
    """("object" | "datatype" | None for untyped, the global range it allows)."""
    value = spec.value
    if value.node_kind is not None and value.node_kind != SH.Literal:
        return "object", None
    if value.owl_range is not None or value.datatypes:
        return "datatype", (None if spec.array else owl_datatype(value.owl_range))
    return None, None


def owl_datatype(datatype: URIRef | None) -> URIRef | None:
    """``datatype`` if an OWL 2 DL axiom may use it, else None (SHACL checks the rest)."""
    return datatype if datatype in OWL2_DATATYPES else None


def own_fields(onto: OntologyFile) -> list[FieldDef]:
    """The fields an ontology file itself writes (in its traits and entity types)."""
    fields = [f for t in onto.traits.values() for f in t.fields.values()]
    return fields + [f for e in onto.entity_types.values() for f in e.properties.values()]


def field_declarations(composers: Iterable[Composer], warnings: list[Problem]) -> dict[URIRef, PropertyDeclaration]:
    """One declaration per field property of the compiled set that the MIF vocabulary does not define.

    The kind and the global range are stated only when every definition agrees;
    a field that is a mapping in one place and a plain value in another is
    warned about and declared an annotation property (OWL 2 DL allows one kind
    per IRI, and the data holds both), as is a field no definition types.
    Keys that are terms of other vocabularies (``name`` is ``schema:name``)
    are declared with their kind only (``borrowed``).
    """
    uses: dict[URIRef, list[tuple[FieldDef, str | None, URIRef | None]]] = {}
    borrowed: dict[URIRef, list[tuple[FieldDef, str | None, URIRef | None]]] = {}
    relationships = {URIRef(relationship_iri(r.name)) for c in composers for r in c.view.file.relationships.values()}
    for composer in composers:
        for fdef in own_fields(composer.view.file):
            spec = field_spec(fdef.name, fdef.schema)
            if spec.value.written_as is not None:
                warnings.append(
                    Problem(
                        str(fdef.origin.file),
                        f"{fdef.origin.short}: field '{fdef.name}' is declared {shown(fdef.schema)}, but the MIF "
                        "context "
                        f"types '{fdef.name}' ({spec.predicate}) as xsd:{spec.value.written_as.split('#')[-1]}, so "
                        "the loader writes "
                        "its values with that datatype, as JSON-LD does (ill-typed for text that is not one); OWL "
                        "states "
                        f"the declared type and SHACL checks the text; a key the context does not define avoids this",
                        Severity.WARNING,
                        key=fdef.name,
                        rule="ontology",
                    )
                )
            if spec.predicate is None:
                warnings.append(
                    Problem(
                        str(fdef.origin.file),
                        f"{fdef.origin.short}: field '{fdef.name}' is JSON-LD's @id in the MIF context (it names the "
                        f"entity node), so no property, range or SHACL rule can describe it",
                        Severity.WARNING,
                        key=fdef.name,
                        rule="ontology",
                    )
                )
            elif spec.predicate == RDF.type:
                continue
            elif spec.predicate in relationships:  # the relationship type's object property, declared with it
                if _field_kind(spec)[0] != "object":
                    warnings.append(
                        Problem(
                            str(fdef.origin.file),
                            f"{fdef.origin.short}: field '{fdef.name}' has the IRI of a relationship type "
                            f"({spec.predicate}), an "
                            f"owl:ObjectProperty, but is declared {shown(fdef.schema)}: OWL states no range or "
                            "restriction for "
                            f"the field (one kind per IRI); SHACL checks its values",
                            Severity.WARNING,
                            key=fdef.name,
                            rule="ontology",
                        )
                    )
            elif not spec.core and spec.predicate not in vocabulary_terms():
                uses.setdefault(spec.predicate, []).append((fdef, *_field_kind(spec)))
            elif spec.predicate not in vocabulary_terms():
                borrowed.setdefault(spec.predicate, []).append((fdef, *_field_kind(spec)))
    out: dict[URIRef, PropertyDeclaration] = {}
    for predicate, found in borrowed.items():
        kinds = {kind for _, kind, _ in found if kind}
        out[predicate] = PropertyDeclaration(
            found[0][0].name, _KINDS[kinds.pop()] if len(kinds) == 1 else OWL.AnnotationProperty, None, None, True
        )
    for predicate, found in uses.items():
        typed = [(fdef, kind, range_) for fdef, kind, range_ in found if kind]
        kinds = {kind for _, kind, _ in typed}
        ranges = {range_ for _, _, range_ in typed}
        if len(kinds) > 1:
            by_kind = {kind: fdef for fdef, kind, _ in typed}
            warnings.append(
                Problem(
                    str(by_kind["object"].origin.file),
                    f"field '{found[0][0].name}' ({predicate}) is a mapping/list in {by_kind['object'].origin} but a "
                    "plain "
                    f"value in {by_kind['datatype'].origin}: declared as an owl:AnnotationProperty (OWL 2 DL gives "
                    "an IRI one "
                    f"kind), without a range or class restrictions; SHACL checks each entity type's values",
                    Severity.WARNING,
                    key=found[0][0].name,
                    rule="ontology",
                )
            )
        agreed = len(kinds) == 1
        description = next(
            (d.schema["description"] for d, _, _ in found if isinstance(d.schema.get("description"), str)), None
        )
        out[predicate] = PropertyDeclaration(
            found[0][0].name,
            _KINDS[next(iter(kinds))] if agreed else OWL.AnnotationProperty,
            next(iter(ranges)) if agreed and len(ranges) == 1 else None,
            description,
        )
    return out
