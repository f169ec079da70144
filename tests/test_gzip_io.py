"""Issue 37 item 7: ``.nt.gz``, ``.nq.gz`` (and every other format + ``.gz``) read and written, as riot does.

Every command runs as a user runs it.  The oracles are independent of the
code under test: the ``gzip`` program decompresses what was written and
rdflib or pyoxigraph parses it, compared with the same command's
uncompressed output (as graphs, since blank node labels differ between
runs; as bytes where the output has none).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Dataset, Graph, Literal

from conftest import EXAMPLES, canonical
from mif_rdf import export, load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import file_format, format_for, open_rdf
from mif_rdf.core.outputs import replacing

RDFLIB = {"nquads": "nquads", "trig": "trig", "turtle": "turtle", "nt": "nt", "json-ld": "json-ld", "rdfxml": "xml"}
OXIGRAPH = {"nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG, "turtle": ox.RdfFormat.TURTLE}


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def gunzipped(path: Path) -> bytes:
    """The bytes the ``gzip`` program gets back (not Python's gzip module: an independent reader)."""
    return subprocess.run(["gzip", "-dc", str(path)], check=True, capture_output=True).stdout


def quads(data: bytes, fmt: str) -> dict[str, frozenset]:
    """Each graph of ``data`` (parsed by rdflib) by name, its triples canonical: comparable across blank node labels."""
    dataset = Dataset()
    dataset.parse(data=data, format=RDFLIB[fmt])
    graphs = {str(g.identifier): canonical(g) for g in dataset.graphs() if len(g)}
    assert graphs, "nothing was parsed"
    return graphs


@pytest.mark.parametrize(
    "name, extra",
    [
        ("x.nq.gz", []),  # the streamed export
        ("x.nq.gz", ["--store", "memory"]),
        ("x.nt.gz", ["--store", "oxigraph"]),
        ("x.trig.gz", ["--store", "oxigraph"]),
        ("x.ttl.gz", ["--store", "memory"]),
        ("x.jsonld.gz", ["--store", "memory"]),
    ],
)
def test_export_to_a_gz_name_writes_the_format_under_it_compressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, extra: list[str]
) -> None:
    compressed, plain = tmp_path / name, tmp_path / name.removesuffix(".gz")
    fmt = file_format(compressed)
    assert run(capsys, "export", EXAMPLES, "-o", compressed, "-q", *extra)[0] == 0
    assert run(capsys, "export", EXAMPLES, "-o", plain, "-q", *extra)[0] == 0
    assert compressed.read_bytes()[:2] == b"\x1f\x8b"
    assert quads(gunzipped(compressed), fmt) == quads(plain.read_bytes(), fmt)


@pytest.mark.parametrize("name", ["x.nq.gz", "x.trig.gz", "x.ttl.gz"])
def test_pyoxigraph_reads_what_was_written(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    target = tmp_path / name
    assert run(capsys, "export", EXAMPLES, "-o", target, "-q")[0] == 0
    with gzip.open(target) as handle:
        read = list(ox.parse(handle, OXIGRAPH[file_format(target)]))
    expected = sum(len(triples) for triples in quads(gunzipped(target), file_format(target)).values())
    assert len(set(read)) == expected > 1000


def test_two_exports_are_the_same_bytes_and_the_header_names_no_file_and_no_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, plain = tmp_path / "a.ttl.gz", tmp_path / "b.ttl.gz", tmp_path / "a.ttl"
    for target in (first, second, plain):
        assert run(capsys, "export", EXAMPLES, "--store", "memory", "-o", target, "-q")[0] == 0
    assert first.read_bytes() == second.read_bytes()
    header = first.read_bytes()[:10]
    assert header[3] == 0, "flags: no FNAME, no FCOMMENT, no FEXTRA"
    assert header[4:8] == b"\0\0\0\0", "mtime 0"
    assert gunzipped(first) == plain.read_bytes()


def test_a_gz_file_is_replaced_whole_and_a_failed_writer_leaves_the_previous_one(tmp_path: Path) -> None:
    target = tmp_path / "x.nt.gz"
    with replacing(target, gzipped=True) as out:
        out.write(b"<urn:a> <urn:b> <urn:c> .\n")
    previous = target.read_bytes()
    with pytest.raises(RuntimeError), replacing(target, gzipped=True) as out:
        out.write(b"<urn:half")
        raise RuntimeError("killed")
    assert target.read_bytes() == previous and [p.name for p in tmp_path.iterdir()] == ["x.nt.gz"]
    assert gunzipped(target) == b"<urn:a> <urn:b> <urn:c> .\n"


@pytest.mark.parametrize(
    "name, given, wrong",
    [
        ("x.ttl.gz", "nt", "the extension of '{path}' says turtle"),
        ("x.gz", None, "cannot tell an RDF format from the extension '(none)' under .gz"),
        ("x.txt.gz", None, "cannot tell an RDF format from the extension '.txt' under .gz"),
    ],
)
def test_a_format_the_name_contradicts_or_does_not_give_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, given: str | None, wrong: str
) -> None:
    target = tmp_path / name
    code, err = run(capsys, "export", EXAMPLES, "-o", target, *(["--format", given] if given else []))
    assert code == 2 and wrong.format(path=target) in err and "Traceback" not in err
    assert not target.exists()


def test_a_gz_name_with_no_format_under_it_takes_the_format_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "dump.gz"
    assert run(capsys, "export", EXAMPLES, "--format", "nt", "-o", target, "-q")[0] == 0
    assert len(Graph().parse(data=gunzipped(target), format="nt")) > 1000
    assert format_for(target, "nt") == "nt" and format_for(Path("x.NQ.GZ"), None) == "nquads"


