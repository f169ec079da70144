"""The order of two RDF literals as SHACL's range constraints need it (SPARQL's ``<``, XSD's date/time order).

rdflib compares Python values: a ``datetime`` with a time zone and one
without either raise or compare as if both were UTC, and a date's time zone
is dropped.  XSD (and so SPARQL and SHACL) says a date/time value without a
time zone may be anywhere from ``+14:00`` to ``-14:00``: against one with a
time zone the order is *indeterminate* unless the two are more than 14 hours
apart, and an indeterminate comparison is not "in range" (W3C SHACL test
``node/minInclusive-003``).  So date, time and dateTime values are read here
from their lexical forms, and everything else keeps rdflib's reading.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import XSD

#: XSD datatype -> the family of values it compares with (dateTimeStamp is a dateTime with a zone).
_FAMILIES: dict[URIRef | None, str] = {
    XSD.dateTime: "dateTime",
    XSD.dateTimeStamp: "dateTime",
    XSD.date: "date",
    XSD.time: "time",
}
_ZONE = r"(Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?"
_FORMS = {
    "dateTime": re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d(?:\.\d+)?)" + _ZONE),
    "date": re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)" + _ZONE),
    "time": re.compile(r"(\d\d):(\d\d):(\d\d(?:\.\d+)?)" + _ZONE),
}
_FOURTEEN_HOURS = 14 * 3600
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def compare(left: Any, right: Any) -> int | None:
    """-1, 0 or 1 as ``left`` is less than, equal to or greater than ``right``; None when SPARQL's
    comparison is a type error or XSD's order is indeterminate (neither is "in range")."""
    if not isinstance(left, Literal) or not isinstance(right, Literal):
        return None
    family, other = _FAMILIES.get(left.datatype), _FAMILIES.get(right.datatype)
    if family is not None or other is not None:
        if family is None or family != other:
            return None
        if left.datatype == right.datatype and str(left) == str(right):
            return 0  # the same term, well formed or not (SPARQL's RDFterm-equal; Oxigraph reads it so)
        return _moment_order(_moment(family, str(left)), _moment(family, str(right)))
    if isinstance(left.value, str) != isinstance(right.value, str):
        return None
    try:
        return 0 if left.eq(right) else 1 if left > right else -1 if left < right else None
    except (TypeError, NotImplementedError):
        return None


def _moment(family: str, text: str) -> tuple[Decimal, bool] | None:
    """(seconds since 0001-01-01 UTC, or local time when there is no zone; has a zone), or None if ill-formed."""
    match = _FORMS[family].fullmatch(text)
    if match is None:
        return None
    groups = match.groups()
    zone = groups[-1]
    fields: tuple[str, ...]  # year, month, day, hour, minute, second
    if family == "time":
        fields = ("1972", "12", "31", *groups[:3])
    elif family == "date":
        fields = (*groups[:3], "0", "0", "0")
    else:
        fields = groups[:6]
    year, month, day, hour, minute = (int(part) for part in fields[:5])
    seconds = Decimal(fields[5])
    if not (1 <= month <= 12 and 1 <= day <= _days_in(year, month) and minute < 60 and seconds < 60):
        return None
    if hour == 24 and not (minute == 0 and seconds == 0):
        return None
    if hour > 24:
        return None
    moment = Decimal(_days_since_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60) + seconds
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        moment -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return moment, bool(zone)


def _moment_order(left: tuple[Decimal, bool] | None, right: tuple[Decimal, bool] | None) -> int | None:
    if left is None or right is None:
        return None
    (a, a_zoned), (b, b_zoned) = left, right
    if a_zoned == b_zoned:
        return (a > b) - (a < b)
    # the one without a zone lies somewhere in [t - 14h, t + 14h] of UTC
    if a_zoned:
        order = _moment_order(right, left)
        return None if order is None else -order
    if a + _FOURTEEN_HOURS < b:
        return -1
    if a - _FOURTEEN_HOURS > b:
        return 1
    return None


def _days_in(year: int, month: int) -> int:
    if month == 2 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        return 28
    return _DAYS_IN_MONTH[month - 1]


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 0000-03-01 of the proleptic Gregorian calendar (any year, negative ones too)."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_era_days
