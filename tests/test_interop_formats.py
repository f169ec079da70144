"""Issue 17, item 6: every export format carries the same RDF terms, and the engines differ only as the README says."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyld import jsonld
from rdflib import Dataset, Graph, Literal
from rdflib.compare import graph_diff, to_isomorphic
from rdflib.namespace import XSD

from conftest import FIXTURE_BUNDLES, isomorphic
from mif_rdf import load_bundle
from mif_rdf.output.serialize import serialize_bundle
from mif_rdf.rdf.reference import lexical_literals

RDF_JSON = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"


def no_documents(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    raise jsonld.JsonLdError(
        f"the export must not need {url}", "jsonld.LoadDocumentError", code="loading document failed"
    )


def exported(bundle, fmt: str) -> dict[str, Graph]:
    """The export in ``fmt``, read back by an independent parser with lexical forms kept: graph name -> triples."""
    out = io.BytesIO()
    serialize_bundle(bundle, fmt, out)
    text = out.getvalue().decode("utf-8")
    with lexical_literals():
        if fmt in ("turtle", "nt"):
            return {"union": Graph().parse(data=text, format=fmt)}
        dataset = Dataset()
        if fmt == "json-ld":
            text = jsonld.to_rdf(json.loads(text), {"documentLoader": no_documents, "format": "application/n-quads"})
            fmt = "nquads"
        dataset.parse(data=text, format=fmt)
    return graphs_of(dataset)


def graphs_of(dataset: Dataset) -> dict[str, Graph]:
    found = {}
    for graph in dataset.graphs():
        if len(graph):
            copy = Graph()
            for triple in graph:
                copy.add(triple)
            found[str(graph.identifier)] = copy
    return found


def plain(graph: Graph) -> Graph:
    """``xsd:string`` literals written plain: the same RDF 1.1 term, two rdflib terms."""
    out = Graph()
    for s, p, o in graph:
        out.add((s, p, Literal(str(o)) if isinstance(o, Literal) and o.datatype == XSD.string else o))
    return out


def assert_same_terms(left: Graph, right: Graph, label: str) -> None:
    """Isomorphic with literals compared as terms: lexical form and datatype, not value."""
    a, b = plain(left), plain(right)
    if not isomorphic(a, b):
        _, only_left, only_right = graph_diff(to_isomorphic(a), to_isomorphic(b))
        raise AssertionError(
            f"{label}\n--- only left:\n{only_left.serialize(format='nt')}\n--- only right:\n"
            f"{only_right.serialize(format='nt')}"
        )


@pytest.mark.parametrize("name", ["examples", "levels", "properties"])
@pytest.mark.parametrize("fmt", ["turtle", "nt", "nquads", "trig", "json-ld"])
def test_every_format_reads_back_term_for_term(name: str, fmt: str) -> None:
    bundle = load_bundle(FIXTURE_BUNDLES[name])
    ours = graphs_of(bundle.dataset)
    theirs = exported(bundle, fmt)
    if fmt in ("turtle", "nt"):
        union = Graph()
        for graph in ours.values():
            for triple in graph:
                union.add(triple)
        ours = {"union": union}
    assert ours.keys() == theirs.keys()
    for graph_name in ours:
        assert_same_terms(ours[graph_name], theirs[graph_name], f"{fmt}: {graph_name}")


def test_turtle_writes_numbers_whose_shorthand_respells_them_in_full() -> None:
    bundle = load_bundle(FIXTURE_BUNDLES["examples"])
    out = io.BytesIO()
    serialize_bundle(bundle, "turtle", out)
    text = out.getvalue().decode("utf-8")
    assert '"9.995E1"^^xsd:double' in text and "9.995e+01" not in text


# -- the two engines ---------------------------------------------------------------------------
def pyld_spelling(term: Any) -> Any:
    """The term pyld writes where the fast walker wrote ``term``: exactly the differences the README lists.

    A YAML float becomes, in pyld, ``str(int(x))`` when it has no fractional part
    (typed ``xsd:integer`` unless the context coerces a type) and otherwise
    the double form with 16 significant digits (``9.399999999999999E-1``),
    whatever the datatype; the fast walker writes the author's decimal
    (``0.94``, ``1.0``) under ``xsd:decimal`` and the shortest double that
    gives the float back otherwise.  ``rdf:JSON`` literals: pyld writes JCS,
    where a float with no fractional part is written as an integer.
    """
    if not isinstance(term, Literal) or term.datatype is None:
        return term
    lexical, datatype = str(term), str(term.datatype)
    if datatype == RDF_JSON:
        return Literal(jsonld.canonicalize(json.loads(lexical)).decode("utf-8"), datatype=term.datatype)
    if datatype not in (str(XSD.double), str(XSD.decimal)) or not any(c in lexical for c in ".eE"):
        return term
    value = float(Decimal(lexical))
    if value.is_integer():
        return Literal(
            str(int(value)), datatype=XSD.integer if datatype == str(XSD.double) else term.datatype, normalize=False
        )
    return Literal(jsonld._canonicalize_double(value), datatype=term.datatype, normalize=False)


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_the_engines_differ_only_as_the_readme_says(name: str) -> None:
    fast, reference = load_bundle(FIXTURE_BUNDLES[name]), load_bundle(FIXTURE_BUNDLES[name], engine="pyld")
    ours, theirs = graphs_of(fast.dataset), graphs_of(reference.dataset)
    assert ours.keys() == theirs.keys()
    for graph_name, graph in ours.items():
        respelled = Graph()
        for s, p, o in graph:
            respelled.add((s, p, pyld_spelling(o)))
        assert_same_terms(respelled, theirs[graph_name], f"{name}: {graph_name}")


def test_the_readme_names_the_engine_differences() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    for needle in ("9.399999999999999E-1", "xsd:integer", "JCS"):
        assert needle in readme, needle
