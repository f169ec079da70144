"""The layout's timestamp paths, built only where a timestamp or a container is, are the plain recursion's."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mif_rdf.rdf.layout import _timestamp_paths, frontmatter_of_layout, layout_text
from mif_rdf.source.yamlio import YamlTimestamp


def _every_path(value: Any, path: list[Any]) -> list[list[Any]]:
    """The definition: every timestamp's path, keys as text and list indexes as numbers, depth first."""
    if isinstance(value, YamlTimestamp):
        return [list(path)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _every_path(item, [*path, str(key)])]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _every_path(item, [*path, index])]
    return []


_LEAVES = st.one_of(
    st.sampled_from([YamlTimestamp("2026-01-20"), YamlTimestamp("2026-01-20T14:22:00Z"), "2026-01-20", "text"]),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.none(),
    st.booleans(),
    st.sampled_from([Decimal("1.5"), datetime.date(2026, 1, 20)]),  # values the fast check does not pass over
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 3)), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=4), _VALUES, max_size=5))
def test_timestamp_paths_are_every_timestamp_s_path(frontmatter: dict[str, Any]) -> None:
    assert list(_timestamp_paths(frontmatter, [])) == _every_path(frontmatter, [])


def test_layout_text_brings_the_timestamps_back() -> None:
    frontmatter = {"id": "x", "created": YamlTimestamp("2026-01-20"), "a": [{"b": YamlTimestamp("2026-01-21")}, "c"]}
    back = frontmatter_of_layout(layout_text(frontmatter))
    assert back == frontmatter
    assert isinstance(back["created"], YamlTimestamp) and isinstance(back["a"][0]["b"], YamlTimestamp)
    assert not isinstance(back["a"][1], YamlTimestamp)
