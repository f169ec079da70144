"""A quick yes for the common well-typed values, before asking rdflib whether a typed literal is ill-typed.

The load warns about each string whose typed literal rdflib cannot read
(:func:`mif_rdf.rdf.lexical.ill_typed_values`), and rdflib answers by building
the literal: about 4 us a value, for every distinct date of a bundle (most are
distinct: timestamps).  :func:`surely_well_typed` answers True, in well under a
microsecond, only for the plain forms rdflib certainly reads -- ``2026-01-20``,
``2026-01-20T14:22:00Z`` on a day the month has, ``P30D``, ``12``, ``0.5``,
``true`` -- and False for everything else, which then goes to rdflib as before.
So it can never disagree with rdflib: it only skips asking when the answer is
known.  tests/test_well_typed.py checks the "known" against rdflib itself, over
generated values of every shape (leap days, 24:00:00, zones, signs, fractions,
long years, whitespace).

Why each form is certain (rdflib 7 on Python 3.11+): ``xsd:dateTime`` is read
by ``datetime.fromisoformat``, which takes ``YYYY-MM-DDThh:mm:ss`` with up to
six fraction digits and a zone of ``Z`` or ``±hh:mm`` under 24 hours, for a
real day of years 1-9999; ``xsd:date`` drops such a zone and reads the rest
with ``date.fromisoformat``; ``xsd:duration`` matches rdflib's ISO 8601
period pattern, and six digits a part keep ``timedelta`` far from its limits;
``Decimal`` and ``int`` read signed digits (thirty at most, well under
Python's 4,300-digit limit for ``int``); booleans are rdflib's own four words;
``xsd:string`` is never ill-typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_XSD = "http://www.w3.org/2001/XMLSchema#"
_ZONE = r"(?:Z|[+-](?:0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)?"
_DAY = r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_DATE_TIME = re.compile(_DAY + r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?" + _ZONE)
_DATE = re.compile(_DAY + _ZONE)
_DURATION = re.compile(
    r"-?P(?=[0-9]|T[0-9])(?:[0-9]{1,6}Y)?(?:[0-9]{1,6}M)?(?:[0-9]{1,6}D)?"
    r"(?:T(?=[0-9])(?:[0-9]{1,6}H)?(?:[0-9]{1,6}M)?(?:[0-9]{1,6}(?:\.[0-9]{1,6})?S)?)?"
)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})")
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _real_day(found: re.Match[str] | None) -> bool:
    """Whether a matched ``YYYY-MM-DD`` names a day of the proleptic Gregorian calendar Python has (years 1-9999)."""
    if found is None:
        return False
    year, month, day = int(found[1]), int(found[2]), int(found[3])
    if year == 0:
        return False
    if day <= _MONTH_DAYS[month]:
        return True
    return month == 2 and day == 29 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda lexical: pattern.fullmatch(lexical) is not None


_CERTAIN: dict[str, Callable[[str], bool]] = {
    _XSD + "dateTime": lambda lexical: _real_day(_DATE_TIME.fullmatch(lexical)),
    _XSD + "date": lambda lexical: _real_day(_DATE.fullmatch(lexical)),
    _XSD + "duration": _matches(_DURATION),
    _XSD + "decimal": _matches(_DECIMAL),
    _XSD + "integer": _matches(_INTEGER),
    _XSD + "boolean": lambda lexical: lexical in ("true", "false", "1", "0"),
    _XSD + "string": lambda lexical: True,
}


def surely_well_typed(lexical: str, datatype: str) -> bool:
    """True when rdflib certainly reads ``lexical`` as a well-typed ``datatype`` literal; False: ask rdflib."""
    check = _CERTAIN.get(datatype)
    return check is not None and check(lexical)
