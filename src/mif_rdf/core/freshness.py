"""Freshness: the decay models of MIF spec section 9.2, and ISO 8601 durations.

Spec 9.2 gives, with ``t`` the time elapsed:

==============  ===============================
``none``        1 (no decay)
``linear``      1 - t / ttl   (never below 0)
``exponential`` e^(-t / halfLife)
``step``        1 if t < ttl else 0
==============  ===============================

The spec leaves the origin of ``t`` open.  mif-rdf measures it from the latest
reinforcement (``decay.lastReinforced``) at or before the moment asked about,
else from when the memory was recorded (``temporal.recordedAt``, else
``created``): 9.3 says a memory is "fully current when recorded" and that
reinforcement can reset the decay.  Before it was recorded a memory has no
freshness (``None``).  A memory without a ``decay`` block declares no decay
and is treated as ``none``.

The exponential formula is used exactly as the spec writes it,
``e^(-t/halfLife)``: it falls to 1/e (not 1/2) after one ``halfLife``.  The
spec text decides meaning (DESIGN section 0), so no ``ln 2`` is slipped in.

``ttl`` and ``halfLife`` are ISO 8601 durations (``P90D``, ``PT12H``,
``P1Y2M``).  Years and months have no fixed length, so a duration is measured
on the calendar from the instant it starts (``P1M`` from 31 January ends on
the last day of February).
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from mif_rdf.core.errors import MifRdfError

MODELS = ("none", "linear", "exponential", "step")

_NUMBER = r"\d+(?:[.,]\d+)?"
_DURATION = re.compile(
    rf"^P(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>{_NUMBER})W)?(?:(?P<days>{_NUMBER})D)?"
    rf"(?:T(?=\d)(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?(?:(?P<seconds>{_NUMBER})S)?)?$"
)
_SECONDS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


@dataclass(frozen=True)
class Duration:
    """An ISO 8601 duration: calendar months (years folded in) plus exact seconds."""

    months: int
    seconds: float
    text: str

    def after(self, start: datetime) -> datetime:
        """The instant this long after ``start`` (months on the calendar, the rest exact)."""
        return _add_months(start, self.months) + timedelta(seconds=self.seconds)

    def length(self, start: datetime) -> timedelta:
        """How long this duration lasts when it starts at ``start`` (the same wherever it starts, without months)."""
        if not self.months:
            return timedelta(seconds=self.seconds)
        return self.after(start) - start


def parse_duration(text: str) -> Duration:
    """Read an ISO 8601 duration such as ``P90D``, ``PT12H`` or ``P1Y2M3DT4H5M6.5S``.

    Fractions are allowed on weeks, days, hours, minutes and seconds; years and
    months must be whole (a fraction of a month has no agreed length).  Raises
    :class:`MifRdfError` for anything else, including negative durations, which
    mean nothing for a ``ttl`` or a ``halfLife``.
    """
    if not isinstance(text, str):
        raise MifRdfError(f"{text!r} is not an ISO 8601 duration (like P90D, PT12H or P1Y2M)")
    return _parse_duration(text)


@lru_cache(maxsize=4096)  # a bundle uses a handful of ttl and halfLife values, read again for every memory
def _parse_duration(text: str) -> Duration:
    match = _DURATION.match(text.strip())
    if match is None or not any(match.groupdict().values()):
        raise MifRdfError(f"{text!r} is not an ISO 8601 duration (like P90D, PT12H or P1Y2M)")
    parts = match.groupdict()
    months = int(parts["years"] or 0) * 12 + int(parts["months"] or 0)
    seconds = sum(float(parts[name].replace(",", ".")) * factor for name, factor in _SECONDS.items() if parts[name])
    return Duration(months=months, seconds=seconds, text=text.strip())


def _add_months(moment: datetime, months: int) -> datetime:
    if not months:
        return moment
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def as_utc(moment: datetime | date) -> datetime:
    """An aware datetime: dates are midnight UTC, naive datetimes are read as UTC."""
    if not isinstance(moment, datetime):
        return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def decay_strength(
    model: str, elapsed: timedelta, *, ttl: timedelta | None = None, half_life: timedelta | None = None
) -> float:
    """The strength after ``elapsed`` under one decay model of spec 9.2.

    Raises :class:`MifRdfError` for an unknown model, a negative ``elapsed``,
    or a model whose parameter is missing or not positive (``linear`` and
    ``step`` need ``ttl``; ``exponential`` needs ``half_life``).
    """
    t = elapsed.total_seconds()
    if t < 0:
        raise MifRdfError(f"elapsed time must not be negative (got {elapsed})")
    if model == "none":
        return 1.0
    if model == "exponential":
        return math.exp(-t / _positive_seconds(half_life, "the exponential decay model needs decay.halfLife"))
    if model in ("linear", "step"):
        limit = _positive_seconds(ttl, f"the {model} decay model needs temporal.ttl")
        if model == "linear":
            return max(0.0, 1.0 - t / limit)
        return 1.0 if t < limit else 0.0
    raise MifRdfError(f"unknown decay model {model!r}: MIF defines {', '.join(MODELS)}")


def _positive_seconds(value: timedelta | None, missing: str) -> float:
    if value is None:
        raise MifRdfError(missing)
    seconds = value.total_seconds()
    if seconds <= 0:
        raise MifRdfError(f"{missing.split(' needs ')[0]} needs a positive duration (got {value})")
    return seconds


@dataclass(frozen=True)
class DecayProfile:
    """What one memory says about its decay, enough to compute its freshness at any time."""

    model: str = "none"
    recorded: datetime | None = None
    reinforced: datetime | None = None
    ttl: str | None = None
    half_life: str | None = None

    def origin(self, at: datetime) -> datetime | None:
        """Where ``t`` starts for a freshness at ``at``: the latest of recording and reinforcement not after ``at``."""
        at = as_utc(at)
        latest = None
        for moment in (self.recorded, self.reinforced):  # a loop, not lists: freshness runs this for every memory
            if moment is not None:
                moment = as_utc(moment)
                if moment <= at and (latest is None or moment > latest):
                    latest = moment
        return latest

    def strength_at(self, at: datetime) -> float | None:
        """Freshness in [0, 1] at ``at``, or None when the memory was not recorded yet.

        Raises :class:`MifRdfError` when the profile cannot be evaluated (an
        unknown model, a missing or unreadable ``ttl``/``halfLife``).
        """
        origin = self.origin(at)
        if origin is None:
            return None
        ttl = parse_duration(self.ttl).length(origin) if self.ttl else None
        half_life = parse_duration(self.half_life).length(origin) if self.half_life else None
        return decay_strength(self.model, as_utc(at) - origin, ttl=ttl, half_life=half_life)
