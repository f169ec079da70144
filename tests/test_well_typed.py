"""The quick yes of :func:`surely_well_typed` is never wrong: whatever it calls well-typed, rdflib reads as a
well-typed literal, so the load's ill-typed warnings are rdflib's own verdicts (issue 34)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef

from mif_rdf.rdf.lexical import is_ill_typed, typed_terms
from mif_rdf.rdf.well_typed import surely_well_typed

_XSD = "http://www.w3.org/2001/XMLSchema#"
#: Every datatype the context gives a term, and a few it does not (the quick check knows none of those).
DATATYPES = sorted(set(typed_terms().values()) | {_XSD + t for t in ("time", "float", "gYear", "int", "anyURI")})


def rdflib_says_ill_typed(lexical: str, datatype: str) -> bool:
    """The definition: rdflib's Literal of that datatype, as the load builds it (without rewriting the lexical
    form, which a default Literal does after its verdict, and which fails on some forms rdflib reads, such as
    ``-P1MT1H``)."""
    return bool(Literal(lexical, datatype=URIRef(datatype), normalize=False).ill_typed)


def _check(lexical: str, datatype: str) -> None:
    if surely_well_typed(lexical, datatype):
        assert not rdflib_says_ill_typed(lexical, datatype), (lexical, datatype)
    verdict = not surely_well_typed(lexical, datatype) and is_ill_typed(lexical, datatype)  # the load's
    assert verdict == rdflib_says_ill_typed(lexical, datatype), (lexical, datatype)


_SPACE = st.sampled_from(["", "", "", " ", "\n", "\t", "\u00a0"])
_YEARS = st.sampled_from(
    ["2026", "2024", "2000", "1900", "2100", "0001", "0000", "9999", "10000", "-0001", "+2026", "202", "٢٠٢٦"]
)
_MONTHS = st.sampled_from(["01", "02", "04", "06", "09", "11", "12", "13", "00", "1", "2"])
_DAYS = st.sampled_from(["01", "09", "28", "29", "30", "31", "32", "00", "1"])
_TIMES = st.builds(
    lambda h, m, s, frac: f"{h}:{m}:{s}{frac}",
    st.sampled_from(["00", "09", "23", "24", "25", "9", "١٢"]),
    st.sampled_from(["00", "59", "60", "5"]),
    st.sampled_from(["00", "59", "60", "61", "5"]),
    st.sampled_from(["", ".", ".5", ".123456", ".1234567", ".000000000", ",5"]),
) | st.sampled_from(["24:00:00", "24:00:00.0", "23:59", "2359", "12:00:00Z"])
_ZONES = st.sampled_from(
    ["", "", "Z", "z", "+00:00", "-00:00", "+01:00", "-05:30", "+13:59", "+14:00", "-14:00", "+14:01", "+15:00"]
    + ["-23:59", "+24:00", "+0100", "+01", "+1:00", "+01:60", "UTC", "GMT+1"]
)
_SEPARATORS = st.sampled_from(["T", "T", "T", "t", " ", "_", ""])
_DATES = st.builds(lambda y, m, d, z: f"{y}-{m}-{d}{z}", _YEARS, _MONTHS, _DAYS, _ZONES)
_DATE_TIMES = st.builds(
    lambda a, y, m, d, sep, t, z, b: f"{a}{y}-{m}-{d}{sep}{t}{z}{b}",
    _SPACE,
    _YEARS,
    _MONTHS,
    _DAYS,
    _SEPARATORS,
    _TIMES,
    _ZONES,
    _SPACE,
)
_PART = st.sampled_from(["", "", "1", "30", "999999", "1234567", "0", "1.5", "1,5", "٣"])
_DURATIONS = st.builds(
    lambda sign, y, mo, w, d, t, h, mi, s, b: (
        f"{sign}P{y and y + 'Y'}{mo and mo + 'M'}{w and w + 'W'}{d and d + 'D'}{t}"
        f"{h and h + 'H'}{mi and mi + 'M'}{s and s + 'S'}{b}"
    ),
    st.sampled_from(["", "", "-", "+", "--"]),
    _PART,
    _PART,
    st.sampled_from(["", "", "", "2"]),
    _PART,
    st.sampled_from(["", "T", "T", "t"]),
    _PART,
    _PART,
    st.sampled_from(["", "", "1", "0.5", "1.123456", "1.1234567", "59", "1e3"]),
    _SPACE,
)
_NUMBERS = st.builds(
    lambda a, sign, digits, frac, exp, b: f"{a}{sign}{digits}{frac}{exp}{b}",
    _SPACE,
    st.sampled_from(["", "", "+", "-", "++", "−"]),
    st.sampled_from(["", "0", "7", "12", "007", "1_000", "9" * 30, "9" * 31, "9" * 5000, "١٢", "1 2"]),
    st.sampled_from(["", "", ".", ".5", ".000", "." + "5" * 30, "." + "5" * 31, ".5.5"]),
    st.sampled_from(["", "", "e3", "E-2", "NaN"]),
    _SPACE,
) | st.sampled_from(["NaN", "Infinity", "-inf", "sNaN", "0x1F", "1e", ".", "+", "-"])
_BOOLEANS = st.sampled_from(["true", "false", "1", "0", "True", "TRUE", " true", "false ", "01", "yes", "", "1.0"])
#: Strings near every lexical space: its characters in any order.
_NEAR = st.text(alphabet="0123456789-+:.,TZPYMWDHSEtzx \n", max_size=30)
_LEXICAL = st.one_of(_DATES, _DATE_TIMES, _DURATIONS, _NUMBERS, _BOOLEANS, _NEAR, st.text(max_size=12))


@pytest.mark.filterwarnings("ignore:Parsing weird boolean")
@settings(max_examples=1200, deadline=None)
@given(_LEXICAL, st.sampled_from(DATATYPES))
def test_a_quick_yes_is_rdflib_s_yes(lexical: str, datatype: str) -> None:
    _check(lexical, datatype)


@pytest.mark.filterwarnings("ignore:Parsing weird boolean")
@settings(max_examples=500, deadline=None)
@given(st.data())
def test_each_datatype_on_its_own_shapes(data: st.DataObject) -> None:
    shapes = {
        "dateTime": _DATE_TIMES,
        "date": _DATES,
        "duration": _DURATIONS,
        "decimal": _NUMBERS,
        "integer": _NUMBERS,
        "boolean": _BOOLEANS,
        "string": _LEXICAL,
    }
    name = data.draw(st.sampled_from(sorted(shapes)))
    _check(data.draw(shapes[name]), _XSD + name)


#: Values the quick check must know (the common forms of a bundle), each well-typed for rdflib too.
SURE = [
    ("dateTime", "2026-01-20T14:22:00Z"),
    ("dateTime", "2026-01-20T14:22:00"),
    ("dateTime", "2024-02-29T00:00:00Z"),  # a leap day
    ("dateTime", "2000-02-29T23:59:59.999999+14:00"),  # 2000 is a leap year
    ("dateTime", "0001-01-01T00:00:00-14:00"),
    ("dateTime", "9999-12-31T23:59:59.5-05:30"),
    ("date", "2026-01-20"),
    ("date", "2024-02-29Z"),
    ("date", "2026-04-30+01:00"),
    ("date", "2026-04-30-01:00"),
    ("duration", "P30D"),
    ("duration", "PT1H"),
    ("duration", "-P1Y2M3DT4H5M6.5S"),
    ("duration", "P999999D"),
    ("decimal", "0.5"),
    ("decimal", "-12"),
    ("decimal", ".5"),
    ("decimal", "+1."),
    ("integer", "42"),
    ("integer", "-0"),
    ("integer", "+007"),
    ("boolean", "true"),
    ("boolean", "0"),
    ("string", "anything at all \ud800"),
]

#: Values it must leave to rdflib: not in the forms it knows (rdflib says ill-typed, or reads them leniently).
ASK = [
    ("dateTime", "1900-02-29T00:00:00Z"),  # 1900 is no leap year
    ("dateTime", "2023-02-29T00:00:00Z"),
    ("dateTime", "2026-04-31T00:00:00Z"),
    ("dateTime", "2026-01-20T24:00:00"),
    ("dateTime", "0000-01-01T00:00:00"),
    ("dateTime", "10000-01-01T00:00:00"),
    ("dateTime", "-0001-01-01T00:00:00"),
    ("dateTime", "2026-01-20T14:22:00.1234567Z"),
    ("dateTime", "2026-01-20T14:22:00z"),
    ("dateTime", "2026-01-20T14:22:00+14:01"),
    ("dateTime", "2026-01-20 14:22:00"),
    ("dateTime", "2026-01-20T14:22:00Z\n"),
    ("dateTime", " 2026-01-20T14:22:00Z"),
    ("dateTime", "2026-01-20"),  # a date under a dateTime term
    ("date", "2026-02-30"),
    ("date", "2026-01-20T10:00:00"),
    ("duration", "P"),
    ("duration", "PT"),
    ("duration", "P1DT"),
    ("duration", "P1W"),
    ("duration", "P1234567D"),
    ("duration", "P1.5D"),
    ("decimal", "1e3"),
    ("decimal", " 1"),
    ("decimal", "1_000"),
    ("decimal", "NaN"),
    ("integer", "1.0"),
    ("integer", "9" * 31),
    ("integer", "١٢"),
    ("boolean", "True"),
    ("float", "1.5"),  # a datatype it does not know
]


@pytest.mark.parametrize(("name", "lexical"), SURE)
def test_the_common_forms_are_answered_quickly(name: str, lexical: str) -> None:
    assert surely_well_typed(lexical, _XSD + name)
    assert not rdflib_says_ill_typed(lexical, _XSD + name)


@pytest.mark.filterwarnings("ignore:Parsing weird boolean")
@pytest.mark.parametrize(("name", "lexical"), ASK)
def test_the_rest_goes_to_rdflib(name: str, lexical: str) -> None:
    assert not surely_well_typed(lexical, _XSD + name)
    _check(lexical, _XSD + name)
