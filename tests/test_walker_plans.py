"""The walker's per-key plans and its one-string shortcut give pyld's triples under every term of the context.

The walker memoizes what each key of a node makes (``ActiveContext.plan``) and
writes a lone string value without the general value path; both are checked
here against pyld's toRdf, and the N-Quads text against the rdflib triples, on
frontmatter drawn from every term the MIF context defines (every coercion:
``@id``, ``@vocab``, ``@json``, datatypes, ``@list`` and ``@index`` containers).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import Graph

from conftest import assert_isomorphic, isomorphic
from mif_rdf.core.context import mif_context
from mif_rdf.rdf.reference import pyld_graph
from mif_rdf.rdf.tordf import document_nquads, document_triples
from test_equivalence import GENERATED_ID, generated_projection
from test_oxigraph_text import _parsed_by_oxigraph, _walker_graph

#: Every term of the MIF context a frontmatter key can name (the projection derives the others itself).
_TERMS = sorted(
    name
    for name, term in mif_context().terms.items()
    if term.iri is not None and not term.iri.startswith("@") and name not in ("id", "type", "conceptType", "content")
)
#: Strings of every kind a term's coercion reads differently: IRIs, relative paths, blank labels, keywords, dates.
_STRINGS = st.sampled_from(
    [
        "plain text",
        "",
        "urn:mif:abc",
        "https://example.org/x",
        "/semantic/x.md",
        "../y.md",
        "x.md",
        "_:b1",
        "@id",
        "Concept",
        "mif:Concept",
        "2026-01-20T14:22:00Z",
        "2026-01-20",
        "P90D",
        "has space",
        "0.5",
        "true",
    ]
)
_VALUES = st.recursive(
    st.one_of(_STRINGS, st.integers(-5, 5), st.booleans(), st.none()),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_TERMS + ["@id", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _graph(triples: object) -> Graph:
    """The triples as they are: lexical forms compared as written (these values are strings, small integers, flags)."""
    graph = Graph()
    for triple in triples:  # type: ignore[attr-defined]
        graph.add(triple)
    return graph


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter=st.dictionaries(st.sampled_from(_TERMS), _VALUES, max_size=6))
def test_every_term_with_any_value_walks_as_pyld_reads_it(frontmatter: dict) -> None:
    projection = generated_projection(frontmatter, "body")
    walked = document_triples(projection.document, projection.doc_iri)
    assert_isomorphic(walked, pyld_graph(projection.document, projection.doc_iri), "every term", by=_graph)
    graph = f"urn:mif:{GENERATED_ID}"
    text = document_nquads(projection.document, projection.doc_iri, graph)
    assert isomorphic(_parsed_by_oxigraph(text, graph), _walker_graph(projection.document, projection.doc_iri))


def test_a_plan_is_the_key_s_meaning() -> None:
    ctx = mif_context()
    assert ctx.plan("@context")[0] == ""  # no triple
    assert ctx.plan("@id")[0] == "@id" and ctx.plan("@type")[0] == "@type"
    role, term, child = ctx.plan("title")
    assert role == term.iri and role.startswith("http") and child is ctx.child(term)
    assert ctx.plan("title") is ctx.plan("title")  # memoized


def test_the_projection_still_notes_every_key_it_cannot_keep_as_is() -> None:
    """Keys the plan does not make a good property take the checked path: each is noted, the rest kept silently."""
    frontmatter = {"title": "kept", "a{b": 1, "@context": 2, "has space": 3, 5: "number key", "tags": ["x"]}
    projection = generated_projection(frontmatter, "body")
    notes = {(note.key, note.severity.name) for note in projection.notes}
    assert notes == {("a{b", "ERROR"), ("@context", "ERROR"), ("has space", "WARNING"), ("5", "ERROR")}
    assert projection.document["title"] == "kept" and projection.document["tags"] == ["x"]
    assert "a{b" not in projection.document and "has space" in projection.document
