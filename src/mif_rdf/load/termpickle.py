"""Pickling rdflib terms exactly as they are.

rdflib pickles a Literal as ``Literal(lexical, lang, datatype)``, which
normalizes the lexical form on the way back (``...T10:30:00Z`` returns as
``...T10:30:00+00:00``, ``"01"^^xsd:integer`` as ``"1"``); the loader keeps
the author's form, so everything that moves terms between processes or onto
disk (worker processes, the load cache) pickles them through here.  IRIs were
checked when first made and are not checked again.
"""

from __future__ import annotations

import copyreg
import datetime
import pickle
from decimal import Decimal
from typing import Any

from rdflib import Literal, URIRef


def dumps(value: Any) -> bytes:
    """``pickle.dumps`` with exact terms."""
    frames = _Frames()
    pickler = pickle.Pickler(frames, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {
        **copyreg.dispatch_table,
        URIRef: lambda iri: (_uriref, (str(iri),)),
        Literal: _reduce_literal,
    }
    pickler.dump(value)
    return b"".join(frames.chunks)


class _Frames:
    """Where the pickler writes: its frames kept as they come and joined once.  Into an ``io.BytesIO`` the same
    pickle cost a third more (8 us a memory of what a load's worker sends, 30 against 22 us): the buffer grows by
    an eighth at a time and is copied each time."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.chunks.append(data)


def _uriref(iri: str) -> URIRef:
    return str.__new__(URIRef, iri)


def _literal(lexical: str, language: str | None, datatype: URIRef | None) -> Literal:
    return Literal(lexical, language, datatype, normalize=False)


def _literal_as_is(
    lexical: str, language: str | None, datatype: URIRef | None, value: Any, ill_typed: bool | None
) -> Literal:
    """The Literal with its attributes as they were: no parsing of the lexical form again
    (that is the cost a warm load avoids)."""
    literal = str.__new__(Literal, lexical)
    literal._language, literal._datatype, literal._value, literal._ill_typed = language, datatype, value, ill_typed
    return literal


#: Python values of literals that pickle exactly and cheaply; others are parsed again from the lexical form.
_PLAIN_VALUES = (
    str,
    bool,
    int,
    float,
    Decimal,
    datetime.datetime,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    type(None),
)


def _reduce_literal(literal: Literal) -> tuple[Any, tuple[Any, ...]]:
    value = literal._value  # noqa: SLF001 - restored exactly, see _literal_as_is
    if type(value) in _PLAIN_VALUES:
        return _literal_as_is, (str(literal), literal._language, literal._datatype, value, literal._ill_typed)  # noqa: SLF001
    return _literal, (str(literal), literal.language, literal.datatype)
