"""Names the Python API and the command line share: stores, query result formats, reasoning profiles.

The command line builds its options from these, so this module imports
nothing: ``mif-rdf --help`` must not wait for rdflib's SPARQL engine.
"""

from __future__ import annotations

#: Store names (``load_bundle(store=...)``, ``--store``) -> rdflib store plugin names.
STORES = {"memory": "default", "oxigraph": "Oxigraph"}
#: Text formats of query results (``--format`` of ``mif-rdf query``).
RESULT_FORMATS = ("table", "csv", "json", "tsv")
#: Reasoning profiles and the scopes they run on (:func:`mif_rdf.reasoning.infer`).
PROFILES = ("fast", "rdfs", "owlrl")
SCOPES = ("all", "links")
