"""Memories selected by time: created or modified in a range, valid at a time, as recorded at a time,
and each memory's decay profile and freshness.

Times without a zone are read as UTC everywhere (rows and parameters), and
a bare date as midnight UTC: the SPARQL filters decide zoned times in the
store and Python decides the rest, so every store gives the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from rdflib.namespace import DCTERMS

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile
from mif_rdf.queries.columns import Columns, Shape, Shaped
from mif_rdf.queries.helpers.parameters import (
    _COLUMNS,
    _EVERY_MEMORY,
    _MEMORY,
    GraphLike,
    Instant,
    _instant,
    _moment,
    _select,
    _shaped,
    _time_value,
)

_EARLIEST = datetime.min.replace(tzinfo=UTC)
#: True for a time written without a zone.  rdflib and Oxigraph disagree on comparing such a time (and
#: an ill-typed ``"2026-01-15"^^xsd:dateTime``) with a zoned one, so the filters let them through and
#: Python decides, reading them as UTC (:func:`_time_value`).
_UNZONED = '!REGEX(STR({0}), "(Z|[+-][0-9][0-9]:[0-9][0-9])$")'


def memories_between(
    graph: GraphLike,
    start: Instant | None = None,
    end: Instant | None = None,
    *,
    field: str = "created",
    as_: Shape = "table",
) -> Shaped:
    """Memories whose ``created`` (or ``modified``) time is in ``[start, end)``; either bound may be left open.

    Its query can give more rows than it returns: the store decides the
    times written with a zone, and lets every other one (no zone, a bare
    date, an unreadable time) through for Python to read as UTC and keep only
    when in range (tests/test_helpers.py shows it).
    """
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


def valid_at(graph: GraphLike, at: Instant, *, known_at: Instant | None = None, as_: Shape = "table") -> Shaped:
    """Memories whose fact holds at ``at`` (valid time): ``validFrom <= at < validUntil``.

    A missing ``validFrom`` or a ``validUntil`` of null leaves that side open.
    With ``known_at`` (transaction time) only memories already recorded then
    count: "what did we hold true for ``at``, as of ``known_at``".
    """
    return _temporal(graph, at, known_at, as_)


def recorded_by(graph: GraphLike, at: Instant, *, as_: Shape = "table") -> Shaped:
    """The bundle as recorded at ``at`` (transaction time): memories whose ``recordedAt``
    (else ``created``) is not later."""
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
    }}"""  # noqa: E501
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


def _by_path(found: Columns, positions: Iterable[int]) -> list[int]:
    """``positions`` of rows ordered by ``path``, as ``ORDER BY ?path`` orders plain strings: by code point.

    For the queries Oxigraph may split (their parts come back one after
    another); sorting here also spares Oxigraph's ``ORDER BY``, which reads
    each term's text back from the store (docs/performance.md).
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
