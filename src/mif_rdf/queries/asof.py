""" "As of" over valid time (spec 9): the bundle restricted to the memories valid at one date.

A memory is valid at ``at`` when all of these hold (spec 9.1):

* ``temporal.validFrom`` is not after ``at`` (missing: valid since always);
* ``at`` is before ``temporal.validUntil`` (missing or null: valid indefinitely);
* its ``ttl`` has not run out at ``at``: ``at`` is before ``recordedAt + ttl``
  (``recordedAt``, else ``created``; the ``ttl`` its namespace gives it when
  it has none of its own).  A ``ttl`` without a recording time, or one that is
  not an ISO 8601 duration (``validate`` reports it), ends nothing.

A memory with no temporal data is valid at every date: MIF makes the
window optional, and a fact nobody bounded is asserted to hold.  Valid time is
not transaction time: a memory recorded after ``at`` whose window covers
``at`` is valid at ``at`` (the helper :func:`~mif_rdf.queries.valid_at` with
``known_at`` asks the bi-temporal question).  Times without a zone are UTC and
a bare date is midnight UTC, as everywhere in mif-rdf.

The rules are the helpers' (:func:`~mif_rdf.queries.valid_at` for the window,
:func:`~mif_rdf.queries.decay_profiles` for ttl), so ``--as-of``, the helpers
and the SPARQL function ``mif:validAt`` always agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from rdflib import Literal, URIRef

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile, parse_duration
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.stores import oxigraph_store, remote_endpoint
from mif_rdf.queries.helpers.parameters import _time_value
from mif_rdf.queries.helpers.temporal import _profile

if TYPE_CHECKING:
    from mif_rdf.queries.helpers.parameters import GraphLike, Instant

MIF, DC = PREFIXES["mif"], PREFIXES["dc"]


def valid_memories(graph: GraphLike, at: Instant) -> set[str]:
    """The IRIs of the memories of ``graph`` valid at ``at`` (window and ttl; see the module docstring).

    On Oxigraph two helper queries answer (its engine runs them in
    milliseconds); on rdflib's memory store each memory's few temporal triples
    are read through the store's index (:func:`memory_valid_at`, what
    ``mif:validAt`` reads), which costs a fraction of the same queries on
    rdflib's engine (their ``OPTIONAL`` joins took about 80 % of a 10,000-memory
    ``query --as-of``).
    """
    from mif_rdf.queries.helpers.parameters import _moment
    from mif_rdf.queries.helpers.temporal import decay_profiles, valid_at

    moment = _moment(at)
    dataset = graph.dataset if isinstance(graph, LoadedBundle) else graph
    if oxigraph_store(dataset) is None and not remote_endpoint(dataset):
        memories = set(dataset.subjects(MIF.location, None))
        return {
            str(memory)
            for memory in memories
            if isinstance(memory, URIRef) and memory_valid_at(dataset, memory, moment)
        }
    in_window = {str(row["memory"]) for row in valid_at(graph, moment)}
    expired = {str(row["memory"]) for row in decay_profiles(graph) if ttl_expired(row["profile"], moment)}
    return in_window - expired


def ttl_expired(profile: DecayProfile, at: datetime) -> bool:
    """Whether the memory's ttl ran out at or before ``at`` (counted from its recording time)."""
    if not profile.ttl or profile.recorded is None:
        return False
    try:
        return at >= parse_duration(profile.ttl).after(profile.recorded)
    except MifRdfError:
        return False  # an unreadable ttl is a validation finding, not the end of a fact


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


def memory_valid_at(graph: Any, memory: Any, moment: datetime) -> bool:
    """Whether ``memory`` is valid at ``moment`` (window and ttl), read from ``graph``
    (anything with rdflib's ``value``)."""
    start, until, profile = _times(graph, memory)
    bounds = [_time_value(start), _time_value(until)]
    if (start is not None and bounds[0] is None) or (until is not None and bounds[1] is None):
        return False  # a time that cannot be read leaves the memory out, as in valid_at
    return (
        (bounds[0] is None or bounds[0] <= moment)
        and (bounds[1] is None or moment < bounds[1])
        and not ttl_expired(profile, moment)
    )


def memory_strength_at(graph: Any, memory: Any, moment: datetime) -> float:
    """The decay strength of ``memory`` at ``moment`` (spec 9.2), read from ``graph``.

    Raises :class:`MifRdfError` when it was not recorded yet or its decay cannot be evaluated.
    """
    strength = _times(graph, memory)[2].strength_at(moment)
    if strength is None:
        raise MifRdfError(f"{memory} was not recorded yet at {moment.isoformat()}")
    return strength


def restrict(bundle: LoadedBundle, at: Instant) -> list[str]:
    """Keep only the memories valid at ``at`` in ``bundle``; returns the bundle-relative paths of those taken out.

    A memory out of time goes entirely: its named graph, its record and its
    problems, and every triple about it in the other graphs (links, layout,
    types, namespaces), including the link edges that point at it, so the
    links graph holds only edges between memories valid at ``at``.
    """
    keep = valid_memories(bundle.dataset, at)
    gone = [record for record in bundle.memories.values() if record.iri not in keep]
    links = bundle.links
    for record in gone:  # what forget() does for one path, with the record in hand (it looks each path up)
        iri = URIRef(record.iri)
        bundle.dataset.remove_graph(iri)
        del bundle.memories[record.id]
        bundle.dataset.remove((iri, None, None, None))  # type: ignore[arg-type]  # its triples in the shared graphs
        links.remove((None, None, iri))
    paths = {record.relpath for record in gone}
    bundle.problems.items = [p for p in bundle.problems if p.path not in paths]  # its problems go with it
    return sorted(paths)


def apply(bundle: LoadedBundle, at: str) -> str:
    """:func:`restrict` for the ``--as-of`` option of the commands; returns the note they print."""
    gone = restrict(bundle, at)
    return as_of_note(at, len(bundle.memories), len(gone))


def as_of_note(at: str, valid: int, left_out: int) -> str:
    """What ``--as-of`` says it did."""
    return f"as of {at}: {valid} memories valid, {left_out} out of their valid time left out"


def as_of_key(at: Instant) -> str:
    """``at`` as one text per moment (UTC, ISO 8601), for caches keyed on it: ``2026-03-01`` and
    ``2026-03-01T00:00:00Z`` give the same; a date that is no date is a clear error."""
    from mif_rdf.queries.helpers.parameters import _moment

    return _moment(at).isoformat()
