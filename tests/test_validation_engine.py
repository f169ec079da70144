"""The fast SHACL engine gives exactly pyshacl's results (DESIGN 4, issue 3 item 5)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.namespace import SH

from conftest import FIXTURE_BUNDLES
from mif_rdf import load_bundle
from mif_rdf.source.markdown import render_memory, split_frontmatter
from mif_rdf.source.yamlio import load_yaml
from mif_rdf.validation import validate
from mif_rdf.validation.engine import Unsupported, validate_graph
from mif_rdf.validation.run import shacl_report
from mif_rdf.validation.shapes import shapes_graph
from synthetic import generate_bundle
from test_validation_rules import CASES


def _results(report: Graph) -> set[tuple]:
    keys = (SH.focusNode, SH.resultPath, SH.value, SH.sourceShape, SH.resultSeverity, SH.sourceConstraintComponent)
    return {tuple(report.value(r, k) for k in keys) for r in report.subjects(SH.resultSeverity, None)}


def _same(bundle, level: int) -> set[tuple]:
    shapes = shapes_graph(level)
    fast = _results(shacl_report(bundle.dataset, shapes, "fast"))
    reference = _results(shacl_report(bundle.dataset, shapes, "pyshacl"))
    assert fast == reference
    return fast


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_identical_results_on_fixtures(name: str, level: int, store: str) -> None:
    check_identical_results(FIXTURE_BUNDLES[name], level, store)


def check_identical_results(root: Path, level: int, store: str = "memory") -> None:
    """The fast SHACL engine and pyshacl report the same results on a bundle.

    On Oxigraph the engine reads the store and pyshacl a copy with the literals as stored: the same
    nodes (blank-node labels included), so the results compare as they are.
    """
    _same(load_bundle(root, store=store), level)


def test_identical_results_on_generated_bundle_with_seeded_violations(tmp_path: Path) -> None:
    check_seeded_bundle(tmp_path, "memory")


def test_identical_results_on_oxigraph_with_seeded_violations(tmp_path: Path) -> None:
    check_seeded_bundle(tmp_path, "oxigraph")


def check_seeded_bundle(tmp_path: Path, store: str) -> None:
    """150 generated memories, 60 with three seeded violations each: the fast engine gives pyshacl's results."""
    paths = generate_bundle(tmp_path, 150, seed=3)
    rng = random.Random(11)
    seeded = 0
    for path in rng.sample(paths, 60):
        split = split_frontmatter(path.read_text(encoding="utf-8"))
        frontmatter = load_yaml(split.frontmatter).data
        for rule in rng.sample(sorted(CASES), 3):
            try:
                CASES[rule][0](frontmatter)
                seeded += 1
            except (KeyError, IndexError, TypeError):
                continue  # this memory lacks the field the case changes
        path.write_text(render_memory(frontmatter, split.body), encoding="utf-8")
    assert seeded > 60
    bundle = load_bundle(tmp_path, store=store)
    found = _same(bundle, 3)
    assert len({source_shape for _, _, _, source_shape, _, _ in found}) > 20  # many different rules broken
    report = validate(bundle, 3)  # and the whole report, through the fast engine, names files and keys
    assert not report.conforms and all(r.path.endswith(".md") for r in report.results if r.rule != "link")


