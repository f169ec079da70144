"""A folder of ontology documents that OWL tools open offline: one file per ontology and an XML catalog.

Protégé, the OWL API and ROBOT resolve ``owl:imports`` by the imported IRI,
which for compiled ontologies (``https://mif-spec.dev/ontologies/<id>``) and
the MIF vocabulary (``https://mif-spec.dev/ns/``) is no address they can fetch.
An OASIS XML catalog named ``catalog-v001.xml`` beside the files (the name
Protégé looks for) maps each IRI to its local file, so the whole ``extends``
chain opens from the folder.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from rdflib import URIRef
from rdflib.namespace import OWL

from mif_rdf.ontology.compiler import Compilation
from mif_rdf.ontology.iris import ONTOLOGIES_BASE, VOCABULARY
from mif_rdf.ontology.registry import builtin_dir
from mif_rdf.ontology.vocabulary import VOCABULARY_FILE

CATALOG_FILE = "catalog-v001.xml"
CATALOG_NS = "urn:oasis:names:tc:entity:xmlns:xml:catalog"


def file_name(iri: URIRef) -> str:
    """The document's file name: the ontology id (``mif-base.ttl``);
    a bundle config's (``.mif/config.yaml``) ``bundle-config.ttl``."""
    local = (
        str(iri)[len(ONTOLOGIES_BASE) :]
        if str(iri).startswith(ONTOLOGIES_BASE)
        else "bundle-" + str(iri).rsplit("/", 1)[-1].split(".")[0]
    )
    return re.sub(r"[^A-Za-z0-9._-]", "_", local).lstrip(".") + ".ttl"  # never a path: stays in the folder


def document_files(result: Compilation) -> Iterator[tuple[str, bytes]]:
    """(file name, content) of every document: each ontology in Turtle, the MIF vocabulary, the catalog."""
    mapping: dict[str, str] = {str(VOCABULARY): VOCABULARY_FILE}
    yield VOCABULARY_FILE, (builtin_dir() / VOCABULARY_FILE).read_bytes()
    for iri, graph in result.documents.items():
        name = file_name(iri)
        mapping[str(iri)] = name
        for version in graph.objects(iri, OWL.versionIRI):  # an import may name the version
            mapping[str(version)] = name
        yield name, graph.serialize(format="turtle", encoding="utf-8")
    yield CATALOG_FILE, catalog_xml(mapping)


def catalog_xml(mapping: dict[str, str]) -> bytes:
    """An OASIS XML catalog: one ``<uri name="IRI" uri="file"/>`` per entry (relative to the catalog)."""
    root = ET.Element("catalog", xmlns=CATALOG_NS, prefer="public")  # the default namespace, as Protégé writes it
    for iri, name in mapping.items():
        ET.SubElement(root, "uri", id=f"mif-rdf: {name}", name=iri, uri=name)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
