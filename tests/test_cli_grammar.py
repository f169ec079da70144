"""The command line as users type it: options anywhere, repeatable options spelled one way (issue 20, section 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
QUERY = "SELECT ?m WHERE { ?m a mif:Concept } ORDER BY ?m LIMIT 3"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MIF_RDF, *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "order",
    [
        ("query", str(EXAMPLES), "--format", "csv", QUERY),
        ("query", "--format", "csv", str(EXAMPLES), QUERY),
        ("query", str(EXAMPLES), QUERY, "--format", "csv"),
        ("query", "--format", "csv", "--store", "oxigraph", str(EXAMPLES), QUERY),
    ],
)
def test_query_options_go_anywhere(order: tuple[str, ...]) -> None:
    done = run(*order)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "m" and len(lines) == 4 and all(line.startswith("urn:mif:") for line in lines[1:])
    assert "Traceback" not in done.stderr


def test_reason_ontology_does_not_swallow_the_bundle(tmp_path: Path) -> None:
    out = tmp_path / "inferred.ttl"
    done = run("reason", "--ontology", "mif-base", str(EXAMPLES), "--profile", "fast", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0


@pytest.mark.parametrize("command", ["reason", "validate"])
def test_ontology_is_one_repeatable_option(command: str) -> None:
    """Both commands take --ontology once per value; a second value is a second --ontology."""
    extra = ["--profile", "fast"] if command == "reason" else ["--level", "1"]
    done = run(command, "--ontology", "mif-base", "--ontology", "mif-base", str(EXAMPLES), *extra)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr and "required" not in done.stderr


def test_nested_commands_take_options_anywhere(tmp_path: Path) -> None:
    memory = EXAMPLES / "semantic" / "idempotency-policy.md"
    before = run("convert", "to-jsonld", "-o", str(tmp_path / "a.jsonld"), str(memory))
    after = run("convert", "to-jsonld", str(memory), "-o", str(tmp_path / "b.jsonld"))
    assert before.returncode == after.returncode == 0, before.stderr + after.stderr
    assert (tmp_path / "a.jsonld").read_bytes() == (tmp_path / "b.jsonld").read_bytes()


def test_mistakes_get_argparse_messages_not_tracebacks() -> None:
    for args in (("nope",), ("query",), ("convert",), ("query", str(EXAMPLES), "--format", "xml", QUERY)):
        done = run(*args)
        assert done.returncode == 2 and "usage:" in done.stderr and "Traceback" not in done.stderr, args


@pytest.mark.parametrize(
    "store, how", [((), "nquads, streamed"), (("--store", "memory"), "nquads"), (("--store", "oxigraph"), "nquads")]
)
def test_export_says_what_it_wrote_in_one_line_and_lists_withheld_memories_only_when_asked(
    tmp_path: Path, store: tuple[str, ...], how: str
) -> None:
    out = tmp_path / "examples.nq"
    done = run("export", str(EXAMPLES), "-o", str(out), *store)
    assert done.returncode == 0, done.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    graphs = {line.rsplit(" ", 2)[-2] for line in lines}
    summary = f"wrote {len(lines)} quads in {len(graphs)} graphs to {out} ({how}); 1 withheld"
    assert summary in done.stderr and "withheld semantic/" not in done.stderr
    verbose = run("export", str(EXAMPLES), "-o", str(out), "--verbose", *store)
    assert "withheld semantic/redis-idempotency-idea.md: namespace '_local/scratch'" in verbose.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("export", str(EXAMPLES), "--format", "nq"),
        ("reason", str(EXAMPLES)),
        ("ontology", "compile", "mif-base"),
    ],
)
def test_quiet_says_nothing_but_errors(command: tuple[str, ...]) -> None:
    """The chatter goes (warnings, notes, summaries on standard error); the output stays."""
    loud, quiet = run(*command), run(*command, "--quiet")
    assert loud.returncode == quiet.returncode == 0 and loud.stderr.strip()
    assert quiet.stderr == "" and len(quiet.stdout.splitlines()) == len(loud.stdout.splitlines()) > 0


def test_quiet_still_shows_errors(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nid: [broken\n---\nx\n", encoding="utf-8")
    done = run("export", str(tmp_path), "--quiet")
    assert done.returncode == 1 and "a.md" in done.stderr and "error" in done.stderr


def test_an_output_folder_that_does_not_exist_is_made_and_said(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "x.ttl"
    done = run("export", str(EXAMPLES), "-o", str(out))
    assert done.returncode == 0 and out.stat().st_size > 0
    assert f"created the folder {out.parent}" in done.stderr
    again = run("export", str(EXAMPLES), "-o", str(out))
    assert "created the folder" not in again.stderr


def test_validation_names_its_stages_to_whoever_listens(tmp_path: Path) -> None:
    from mif_rdf import load_bundle
    from mif_rdf.validation import validate

    heard: list[str] = []
    validate(load_bundle(EXAMPLES), level=1, on_stage=heard.append)  # level 1: no ontology rules
    assert heard == ["SHACL shapes", "bundle rules"]
    heard.clear()
    validate(load_bundle(EXAMPLES), level=1, ontologies=["mif-base"], on_stage=heard.append)
    assert heard == ["SHACL shapes", "ontology shapes", "bundle rules"]
    heard.clear()
    validate(load_bundle(EXAMPLES), on_stage=heard.append)  # the examples name mif-base: bound without a flag
    assert heard == ["SHACL shapes", "ontology shapes", "bundle rules"]
