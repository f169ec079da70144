"""Memories selected by provenance: trust level (spec 12.2 order) and confidence."""

from __future__ import annotations

from decimal import Decimal

from rdflib import Literal

from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries.columns import Shape, Shaped
from mif_rdf.queries.helpers.parameters import (
    _COLUMNS,
    _MEMORY,
    GraphLike,
    _select,
    _shaped,
)

#: Trust levels of spec 12.2, lowest first.
TRUST_LEVELS = ("uncertain", "low_confidence", "moderate_confidence", "high_confidence", "user_stated", "verified")


# -- trust --------------------------------------------------------------------------------------
_TRUST_IRIS = ["mif:" + "".join(p.capitalize() for p in level.split("_")) for level in TRUST_LEVELS]
#: ``(?level ?trust_level ?rank)`` for every level.
_TRUST_TABLE = " ".join(f'({iri} "{level}" {rank})' for rank, (level, iri) in enumerate(zip(TRUST_LEVELS, _TRUST_IRIS)))
#: ``(?min_rank ?level ?trust_level ?rank)`` for every level at or above every minimum:
#: a minimum is then a join, not a FILTER.
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
            f"OPTIONAL {{ ?provenance mif:trustLevel ?level . VALUES (?level ?trust_level ?rank) {{ {_TRUST_TABLE} "
            f"}} }}"
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
