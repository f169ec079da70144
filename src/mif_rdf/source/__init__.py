"""Reading a bundle's files: discovery, frontmatter and markdown parsing, YAML, identities (ids, IRIs,
paths), integrity hashes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.source.bundle_files import discover as discover
    from mif_rdf.source.identity import GRAPH_INFERENCES as GRAPH_INFERENCES
    from mif_rdf.source.identity import graph_iri as graph_iri
    from mif_rdf.source.identity import normalize_base_iri as normalize_base_iri
    from mif_rdf.source.parse import bundle_base_iri as bundle_base_iri

#: public name -> the module that defines it (this package's public face: what the command line and users import)
_HOMES = {
    "discover": "mif_rdf.source.bundle_files",
    "GRAPH_INFERENCES": "mif_rdf.source.identity",
    "graph_iri": "mif_rdf.source.identity",
    "normalize_base_iri": "mif_rdf.source.identity",
    "bundle_base_iri": "mif_rdf.source.parse",
}
__all__ = [
    "GRAPH_INFERENCES",
    "bundle_base_iri",
    "discover",
    "graph_iri",
    "normalize_base_iri",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
