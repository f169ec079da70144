"""Query helpers: the questions people ask a MIF bundle, as parameterized SPARQL.

Each helper runs plain SPARQL 1.1 SELECTs through :func:`.native.select_columns`,
so it works on any rdflib Graph or Dataset: the in-memory store (rdflib's
engine), the Oxigraph store (Oxigraph's engine, rows read straight from
pyoxigraph) and a remote endpoint through ``SPARQLStore``.  They read the
graph described in ``docs/mapping.md``; a *memory* is a node the links graph
gives a ``mif:location`` (entities only get a ``mif:path``), so these helpers
need the links graph loaded with the rest.

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

Oxigraph plans each group greedily: it starts from the smallest pattern (a
``VALUES`` block counts its rows), then looks up, row by row, each pattern
that shares a variable with what it has; an OPTIONAL is one unit, and a
FILTER runs as soon as every variable it reads is surely bound.  Each lookup
on a memory walks that memory's few dozen triples, so at 100,000 memories
the shapes decide the time (measured with ``benchmarks/bench_queries.py``):

* required patterns come first, the most selective first, and OPTIONALs
  after them: a pattern written after an OPTIONAL is joined to everything
  before it at once;
* a FILTER on a parameter that no pattern uses comes before an OPTIONAL, so
  it runs before the lookups that follow (:func:`memories_in_namespace`), or
  the parameter becomes a join (the trust levels at or above each minimum
  of :func:`trusted`); otherwise it waits for every other pattern;
* patterns that follow a UNION go inside each branch (:func:`conflicts`);
* Oxigraph's ``ORDER BY`` reads the text of both terms back from the store
  for each comparison, which is slow with several keys on hundreds of
  thousands of rows: the helpers that visit every memory sort in Python;
* those helpers (:func:`valid_at`, :func:`recorded_by`, :func:`freshness`,
  :func:`decay_profiles`, :func:`relationship_edges`) mark their queries with
  :data:`~.native.SPLIT_HERE` right after the pattern that finds every memory
  (or node): Oxigraph then runs them in parts, one per core, each keeping the
  memories whose MD5 falls in its range (:func:`.native.select_columns`).
  Each lookup costs Oxigraph 2-3 microseconds, so at 100,000 memories eight
  lookups a memory are most of a second on one core.

Every helper returns a :class:`Table` of plain Python rows, ordered the same
way on every store; with ``as_="dataframe"`` a pandas DataFrame and with
``as_="arrow"`` a pyarrow Table instead, made from the result's columns with
no dict per row (:mod:`.columns`): the helpers sort, filter and join column
by column.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCTERMS

from mif_rdf.core.context import is_valid_iri
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile, as_utc
from mif_rdf.core.namespaces import MIF
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.queries.columns import Columns, Shape, Shaped
from mif_rdf.queries.native import SPLIT_HERE, no_cyclic_gc, select_columns
from mif_rdf.queries.sparql import sparql_term
from mif_rdf.source.identity import BASE_TYPES, GRAPH_TYPES, MEMORY_PREFIX, graph_iri, memory_iri, relationship_iri

GraphLike = Graph | LoadedBundle
Instant = datetime | date | str
#: Trust levels of spec 12.2, lowest first.
TRUST_LEVELS = ("uncertain", "low_confidence", "moderate_confidence", "high_confidence", "user_stated", "verified")
DIRECTIONS = ("out", "in", "both")
#: Upper bound for neighbour searches: each step is a query, and the nodes it starts from grow with each.
MAX_NEIGHBOUR_DEPTH = 4

#: A memory with its path, then its title: required patterns first, OPTIONALs last (see the module notes).
_MEMORY = "?memory mif:location ?location ; mif:path ?path . OPTIONAL { ?memory dc:title ?title }"
#: :data:`_MEMORY` for helpers that visit every memory: Oxigraph may split the query on ``?memory`` (rows then unordered).
_EVERY_MEMORY = (
    "?memory mif:location ?location .\n" + SPLIT_HERE + "?memory mif:path ?path . OPTIONAL { ?memory dc:title ?title }"
)
_COLUMNS = ("memory", "path", "title")
_EARLIEST = datetime.min.replace(tzinfo=UTC)
#: True for a time written without a zone.  rdflib and Oxigraph disagree on comparing such a time (and
#: an ill-typed ``"2026-01-15"^^xsd:dateTime``) with a zoned one, so the filters let them through and
#: Python decides, reading them as UTC (:func:`_time_value`).
_UNZONED = '!REGEX(STR({0}), "(Z|[+-][0-9][0-9]:[0-9][0-9])$")'


# -- selection by field ------------------------------------------------------------
def memories_of_type(graph: GraphLike, base_type: str, *, as_: Shape = "table") -> Shaped:
    """Memories of one base type: ``semantic``, ``episodic`` or ``procedural``."""
    if base_type not in BASE_TYPES:
        raise MifRdfError(f"unknown base type {base_type!r}: use one of {', '.join(BASE_TYPES)}")
    query = f"SELECT ?type ?memory ?path ?title WHERE {{ ?memory mif:conceptType ?type . {_MEMORY} }} ORDER BY ?path"
    return _shaped(_select(graph, query, _COLUMNS, type=MIF[base_type.capitalize() + "Type"]), as_)


def memories_in_namespace(graph: GraphLike, prefix: str, *, as_: Shape = "table") -> Shaped:
    """Memories whose namespace is ``prefix`` or below it (``_semantic`` holds ``_semantic/decisions``)."""
    prefix = _text(prefix, "namespace prefix").strip("/")
    # the title OPTIONAL right after the FILTER lets Oxigraph filter before it looks up paths (module notes)
    query = """SELECT ?prefix ?memory ?path ?title ?namespace WHERE {
      ?memory mif:namespace ?namespace .
      FILTER(STR(?namespace) = ?prefix || STRSTARTS(STR(?namespace), CONCAT(?prefix, "/")))
      OPTIONAL { ?memory dc:title ?title }
      ?memory mif:location ?location ; mif:path ?path .
    } ORDER BY ?path"""
    return _shaped(_select(graph, query, (*_COLUMNS, "namespace"), prefix=Literal(prefix)), as_)


def memory_at_uri(graph: GraphLike, uri: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The memory a namespace URI ``mif://{authority}/{namespace}/{memory-id}`` names (spec 10.6; the links graph's ``mif:namespaceUri``)."""
    query = f"SELECT ?uri ?memory ?path ?title WHERE {{ ?memory mif:namespaceUri ?uri . {_MEMORY} }} ORDER BY ?path"
    return _shaped(_select(graph, query, _COLUMNS, uri=_iri(uri, "namespace URI")), as_)


