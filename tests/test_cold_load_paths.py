"""The cold load's shortcuts give what the general code gives (issue 34): literal quoting, the projection
context's memo, the projection's string fast paths, the walker's uncached long literals."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib.compare import isomorphic

from mif_rdf.core.context import ActiveContext, mif_context, projection_context
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.tordf import NQuadsTerms, document_nquads, quoted
from test_oxigraph_text import _parsed_by_oxigraph, _walker_graph

_TRICKY = st.sampled_from(['"', "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\x85", "\u2028", "\ud800", "é", "😀"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=4), _TRICKY), max_size=6).map("".join))
def test_quoted_is_json_dumps(text: str) -> None:
    assert quoted(text) == json.dumps(text, ensure_ascii=False)


def test_the_projection_context_memo_is_the_context_its_json_makes() -> None:
    """The identity shortcut and the JSON memo give contexts with the same terms; an equal copy takes the JSON way."""
    by_identity = mif_context().embedded(projection_context())
    copied = copy.deepcopy(projection_context())
    by_json = mif_context().embedded(copied)
    fresh = ActiveContext({}, None).with_context(copied)
    assert by_identity.vocab == by_json.vocab == fresh.vocab
    assert by_identity.terms == by_json.terms == fresh.terms


def _memory(**fields: Any) -> dict[str, Any]:
    return {
        "id": "0b9f6f0e-2a4b-4f7e-9d1e-1c2b3a4d5e6f",
        "type": "semantic",
        "created": "2026-01-15T10:00:00Z",
        **fields,
    }


#: Values of untyped terms: strings, and lists and objects of them (the shapes the fast paths take).
_VALUES = st.recursive(
    st.one_of(st.text(max_size=5), st.integers(-3, 3), st.none(), st.booleans()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["title", "tags"]), inner),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["title", "tags", "aliases", "summary"]), _VALUES, max_size=4))
def test_untyped_values_project_as_written_and_walk_as_their_triples(fields: dict[str, Any]) -> None:
    """Strings under untyped keys (top level, nested, in lists) skip the value path: the document holds every
    value as written (spec 15.1) with no note, and the N-Quads text is the rdflib triples (a long body
    included, which the literal cache skips), read back by rdflib."""
    frontmatter = _memory(**fields)
    body = 'a long body with "quotes" and a \\ backslash\n' * 10
    projection = project_memory(frontmatter, body, path="m.md", doc_iri="mif://local/b/m.md")
    assert {key: projection.document[key] for key in fields} == fields
    assert projection.notes == []
    text = document_nquads(projection.document, projection.doc_iri, "urn:g")
    assert isomorphic(_parsed_by_oxigraph(text, "urn:g"), _walker_graph(projection.document, projection.doc_iri))


def test_blank_node_labels_differ_between_documents() -> None:
    """Each document's labels have their own random prefix: one parse of many documents never merges two nodes."""
    prefixes = {NQuadsTerms().prefix for _ in range(1_000)}
    assert len(prefixes) == 1_000
