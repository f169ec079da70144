"""Freshness: ISO 8601 durations and the spec 9.2 decay formulas, checked against values computed here."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.freshness import DecayProfile, as_utc, decay_strength, parse_duration
from mif_rdf.queries import freshness

UTC = UTC
DAY = 86400.0


@pytest.mark.parametrize(
    ("text", "months", "seconds"),
    [
        ("P90D", 0, 90 * DAY),
        ("PT12H", 0, 12 * 3600),
        ("P2W", 0, 14 * DAY),
        ("P0.5D", 0, 0.5 * DAY),
        ("PT1,5S", 0, 1.5),
        ("P1Y2M", 14, 0),
        ("P1Y2M3DT4H5M6.5S", 14, 3 * DAY + 4 * 3600 + 5 * 60 + 6.5),
    ],
)
def test_durations_parse(text: str, months: int, seconds: float) -> None:
    duration = parse_duration(text)
    assert (duration.months, duration.seconds, duration.text) == (months, pytest.approx(seconds), text)


@pytest.mark.parametrize("text", ["", "P", "PT", "90D", "P1DT", "-P1D", "P1.5Y", "P1M2Y", "PT1D", "P 1D", "P1H"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(MifRdfError, match="ISO 8601 duration"):
        parse_duration(text)


def test_months_and_years_are_measured_on_the_calendar() -> None:
    month = parse_duration("P1M")
    assert month.after(datetime(2026, 1, 31, 12, tzinfo=UTC)) == datetime(2026, 2, 28, 12, tzinfo=UTC)
    assert month.length(datetime(2026, 1, 1, tzinfo=UTC)) == timedelta(days=31)
    assert month.length(datetime(2026, 2, 1, tzinfo=UTC)) == timedelta(days=28)
    assert parse_duration("P1Y").length(datetime(2024, 2, 29, tzinfo=UTC)) == timedelta(days=365)
    assert parse_duration("P1Y").length(datetime(2027, 6, 1, tzinfo=UTC)) == timedelta(days=366)
    assert parse_duration("P13M").after(datetime(2026, 12, 15, tzinfo=UTC)) == datetime(2028, 1, 15, tzinfo=UTC)


def test_the_four_models_follow_the_spec_formulas() -> None:
    ten_days, thirty = timedelta(days=10), timedelta(days=30)
    assert decay_strength("none", timedelta(days=10_000)) == 1.0
    assert decay_strength("linear", ten_days, ttl=thirty) == pytest.approx(1 - 10 / 30)
    assert decay_strength("linear", timedelta(days=45), ttl=thirty) == 0.0
    assert decay_strength("exponential", ten_days, half_life=timedelta(days=7)) == pytest.approx(math.exp(-10 / 7))
    assert decay_strength("exponential", timedelta(days=7), half_life=timedelta(days=7)) == pytest.approx(1 / math.e)
    assert decay_strength("step", timedelta(days=29, hours=23), ttl=thirty) == 1.0
    assert decay_strength("step", thirty, ttl=thirty) == 0.0
    assert (
        decay_strength("linear", timedelta(0), ttl=thirty)
        == decay_strength("exponential", timedelta(0), half_life=thirty)
        == 1.0
    )


@given(
    st.sampled_from(["linear", "exponential", "step"]),
    st.floats(min_value=0, max_value=1e8),
    st.floats(min_value=0, max_value=1e8),
    st.floats(min_value=1, max_value=1e8),
)
def test_strength_stays_in_range_and_never_grows(model: str, t1: float, t2: float, parameter: float) -> None:
    early, late = sorted((t1, t2))
    kwargs = {"half_life" if model == "exponential" else "ttl": timedelta(seconds=parameter)}
    first = decay_strength(model, timedelta(seconds=early), **kwargs)
    second = decay_strength(model, timedelta(seconds=late), **kwargs)
    assert 0.0 <= second <= first <= 1.0


@pytest.mark.parametrize(
    ("model", "kwargs", "message"),
    [
        ("hyperbolic", {}, "unknown decay model 'hyperbolic'"),
        ("linear", {}, "linear decay model needs temporal.ttl"),
        ("step", {"ttl": timedelta(0)}, "needs a positive duration"),
        ("exponential", {"ttl": timedelta(days=3)}, "needs decay.halfLife"),
    ],
)
def test_models_that_cannot_be_evaluated_say_why(model: str, kwargs: dict, message: str) -> None:
    with pytest.raises(MifRdfError, match=re.escape(message)):
        decay_strength(model, timedelta(days=1), **kwargs)


def test_negative_elapsed_time_is_an_error() -> None:
    with pytest.raises(MifRdfError, match="must not be negative"):
        decay_strength("none", timedelta(seconds=-1))


def test_decay_counts_from_the_latest_reinforcement_before_the_moment_asked() -> None:
    recorded, reinforced = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 20, tzinfo=UTC)
    profile = DecayProfile(model="exponential", recorded=recorded, reinforced=reinforced, half_life="P10D")
    assert profile.strength_at(datetime(2025, 12, 31, tzinfo=UTC)) is None  # not recorded yet
    assert profile.strength_at(datetime(2026, 1, 11, tzinfo=UTC)) == pytest.approx(
        math.exp(-1)
    )  # reinforcement still ahead
    assert profile.strength_at(datetime(2026, 1, 25, tzinfo=UTC)) == pytest.approx(math.exp(-0.5))
    assert profile.origin(datetime(2026, 1, 25)) == reinforced  # a naive moment is read as UTC


def test_dates_and_naive_times_are_utc() -> None:
    assert as_utc(date(2026, 3, 1)) == datetime(2026, 3, 1, tzinfo=UTC)
    assert as_utc(datetime(2026, 3, 1, 8)) == datetime(2026, 3, 1, 8, tzinfo=UTC)
    shifted = datetime(2026, 3, 1, 8, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(shifted) is shifted


# -- the helper on the example bundle, against the frontmatter and the formulas -------
def _when(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _days(duration: str) -> float:
    match = re.fullmatch(r"P(\d+)D", duration)
    assert match, f"the example bundle only uses day durations, not {duration}"
    return float(match.group(1)) * DAY


def _expected(frontmatter: dict, at: datetime) -> float | None:
    temporal = frontmatter.get("temporal", {})
    decay = temporal.get("decay", {})
    starts = [_when(temporal.get("recordedAt", frontmatter["created"]))]
    if "lastReinforced" in decay:
        starts.append(_when(decay["lastReinforced"]))
    starts = [s for s in starts if s <= at]
    if not starts:
        return None
    t = (at - max(starts)).total_seconds()
    model = decay.get("model", "none")
    if model == "none":
        return 1.0
    if model == "exponential":
        return math.exp(-t / _days(decay["halfLife"]))
    ttl = _days(temporal["ttl"])
    return max(0.0, 1 - t / ttl) if model == "linear" else float(t < ttl)


@pytest.mark.parametrize(
    "at", ["2025-10-01T00:00:00Z", "2026-02-01T12:00:00Z", "2026-03-15T00:00:00Z", "2027-06-01T00:00:00Z"]
)
def test_freshness_helper_matches_the_spec_on_the_example_bundle(example_bundle, at: str) -> None:
    moment = _when(at)
    rows = {row["memory"]: row for row in freshness(example_bundle, at)}
    assert set(rows) == {record.iri for record in example_bundle.memories.values()}
    models = set()
    for record in example_bundle.memories.values():
        row, expected = rows[record.iri], _expected(record.frontmatter, moment)
        models.add(row["model"])
        assert row["freshness"] == (pytest.approx(expected) if expected is not None else None), record.relpath
        assert (row["problem"] == "not recorded yet") == (expected is None)
    assert models == {"none", "linear", "exponential", "step"}
