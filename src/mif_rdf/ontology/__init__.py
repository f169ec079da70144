"""The ontology compiler: ontology YAML (spec 10.8) -> OWL/RDFS + SHACL.

::

    from mif_rdf.ontology import compile_ontologies, compile_shapes
    result = compile_ontologies(["ai-memory"], search_path=["ontologies/"])
    result.owl.serialize("ai-memory.ttl")          # OWL/RDFS, one owl:Ontology per ontology
    shapes = compile_shapes(["ai-memory"], bundle="my-bundle")   # SHACL for validate --ontology

Ontologies are named by id (looked up along the search path: built-in
``ontologies/``, user folders, a bundle's ``.mif/ontologies/``, ``--path``
folders) or by file.  :func:`bundle_ontologies` resolves what a bundle's
memories name in their ``ontology`` field.
See docs/ontology.md.
"""

from __future__ import annotations

from mif_rdf.ontology.binding import BoundOntologies, OntologyReference, bundle_ontologies, memory_references
from mif_rdf.ontology.compiler import Compilation, compile_ontologies, compile_owl, compile_shapes
from mif_rdf.ontology.extended_types import add_types_graph
from mif_rdf.ontology.registry import Registry, builtin_dir, search_path, user_ontology_dirs
from mif_rdf.ontology.vocabulary import vocabulary

__all__ = [
    "BoundOntologies",
    "add_types_graph",
    "OntologyReference",
    "bundle_ontologies",
    "memory_references",
    "Compilation",
    "Registry",
    "builtin_dir",
    "compile_ontologies",
    "compile_owl",
    "compile_shapes",
    "search_path",
    "user_ontology_dirs",
    "vocabulary",
]
