"""SPARQL on MIF bundles: running queries, formatting results, and the query helpers.

::

    from mif_rdf import load_bundle
    from mif_rdf.queries import run_query, memories_with_tag, neighbours

    bundle = load_bundle("examples")
    memories_with_tag(bundle, "incident").to_dataframe()
    neighbours(bundle, "8b8080e5-d237-47de-8ba5-66af64a00dcf", "derived-from", depth=2)
    run_query(bundle.dataset, "SELECT ?m WHERE { ?m mif:supersedes ?old }")
    select(bundle.dataset, "SELECT ?m ?old WHERE { ?m mif:supersedes ?old }")  # as a Table
"""

from __future__ import annotations

from mif_rdf.core.names import RESULT_FORMATS
from mif_rdf.queries import functions as _functions  # noqa: F401  (registers mif:validAt and mif:freshness with rdflib's SPARQL engine)
from mif_rdf.queries import oxigraph_functions as _oxigraph_functions  # noqa: F401  (and for Oxigraph's)
from mif_rdf.queries.asof import apply as apply
from mif_rdf.queries.asof import as_of_key as as_of_key
from mif_rdf.queries.asof import as_of_note as as_of_note
from mif_rdf.queries.asof import restrict as restrict
from mif_rdf.queries.helpers import (
    TRUST_LEVELS,
    conflicts,
    current_version,
    decay_profiles,
    freshness,
    memories_about,
    memories_between,
    memories_in_namespace,
    memories_of_class,
    memories_of_type,
    memories_with_tag,
    memory_at_uri,
    neighbours,
    recorded_by,
    relationship_edges,
    supersession_chain,
    trusted,
    valid_at,
)
from mif_rdf.queries.native import select
from mif_rdf.queries.results import Table, compact_iri, format_result, python_value
from mif_rdf.queries.sparql import INIT_NS, QuerySyntaxError, check_query_safety, run_query, run_update

#: The result formats of :func:`format_result`; ``FORMATS`` is the name users have imported it by.
FORMATS = RESULT_FORMATS

__all__ = [
    "apply",
    "as_of_key",
    "as_of_note",
    "restrict",
    "FORMATS",
    "INIT_NS",
    "RESULT_FORMATS",
    "TRUST_LEVELS",
    "QuerySyntaxError",
    "Table",
    "conflicts",
    "current_version",
    "decay_profiles",
    "format_result",
    "freshness",
    "memories_about",
    "memories_between",
    "memories_in_namespace",
    "memories_of_class",
    "memories_of_type",
    "memories_with_tag",
    "memory_at_uri",
    "neighbours",
    "python_value",
    "recorded_by",
    "relationship_edges",
    "check_query_safety",
    "compact_iri",
    "run_query",
    "run_update",
    "select",
    "supersession_chain",
    "trusted",
    "valid_at",
]
