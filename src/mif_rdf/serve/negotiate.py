"""HTTP content negotiation over the formats Oxigraph writes (RFC 9110, section 12.5.1).

The server offers, for each kind of answer, every format pyoxigraph
serializes: SPARQL results as JSON, XML, CSV and TSV; graphs as Turtle,
N-Triples, N-Quads, TriG, N3, RDF/XML and JSON-LD.  The client's ``Accept``
header picks one by quality; among equals the server's order decides (its
first offer is the default for a missing header or ``*/*``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pyoxigraph as ox

Offer = tuple[str, Any]  # (media type, pyoxigraph format)
Offers = tuple[Offer, ...]
#: ``Accept`` headers up to this long have their answer remembered (clients send the same few, every request).
_REMEMBERED_HEADER = 256


def _offers(formats: Sequence[Any], aliases: dict[str, Any]) -> Offers:
    offers = [(f.media_type.split(";")[0].strip(), f) for f in formats]
    return tuple(offers + list(aliases.items()))


#: SELECT and ASK answers.
RESULTS = _offers(
    (ox.QueryResultsFormat.JSON, ox.QueryResultsFormat.XML, ox.QueryResultsFormat.CSV, ox.QueryResultsFormat.TSV),
    {
        "application/json": ox.QueryResultsFormat.JSON,
        "application/xml": ox.QueryResultsFormat.XML,
        "text/xml": ox.QueryResultsFormat.XML,
    },
)
#: CONSTRUCT and DESCRIBE answers and single graphs.
GRAPH = _offers(
    (
        ox.RdfFormat.TURTLE,
        ox.RdfFormat.N_TRIPLES,
        ox.RdfFormat.RDF_XML,
        ox.RdfFormat.JSON_LD,
        ox.RdfFormat.N3,
        ox.RdfFormat.N_QUADS,
        ox.RdfFormat.TRIG,
    ),
    {
        "application/x-turtle": ox.RdfFormat.TURTLE,
        "text/plain": ox.RdfFormat.N_TRIPLES,
        "application/json": ox.RdfFormat.JSON_LD,
        "application/xml": ox.RdfFormat.RDF_XML,
        "text/xml": ox.RdfFormat.RDF_XML,
    },
)
#: The whole dataset (formats that hold named graphs).
DATASET = _offers((ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG, ox.RdfFormat.JSON_LD), {})


def parse_accept(header: str | None) -> list[tuple[str, float]]:
    """``Accept`` as (media range, quality) pairs; a malformed quality counts as 0 (not acceptable)."""
    ranges = []
    for item in (header or "").split(","):
        parts = [p.strip() for p in item.split(";")]
        if not parts[0]:
            continue
        quality = 1.0
        for param in parts[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    quality = 0.0
        ranges.append((parts[0].lower(), quality))
    return ranges


def _quality(media: str, ranges: list[tuple[str, float]]) -> float:
    """The quality of the most specific range matching ``media`` (exact beats ``type/*`` beats ``*/*``)."""
    kind = media.split("/")[0] + "/*"
    for candidate in (media, kind, "*/*"):
        found = [q for r, q in ranges if r == candidate]
        if found:
            return max(found)
    return 0.0


def negotiate(header: str | None, offers: Offers) -> Offer | None:
    """The offer the client prefers, or None when it accepts none of them (HTTP 406).

    A function of its arguments alone, so the answer for a short header is
    remembered: reading ``Accept`` again cost a small query about a tenth
    of its server time (docs/decisions.md, "The short request path").
    """
    if header is None or len(header) <= _REMEMBERED_HEADER:
        return _negotiated(header, offers)
    return _negotiate(header, offers)


@functools.lru_cache(maxsize=256)
def _negotiated(header: str | None, offers: Offers) -> Offer | None:
    return _negotiate(header, offers)


def _negotiate(header: str | None, offers: Offers) -> Offer | None:
    ranges = parse_accept(header)
    if not ranges:
        return offers[0]
    best: Offer | None = None
    best_quality = 0.0
    for offer in offers:
        quality = _quality(offer[0], ranges)
        if quality > best_quality:
            best, best_quality = offer, quality
    return best


def content_type(offer: Offer) -> str:
    """The Content-Type to send for an offer: the format's own media type, UTF-8 for text."""
    media = offer[1].media_type
    return media if "charset" in media or not _textual(media) else f"{media}; charset=utf-8"


def _textual(media: str) -> bool:
    return media.startswith("text/") or media.endswith(("+json", "+xml", "/json", "/n-triples", "/n-quads", "/trig"))
