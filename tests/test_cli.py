"""The ``mif-rdf`` command: exit codes, summaries, exports, conversions; no tracebacks on bad input.

Most tests run the CLI in-process through :func:`mif_rdf.cli.main.main`; a few run
``python -m mif_rdf.cli`` as a real subprocess to prove what a user sees.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from pyld import jsonld
from rdflib import BNode, Dataset, Graph, URIRef

import mif_rdf
from conftest import EXAMPLES, REPO, assert_isomorphic, comparable_graph, memory_text, write_file
from mif_rdf import Severity
from mif_rdf.cli.main import main
from mif_rdf.core.context import document_loader
from mif_rdf.output.policy import export_policy
from mif_rdf.rdf.roundtrip import equivalent
from mif_rdf.source.parse import parse_memory

GOOD = "11111111-1111-4111-8111-111111111111"
QUAD_FORMATS = ("nquads", "trig", "json-ld")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process CLI run."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_exit(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """For argparse's own exits (--help, --version, usage errors)."""
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return info.value.code, out, err


def assert_one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mif-rdf: error: "), err
    assert "internal error" not in lines[0], err
    for word in words:
        assert word in lines[0], err


def body_of(path: Path) -> str:
    """The body of a markdown memory, split here without the library: after the second '---' line."""
    text = path.read_bytes().decode("utf-8")
    assert text.startswith("---\n"), path
    _, _, rest = text[4:].partition("\n---\n")
    return rest


def frontmatter_of(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text[4:].partition("\n---\n")[0])


def dataset_of(path: Path, fmt: str, base: str) -> Dataset | Graph:
    """What rdflib reads from an exported file: a Dataset for quad formats, else a Graph."""
    if fmt not in QUAD_FORMATS:
        return Graph().parse(path, format=fmt)
    ds = Dataset()
    if fmt == "json-ld":
        document = json.loads(path.read_text(encoding="utf-8"))
        nquads = jsonld.to_rdf(
            document, {"base": base, "format": "application/n-quads", "documentLoader": document_loader}
        )
        ds.parse(data=nquads, format="nquads")
    else:
        ds.parse(path, format=fmt)
    return ds


def blurred(triples) -> Counter:
    """Triples with every blank node replaced by one marker, counted: cheap and nearly as strict as isomorphism."""
    return Counter(tuple("_:" if isinstance(term, BNode) else term for term in t) for t in comparable_graph(triples))


@pytest.fixture
def error_bundle(tmp_path: Path) -> Path:
    root = tmp_path / "bad-bundle"
    write_file(root, "good.md", memory_text(GOOD, "title: Good\n"))
    write_file(root, "broken.md", "no frontmatter at all\n")
    return root


# -- load --------------------------------------------------------------------------
def test_load_summary_lists_memories_by_type_triples_and_the_broken_link(capsys, example_bundle) -> None:
    counts = example_bundle.counts()
    assert set(counts["by_type"]) == {"episodic", "procedural", "semantic"}
    code, out, err = run(capsys, "load", EXAMPLES)
    assert code == 0, err
    assert f"memories: {counts['memories']} (" in out
    for kind, n in counts["by_type"].items():
        assert f"{kind} {n}" in out
    assert f"triples: {counts['triples']}" in out
    assert f"link triples: {counts['links']}" in out
    assert "0 errors, 1 warning" in out
    broken = [line for line in out.splitlines() if "broken link" in line]
    assert len(broken) == 1
    assert "semantic/retry-budget-policy.md" in broken[0] and "warning" in broken[0]
    assert "relationships[2].target" in broken[0]


def test_load_json_has_the_same_counts(capsys, example_bundle) -> None:
    code, out, _ = run(capsys, "load", EXAMPLES, "--json")
    assert code == 0
    report = json.loads(out)
    counts = example_bundle.counts()
    for key in ("memories", "by_type", "entities", "links", "triples", "problems"):
        assert report[key] == counts[key], key
    assert report["base"] == example_bundle.base_iri
    [problem] = report["problem_list"]
    assert problem["severity"] == "warning" and problem["key"] == "relationships[2].target"
    assert problem["path"] == "semantic/retry-budget-policy.md"


