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
from typing import TYPE_CHECKING

from rdflib import URIRef

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile, parse_duration
from mif_rdf.load.incremental import forget

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle
    from mif_rdf.queries.helpers.parameters import GraphLike, Instant


def valid_memories(graph: GraphLike, at: Instant) -> set[str]:
    """The IRIs of the memories of ``graph`` valid at ``at`` (window and ttl; see the module docstring)."""
    from mif_rdf.queries.helpers.parameters import _moment
    from mif_rdf.queries.helpers.temporal import decay_profiles, valid_at

    moment = _moment(at)
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
    for record in gone:
        iri = URIRef(record.iri)
        forget(bundle, record.relpath)
        bundle.dataset.remove((iri, None, None, None))  # type: ignore[arg-type]  # its triples in the shared graphs
        links.remove((None, None, iri))
    return sorted(record.relpath for record in gone)


def apply(bundle: LoadedBundle, at: str) -> str:
    """:func:`restrict` for the ``--as-of`` option of the commands; returns the note they print."""
    gone = restrict(bundle, at)
    return f"as of {at}: {len(bundle.memories)} memories valid, {len(gone)} out of their valid time left out"
