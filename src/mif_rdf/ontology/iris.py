"""IRIs of compiled ontologies and their terms.

* ontology ``<id>``: ``https://mif-spec.dev/ontologies/<id>`` (spec 4.3 publishes
  ontology files under ``https://mif-spec.dev/ontologies/``); its terms live
  below it, bound to the prefix ``<id>:``;
* entity type ``<id>:<name>`` (the name as written, so ``entity_type: session``
  in a memory maps to a class without guessing), trait ``<id>:trait/<name>``,
  SHACL shape ``<id>:shape/<name>``, namespace scheme ``<id>:namespaces`` and
  namespace node ``<id>:namespace/<path>``;
* fields use the IRI the loader writes (``mif_context().expand_key``) and
  relationship types the kebab-case IRI of :func:`mif_rdf.source.identity.relationship_iri`;
* annotation keys of the ontology YAML that have no standard RDF term use the
  upstream ontology context's vocabulary, ``https://mif-spec.dev/ns/ontology#``.
"""

from __future__ import annotations

from urllib.parse import quote

from rdflib import Namespace, URIRef

from mif_rdf.core.namespaces import MIF

ONTOLOGIES_BASE = "https://mif-spec.dev/ontologies/"
#: ``@vocab`` of the upstream ontology context (schema/ontology/ontology.context.jsonld).
MIFO = Namespace("https://mif-spec.dev/ns/ontology#")
#: The MIF vocabulary ontology (public/ns/vocabulary.jsonld), imported by every root ontology.
VOCABULARY = URIRef(str(MIF))
BASE_CLASSES = {"semantic": MIF.SemanticType, "episodic": MIF.EpisodicType, "procedural": MIF.ProceduralType}
_SAFE = "-._~!$&'()*+,;=:@"


def ontology_iri(ontology_id: str) -> URIRef:
    return URIRef(ONTOLOGIES_BASE + ontology_id)


def term_namespace(ontology_id: str) -> Namespace:
    return Namespace(ONTOLOGIES_BASE + ontology_id + "/")


def _term(ontology_id: str, local: str) -> URIRef:
    return URIRef(ONTOLOGIES_BASE + ontology_id + "/" + local)


def entity_class(ontology_id: str, name: str) -> URIRef:
    return _term(ontology_id, quote(name, safe=_SAFE))


def trait_iri(ontology_id: str, name: str) -> URIRef:
    return _term(ontology_id, "trait/" + quote(name, safe=_SAFE))


def shape_iri(ontology_id: str, name: str) -> URIRef:
    return _term(ontology_id, "shape/" + quote(name, safe=_SAFE))


def scheme_iri(ontology_id: str) -> URIRef:
    return _term(ontology_id, "namespaces")


def namespace_iri(ontology_id: str, path: str) -> URIRef:
    return _term(ontology_id, "namespace/" + quote(path, safe=_SAFE + "/"))


def annotation_iri(key: str) -> URIRef:
    """The annotation property of an ontology YAML key without a standard RDF term."""
    return MIFO[quote(key, safe=_SAFE)]
