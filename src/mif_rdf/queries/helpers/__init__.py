"""Query helpers: the questions people ask a MIF bundle, as parameterized SPARQL.

Each helper runs plain SPARQL 1.1 SELECTs through :func:`~mif_rdf.queries.native.select_columns`,
so it works on any rdflib Graph or Dataset: the in-memory store (rdflib's
engine), the Oxigraph store (Oxigraph's engine, rows read straight from
pyoxigraph) and a remote endpoint through ``SPARQLStore``.  They read the
graph described in ``docs/mapping.md``; a *memory* is a node the links graph
gives a ``mif:location`` (entities only get a ``mif:path``), so these helpers
need the links graph loaded with the rest.

The helpers are grouped by what they ask, one module each:

* :mod:`.facets` -- by a field: base type, namespace, namespace URI, tag,
  ontology class, entity;
* :mod:`.temporal` -- by time: created or modified in a range, valid at a
  time, as recorded at a time, decay profiles and freshness;
* :mod:`.walks` -- by walking the graph: neighbours, relationship edges,
  conflicts, supersession chains and current versions;
* :mod:`.trust` -- by provenance: trust level and confidence;

and :mod:`.parameters` holds what they share (the memory patterns, running
a query, reading parameters).

Parameters are RDF terms passed as bindings, never formatted into the text
(rdflib binds them; Oxigraph and a remote endpoint get them as a ``VALUES``
block opening the ``WHERE`` clause, written by a serializer that refuses
anything that is not a well-formed term).  The templates keep to the rules
that make bindings mean the same everywhere:

* every parameter is projected by the SELECT (Oxigraph only substitutes
  projected variables);
* FILTER and BIND use parameters only at the top level of the WHERE group;
  inside UNION branches and OPTIONALs they appear in triple patterns only,
  where joining early (rdflib) or late (standard bottom-up evaluation of a
  nested group) gives the same rows;
* rdflib's engine recurses once per step of a ``+`` or ``*`` path and ends
  in RecursionError on large graphs (DESIGN section 8), so neighbour searches
  have an explicit maximum depth, one query per step (:func:`neighbours`);
  only supersession follows ``supersedes*``, from a bound memory, so rdflib
  walks that memory's versions and nothing else;
* the shapes let both engines start from the bound parameter (see
  :func:`relationship_edges`): the two optimizers fail in different ways on
  the obvious ones.

The templates are also written for Oxigraph's planner, which decides the
time on a large bundle: required patterns first, the most selective first,
OPTIONALs after them, FILTERs where they run early, sorting in Python rather
than ``ORDER BY`` for the helpers that visit every memory, and
:data:`~mif_rdf.queries.native.SPLIT_HERE` where Oxigraph may run a query in
parts, one per core.  ``docs/performance.md`` ("How the query helpers are
written for Oxigraph") says how the planner works and why each rule, with
the measurements.

Every helper returns a :class:`~mif_rdf.queries.results.Table` of plain Python rows, ordered the same
way on every store; with ``as_="dataframe"`` a pandas DataFrame and with
``as_="arrow"`` a pyarrow Table instead, made from the result's columns with
no dict per row (:mod:`mif_rdf.queries.columns`): the helpers sort, filter and join column
by column.
"""

from mif_rdf.queries.helpers.facets import (
    memories_about,
    memories_in_namespace,
    memories_of_class,
    memories_of_type,
    memories_with_tag,
    memory_at_uri,
)
from mif_rdf.queries.helpers.temporal import decay_profiles, freshness, memories_between, recorded_by, valid_at
from mif_rdf.queries.helpers.trust import TRUST_LEVELS, trusted
from mif_rdf.queries.helpers.walks import (
    conflicts,
    current_version,
    neighbours,
    relationship_edges,
    supersession_chain,
)

__all__ = [
    "TRUST_LEVELS",
    "conflicts",
    "current_version",
    "decay_profiles",
    "freshness",
    "memories_about",
    "memories_between",
    "memories_in_namespace",
    "memories_of_class",
    "memories_of_type",
    "memories_with_tag",
    "memory_at_uri",
    "neighbours",
    "recorded_by",
    "relationship_edges",
    "supersession_chain",
    "trusted",
    "valid_at",
]
