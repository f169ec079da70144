"""The quick answers of :mod:`mif_rdf.source.identity` are the full checks' answers.

* The quick yes for plain IRIs (:func:`~mif_rdf.source.identity.surely_valid_iri`)
  may only say "valid" where :func:`~mif_rdf.core.context.iri_problem` finds no
  problem, :func:`~mif_rdf.core.context.is_absolute_iri` agrees and Oxigraph
  takes the IRI; anything else is asked of them, so a False is never wrong.
  Checked on generated strings of the characters that decide (delimiters,
  escapes, spaces, non-ASCII) and on the shapes a bundle holds.
* A relationship target that is an IRI is resolved at once, without the memo
  of paths: :func:`~mif_rdf.source.identity.resolve_target` gives what the one
  function with the memo gave, on generated targets.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mif_rdf.core.context import iri_problem, is_absolute_iri, resolve_iri
from mif_rdf.source.identity import _SAFE_PATH, id_problem, resolve_target, surely_valid_iri

_ALPHABET = "az09AZ+-.:/?#[]@!$&'()*,;=%~_ \"<>{}|\\^`é\u00a0\ue000"
_SCHEMES = st.sampled_from(["http", "mif", "urn", "a+b", "a.b-c", "1a", "_", "", "a,b", "é"])


@settings(max_examples=3000, deadline=None)
@given(scheme=_SCHEMES, rest=st.text(alphabet=_ALPHABET, max_size=24))
def test_a_quick_yes_is_rfc_3987s_yes(scheme: str, rest: str) -> None:
    value = f"{scheme}:{rest}"
    if surely_valid_iri(value):
        assert iri_problem(value) is None and is_absolute_iri(value), value
        ox.NamedNode(value)  # and Oxigraph takes it


@pytest.mark.parametrize(
    "value",
    [
        "urn:mif:7772bc02-1461-4d8e-a8ff-8f9663e26c36",
        "urn:mif:entity:technology:react",
        "mif://local/acme/semantic/decisions/privacy-choice-10899.md",
        "https://github.com/acme/cache-service",
        "http://example.org:8080/a/b/",
        "urn:mif:vector:3508459b-21a1-43d3-8572-7730ce7bf41f",
    ],
)
def test_the_iris_of_a_bundle_are_plain(value: str) -> None:
    assert surely_valid_iri(value) and iri_problem(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "http://example.org/a b",
        "http://example.org/%zz",
        "http://[::1]/x",
        "http://user@host/x",
        "http://example.org/x?q=1",
        "http://example.org/x#f",
        "urn:mif:é",
        "_:b1",
        "urn:",
        "relative/path",
        "mif:/x",
    ],
)
def test_anything_else_is_asked_of_rfc_3987(value: str) -> None:
    """Valid or not, these go to the full check (a percent escape, an IP literal, a query, non-ASCII ...)."""
    assert not surely_valid_iri(value)


def test_a_memory_ids_problem_is_the_full_checks() -> None:
    assert id_problem("7772bc02-1461-4d8e-a8ff-8f9663e26c36") is None
    assert "is not an absolute IRI" in str(id_problem("a b"))
    assert "has '%' at position 10" in str(id_problem("x%zz"))


def reference_target(target: str, doc_iri: str, base: str) -> str:
    """The resolution as one function (before IRI targets skipped the memo)."""
    if target.startswith("/"):
        return resolve_iri(quote(target.lstrip("/"), safe=_SAFE_PATH), base) if target.strip("/") else base
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target):
        return target
    return resolve_iri(quote(target, safe=_SAFE_PATH), doc_iri)


@settings(max_examples=1000, deadline=None)
@given(
    head=st.sampled_from(["", "/", "//", "./", "../", "../../", "urn:", "mif:", "a+b:", "1a:", "_:", "é:", "#", "?"]),
    rest=st.text(alphabet="ab/.:#?% é-_", max_size=12),
    doc=st.sampled_from(["mif://b/episodic/x/a.md", "mif://b/a.md", "https://h/p/q?x#f"]),
)
def test_a_target_resolves_as_before(head: str, rest: str, doc: str) -> None:
    target = head + rest
    assert resolve_target(target, doc, "mif://b/") == reference_target(target, doc, "mif://b/")