def memories_with_tag(graph: GraphLike, tag: str, *, as_: Shape = "table") -> Shaped:
    """Memories carrying ``tag`` (exactly, case included), their own or inherited from their namespace (the ``#inherited`` graph)."""
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


def memories_between(
    graph: GraphLike,
    start: Instant | None = None,
    end: Instant | None = None,
    *,
    field: str = "created",
    as_: Shape = "table",
) -> Shaped:
    """Memories whose ``created`` (or ``modified``) time is in ``[start, end)``; either bound may be left open."""
    predicates = {"created": DCTERMS.created, "modified": DCTERMS.modified}
    if field not in predicates:
        raise MifRdfError(f"unknown time field {field!r}: use created or modified")
    unzoned = _UNZONED.format("?when")
    filters = _filters({f"FILTER(?when >= ?start || {unzoned})": start, f"FILTER(?when < ?end || {unzoned})": end})
    query = (
        f"SELECT ?field ?start ?end ?memory ?path ?title ?when WHERE {{ ?memory ?field ?when . {filters} {_MEMORY} }}"
    )
    found = _select(
        graph, query, (*_COLUMNS, "when"), field=predicates[field], start=_instant(start), end=_instant(end)
    )
    lower, upper = (None if t is None else _moment(t) for t in (start, end))
    with no_cyclic_gc():  # times without a zone are UTC here too (see _temporal); ordered the same way
        times, paths = [_time_value(when) for when in found.column("when")], found.column("path")
        kept: Iterable[int] = range(len(found))
        if lower is not None or upper is not None:
            kept = [
                i
                for i, t in enumerate(times)
                if t is not None and (lower is None or lower <= t) and (upper is None or t < upper)
            ]
        order = sorted(kept, key=lambda i: (times[i] is None, times[i] or _EARLIEST, str(paths[i])))
    return _shaped(found.take(order), as_)


# -- bi-temporal -----------------------------------------------------------------------
_TEMPORAL_COLUMNS = (*_COLUMNS, "valid_from", "valid_until", "recorded_at")


