"""The RDFS/OWL vocabulary of the ``mif:`` terms, shipped as ``ontologies/mif-vocabulary.ttl``.

It is the published MIF vocabulary plus the terms mif-rdf's loader and
compiler use (see the file's header); reasoning puts it in the ontology graph
so that the core relationship types' inverses and symmetry apply.
"""

from __future__ import annotations

from functools import cache

from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF

from mif_rdf.core.namespaces import bind_prefixes
from mif_rdf.ontology.registry import builtin_dir

VOCABULARY_FILE = "mif-vocabulary.ttl"


def vocabulary() -> Graph:
    """A fresh graph of the shipped vocabulary (callers may add to it)."""
    return bind_prefixes(Graph()).parse(builtin_dir() / VOCABULARY_FILE, format="turtle")


@cache
def vocabulary_terms() -> frozenset[URIRef]:
    """Every term the vocabulary declares (compiled ontologies do not redeclare them)."""
    return frozenset(s for s in vocabulary().subjects(RDF.type, None) if isinstance(s, URIRef))


@cache
def vocabulary_kinds() -> dict[URIRef, URIRef]:
    """The OWL kind (object, datatype or annotation property) the vocabulary declares for each property.

    Compiled ontologies put class restrictions only on object and datatype properties (OWL 2 DL).
    """
    graph = vocabulary()
    kinds = (OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)
    return {s: kind for kind in kinds for s in graph.subjects(RDF.type, kind) if isinstance(s, URIRef)}
