"""The published ontologies in OWL tools: the OWL API's OWL 2 DL profile check and HermiT (issue 36 item 4).

`mif-rdf ontology compile --output-dir` writes each ontology of the corpus as
its own document with catalog-v001.xml; the tools read that folder offline,
imports resolved through the catalog:

* our structural checker (tests/owl_dl.py, also in the main suite);
* the OWL API 5 (Debian's ``libowlapi-java``) running OWL2DLProfile through
  tests/conformance/OwlDlProfile.java, on every document and every merged `-o` file
  (owlready2's OWL API 3.4.3 misses undeclared datatypes such as xsd:duration);
* HermiT (owlready2's jar) classifying each ontology with its imports closure:
  consistent, and no unsatisfiable class.

Java and the OWL API come from Debian (`default-jre-headless`, `libowlapi-java`,
installed by .ci/run); a missing one is a failure, never a skip.  Each tool also gets a document with the
shapes that used to break it, so a tool that read nothing could not pass.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import owlready2
import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF
from upstream import AI_MEMORY_ONTOLOGY, CORPUS

from mif_rdf.cli.main import main
from mif_rdf.ontology.catalog import CATALOG_FILE, catalog_xml
from owl_dl import violations

REFS = sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml"))
HERE = Path(__file__).parent
DEBIAN_JAVA = Path("/usr/share/java")
CATALOG_NS = "{urn:oasis:names:tc:entity:xmlns:xml:catalog}"
#: The old output's shapes: an rdf:Property-only term, an xsd:duration range, an undeclared skos: term.
BROKEN = """@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<https://example.org/broken> a owl:Ontology .
<https://example.org/owner> a rdf:Property .
<https://example.org/ttl> a owl:DatatypeProperty ; rdfs:range xsd:duration .
<https://example.org/Thing> a owl:Class ; skos:prefLabel "thing" ;
    rdfs:subClassOf [ a owl:Restriction ; owl:onProperty <https://example.org/ttl> ; owl:allValuesFrom xsd:date ] .
"""


def java() -> str:
    found = shutil.which("java")
    assert found, "no java: apt-get install default-jre-headless (.ci/run installs it)"
    return found


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every published ontology (and the ai-memory profile) compiled into one folder, plus each merged view."""
    out = tmp_path_factory.mktemp("owl")
    assert (
        main(
            [
                "ontology",
                "compile",
                *REFS,
                str(AI_MEMORY_ONTOLOGY),
                "--path",
                str(CORPUS),
                "--output-dir",
                str(out / "documents"),
            ]
        )
        == 0
    )
    for ref in REFS:
        assert main(["ontology", "compile", ref, "--path", str(CORPUS), "-o", str(out / "merged" / f"{ref}.owl")]) == 0
    broken = out / "broken"
    broken.mkdir()
    (broken / "broken.ttl").write_text(BROKEN)
    (broken / CATALOG_FILE).write_bytes(catalog_xml({"https://example.org/broken": "broken.ttl"}))
    return out


def catalog(folder: Path) -> dict[str, Path]:
    return {
        e.get("name"): folder / e.get("uri") for e in ET.parse(folder / CATALOG_FILE).getroot().iter(CATALOG_NS + "uri")
    }


def test_the_folder_holds_each_published_ontology_and_its_catalog(folder: Path) -> None:
    documents = folder / "documents"
    mapped = catalog(documents)
    assert {f"{r}.ttl" for r in REFS} | {"ai-memory.ttl", "mif-vocabulary.ttl"} <= {
        p.name for p in documents.glob("*.ttl")
    }
    graphs = [Graph().parse(p) for p in documents.glob("*.ttl")]
    for graph in graphs:
        for imported in graph.objects(None, OWL.imports):
            assert mapped[str(imported)].is_file(), imported
    assert violations(graphs) == []


@pytest.mark.parametrize("ref", REFS)
def test_own_checker_on_each_merged_view(folder: Path, ref: str) -> None:
    merged = Graph().parse(folder / "merged" / f"{ref}.owl", format="xml")
    assert set(merged.subjects(RDF.type, OWL.Ontology)) == {URIRef(f"https://mif-spec.dev/ontologies/{ref}")}
    assert violations([merged, Graph().parse(folder / "documents" / "mif-vocabulary.ttl")]) == []


def owl_api_profile(catalog_file: Path, files: list[Path]) -> subprocess.CompletedProcess[str]:
    assert (DEBIAN_JAVA / "owlapi-distribution.jar").is_file(), (
        "no OWL API: apt-get install libowlapi-java (.ci/run installs it)"
    )
    classpath = str(DEBIAN_JAVA / "*")  # the OWL API and the libraries it depends on, as Debian installs them
    return subprocess.run(
        [java(), "-cp", classpath, str(HERE / "OwlDlProfile.java"), str(catalog_file), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_owl_api_finds_every_document_and_merged_view_in_the_owl2_dl_profile(folder: Path) -> None:
    files = [folder / "documents" / f"{r}.ttl" for r in REFS] + [folder / "documents" / "ai-memory.ttl"]
    files += [folder / "merged" / f"{r}.owl" for r in REFS]
    run = owl_api_profile(folder / "documents" / CATALOG_FILE, files)
    summaries = [line for line in run.stdout.splitlines() if "imports closure of" in line]
    print(run.stdout, run.stderr[-2000:])
    assert run.returncode == 0 and len(summaries) == len(files)
    assert all(line.endswith(", 0 violations") for line in summaries)
    chain = next(line for line in summaries if line.startswith(str(folder / "documents" / "software-security.ttl")))
    assert (
        "OntologyIRI(<https://mif-spec.dev/ontologies/software-security>)" in chain and "imports closure of 5" in chain
    )
    merged = next(line for line in summaries if line.startswith(str(folder / "merged" / "software-security.owl")))
    assert (
        "OntologyIRI(<https://mif-spec.dev/ontologies/software-security>) VersionIRI(<https://mif-spec.dev/ontologies/software-security/0.4.0>)"
        in merged
    )


def test_owl_api_reports_the_old_shapes(folder: Path) -> None:
    run = owl_api_profile(folder / "broken" / CATALOG_FILE, [folder / "broken" / "broken.ttl"])
    assert run.returncode == 1
    for expected in (
        "Use of undeclared datatype: xsd:duration",
        "Use of undeclared datatype: xsd:date",
        "Use of undeclared annotation property: <http://www.w3.org/2004/02/skos/core#prefLabel>",
    ):
        assert expected in run.stdout, run.stdout


def hermit(folder: Path, root: str) -> owlready2.World:
    """Load ``root`` with its imports closure from the catalog's files, then classify with HermiT."""
    mapped = catalog(folder)
    world = owlready2.World()
    loaded: dict[str, owlready2.Ontology] = {}

    def load(iri: str) -> owlready2.Ontology:
        if iri not in loaded:
            graph = Graph().parse(mapped[iri], format="turtle")
            for imported in graph.objects(URIRef(iri), OWL.imports):
                load(str(imported))
            data = io.BytesIO(graph.serialize(format="nt", encoding="utf-8"))  # owlready2 reads no Turtle
            loaded[iri] = world.get_ontology(iri).load(fileobj=data, format="ntriples")
        return loaded[iri]

    with load(root):
        owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
    return world


@pytest.mark.parametrize("ref", REFS + ["ai-memory"])
def test_hermit_classifies_each_published_ontology(folder: Path, ref: str) -> None:
    java()
    world = hermit(folder / "documents", f"https://mif-spec.dev/ontologies/{ref}")
    ours = [c for c in world.classes() if c.iri.startswith("https://mif-spec.dev/")]
    assert len(ours) > 10
    assert len(list(world.properties())) > 50  # owlready2 crashed here on rdf:Property-only terms
    assert list(world.inconsistent_classes()) == []


def test_hermit_refuses_what_is_outside_the_datatype_map(folder: Path) -> None:
    java()
    with pytest.raises(owlready2.OwlReadyError):
        hermit(folder / "broken", "https://example.org/broken")