def _temporal(graph: GraphLike, valid: Instant | None, known: Instant | None, as_: Shape) -> Shaped:
    """Memories valid at ``valid`` and recorded by ``known`` (either may be None: no condition).

    The SPARQL filters decide every time written with a zone, in the store;
    a time without one is UTC (as for parameters and :mod:`mif_rdf.core.freshness`)
    and a bare date is midnight UTC, decided in Python on the rows the
    filters let through, so every store gives the same rows.  A time that
    cannot be read at all leaves the memory out, as a SPARQL error would.
    """
    filters = _filters(
        {
            "FILTER((!BOUND(?valid_from) || ?valid_from <= ?valid_at || " + _UNZONED.format("?valid_from") + ") && "
            "(!BOUND(?valid_until) || ?valid_at < ?valid_until || " + _UNZONED.format("?valid_until") + "))": valid,
            "FILTER(BOUND(?recorded_at) && (?recorded_at <= ?known_at || "
            + _UNZONED.format("?recorded_at")
            + "))": known,
        }
    )
    query = f"""SELECT ?valid_at ?known_at ?memory ?path ?title ?valid_from ?valid_until ?recorded_at WHERE {{
      {_EVERY_MEMORY}
      OPTIONAL {{ ?memory dc:created ?created }}
      OPTIONAL {{ ?memory mif:temporal ?t .
        OPTIONAL {{ ?t mif:validFrom ?valid_from . FILTER(DATATYPE(?valid_from) = xsd:dateTime) }}
        OPTIONAL {{ ?t mif:validUntil ?valid_until . FILTER(DATATYPE(?valid_until) = xsd:dateTime) }}
        OPTIONAL {{ ?t mif:recordedAt ?recorded }} }}
      BIND(COALESCE(?recorded, ?created) AS ?recorded_at)
      {filters}
    }}"""
    found = _select(
        graph, query, _TEMPORAL_COLUMNS, split_on="memory", valid_at=_instant(valid), known_at=_instant(known)
    )
    valid_moment, known_moment = (None if t is None else _moment(t) for t in (valid, known))
    with no_cyclic_gc():
        times = zip(found.column("valid_from"), found.column("valid_until"), found.column("recorded_at"))
        order = _by_path(
            found,
            [
                i
                for i, (start, until, recorded) in enumerate(times)
                if _holds(start, until, recorded, valid_moment, known_moment)
            ],
        )
    return _shaped(found.take(order), as_)


def _holds(start: Any, until: Any, recorded: Any, valid: datetime | None, known: datetime | None) -> bool:
    """Whether a row of :func:`_temporal` meets its conditions, with times without a zone read as UTC.

    A time with a zone was decided by the store's filter already; only the others are looked at.
    """
    if valid is not None:
        if (
            start is not None
            and not _zoned(start)
            and not ((moment := _time_value(start)) is not None and moment <= valid)
        ):
            return False
        if (
            until is not None
            and not _zoned(until)
            and not ((moment := _time_value(until)) is not None and valid < moment)
        ):
            return False
    if known is not None:
        if not _zoned(recorded) and ((moment := _time_value(recorded)) is None or moment > known):
            return False
    return True


def _zoned(value: Any) -> bool:
    return type(value) is datetime and value.tzinfo is not None


def _time_value(value: Any) -> datetime | None:
    """A row's time as an aware datetime (no zone: UTC; a date: midnight UTC), None when it is no time."""
    if type(value) is datetime and value.tzinfo is not None:  # most rows' times: nothing to do
        return value
    if isinstance(value, (datetime, date)):
        return as_utc(value)
    if isinstance(value, str):
        try:
            return as_utc(datetime.fromisoformat(value))
        except ValueError:
            return None
    return None


def valid_at(graph: GraphLike, at: Instant, *, known_at: Instant | None = None, as_: Shape = "table") -> Shaped:
    """Memories whose fact holds at ``at`` (valid time): ``validFrom <= at < validUntil``.

    A missing ``validFrom`` or a ``validUntil`` of null leaves that side open.
    With ``known_at`` (transaction time) only memories already recorded then
    count: "what did we hold true for ``at``, as of ``known_at``".
    """
    return _temporal(graph, at, known_at, as_)


