"""Valid time and freshness inside SPARQL: ``mif:validAt(?m, ?date)``,
``mif:freshness(?m, ?date)`` (alias ``mif:strengthAt``).

Registered with rdflib's SPARQL engine when :mod:`mif_rdf.queries` is
imported, so any query that engine runs can write, for "what did we hold true
on 1 March"::

    SELECT ?m WHERE { ?m mif:path ?p . FILTER(mif:validAt(?m, "2026-03-01")) }

* ``mif:validAt(memory, date)``: ``true`` when the memory is valid at the
  date by the rules of :mod:`mif_rdf.queries.asof` (window and ttl), else ``false``.
* ``mif:freshness(memory, date)``: its decay strength at the date as an
  ``xsd:double`` (the value of :func:`~mif_rdf.queries.freshness`); an error
  (the expression is unbound) when it was not recorded yet or its decay
  cannot be evaluated.  ``mif:strengthAt`` is the same function: freshness
  *is* the spec 9.2 decay strength.

Importing the package also bounds rdflib's ``REGEX`` with a time limit per
value (:func:`~mif_rdf.core.sparql_regex.bound_sparql_regex`, docs/security.md).

The date is an ``xsd:date``/``xsd:dateTime`` literal or an ISO 8601 string.
The functions read the memory's own triples from the graph the query runs on,
one memory per call, so they cost no more on a large bundle than a
``FILTER`` on its dates.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import XSD
from rdflib.plugins.sparql.operators import register_custom_function
from rdflib.plugins.sparql.parserutils import Expr
from rdflib.plugins.sparql.sparql import FrozenBindings, SPARQLError

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.core.sparql_regex import bound_sparql_regex
from mif_rdf.queries.asof import ttl_expired
from mif_rdf.queries.helpers.parameters import _time_value
from mif_rdf.queries.helpers.temporal import _profile

MIF, DC = PREFIXES["mif"], PREFIXES["dc"]
VALID_AT, FRESHNESS, STRENGTH_AT = URIRef(MIF + "validAt"), URIRef(MIF + "freshness"), URIRef(MIF + "strengthAt")


def _arguments(e: Expr, ctx: FrozenBindings) -> tuple[Any, URIRef, datetime]:
    """The graph, the memory IRI and the moment of a call, or a SPARQL error (the expression is unbound)."""
    from rdflib.plugins.sparql.evalutils import _eval

    if len(e.expr or ()) != 2:
        raise SPARQLError(f"{e.iri} takes two arguments: a memory and a date")
    memory, when = (_eval(argument, ctx) for argument in e.expr)
    if not isinstance(memory, URIRef):
        raise SPARQLError(f"{e.iri}: the first argument must be a memory IRI")
    moment = _time_value(when.toPython() if isinstance(when, Literal) else None)
    if moment is None:
        raise SPARQLError(f"{e.iri}: {when!r} is not a date or date-time")
    return ctx.ctx.graph, memory, moment


def _times(graph: Any, memory: URIRef) -> tuple[Any, Any, DecayProfile]:
    """The memory's validFrom, validUntil and decay profile,
    read from its triples (times as Python values, durations as text)."""
    temporal = graph.value(memory, MIF.temporal)
    decay = None if temporal is None else graph.value(temporal, MIF.decay)

    def time(subject: Any, name: str) -> Any:
        term = None if subject is None else graph.value(subject, MIF[name])
        return term.toPython() if isinstance(term, Literal) else None

    def text(subject: Any, name: str) -> str | None:
        term = None if subject is None else graph.value(subject, MIF[name])
        return None if term is None else str(term)

    profile = _profile(
        text(decay, "model"),
        text(temporal, "ttl"),
        text(decay, "halfLife"),
        time(temporal, "recordedAt"),
        _created(graph, memory),
        time(decay, "lastReinforced"),
        text(memory, "inheritedTtl"),
    )
    return time(temporal, "validFrom"), time(temporal, "validUntil"), profile


def _created(graph: Any, memory: URIRef) -> Any:
    term = graph.value(memory, DC.created)
    return term.toPython() if isinstance(term, Literal) else None


def sparql_valid_at(e: Expr, ctx: FrozenBindings) -> Literal:
    graph, memory, moment = _arguments(e, ctx)
    start, until, profile = _times(graph, memory)
    bounds = [_time_value(start), _time_value(until)]
    if (start is not None and bounds[0] is None) or (until is not None and bounds[1] is None):
        return Literal(False)  # a time that cannot be read leaves the memory out, as in valid_at
    holds = (
        (bounds[0] is None or bounds[0] <= moment)
        and (bounds[1] is None or moment < bounds[1])
        and not ttl_expired(profile, moment)
    )
    return Literal(holds)


def sparql_freshness(e: Expr, ctx: FrozenBindings) -> Literal:
    graph, memory, moment = _arguments(e, ctx)
    try:
        strength = _times(graph, memory)[2].strength_at(moment)
    except MifRdfError as exc:
        raise SPARQLError(f"{e.iri}: {exc}") from None
    if strength is None:
        raise SPARQLError(f"{e.iri}: {memory} was not recorded yet at {moment.isoformat()}")
    return Literal(strength, datatype=XSD.double)


bound_sparql_regex()  # REGEX with a time limit per value, as sh:pattern (docs/security.md)
register_custom_function(VALID_AT, sparql_valid_at, override=True, raw=True)
register_custom_function(FRESHNESS, sparql_freshness, override=True, raw=True)
register_custom_function(
    STRENGTH_AT, sparql_freshness, override=True, raw=True
)  # the name for the same spec 9.2 strength
