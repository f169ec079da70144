"""Valid time and freshness inside SPARQL: ``mif:validAt(?m, ?date)``,
``mif:freshness(?m, ?date)`` and ``mif:strengthAt(?m, ?date)``.

Registered with rdflib's SPARQL engine when :mod:`mif_rdf.queries` is
imported, and handed to Oxigraph's with every query the project runs there
(:mod:`.oxigraph_functions`), so any query can write, for "what did we hold
true on 1 March"::

    SELECT ?m WHERE { ?m mif:path ?p . FILTER(mif:validAt(?m, "2026-03-01")) }

* ``mif:validAt(memory, date)``: ``true`` when the memory is valid at the
  date by the rules of :mod:`mif_rdf.queries.asof` (window and ttl, its own or
  the one its namespace gives it), else ``false``; a memory with no temporal
  data is valid at every date.
* ``mif:freshness(memory, date)``: its decay strength at the date as an
  ``xsd:double`` (the value of :func:`~mif_rdf.queries.freshness`); an error
  (the expression is unbound) when it was not recorded yet or its decay
  cannot be evaluated.  ``mif:strengthAt`` is the same function: freshness
  *is* the spec 9.2 decay strength.

Importing the package also bounds rdflib's ``REGEX`` with a time limit per
value (:func:`~mif_rdf.core.sparql_regex.bound_sparql_regex`, docs/security.md).

The date is an ``xsd:date``/``xsd:dateTime`` literal or an ISO 8601 string.
The functions read the memory's own triples (and its ``mif:inheritedTtl``),
one memory per call, through anything with rdflib's ``Graph.value``
(:func:`~.asof.memory_valid_at`, :func:`~.asof.memory_strength_at`), so both engines
compute the same values and cost no more on a large bundle than a
``FILTER`` on its dates.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.plugins.sparql.operators import register_custom_function
from rdflib.plugins.sparql.parserutils import Expr
from rdflib.plugins.sparql.sparql import FrozenBindings, SPARQLError

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.core.sparql_regex import bound_sparql_regex
from mif_rdf.queries.asof import memory_strength_at, memory_valid_at
from mif_rdf.queries.helpers.parameters import _time_value

MIF = PREFIXES["mif"]
VALID_AT, FRESHNESS, STRENGTH_AT = URIRef(MIF + "validAt"), URIRef(MIF + "freshness"), URIRef(MIF + "strengthAt")


def _arguments(e: Expr, ctx: FrozenBindings) -> tuple[Any, URIRef, datetime]:
    """The graph, the memory IRI and the moment of a call, or a SPARQL error (the expression is unbound)."""
    from rdflib.plugins.sparql.evalutils import _eval

    if len(e.expr or ()) != 2:
        raise SPARQLError(f"{e.iri} takes two arguments: a memory and a date")
    # a blank node reaches a call as itself (rdflib's _eval knows only variables, IRIs, literals and expressions)
    memory, when = (argument if isinstance(argument, BNode) else _eval(argument, ctx) for argument in e.expr)
    if not isinstance(memory, URIRef):
        raise SPARQLError(f"{e.iri}: the first argument must be a memory IRI")
    moment = moment_of(when)
    if moment is None:
        raise SPARQLError(f"{e.iri}: {when!r} is not a date or date-time")
    return ctx.ctx.graph, memory, moment


def moment_of(when: Any) -> datetime | None:
    """The moment a function's date argument (an rdflib term) names, None when it names none."""
    return _time_value(when.toPython() if isinstance(when, Literal) else None)


def sparql_valid_at(e: Expr, ctx: FrozenBindings) -> Literal:
    graph, memory, moment = _arguments(e, ctx)
    return Literal(memory_valid_at(graph, memory, moment))


def sparql_freshness(e: Expr, ctx: FrozenBindings) -> Literal:
    graph, memory, moment = _arguments(e, ctx)
    try:
        return Literal(memory_strength_at(graph, memory, moment), datatype=XSD.double)
    except MifRdfError as exc:
        raise SPARQLError(f"{e.iri}: {exc}") from None


bound_sparql_regex()  # REGEX with a time limit per value, as sh:pattern (docs/security.md)
register_custom_function(VALID_AT, sparql_valid_at, override=True, raw=True)
register_custom_function(FRESHNESS, sparql_freshness, override=True, raw=True)
register_custom_function(
    STRENGTH_AT, sparql_freshness, override=True, raw=True
)  # the name for the same spec 9.2 strength
