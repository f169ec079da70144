"""Annotations and borrowed terms of the OWL output: YAML keys kept as annotations, SKOS terms declared (OWL 2 DL)."""

from __future__ import annotations

from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, SKOS

from mif_rdf.ontology.iris import annotation_iri
from mif_rdf.rdf.tordf import json_lexical

#: YAML keys with a standard RDF term (the rest become ``mifo:<key>`` annotations).
ANNOTATION_TERMS = {"aliases": SKOS.altLabel, "exemplars": SKOS.example}
#: How each borrowed SKOS term is declared (OWL 2 DL wants every term used declared as exactly one
#: kind): the concept scheme's nodes are individuals linked by SKOS's own object properties, the
#: labels, notations and examples are annotations.
SKOS_KINDS = {
    SKOS.Concept: OWL.Class,
    SKOS.ConceptScheme: OWL.Class,
    **{
        p: OWL.ObjectProperty
        for p in (SKOS.inScheme, SKOS.broader, SKOS.narrower, SKOS.topConceptOf, SKOS.hasTopConcept)
    },
    **{
        p: OWL.AnnotationProperty for p in (SKOS.prefLabel, SKOS.altLabel, SKOS.definition, SKOS.notation, SKOS.example)
    },
}


def annotate(graph: Graph, subject: URIRef | BNode, key: str, value: Any) -> None:
    """Keep a YAML value as an annotation: scalars as literals, anything nested as its JSON text.

    The JSON text is a plain string, not an ``rdf:JSON`` literal: OWL 2's datatype map has no
    ``rdf:JSON``, and the OWL API's DL profile check refuses it even in an annotation.
    """
    predicate = ANNOTATION_TERMS.get(key)
    if predicate is None:  # an open set of keys: declare the property where it is used
        predicate = annotation_iri(key)
        graph.add((predicate, RDF.type, OWL.AnnotationProperty))
    for item in value if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value) else [value]:
        if item is None:
            continue
        if isinstance(item, (dict, list)):
            graph.add((subject, predicate, Literal(json_lexical(item))))
        else:
            graph.add(
                (subject, predicate, Literal(item) if isinstance(item, (bool, int, float)) else Literal(str(item)))
            )


def declare_borrowed(graph: Graph) -> None:
    """Declare the SKOS terms ``graph`` uses (each document declares what it uses, OWL 2 DL)."""
    used = SKOS_KINDS.keys() & {*graph.predicates(), *graph.objects(None, RDF.type)}
    for term in used:
        graph.add((term, RDF.type, SKOS_KINDS[term]))
