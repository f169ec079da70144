"""What every helper shares: the graph it accepts, the memory patterns, running a query and reading parameters.

Parameters are checked here and passed as RDF terms (bindings), never
formatted into the query text; a bad one is a :class:`MifRdfError` that
says what was expected.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from rdflib import Graph, Literal, URIRef

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.context import is_valid_iri
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import as_utc
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.queries.columns import Columns, Shape, Shaped
from mif_rdf.queries.native import SPLIT_HERE, select_columns
from mif_rdf.queries.results import Table
from mif_rdf.source.identity import MEMORY_PREFIX, memory_iri

GraphLike = Graph | LoadedBundle
Instant = datetime | date | str


#: A memory with its path, then its title: required patterns first, OPTIONALs last (docs/performance.md).
_MEMORY = "?memory mif:location ?location ; mif:path ?path . OPTIONAL { ?memory dc:title ?title }"
#: :data:`_MEMORY` for helpers that visit every memory: Oxigraph may split the query
#: on ``?memory`` (rows then unordered).
_EVERY_MEMORY = (
    "?memory mif:location ?location .\n" + SPLIT_HERE + "?memory mif:path ?path . OPTIONAL { ?memory dc:title ?title }"
)
_COLUMNS = ("memory", "path", "title")
_FEW_ROWS = 256


def _select(
    source: GraphLike, query: str, columns: Iterable[str], *, split_on: str | None = None, **params: Any
) -> Columns:
    """The query's rows, column by column in the order of ``columns``; parameters left as None are not bound."""
    graph = source.dataset if isinstance(source, LoadedBundle) else source
    bound = {name: term for name, term in params.items() if term is not None}
    return select_columns(graph, query, bound, tuple(columns), as_values=True, split_on=split_on, own_prefixes=True)


def _shaped(found: Columns, as_: Shape) -> Shaped:
    """What a helper returns: its columns as a :class:`Table`, a DataFrame or an Arrow table (:mod:`.columns`)."""
    if len(found) < _FEW_ROWS:  # pausing the collector costs more than a few rows could
        return found.shaped(as_)
    with no_cyclic_gc():
        return found.shaped(as_)


def _shaped_rows(names: tuple[str, ...], rows: list[dict[str, Any]], as_: Shape) -> Shaped:
    """:func:`_shaped` of a few rows built as dicts whose keys are ``names``, in that order: a Table takes them
    as they are (to columns and back to rows was a tenth of a one-millisecond helper)."""
    if as_ == "table":
        return Table(names, rows)
    return _shaped(Columns.from_rows(names, rows), as_)


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
    iri = value if value.startswith(MEMORY_PREFIX) or isinstance(value, URIRef) else memory_iri(value)
    if not is_valid_iri(iri):
        raise MifRdfError(f"{value!r} is neither a memory id nor a memory IRI (urn:mif:<id>)")
    return iri if type(iri) is URIRef else URIRef(iri)


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
