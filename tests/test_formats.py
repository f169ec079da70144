"""Format names as riot and rdflib spell them, extensions that mean what they say, RDF/XML (issue 20, section 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Dataset, Graph

from conftest import EXAMPLES, isomorphic
from mif_rdf import MifRdfError
from mif_rdf.core.formats import ALIASES, RDF_FORMATS, SUFFIXES, format_for, format_name

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
#: what an independent reader (rdflib's parsers) reads each written file as
READERS = {"turtle": "turtle", "nt": "nt", "nquads": "nquads", "trig": "trig", "json-ld": "json-ld", "rdfxml": "xml"}


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([MIF_RDF, *args], capture_output=True, timeout=300)


def test_every_spelling_names_one_format() -> None:
    for name in RDF_FORMATS:
        assert format_name(name) == name and format_name(name.upper()) == name
    for alias, name in ALIASES.items():
        assert format_name(alias) == name
    assert {format_name(s) for s in ("ttl", "nt", "nq", "trig", "jsonld", "xml")} == set(RDF_FORMATS)
    with pytest.raises(MifRdfError, match="unknown RDF format 'yaml'"):
        format_name("yaml")


def test_extensions_name_formats_and_an_unknown_one_is_an_error() -> None:
    expected = {
        ".ttl": "turtle",
        ".nt": "nt",
        ".nq": "nquads",
        ".trig": "trig",
        ".jsonld": "json-ld",
        ".rdf": "rdfxml",
        ".owl": "rdfxml",
    }
    for suffix, name in expected.items():
        assert format_for(Path("out" + suffix), None) == name == SUFFIXES[suffix]
    assert format_for(Path("out.data"), "ttl") == "turtle"  # --format names what no extension says
    assert format_for(Path("out.owl"), "xml") == "rdfxml"  # and may agree with the extension
    with pytest.raises(MifRdfError, match="--format ttl writes turtle, but the extension of 'out.rdf' says rdfxml"):
        format_for(Path("out.rdf"), "ttl")  # a contradiction is an error (issue 37.7)
    assert format_for(None, None) == "turtle"
    with pytest.raises(MifRdfError, match="cannot tell an RDF format from the extension '.txt'"):
        format_for(Path("out.txt"), None)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    """The union of `mif-rdf export examples --format nq`, as rdflib reads it (read-only: the tests copy it)."""
    path = tmp_path_factory.mktemp("reference") / "reference.nq"
    assert run("export", str(EXAMPLES), "--format", "nq", "-o", str(path)).returncode == 0
    expected = Graph()
    expected += Dataset(default_union=True).parse(path, format="nquads").triples((None, None, None))
    return expected


@pytest.mark.parametrize("suffix", [".ttl", ".nt", ".nq", ".trig", ".jsonld", ".rdf", ".owl"])
def test_load_output_writes_the_format_its_extension_names(tmp_path: Path, suffix: str, reference: Graph) -> None:
    """`load -o x.rdf` writes RDF/XML (it wrote Turtle before), and every file reads back as the same graph."""
    out = tmp_path / f"examples{suffix}"
    done = run("load", str(EXAMPLES), "-o", str(out))
    assert done.returncode == 0, done.stderr
    fmt = SUFFIXES[suffix]
    expected = Graph()
    expected += reference
    if fmt in ("nquads", "trig", "json-ld"):
        written = Graph()
        written += Dataset(default_union=True).parse(out, format=READERS[fmt]).triples((None, None, None))
    else:
        written = Graph().parse(out, format=READERS[fmt])
    assert len(written) == len(expected) > 1000 and isomorphic(written, expected)


@pytest.mark.parametrize(
    ("alias", "reader"),
    [("ttl", "turtle"), ("ntriples", "nt"), ("nq", "nquads"), ("jsonld", "json-ld"), ("xml", "xml")],
)
def test_export_takes_every_spelling(alias: str, reader: str) -> None:
    done = run("export", str(EXAMPLES), "--format", alias)
    assert done.returncode == 0, done.stderr
    target = Dataset(default_union=True) if reader in ("nquads", "json-ld") else Graph()
    assert len(target.parse(data=done.stdout, format=reader)) > 1000


def test_one_graph_is_not_written_as_named_graphs(tmp_path: Path) -> None:
    done = run("ontology", "compile", "mif-base", "-o", str(tmp_path / "o.nq"))
    assert done.returncode == 2 and b"is for named graphs, and this is one graph" in done.stderr
    assert b"Traceback" not in done.stderr
    done = run("ontology", "compile", "mif-base", "-o", str(tmp_path / "o.owl"))
    assert done.returncode == 0 and len(Graph().parse(tmp_path / "o.owl", format="xml")) > 100


def test_a_closed_pipe_is_not_an_error() -> None:
    export = subprocess.Popen(
        [MIF_RDF, "export", str(EXAMPLES), "--format", "nq"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert export.stdout is not None and export.stdout.readline()
    export.stdout.close()
    _, err = export.communicate(timeout=300)
    assert export.returncode == 141 and b"mif-rdf: error" not in err and b"Traceback" not in err