def recorded_by(graph: GraphLike, at: Instant, *, as_: Shape = "table") -> Shaped:
    """The bundle as recorded at ``at`` (transaction time): memories whose ``recordedAt`` (else ``created``) is not later."""
    return _temporal(graph, None, at, as_)


# -- freshness ---------------------------------------------------------------------------
def decay_profiles(graph: GraphLike, *, as_: Shape = "table") -> Shaped:
    """Every memory with its :class:`DecayProfile` (column ``profile``), to compute freshness at any time."""
    return _shaped(_decay_profiles(graph), as_)


def _decay_profiles(graph: GraphLike) -> Columns:
    """``memory``, ``path``, ``title`` and ``profile`` of every memory, ordered by path.

    A memory without a ``ttl`` of its own takes the one its namespace gives it
    (``mif:inheritedTtl`` of the ``#inherited`` graph: spec 10.5 and 10.7).
    """
    query = f"""SELECT ?memory ?path ?title ?model ?ttl ?half_life ?recorded ?created ?reinforced ?inherited_ttl WHERE {{
      {_EVERY_MEMORY}
      OPTIONAL {{ ?memory dc:created ?created }}
      OPTIONAL {{ ?memory mif:temporal ?t .
        OPTIONAL {{ ?t mif:recordedAt ?recorded }}
        OPTIONAL {{ ?t mif:ttl ?ttl }}
        OPTIONAL {{ ?t mif:decay ?d .
          OPTIONAL {{ ?d mif:model ?model }}
          OPTIONAL {{ ?d mif:halfLife ?half_life }}
          OPTIONAL {{ ?d mif:lastReinforced ?reinforced }} }} }}
      OPTIONAL {{ ?memory mif:inheritedTtl ?inherited_ttl }}
    }}"""
    found = _select(
        graph,
        query,
        (*_COLUMNS, "model", "ttl", "half_life", "recorded", "created", "reinforced", "inherited_ttl"),
        split_on="memory",
    )
    with no_cyclic_gc():
        profiles = [_profile(*decay) for decay in zip(*found.values[len(_COLUMNS) :])]
        return Columns((*_COLUMNS, "profile"), [*found.values[: len(_COLUMNS)], profiles]).take(
            _by_path(found, range(len(found)))
        )


def _profile(
    model: Any, ttl: Any, half_life: Any, recorded: Any, created: Any, reinforced: Any, inherited_ttl: Any = None
) -> DecayProfile:
    return DecayProfile(  # times without a zone are UTC, as in _temporal
        model=model or "none",
        recorded=_time_value(recorded) or _time_value(created),
        reinforced=_time_value(reinforced),
        ttl=ttl or inherited_ttl,
        half_life=half_life,
    )


def freshness(graph: GraphLike, at: Instant, *, as_: Shape = "table") -> Shaped:
    """Each memory's freshness at ``at`` under its decay model (spec 9.2; see :mod:`mif_rdf.core.freshness`).

    ``freshness`` is None for a memory not yet recorded at ``at`` and for one
    whose decay cannot be evaluated; ``problem`` then says why.
    """
    moment = _moment(at)
    found = _decay_profiles(graph)
    models, values, problems = [], [], []
    with no_cyclic_gc():
        for profile in found.column("profile"):
            try:
                value, problem = profile.strength_at(moment), None
            except MifRdfError as exc:
                value, problem = None, str(exc)
            if value is None and problem is None:
                problem = "not recorded yet"
            models.append(profile.model)
            values.append(value)
            problems.append(problem)
    return _shaped(
        Columns(
            (*_COLUMNS, "model", "freshness", "problem"), [*found.values[: len(_COLUMNS)], models, values, problems]
        ),
        as_,
    )


