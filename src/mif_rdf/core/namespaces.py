"""The prefixes people expect to see (and to use in SPARQL) for MIF data."""

from __future__ import annotations

from rdflib import Graph, Namespace
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SKOS, XSD

MIF = Namespace("https://mif-spec.dev/ns/")
SCHEMA = Namespace("https://schema.org/")
PREFIXES: dict[str, Namespace] = {
    "mif": MIF,
    "dc": Namespace(str(DCTERMS)),
    "prov": Namespace(str(PROV)),
    "schema": SCHEMA,
    "xsd": Namespace(str(XSD)),
    "rdf": Namespace(str(RDF)),
    "rdfs": Namespace(str(RDFS)),
    "owl": Namespace(str(OWL)),
    "skos": Namespace(str(SKOS)),
    "mifp": Namespace(str(MIF) + "property/"),
}


def bind_prefixes(graph: Graph) -> Graph:
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace, override=True, replace=True)
    return graph
