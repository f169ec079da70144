"""The Python API a newcomer tries first: no silent empty results, no traps (issue 20, section 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef

from conftest import EXAMPLES, isomorphic, memory_text, write_file
from mif_rdf import MifRdfError, load_bundle
from mif_rdf.core.errors import Severity
from mif_rdf.queries import memories_with_tag, run_query
from mif_rdf.validation import validate

MIF = "https://mif-spec.dev/ns/"
TITLES = "SELECT ?t WHERE { ?m dc:title ?t }"


def test_rdflibs_own_query_knows_the_project_prefixes(example_bundle) -> None:
    """dc: is DCMI terms (as the loader writes), not rdflib's default DC elements; mif: is declared."""
    titles = {str(row.t) for row in example_bundle.dataset.query(TITLES)}
    assert {r.frontmatter["title"] for r in example_bundle.memories.values()} <= titles
    kinds = {str(row.k) for row in example_bundle.dataset.query("SELECT DISTINCT ?k WHERE { ?m mif:conceptType ?k }")}
    assert kinds == {MIF + "SemanticType", MIF + "EpisodicType", MIF + "ProceduralType"}
    assert dict(example_bundle.dataset.namespaces())["dc"] == URIRef("http://purl.org/dc/terms/")


def test_bundle_query_and_run_query_take_a_bundle(example_bundle) -> None:
    expected = sorted(str(row.t) for row in example_bundle.dataset.query(TITLES))
    assert sorted(str(row.t) for row in example_bundle.query(TITLES)) == expected
    assert sorted(str(row.t) for row in run_query(example_bundle, TITLES)) == expected
    with pytest.raises(MifRdfError, match="SPARQL Update"):
        example_bundle.query("INSERT DATA { <urn:a> <urn:b> <urn:c> }")


def test_parsing_a_folder_into_a_plain_graph_gives_the_union(example_bundle) -> None:
    graph = Graph().parse(str(EXAMPLES), format="mif")
    union = Graph()
    union += example_bundle.dataset.triples((None, None, None))
    assert len(graph) == len(union) > 1000 and isomorphic(graph, union)


def test_parsing_one_memory_file_gives_that_memory(example_bundle) -> None:
    record = next(iter(example_bundle.memories.values()))
    path = EXAMPLES / record.relpath
    graph = Graph().parse(str(path), format="mif")
    expected = Graph()
    expected += example_bundle.graph(record.id)
    expected += example_bundle.links.triples((URIRef(record.iri), None, None))
    assert len(graph) == len(expected) > 10 and isomorphic(graph, expected)
    dataset = Dataset().parse(str(path), format="mif")
    assert {str(g.identifier) for g in dataset.graphs() if len(g)} == {record.iri, example_bundle.links_graph_iri}


def test_store_names_are_the_clis(example_bundle) -> None:
    for name in ("memory", "oxigraph", "Oxigraph"):
        bundle = load_bundle(EXAMPLES, store=name)
        assert list(bundle.memories) == list(example_bundle.memories)
        assert len(bundle.dataset) == len(example_bundle.dataset)
    from oxrdflib import OxigraphStore

    assert isinstance(load_bundle(EXAMPLES, store="oxigraph").dataset.store, OxigraphStore)  # oxrdflib's, or ours


def test_an_empty_folder_warns_and_fails_validation(tmp_path: Path) -> None:
    write_file(tmp_path, "notes.txt", "not a memory")
    bundle = load_bundle(tmp_path)
    (problem,) = bundle.problems
    assert problem.severity == Severity.WARNING and "no memory files" in problem.message
    assert not validate(bundle).conforms
    run = subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", "validate", str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 1 and "no memories to validate" in run.stdout
    loaded = subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", "load", str(tmp_path)], capture_output=True, text=True
    )
    assert (
        loaded.returncode == 1 and "no memory files" in loaded.stdout + loaded.stderr
    )  # issue 37.7: unless --allow-empty
    loaded = subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", "load", str(tmp_path), "--allow-empty"], capture_output=True, text=True
    )
    assert loaded.returncode == 0 and "no memory files" in loaded.stdout + loaded.stderr


def test_repr_print_and_report_data(tmp_path: Path, example_bundle) -> None:
    line = repr(example_bundle)
    assert "\n" not in line and len(line) < 200
    assert f"{len(example_bundle.memories)} memories" in line and f"{len(example_bundle.dataset)} triples" in line
    table = memories_with_tag(example_bundle, "incident")
    text = str(table).splitlines()
    assert text[0].split() == list(table.columns) and set(text[1]) <= {"-", " "}
    assert len(text) == len(table) + 3 and text[-1] == f"({len(table)} rows)"
    assert all(row["path"] in text[i + 2] for i, row in enumerate(table))
    write_file(tmp_path, "a.md", memory_text("a1", "tags: oops\n"))
    report = validate(load_bundle(tmp_path))
    assert isinstance(report.to_dict(), dict) and json.loads(report.to_json())["conforms"] is report.conforms


def test_a_memory_file_is_read_against_its_bundle_as_convert_reads_it() -> None:
    """The core fixture has index.md and no .mif/: the root is that folder, so /semantic/... resolves."""
    from conftest import FIXTURE_BUNDLES

    core = FIXTURE_BUNDLES["core"]
    graph = Graph().parse(str(core / "procedural" / "recalibrate-barometer.md"), format="mif")
    target = URIRef("urn:mif:04ec3a1a-e104-40da-a6cc-dfd8badb17f8")  # semantic/calibration-interval.md
    assert (URIRef("urn:mif:f82c5202-4546-4fee-bd63-28e324f60253"), URIRef(MIF + "relates-to"), target) in graph