def test_load_output_turtle_holds_the_union_graph(capsys, tmp_path: Path, example_bundle) -> None:
    target = tmp_path / "out.ttl"
    code, out, err = run(capsys, "load", EXAMPLES, "-o", target)
    assert code == 0
    assert f"to {target} (turtle); 1 withheld" in err and "wrote the union of " in err
    graph = Graph().parse(target, format="turtle")
    shared = export_policy(example_bundle).restrict(example_bundle).dataset  # _local memories never leave (spec 10.2)
    assert len(graph) == len(shared) > 0 and len(shared) < len(example_bundle.dataset)
    assert len(graph) == len(set(shared.triples((None, None, None))))


def test_load_output_format_follows_the_extension(capsys, tmp_path: Path, example_bundle) -> None:
    target = tmp_path / "out.nq"
    code, out, err = run(capsys, "load", EXAMPLES, "--no-progress", "-o", target)
    assert code == 0 and f"graphs to {target} (nquads)" in err
    ds = Dataset().parse(target, format="nquads")
    record = next(iter(example_bundle.memories.values()))
    assert len(ds.graph(URIRef(record.iri))) == len(example_bundle.graph(record.id))


# -- export ------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["turtle", "nt", "nquads", "trig", "json-ld"])
def test_export_every_format_parses(capsys, tmp_path: Path, fmt: str, example_bundle) -> None:
    example_bundle = export_policy(example_bundle).restrict(example_bundle)  # _local memories never leave (spec 10.2)
    target = tmp_path / f"bundle.{fmt}"
    code, out, err = run(capsys, "export", EXAMPLES, "--format", fmt, "-o", target)
    assert code == 0
    assert out == ""  # the data went to the file
    assert "broken link" in err  # problems go to stderr
    ds = dataset_of(target, fmt, example_bundle.base_iri)
    assert len(ds) > 0
    if fmt in QUAD_FORMATS:
        names = {g.identifier for g in ds.graphs() if len(g)}
        for record in example_bundle.memories.values():
            assert URIRef(record.iri) in names, record.relpath
            assert_isomorphic(ds.graph(URIRef(record.iri)), example_bundle.graph(record.id), f"{fmt} {record.relpath}")
        assert URIRef(example_bundle.links_graph_iri) in names
        assert len(names) == len(example_bundle.memories) + len(example_bundle.entities) + 2  # links, layout
    else:  # one graph: the union
        assert len(ds) == len(example_bundle.dataset)
        # every triple is there with blank nodes blurred, literals compared by value
        # (whole-graph isomorphism of the union takes seconds; the quad formats check it per graph)
        assert blurred(ds) == blurred(example_bundle.dataset.triples((None, None, None)))


def test_export_to_stdout(capsysbinary) -> None:
    code = main(["export", str(EXAMPLES), "--format", "nt"])
    out, _ = capsysbinary.readouterr()
    assert code == 0
    graph = Graph().parse(data=out.decode("utf-8"), format="nt")
    bundle = mif_rdf.load_bundle(EXAMPLES)
    assert len(graph) == len(export_policy(bundle).restrict(bundle).dataset)


# -- exit codes --------------------------------------------------------------------
def test_bundle_with_an_error_exits_1(capsys, error_bundle: Path, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "load", error_bundle)
    assert code == 1
    assert "1 error," in out and "broken.md:1: error:" in out
    code, _, err = run(capsys, "export", error_bundle, "-o", tmp_path / "x.ttl")
    assert code == 1 and "broken.md" in err
    assert len(Graph().parse(tmp_path / "x.ttl")) > 0  # still written
    code, out, _ = run(capsys, "load", error_bundle, "--json")
    assert code == 1 and json.loads(out)["problems"]["error"] == 1