def test_load_and_reason_and_ontology_compile_write_gz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "load", EXAMPLES, "-o", tmp_path / "l.trig.gz")[0] == 0
    assert run(capsys, "reason", EXAMPLES, "-o", tmp_path / "r.nt.gz", "-q")[0] == 0
    ontology = Path(__file__).parent.parent / "ontologies" / "mif-base.ontology.yaml"
    assert run(capsys, "ontology", "compile", ontology, "-o", tmp_path / "o.ttl.gz", "-q")[0] == 0
    trig = Dataset().parse(data=gunzipped(tmp_path / "l.trig.gz"), format="trig")
    assert len(list(trig.graphs())) > 17
    inferred = Graph().parse(data=gunzipped(tmp_path / "r.nt.gz"), format="nt")
    assert len(inferred) > 10
    assert len(Graph().parse(data=gunzipped(tmp_path / "o.ttl.gz"), format="turtle")) > 100


def test_a_report_to_a_gz_name_is_compressed_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", str(EXAMPLES), "--format", "json", "-o", str(tmp_path / "report.json.gz")])
    main(["validate", str(EXAMPLES), "--format", "json", "-o", str(tmp_path / "report.json")])
    assert gunzipped(tmp_path / "report.json.gz") == (tmp_path / "report.json").read_bytes()


def test_the_python_export_writes_gz(tmp_path: Path) -> None:
    bundle = load_bundle(EXAMPLES, progress=False)
    bundle.export(tmp_path / "api.ttl.gz")
    export(bundle, str(tmp_path / "api.ttl"))
    export(bundle, tmp_path / "api.nq.gz")
    assert gunzipped(tmp_path / "api.ttl.gz") == (tmp_path / "api.ttl").read_bytes()
    graphs = quads(gunzipped(tmp_path / "api.nq.gz"), "nquads")
    assert not any("_local" in name for name in graphs) and len(graphs) > 17


# -- reading ---------------------------------------------------------------------------------


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    return root


def compress(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data))
    return path


def test_import_reads_a_gz_file(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = load_bundle(bundle, progress=False).dataset.serialize(format="nquads")
    edited = text.replace('"Webhook Backlog Incident 2025-11"', '"Webhook Backlog (from gz)"')
    source = compress(tmp_path / "edit.nq.gz", edited.encode("utf-8"))
    code = main(["import", "--dry-run", str(bundle), str(source)])
    out, err = capsys.readouterr()
    assert code == 0 and "+title: Webhook Backlog (from gz)\n" in out and "would change 1 file(s)" in err


def test_validate_reads_gz_shapes_as_the_plain_file(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shapes = (
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix mif: <https://mif-spec.dev/ns/> .\n"
        "@prefix dc: <http://purl.org/dc/terms/> .\n"
        "<urn:test:LongTitle> a sh:NodeShape ; sh:targetSubjectsOf dc:title ;\n"
        "  sh:property [ sh:path dc:title ; sh:maxLength 20 ; sh:severity sh:Warning ] .\n"
    )
    plain = tmp_path / "shapes.ttl"
    plain.write_text(shapes)
    packed = compress(tmp_path / "shapes.ttl.gz", shapes.encode("utf-8"))
    reports = []
    for source in (plain, packed):
        main(["validate", str(bundle), "--shapes", str(source), "--format", "json"])
        reports.append(capsys.readouterr().out)
    assert reports[0] == reports[1] and "maxLength" in reports[0]


def test_convert_to_markdown_reads_a_gz_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "export", EXAMPLES, "-o", tmp_path / "all.nq", "-q")[0] == 0
    compress(tmp_path / "all.nq.gz", (tmp_path / "all.nq").read_bytes())
    for name in ("all.nq", "all.nq.gz"):
        assert run(capsys, "convert", "to-markdown", tmp_path / name, "-o", tmp_path / name.replace(".", "-"))[0] == 0
    left = {p.relative_to(tmp_path / "all-nq"): p.read_bytes() for p in (tmp_path / "all-nq").rglob("*.md")}
    right = {p.relative_to(tmp_path / "all-nq-gz"): p.read_bytes() for p in (tmp_path / "all-nq-gz").rglob("*.md")}
    assert left == right and len(left) > 10


@pytest.mark.parametrize(
    "data, said",
    [
        (b"<urn:a> <urn:b> <urn:c> .\n", "the name ends in .gz but the file is not gzip-compressed"),
        (
            gzip.compress(b"<urn:a> <urn:b> <urn:c> .\n" * 1000, mtime=0)[:60],
            "the gzip-compressed data is damaged or cut short",
        ),
    ],
    ids=["not-gzip", "cut-short"],  # the same names in every xdist worker
)
def test_a_broken_gz_file_is_a_clear_error(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, said: str
) -> None:
    source = tmp_path / "broken.nq.gz"
    source.write_bytes(data)
    for argv in (["import", "--dry-run", bundle, source], ["validate", bundle, "--shapes", source]):
        code, err = run(capsys, *argv)
        assert code == 2 and f"{source}: {said}" in err and "Traceback" not in err and "internal error" not in err
    with pytest.raises(MifRdfError, match=said), open_rdf(source) as handle:
        handle.read()


def test_a_gz_turtle_file_resolves_relative_iris_against_its_own_name(tmp_path: Path) -> None:
    source = compress(tmp_path / "r.ttl.gz", b'<#a> <urn:p> "x" .\n')
    with open_rdf(source) as handle:
        (subject, _, value), *_ = Graph().parse(handle, format="turtle")
    assert str(subject) == source.as_uri() + "#a" and value == Literal("x")
