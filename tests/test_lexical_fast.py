"""The ill-typed verdict of the load's literal check is rdflib's own, on every shape of value a bundle holds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef

from mif_rdf.rdf.lexical import ill_typed_values, is_ill_typed, typed_terms

_XSD = "http://www.w3.org/2001/XMLSchema#"
#: Values near each datatype's lexical space: digits, separators, zones and the characters around them.
_NEAR = st.text(alphabet="0123456789-+:.TZPYMDHSWtzE ", max_size=32)
_DATES = st.builds(
    lambda y, m, d, h, mi, s, frac, zone: f"{y}-{m}-{d}T{h}:{mi}:{s}{frac}{zone}",
    st.sampled_from(["2026", "0000", "-0001", "10000", "1970", "99999", "202"]),
    st.sampled_from(["01", "02", "12", "13", "00", "1"]),
    st.sampled_from(["01", "28", "29", "30", "31", "32", "00"]),
    st.sampled_from(["00", "23", "24", "25", "9"]),
    st.sampled_from(["00", "59", "60"]),
    st.sampled_from(["00", "59", "60", "61"]),
    st.sampled_from(["", ".5", ".123456", ".1234567", "."]),
    st.sampled_from(["", "Z", "+01:00", "-14:00", "+14:01", "+24:00", "z", "+0100"]),
)
_DATATYPES = st.sampled_from(sorted(set(typed_terms().values()) | {_XSD + "dateTime", _XSD + "date"}))


@pytest.mark.filterwarnings("ignore:Parsing weird boolean")
@settings(max_examples=1500, deadline=None)
@given(st.one_of(_NEAR, _DATES, st.text(max_size=12)), _DATATYPES)
def test_the_ill_typed_verdict_is_a_default_literal_s(value: str, datatype: str) -> None:
    assert is_ill_typed(value, datatype) == bool(Literal(value, datatype=URIRef(datatype)).ill_typed)


def test_ill_typed_values_names_file_and_key_of_each_bad_value() -> None:
    frontmatter = {
        "created": "2026-02-30T10:00:00Z",
        "modified": "2026-02-28T10:00:00Z",
        "temporal": {"validFrom": "yesterday", "ttl": "P1D"},
    }
    found = {(p.key, p.value) for p in ill_typed_values("semantic/x.md", frontmatter)}
    assert found == {("created", "2026-02-30T10:00:00Z"), ("temporal.validFrom", "yesterday")}


def _every_bad(value: Any, path: str) -> list[tuple[str, str]]:
    """The definition: (key path, value) of each string under a typed key that rdflib reads as ill-typed."""
    typed, found = typed_terms(), []
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str) or (not path and key in ("extensions", "properties")):
                continue
            where = f"{path}.{key}" if path else key
            if isinstance(child, str):
                if key in typed and Literal(child, datatype=URIRef(typed[key])).ill_typed:
                    found.append((where, child))
            else:
                found.extend(_every_bad(child, where))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            if not isinstance(child, str):
                found.extend(_every_bad(child, f"{path}[{index}]"))
    return found


_KEYS = st.sampled_from(["created", "modified", "ttl", "title", "temporal", "extensions", "properties", "x", 3])
_FRONTMATTER = st.recursive(
    st.sampled_from(["2026-01-20T14:22:00Z", "2026-02-30T00:00:00Z", "P1D", "yesterday", 5, None]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _FRONTMATTER, max_size=5))
def test_ill_typed_values_are_every_bad_value_with_its_path(frontmatter: dict[Any, Any]) -> None:
    found = [(problem.key, problem.value) for problem in ill_typed_values("x.md", frontmatter)]
    assert found == _every_bad(frontmatter, "")
