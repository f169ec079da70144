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


@pytest.mark.parametrize("order", [
    ("query", str(EXAMPLES), "--format", "csv", QUERY),
    ("query", "--format", "csv", str(EXAMPLES), QUERY),
    ("query", str(EXAMPLES), QUERY, "--format", "csv"),
    ("query", "--format", "csv", "--store", "oxigraph", str(EXAMPLES), QUERY),
])
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