# -- relationships -------------------------------------------------------------------------
def neighbours(
    graph: GraphLike,
    memory: str | URIRef,
    relationship: str | URIRef | None = None,
    *,
    direction: str = "out",
    depth: int = 1,
    as_: Shape = "table",
) -> Shaped:
    """Memories and entities within ``depth`` relationship steps of ``memory``, each with its shortest distance.

    ``relationship`` is a type name in any spelling (``derived-from``,
    ``DerivedFrom``, ``derived_from``, ``team:reinforces``) or an IRI; None
    follows every relationship type.  ``direction`` is ``out`` (the memory's
    own relationships), ``in`` (relationships pointing at it) or ``both``.
    Paths only pass through nodes of the bundle (memories and entities).

    A breadth-first search, one query per step from the nodes the last step
    reached: a single query of every chain up to ``depth`` explored every
    walk before dropping those through blank nodes and ontology IRIs (every
    memory points at its ontology), 4-10 s for ``both`` at depth 3 on the
    dozen example memories with rdflib's engine, under a second this way.
    """
    if direction not in DIRECTIONS:
        raise MifRdfError(f"unknown direction {direction!r}: use one of {', '.join(DIRECTIONS)}")
    _check_depth(depth)
    start = _memory(memory)
    rel = None if relationship is None else _relationship(relationship)
    found: dict[str, tuple[Any, Any, int]] = {}  # node -> (path, title, distance)
    frontier = [str(start)]
    for distance in range(1, depth + 1):
        query = f"""SELECT ?relationship ?next (SAMPLE(?p) AS ?path) (SAMPLE(COALESCE(?t, ?n)) AS ?title) WHERE {{
          {_step(frontier, direction, typed=rel is not None)}
          FILTER(isIRI(?next) && EXISTS {{ ?next mif:path [] }})
          OPTIONAL {{ ?next mif:path ?p }} OPTIONAL {{ ?next dc:title ?t }} OPTIONAL {{ ?next schema:name ?n }}
        }} GROUP BY ?relationship ?next"""
        reached = _select(graph, query, ("next", "path", "title"), relationship=rel)
        frontier = []
        for node, path, title in zip(*reached.values):
            if node != str(start) and node not in found:
                found[node] = (path, title, distance)
                frontier.append(node)
        if not frontier:
            break
    order = sorted(found, key=lambda node: (found[node][2], found[node][0]))  # by distance, then path
    columns = [order, [found[n][0] for n in order], [found[n][1] for n in order], [found[n][2] for n in order]]
    return _shaped(Columns(("neighbour", "path", "title", "depth"), columns), as_)


#: One step along any relationship, from ?node to ?next; the links graph also gives every node a mif:path and
#: memories a mif:location and a mif:namespaceUri, which are not relationships.
_ANY_STEP = {
    "out": "!(mif:path|mif:location|mif:namespaceUri)",
    "in": "^!(mif:path|mif:location|mif:namespaceUri)",
    "both": "(!(mif:path|mif:location|mif:namespaceUri)|^!(mif:path|mif:location|mif:namespaceUri))",
}


def _step(frontier: list[str], direction: str, *, typed: bool) -> str:
    """The patterns of one step from the ``frontier`` nodes (as ?node) to ?next.

    A typed step uses the ``?relationship`` parameter, which cannot sit in a
    property path, so ``both`` is a UNION whose branches use it in triple
    patterns only (the module's rules).  Each branch starts from its own
    copy of the frontier: Oxigraph plans UNION branches on their own, and
    one ``VALUES`` outside them made each branch scan every triple of the
    relationship type (a hub's ``both`` at depth 2, 10,000 memories: 225 ms,
    against 60-90 ms with a copy per branch).
    """
    nodes = "VALUES ?node { " + " ".join(sparql_term(URIRef(node)) for node in frontier) + " }"
    if not typed:
        return f"{nodes} ?node {_ANY_STEP[direction]} ?next ."
    out, into = f"{nodes} ?node ?relationship ?next .", f"{nodes} ?next ?relationship ?node ."
    return {"out": out, "in": into, "both": f"{{ {out} }} UNION {{ {into} }}"}[direction]