def test_nonexistent_bundle_exits_2_with_one_line(capsys, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-bundle"
    assert_one_line_error(*run(capsys, "load", missing), "no-such-bundle")
    assert_one_line_error(*run(capsys, "export", missing))
    assert_one_line_error(*run(capsys, "convert", "roundtrip", missing))


def test_file_instead_of_folder_exits_2(capsys) -> None:
    assert_one_line_error(*run(capsys, "load", EXAMPLES / "index.md"), "index.md", "folder")


def test_bad_base_iri_exits_2(capsys) -> None:
    assert_one_line_error(*run(capsys, "load", EXAMPLES, "--base", "not an iri"), "not an iri", "IRI")
    assert_one_line_error(*run(capsys, "export", EXAMPLES, "--base", "not an iri"))


def test_convert_missing_file_exits_2(capsys, tmp_path: Path) -> None:
    assert_one_line_error(*run(capsys, "convert", "to-jsonld", tmp_path / "missing.md"), "missing.md")
    assert_one_line_error(*run(capsys, "convert", "to-markdown", tmp_path / "missing.jsonld"), "missing.jsonld")


def test_convert_folder_without_output_exits_2(capsys) -> None:
    assert_one_line_error(*run(capsys, "convert", "to-jsonld", EXAMPLES), "--output")


def test_output_path_that_is_a_folder_exits_2(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "load", EXAMPLES, "-o", tmp_path)
    said_first = (
        "withheld ",
        "ill-typed literal",
    )  # what export leaves out, and ill-typed literals it holds, said first
    rest = "\n".join(line for line in err.splitlines() if not any(s in line for s in said_first)) + "\n"
    assert_one_line_error(code, out, rest)
    assert "is a folder" in rest


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        [],
        ["load"],
        ["export", str(EXAMPLES), "--format", "yaml"],
        ["convert", "sideways", "x"],
        ["load", str(EXAMPLES), "--engine", "turbo"],
    ],
    ids=["unknown-command", "no-command", "no-bundle", "bad-format", "bad-direction", "bad-engine"],
)
def test_argparse_errors_exit_2(capsys, argv: list[str]) -> None:
    code, out, err = run_exit(capsys, *argv)
    assert code == 2
    assert "usage: mif-rdf" in err and "error:" in err
    assert "Traceback" not in out + err


