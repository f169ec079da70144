"""Memories selected by a field: base type, namespace, namespace URI, tag, ontology class, entity."""

from __future__ import annotations

from rdflib import Literal, URIRef

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import MIF
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.queries.columns import Shape, Shaped
from mif_rdf.queries.helpers.parameters import (
    _COLUMNS,
    _MEMORY,
    GraphLike,
    _iri,
    _select,
    _shaped,
    _text,
)
from mif_rdf.source.identity import BASE_TYPES, GRAPH_TYPES, graph_iri


def memories_of_type(graph: GraphLike, base_type: str, *, as_: Shape = "table") -> Shaped:
    """Memories of one base type: ``semantic``, ``episodic`` or ``procedural``."""
    if base_type not in BASE_TYPES:
        raise MifRdfError(f"unknown base type {base_type!r}: use one of {', '.join(BASE_TYPES)}")
    query = f"SELECT ?type ?memory ?path ?title WHERE {{ ?memory mif:conceptType ?type . {_MEMORY} }} ORDER BY ?path"
    return _shaped(_select(graph, query, _COLUMNS, type=MIF[base_type.capitalize() + "Type"]), as_)


def memories_in_namespace(graph: GraphLike, prefix: str, *, as_: Shape = "table") -> Shaped:
    """Memories whose namespace is ``prefix`` or below it (``_semantic`` holds ``_semantic/decisions``)."""
    prefix = _text(prefix, "namespace prefix").strip("/")
    # the title OPTIONAL right after the FILTER lets Oxigraph filter before it looks up paths (docs/performance.md)
    query = """SELECT ?prefix ?memory ?path ?title ?namespace WHERE {
      ?memory mif:namespace ?namespace .
      FILTER(STR(?namespace) = ?prefix || STRSTARTS(STR(?namespace), CONCAT(?prefix, "/")))
      OPTIONAL { ?memory dc:title ?title }
      ?memory mif:location ?location ; mif:path ?path .
    } ORDER BY ?path"""
    return _shaped(_select(graph, query, (*_COLUMNS, "namespace"), prefix=Literal(prefix)), as_)


def memory_at_uri(graph: GraphLike, uri: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The memory a namespace URI ``mif://{authority}/{namespace}/{memory-id}`` names (spec 10.6;
    the links graph's ``mif:namespaceUri``)."""
    query = f"SELECT ?uri ?memory ?path ?title WHERE {{ ?memory mif:namespaceUri ?uri . {_MEMORY} }} ORDER BY ?path"
    return _shaped(_select(graph, query, _COLUMNS, uri=_iri(uri, "namespace URI")), as_)


def memories_with_tag(graph: GraphLike, tag: str, *, as_: Shape = "table") -> Shaped:
    """Memories carrying ``tag`` (exactly, case included),
    their own or inherited from their namespace (the ``#inherited`` graph)."""
    query = f"SELECT ?tag ?memory ?path ?title WHERE {{ ?memory mif:tags ?tag . {_MEMORY} }} ORDER BY ?path"
    return _shaped(_select(graph, query, _COLUMNS, tag=Literal(_text(tag, "tag"))), as_)


def memories_of_class(graph: GraphLike, cls: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """Memories whose ontology-extended type (spec 4.2.1, 4.4) is ``cls`` or a subclass of it.

    The types live in ``<base>#types`` (:mod:`mif_rdf.ontology.extended_types`);
    a bundle loaded without them gets them written first.  ``cls`` is a class
    IRI, e.g. ``https://mif-spec.dev/ontologies/field-base/asset``, or a base
    class such as ``mif:EpisodicType`` written as a full IRI.  ``type`` is the
    memory's own extended type.
    """
    if isinstance(graph, LoadedBundle) and not any(
        True for _ in graph.dataset.graph(URIRef(graph_iri(graph.base_iri, GRAPH_TYPES))).triples((None, None, None))
    ):
        from mif_rdf.ontology import add_types_graph

        add_types_graph(graph)
    query = f"""SELECT DISTINCT ?class ?memory ?path ?title ?type WHERE {{
      ?type rdfs:subClassOf* ?class . ?memory a ?type .
      {_MEMORY}
    }} ORDER BY ?path ?type"""
    return _shaped(_select(graph, query, (*_COLUMNS, "type"), **{"class": _iri(cls, "class")}), as_)


def memories_about(graph: GraphLike, entity: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """Memories whose ``entities`` list references ``entity`` (its IRI), with the role given.

    Relationships *to* an entity (``uses``, ``created-by``) are edges of the
    links graph: ask :func:`neighbours` with ``direction="in"`` for those.
    """
    query = f"""SELECT ?entity ?memory ?path ?title ?role WHERE {{
      ?reference mif:entity ?entity . ?memory mif:entities ?reference .
      {_MEMORY}
      OPTIONAL {{ ?reference mif:role ?role }}
    }} ORDER BY ?path ?role"""
    return _shaped(_select(graph, query, (*_COLUMNS, "role"), entity=_iri(entity, "entity")), as_)
