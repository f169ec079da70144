"""Issue 37.5: a second ``mif-rdf query`` on an unchanged bundle is answered by the cache's query database,
with the results rdflib's memory store gives, and never from a database older than the bundle."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES
from mif_rdf.cli.main import main

SELECT = "SELECT ?created ?title WHERE { ?m dc:created ?created ; dc:title ?title } ORDER BY ?created ?title"
WARM = "the query database answers, nothing read again"


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shutil.copytree(EXAMPLES, tmp_path / "bundle")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[str, str]:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr()


@pytest.mark.parametrize(
    "query",
    [
        SELECT,
        "ASK { ?m mif:path ?p }",
        "CONSTRUCT { ?m dc:title ?t } WHERE { ?m dc:title ?t }",
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g",
    ],
)
def test_the_second_query_answers_from_the_query_database_as_the_memory_store_does(home: Path, capsys, query) -> None:
    bundle = home / "bundle"
    memory, _ = run(capsys, "query", bundle, query, "--store", "memory", "--no-cache", "--format", "csv")
    first, err = run(capsys, "query", bundle, query, "-v", "--format", "csv")
    assert "query database written" in err
    second, err = run(capsys, "query", bundle, query, "-v", "--format", "csv")
    assert WARM in err and str(home / "xdg" / "mif-rdf") in err
    assert rows(second) == rows(first) == rows(memory)


def rows(text: str) -> list[str]:
    """The result's rows in order, blank node labels left out (each load draws its own)."""
    return sorted(re.sub(r"_:\w+", "_:b", line) for line in text.splitlines())


def test_a_changed_memory_or_mif_file_is_never_answered_from_an_older_database(home: Path, capsys) -> None:
    bundle = home / "bundle"
    run(capsys, "query", bundle, SELECT)
    memory = bundle / "semantic" / "idempotency-policy.md"
    memory.write_text(memory.read_text("utf-8").replace("title: ", "title: Renamed ", 1), "utf-8")
    out, err = run(capsys, "query", bundle, SELECT, "-v")
    assert WARM not in err and "Renamed " in out
    out, err = run(capsys, "query", bundle, SELECT, "-v")
    assert WARM in err and "Renamed " in out
    (bundle / ".mif" / "namespaces").mkdir(parents=True, exist_ok=True)
    (bundle / ".mif" / "namespaces" / "extra.yaml").write_text("namespaces: []\n", "utf-8")
    _, err = run(capsys, "query", bundle, SELECT, "-v")
    assert WARM not in err  # agreements, namespace files and ontologies are not stamped by the load cache


def test_no_cache_keeps_no_query_database(home: Path, capsys) -> None:
    out, _ = run(capsys, "query", home / "bundle", SELECT, "--no-cache")
    assert out.count("\n") > 5 and not (home / "xdg").exists()


def test_a_query_that_only_rdflib_answers_runs_on_the_memory_store(home: Path, capsys) -> None:
    query = 'SELECT ?m WHERE { ?m mif:path ?p FILTER(mif:validAt(?m, "2026-03-01")) }'
    out, err = run(capsys, "query", home / "bundle", query, "-v")
    assert WARM not in err and "query database" not in err and out.count("\n") > 3