# -- the real command --------------------------------------------------------------
def _subprocess(*argv: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def test_subprocess_bad_input_prints_no_traceback(tmp_path: Path) -> None:
    result = _subprocess("load", tmp_path / "nowhere")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("mif-rdf: error: ") and result.stderr.count("\n") == 1
    result = _subprocess("convert", "to-jsonld", tmp_path / "missing.md")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("mif-rdf: error: ")


def test_subprocess_load_examples(example_bundle) -> None:
    result = _subprocess("load", "examples", "--json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout)["triples"] == len(example_bundle.dataset)


# -- convert -----------------------------------------------------------------------
def test_convert_to_jsonld_one_file(capsys, example_bundle) -> None:
    path = EXAMPLES / "semantic" / "psp-error-codes.md"
    code, out, _ = run(capsys, "convert", "to-jsonld", path)
    assert code == 0
    document = json.loads(out)
    fm = frontmatter_of(path)
    assert document["@id"] == f"urn:mif:{fm['id']}"
    assert document["conceptType"] == fm["type"] == "semantic"
    assert document["content"] == body_of(path)
    assert document["@context"][-1] == {"@base": example_bundle.memories[fm["id"]].doc_iri}


def test_convert_to_jsonld_file_in_a_scratch_folder_keeps_crlf(capsys, tmp_path: Path) -> None:
    body = "Line one.\r\nLine two.\r\n"
    path = write_file(tmp_path, "note.md", memory_text(GOOD, "title: Note\n", body=body, kind="episodic"))
    code, out, _ = run(capsys, "convert", "to-jsonld", path)
    assert code == 0
    document = json.loads(out)
    assert (document["@id"], document["conceptType"], document["content"]) == (f"urn:mif:{GOOD}", "episodic", body)


def test_convert_round_trip_through_files_is_lossless(capsys, tmp_path: Path, example_bundle) -> None:
    jsonld_dir, md_dir = tmp_path / "jsonld", tmp_path / "md"
    code, _, err = run(capsys, "convert", "to-jsonld", EXAMPLES, "-o", jsonld_dir, "--include-local")
    assert code == 0, err
    written = sorted(p.relative_to(jsonld_dir).as_posix() for p in jsonld_dir.rglob("*.jsonld"))
    assert written == sorted(r.relpath[:-3] + ".jsonld" for r in example_bundle.memories.values())
    code, _, err = run(capsys, "convert", "to-markdown", jsonld_dir, "-o", md_dir)
    assert code == 0, err
    assert f"wrote {len(example_bundle.memories)} files" in err
    assert len(list(md_dir.rglob("*.md"))) == len(example_bundle.memories)
    for record in example_bundle.memories.values():
        original, converted = EXAMPLES / record.relpath, md_dir / record.relpath
        assert body_of(converted) == body_of(original) == record.body, record.relpath
        assert converted.read_bytes().endswith(original.read_bytes()[-len(record.body.encode()) :])
        parsed, problems = parse_memory(md_dir, record.relpath)
        assert parsed is not None and not [p for p in problems if p.severity == Severity.ERROR], problems
        fm = parsed.frontmatter
        assert equivalent(record.frontmatter, fm, doc_iri=record.doc_iri), record.relpath


def test_convert_to_markdown_with_relative_paths(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "convert", "to-jsonld", EXAMPLES, "-o", "jsonld", "--include-local")
    assert code == 0, err
    code, _, err = run(capsys, "convert", "to-markdown", "jsonld", "-o", "md")
    assert "internal error" not in err, err
    assert code == 0
    assert len(list((tmp_path / "md").rglob("*.md"))) == len(mif_rdf.load_bundle(EXAMPLES).memories)


def test_convert_to_markdown_rejects_a_non_projection(capsys, tmp_path: Path) -> None:
    write_file(tmp_path, "x.jsonld", "[1, 2]")
    code, out, err = run(capsys, "convert", "to-markdown", tmp_path / "x.jsonld")
    assert code == 1
    assert "x.jsonld" in err and "urn:mif:" in err and "Traceback" not in err


@pytest.mark.parametrize("via", ["nquads", "jsonld"])
def test_convert_roundtrip_examples_is_lossless(capsys, via: str, example_bundle) -> None:
    code, out, _ = run(capsys, "convert", "roundtrip", EXAMPLES, "--via", via)
    assert code == 0
    lines = out.strip().splitlines()
    assert "lossless" in lines[-1] and "LOSS" not in out
    assert lines[-1].startswith(f"{len(example_bundle.memories)} memories via {via}")
    assert len(lines) == len(example_bundle.memories) + 1


# -- help and version ------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        ([], ["load", "export", "convert", "--version", "Exit codes"]),
        (["load"], ["--base", "--engine", "--store", "--no-progress", "--output", "--format", "--json", "bundle"]),
        (["export"], ["--base", "--engine", "--store", "--format", "--output", "json-ld", "nquads"]),
        (["convert"], ["to-jsonld", "to-markdown", "roundtrip"]),
        (["convert", "to-jsonld"], ["--output", "--base", "path"]),
        (["convert", "to-markdown"], ["--output", "path"]),
        (["convert", "roundtrip"], ["--via", "--base", "nquads", "jsonld"]),
    ],
    ids=["top", "load", "export", "convert", "to-jsonld", "to-markdown", "roundtrip"],
)
def test_help_of_every_command(capsys, argv: list[str], mentions: list[str]) -> None:
    code, out, err = run_exit(capsys, *argv, "--help")
    assert code == 0 and err == ""
    assert out.startswith("usage: mif-rdf" + "".join(f" {a}" for a in argv))
    for word in mentions:
        assert word in out, word


def test_version(capsys) -> None:
    code, out, _ = run_exit(capsys, "--version")
    assert code == 0
    assert out.strip() == f"mif-rdf {mif_rdf.__version__}"
