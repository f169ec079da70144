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
The names are imported on first use (PEP 562), so that importing one stage
of the package (the compiler, say) does not load the others: the bundle
binding and the extended types read a loaded bundle, the compiler does not.
See docs/ontology.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

# Imported now, not on first use: the function shares its module's name, and a lazy attribute would be
# shadowed by the submodule as soon as another module imports ``mif_rdf.ontology.vocabulary``.
from mif_rdf.ontology.vocabulary import vocabulary as vocabulary

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.ontology.binding import BoundOntologies as BoundOntologies
    from mif_rdf.ontology.binding import OntologyReference as OntologyReference
    from mif_rdf.ontology.binding import bundle_ontologies as bundle_ontologies
    from mif_rdf.ontology.binding import memory_references as memory_references
    from mif_rdf.ontology.catalog import document_files as document_files
    from mif_rdf.ontology.compiler import Compilation as Compilation
    from mif_rdf.ontology.compiler import Prepared as Prepared
    from mif_rdf.ontology.compiler import compile_ontologies as compile_ontologies
    from mif_rdf.ontology.compiler import compile_owl as compile_owl
    from mif_rdf.ontology.compiler import compile_prepared as compile_prepared
    from mif_rdf.ontology.compiler import compile_shapes as compile_shapes
    from mif_rdf.ontology.compiler import prepare_ontologies as prepare_ontologies
    from mif_rdf.ontology.extended_types import add_types_graph as add_types_graph
    from mif_rdf.ontology.registry import Registry as Registry
    from mif_rdf.ontology.registry import builtin_dir as builtin_dir
    from mif_rdf.ontology.registry import search_path as search_path
    from mif_rdf.ontology.registry import user_ontology_dirs as user_ontology_dirs
    from mif_rdf.ontology.streamed import Written as Written
    from mif_rdf.ontology.streamed import write_owl as write_owl
    from mif_rdf.ontology.streamed import write_shapes_text as write_shapes_text
    from mif_rdf.ontology.suggester import suggest as suggest
    from mif_rdf.ontology.suggestions import SuggestionReport as SuggestionReport
    from mif_rdf.ontology.suggestions import add_suggestions as add_suggestions
    from mif_rdf.ontology.suggestions import suggestions_graph_iri as suggestions_graph_iri

#: public name -> the module that defines it
_HOMES = {
    "suggestions_graph_iri": "mif_rdf.ontology.suggestions",
    "suggest": "mif_rdf.ontology.suggester",
    "document_files": "mif_rdf.ontology.catalog",
    "add_suggestions": "mif_rdf.ontology.suggestions",
    "SuggestionReport": "mif_rdf.ontology.suggestions",
    "BoundOntologies": "mif_rdf.ontology.binding",
    "OntologyReference": "mif_rdf.ontology.binding",
    "bundle_ontologies": "mif_rdf.ontology.binding",
    "memory_references": "mif_rdf.ontology.binding",
    "Compilation": "mif_rdf.ontology.compiler",
    "compile_ontologies": "mif_rdf.ontology.compiler",
    "compile_owl": "mif_rdf.ontology.compiler",
    "compile_shapes": "mif_rdf.ontology.compiler",
    "Prepared": "mif_rdf.ontology.compiler",
    "prepare_ontologies": "mif_rdf.ontology.compiler",
    "compile_prepared": "mif_rdf.ontology.compiler",
    "Written": "mif_rdf.ontology.streamed",
    "write_owl": "mif_rdf.ontology.streamed",
    "write_shapes_text": "mif_rdf.ontology.streamed",
    "add_types_graph": "mif_rdf.ontology.extended_types",
    "Registry": "mif_rdf.ontology.registry",
    "builtin_dir": "mif_rdf.ontology.registry",
    "search_path": "mif_rdf.ontology.registry",
    "user_ontology_dirs": "mif_rdf.ontology.registry",
}
__all__ = [
    "suggestions_graph_iri",
    "suggest",
    "document_files",
    "add_suggestions",
    "SuggestionReport",
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
    "Prepared",
    "prepare_ontologies",
    "compile_prepared",
    "Written",
    "write_owl",
    "write_shapes_text",
    "search_path",
    "user_ontology_dirs",
    "vocabulary",
]


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