def test_unsupported_shapes_fall_back_to_pyshacl(example_bundle) -> None:
    shapes = Graph().parse(
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix mif: <https://mif-spec.dev/ns/> .
        <urn:x:S> a sh:NodeShape ; sh:targetSubjectsOf mif:content ;
            sh:property [ sh:path mif:temporal ; sh:sparql [ sh:select "SELECT $this WHERE { $this a ?t }" ] ] ;
            sh:property [ sh:path mif:temporal ; sh:class mif:TemporalMetadata ] .
    """,
        format="turtle",
    )
    with pytest.raises(Unsupported):
        validate_graph(example_bundle.dataset, shapes)
    report = shacl_report(example_bundle.dataset, shapes, "auto")
    assert len(_results(report)) > 0  # pyshacl ran: temporal nodes are not typed TemporalMetadata everywhere


#: Lexical forms at the edges of xsd:dateTime and xsd:time as rdflib reads them (date only, hour 24,
#: leap days, fractions of every length, offsets, lowercase separators, spaces, week dates, year 0).
_LEXICAL_EDGES = [
    "2026-01-15T10:00:00Z",
    "2026-01-15",
    "2026-01-15T10:00",
    "2026-01-15T10",
    "2026-01-15T24:00:00",
    "2024-02-29T00:00:00",
    "2026-02-29T00:00:00",
    "2026-02-30",
    "2026-13-01T00:00:00",
    "0000-01-01T00:00:00",
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59.999999",
    "2026-01-15T10:00:00.1",
    "2026-01-15T10:00:00.1234567",
    "2026-01-15T10:00:00+14:00",
    "2026-01-15T10:00:00-00:00",
    "2026-01-15T10:00:00+0100",
    "2026-01-15T10:00:00+01",
    "2026-01-15t10:00:00z",
    "2026-01-15 10:00:00",
    " 2026-01-15T10:00:00",
    "2026-01-15T10:00:00 ",
    "20260115T100000",
    "2026-W03-4",
    "2026-W03-4T10:00",
    "2026-015",
    "+2026-01-15T10:00:00",
    "-2026-01-15T10:00:00",
    "12026-01-15T00:00:00",
    "2026-01-15T10:00:60",
    "2026-01-15T10:60:00",
    "2026-01-15T10:00:00,5",
    "yesterday",
    "",
    "T",
    "10:00:00",
    "10:00",
    "24:00:00",
    "10:00:00Z",
    "10:00:00.5+02:00",
    "10:00:00.",
    "2026-01-15T10:00:00.",
    "١٢:٠٠",
    "2026-01-15T10:00:00\n",
]


@pytest.mark.parametrize("datatype", ["dateTime", "time"])
def test_lexical_parsers_read_as_rdflib_does(datatype: str) -> None:
    """The engine's direct reading of a dateTime or time equals rdflib's Literal (pyshacl's reading), edges and
    random neighbours of them included."""
    from rdflib import Literal
    from rdflib.namespace import XSD

    from mif_rdf.validation.engine.checks import _LEXICAL_PARSERS, _has_datatype, _parses

    iri = XSD[datatype]
    rng = random.Random(5)
    corpus = list(_LEXICAL_EDGES)
    for text in _LEXICAL_EDGES:  # one character dropped, doubled or replaced by a digit or separator
        for _ in range(8):
            at = rng.randrange(len(text) + 1)
            corpus.append(text[:at] + rng.choice("0123456789:-T.+Z ") + text[at + 1 :])
            corpus.append(text[:at] + text[at : at + 1] * 2 + text[at + 1 :])
    disagree = [
        text
        for text in corpus
        if _parses(_LEXICAL_PARSERS[str(iri)], text) != _has_datatype(Literal(text, datatype=iri, normalize=False), iri)
    ]
    assert disagree == []
    assert sum(_parses(_LEXICAL_PARSERS[str(iri)], text) for text in corpus) > 20  # both outcomes are exercised
    assert sum(not _parses(_LEXICAL_PARSERS[str(iri)], text) for text in corpus) > 20


def test_the_memory_stores_own_index_is_the_unions_triples(example_bundle) -> None:
    """The engine reads rdflib's in-memory index for a whole-store Dataset: the same values as ``triples``, and a
    graph that is not the whole store (a named graph of the Dataset) goes through ``triples``."""
    from rdflib.namespace import RDF

    from mif_rdf.core.namespaces import MIF
    from mif_rdf.validation.engine.data import Data, _memory_index

    dataset = example_bundle.dataset
    assert _memory_index(dataset) is not None
    predicates = [RDF.type, MIF.tags, MIF.relationships, MIF.content]
    fast = Data(dataset).index(predicates)
    for predicate in predicates:
        slow = {(s, o) for s, _, o in dataset.triples((None, predicate, None))}
        assert {(s, o) for s, objects in fast[predicate].items() for o in objects} == slow and slow
    one_graph = next(g for g in dataset.graphs() if len(g) > 10)
    assert _memory_index(one_graph) is None