def relationship_edges(graph: GraphLike, *, as_: Shape = "table") -> Shaped:
    """Every direct relationship between two nodes of the bundle (memories and entities), with labels.

    Ordered by source path, relationship and target path.  A node's label is
    its title, else its name, else its path.  Two queries, joined here: the
    edges with both ends' paths, and every node's labels.  Labelling each
    edge in SPARQL looked up four labels per edge (880,000 lookups at 100,000
    memories); a node is labelled once here.  Edges are found from their
    target: a memory has a few dozen triples of its own but only its
    relationships point at it; the sources' paths are one scan joined to
    them (a subquery), not a lookup per edge.  Both queries visit every node,
    so Oxigraph may split them (:data:`SPLIT_HERE`).  The rows are sorted
    here, not by ``ORDER BY``: Oxigraph compares terms by reading their text
    back from the store (3 s at 100,000 memories).
    """
    edges = _select(
        graph,
        """SELECT ?source ?relationship ?target ?source_path ?target_path WHERE {
      ?target mif:path ?target_path .
      """
        + SPLIT_HERE
        + """      ?source ?relationship ?target .
      { SELECT ?source ?source_path WHERE { ?source mif:path ?source_path } }
    }""",
        ("source_path", "relationship", "target_path", "source", "target"),
        split_on="target",
    )
    nodes = _select(
        graph,
        """SELECT ?node ?path ?label WHERE {
      ?node mif:path ?path .
      """
        + SPLIT_HERE
        + """      OPTIONAL { ?node dc:title ?title } OPTIONAL { ?node schema:name ?name }
      BIND(COALESCE(?title, ?name, ?path) AS ?label)
    }""",
        ("node", "path", "label"),
        split_on="node",
    )
    with no_cyclic_gc():
        labels: dict[tuple[Any, Any], list[Any]] = {}
        for key, label in zip(
            zip(nodes.column("node"), nodes.column("path")), nodes.column("label")
        ):  # a node with two titles has two
            labels.setdefault(key, []).append(label)  # labels, and its edges two rows each, as one query would give
        ordered = sorted(zip(*edges.values), key=lambda edge: (str(edge[0]), edge[1], str(edge[2])))
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for source_path, relationship, target_path, source, target in ordered:
            for source_label in labels[source, source_path]:
                for target_label in labels[target, target_path]:
                    for column, value in zip(columns, (source, source_label, relationship, target, target_label)):
                        column.append(value)
    return _shaped(Columns(("source", "source_label", "relationship", "target", "target_label"), columns), as_)


def conflicts(graph: GraphLike, *, as_: Shape = "table") -> Shaped:
    """Pairs of memories joined by ``conflicts-with`` (in either direction), each pair once."""
    pair = """FILTER(STR(?memory) < STR(?other))
      ?memory mif:path ?path . ?other mif:path ?other_path .
      OPTIONAL { ?memory dc:title ?title } OPTIONAL { ?other dc:title ?other_title }"""
    query = f"""SELECT DISTINCT ?memory ?path ?title ?other ?other_path ?other_title WHERE {{
      {{ ?memory mif:conflicts-with ?other . {pair} }} UNION {{ ?other mif:conflicts-with ?memory . {pair} }}
    }} ORDER BY ?path ?other_path"""
    return _shaped(_select(graph, query, (*_COLUMNS, "other", "other_path", "other_title")), as_)


# -- supersession ----------------------------------------------------------------------------
def supersession_chain(graph: GraphLike, memory: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The versions around ``memory``, newest first: ``offset`` > 0 supersedes it, < 0 is superseded by it, 0 is itself.

    Every memory that supersedes ``memory`` (directly or not) and every one it
    supersedes, with its shortest distance.  Empty when ``memory`` is not in
    the graph.
    """
    start = _memory(memory)
    versions = _Versions(graph, start)
    rows = [{**versions.about[m], "offset": offset} for m, offset in versions.offsets().items() if m in versions.about]
    return _shaped(
        Columns.from_rows((*_COLUMNS, "offset"), sorted(rows, key=lambda r: (-r["offset"], r["path"] or ""))), as_
    )


def current_version(graph: GraphLike, memory: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The newest version(s) of ``memory``: the end of its ``supersedes`` chain, which nothing supersedes.

    One row, unless the chain forks; ``memory`` itself when nothing
    supersedes it.  Raises :class:`MifRdfError` when ``memory`` is not in the
    graph, or when every newer version is superseded in turn (a cycle).
    """
    start = _memory(memory)
    versions = _Versions(graph, start)
    if str(start) not in versions.about:
        raise MifRdfError(f"no memory {str(start)!r} in the graph")
    newer = {m: offset for m, offset in versions.offsets().items() if offset >= 0}
    heads = [{**versions.about[m], "offset": newer[m]} for m in newer if not versions.superseded_by.get(m)]
    if not heads:
        raise MifRdfError(f"{str(start)!r}: every newer version is superseded in turn (a supersedes cycle)")
    return _shaped(Columns.from_rows((*_COLUMNS, "offset"), sorted(heads, key=lambda r: r["path"] or "")), as_)


class _Versions:
    """Every version of one memory, what each supersedes, its path and title: one query.

    ``mif:supersedes*``/``+`` from the bound memory: Oxigraph evaluates paths
    natively, and rdflib only walks the versions of that memory (a chain of
    600 versions works), not the whole graph.  Distances are counted here,
    from the edges.  The edges are OPTIONAL lookups per version: as a plain
    pattern, Oxigraph would start from every ``supersedes`` edge of the graph.
    """

    def __init__(self, graph: GraphLike, start: URIRef) -> None:
        query = """SELECT ?start ?x ?y ?path ?title WHERE {
          { ?x mif:supersedes* ?start } UNION { ?start mif:supersedes+ ?x }
          OPTIONAL { ?x mif:supersedes ?y }
          OPTIONAL { ?x mif:path ?path } OPTIONAL { ?x dc:title ?title }
        }"""
        self.start = str(start)
        self.about: dict[str, dict[str, Any]] = {}  # the versions that are nodes of the bundle
        self.supersedes: dict[str, set[str]] = {}
        self.superseded_by: dict[str, set[str]] = {}
        for x, y, path, title in zip(*_select(graph, query, ("x", "y", "path", "title"), start=start).values):
            if path is not None:
                self.about[x] = {"memory": x, "path": path, "title": title}
            if y is not None:
                self.supersedes.setdefault(x, set()).add(y)
                self.superseded_by.setdefault(y, set()).add(x)

    def offsets(self) -> dict[str, int]:
        """Each version's signed distance from the start: newer ones positive, older ones negative."""
        found = {self.start: 0}
        for sign, edges in ((1, self.superseded_by), (-1, self.supersedes)):
            frontier, distance = [self.start], 0
            while frontier:
                distance += 1
                reached = list(
                    dict.fromkeys(n for node in frontier for n in sorted(edges.get(node, ())) if n not in found)
                )
                found.update((n, sign * distance) for n in reached)
                frontier = reached
        return found


# -- trust --------------------------------------------------------------------------------------
_TRUST_IRIS = ["mif:" + "".join(p.capitalize() for p in level.split("_")) for level in TRUST_LEVELS]
#: ``(?level ?trust_level ?rank)`` for every level.
_TRUST_TABLE = " ".join(f'({iri} "{level}" {rank})' for rank, (level, iri) in enumerate(zip(TRUST_LEVELS, _TRUST_IRIS)))
#: ``(?min_rank ?level ?trust_level ?rank)`` for every level at or above every minimum: a minimum is then a join, not a FILTER.
_TRUST_AT_LEAST = " ".join(
    f'({minimum} {iri} "{level}" {rank})'
    for minimum in range(len(TRUST_LEVELS))
    for rank, (level, iri) in enumerate(zip(TRUST_LEVELS, _TRUST_IRIS))
    if rank >= minimum
)


def trusted(
    graph: GraphLike, min_trust: str | None = None, min_confidence: float | None = None, *, as_: Shape = "table"
) -> Shaped:
    """Memories whose provenance reaches ``min_trust`` (spec 12.2 order) and ``min_confidence``, most trusted first.

    A bound left as None is not checked; a memory without the field asked
    about does not pass that check.
    """
    if min_trust is not None and min_trust not in TRUST_LEVELS:
        raise MifRdfError(f"unknown trust level {min_trust!r}: use one of {', '.join(reversed(TRUST_LEVELS))}")
    if min_confidence is not None and (
        isinstance(min_confidence, bool) or not isinstance(min_confidence, (int, float)) or not 0 <= min_confidence <= 1
    ):
        raise MifRdfError(f"min_confidence must be a number from 0 to 1 (got {min_confidence!r})")
    # a field that is checked is a required pattern, matched first; one that is not, an OPTIONAL at the end.
    # The minimum trust joins a table of the levels at or above each minimum, so Oxigraph starts from those
    # levels' provenances (a FILTER on ?min_rank would wait for every memory to be matched).
    confidence = "?provenance mif:confidence ?confidence ."
    checked, unchecked = [], []
    if min_trust is None:
        unchecked.append(
            f"OPTIONAL {{ ?provenance mif:trustLevel ?level . VALUES (?level ?trust_level ?rank) {{ {_TRUST_TABLE} }} }}"
        )
    else:
        checked.append(
            f"VALUES (?min_rank ?level ?trust_level ?rank) {{ {_TRUST_AT_LEAST} }} ?provenance mif:trustLevel ?level ."
        )
    if min_confidence is None:
        unchecked.append(f"OPTIONAL {{ {confidence} }}")
    else:
        checked.append(f"{confidence} FILTER(?confidence >= ?min_confidence)")
    query = f"""SELECT ?min_rank ?min_confidence ?memory ?path ?title ?trust_level ?confidence WHERE {{
      {" ".join(checked)}
      ?memory mif:provenance ?provenance . {_MEMORY}
      {" ".join(unchecked)}
    }} ORDER BY DESC(?rank) DESC(?confidence) ?path"""
    return _shaped(
        _select(
            graph,
            query,
            (*_COLUMNS, "trust_level", "confidence"),
            min_rank=None if min_trust is None else Literal(TRUST_LEVELS.index(min_trust)),
            min_confidence=None if min_confidence is None else Literal(Decimal(repr(float(min_confidence)))),
        ),
        as_,
    )


# -- parameters ---------------------------------------------------------------------------------
def _select(
    source: GraphLike, query: str, columns: Iterable[str], *, split_on: str | None = None, **params: Any
) -> Columns:
    """The query's rows, column by column in the order of ``columns``; parameters left as None are not bound."""
    graph = source.dataset if isinstance(source, LoadedBundle) else source
    bound = {name: term for name, term in params.items() if term is not None}
    return select_columns(graph, query, bound, tuple(columns), as_values=True, split_on=split_on)


def _shaped(found: Columns, as_: Shape) -> Shaped:
    """What a helper returns: its columns as a :class:`Table`, a DataFrame or an Arrow table (:mod:`.columns`)."""
    with no_cyclic_gc():
        return found.shaped(as_)


def _by_path(found: Columns, positions: Iterable[int]) -> list[int]:
    """``positions`` of rows ordered by ``path``, as ``ORDER BY ?path`` orders plain strings: by code point.

    For the queries Oxigraph may split (their parts come back one after
    another); sorting 100,000 strings here is also faster than Oxigraph's
    ``ORDER BY``, which reads each term's text back from the store.
    """
    paths = found.column("path")
    return sorted(positions, key=lambda i: str(paths[i]))


def _filters(conditions: dict[str, object]) -> str:
    """The FILTERs whose parameter was given.

    Leaving a FILTER out beats ``!BOUND(?param) || ...``: Oxigraph's optimizer
    folds ``BOUND`` of a variable no pattern binds to false before it
    substitutes the parameters, so that form would never filter there.
    """
    return " ".join(text for text, value in conditions.items() if value is not None)


def _check_depth(depth: int) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_NEIGHBOUR_DEPTH:
        raise MifRdfError(f"depth must be a whole number from 1 to {MAX_NEIGHBOUR_DEPTH} (got {depth!r})")


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip("/ "):
        raise MifRdfError(f"the {what} must be a non-empty string (got {value!r})")
    return value


def _iri(value: str | URIRef, what: str) -> URIRef:
    if not isinstance(value, str) or not is_valid_iri(value):
        raise MifRdfError(f"the {what} must be an absolute IRI such as urn:mif:entity:technology:redis (got {value!r})")
    return URIRef(value)


def _memory(value: str | URIRef) -> URIRef:
    """A memory (or entity) IRI from an IRI or a bare memory id."""
    if not isinstance(value, str) or not value:
        raise MifRdfError(f"a memory is given by its id or its IRI (got {value!r})")
    iri = value if isinstance(value, URIRef) or value.startswith(MEMORY_PREFIX) else memory_iri(value)
    if not is_valid_iri(iri):
        raise MifRdfError(f"{value!r} is neither a memory id nor a memory IRI (urn:mif:<id>)")
    return URIRef(iri)


def _relationship(value: str | URIRef) -> URIRef:
    iri = (
        value
        if isinstance(value, URIRef) or "://" in str(value)
        else relationship_iri(_text(value, "relationship type"))
    )
    return _iri(iri, "relationship type")


def _moment(value: Instant) -> datetime:
    """A time parameter as an aware datetime, read as the rows' times are (:func:`_time_value`)."""
    moment = _time_value(value)
    if moment is None:
        if isinstance(value, str):
            raise MifRdfError(f"{value!r} is not an ISO 8601 date or date-time")
        raise MifRdfError(f"a time must be a datetime, a date or an ISO 8601 string (got {value!r})")
    return moment


def _instant(value: Instant | None) -> Literal | None:
    return None if value is None else Literal(_moment(value))
