"""Issue 37.5: the CLI keeps its loads in the user cache folder by default, and every command that loads
gives the same answer from the cache as from a fresh load."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from rdflib import Dataset, Graph

from conftest import EXAMPLES, assert_isomorphic
from mif_rdf.cli.main import main

QUERY = "SELECT ?path WHERE { ?m mif:path ?path } ORDER BY ?path"


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache folder of this test's own, and a copy of the examples to edit."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shutil.copytree(EXAMPLES, tmp_path / "bundle")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_suite_never_writes_into_the_users_cache_folder() -> None:
    assert Path(os.environ["XDG_CACHE_HOME"]).name.startswith("mif-rdf-test-cache-")


def test_a_second_query_reads_the_cache_with_default_options(home: Path, capsys) -> None:
    code, first, err = run(capsys, "query", home / "bundle", QUERY, "-v")
    assert code == 0 and "cache: cold, entry written" in err and str(home / "xdg" / "mif-rdf") in err
    code, second, err = run(capsys, "query", home / "bundle", QUERY, "-v")
    assert code == 0 and "cache: warm, the query database answers, nothing read again" in err and second == first
    (home / "bundle" / "semantic" / "extra.md").write_text(
        "---\nid: 0b1f8e2a-4c5d-4e6f-8a9b-0c1d2e3f4a99\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n---\nNew.\n",
        encoding="utf-8",
    )
    code, third, err = run(capsys, "query", home / "bundle", QUERY, "-v")
    assert "cache: warm, 1 file read again" in err and "semantic/extra.md" in third and third != first


def test_no_cache_keeps_nothing_and_says_nothing_of_a_cache(home: Path, capsys) -> None:
    code, out, err = run(capsys, "query", home / "bundle", QUERY, "--no-cache", "-v")
    assert code == 0 and "cache" not in err and not (home / "xdg").exists()
    code, out, err = run(capsys, "load", home / "bundle", "--no-cache", "--cache-dir", home / "c")
    assert code == 2 and "--no-cache and --cache-dir" in err


def test_an_unusable_default_cache_folder_means_a_fresh_load_and_a_note(home: Path, capsys) -> None:
    (home / "xdg").write_text("not a folder", encoding="utf-8")  # $XDG_CACHE_HOME/mif-rdf cannot be made
    code, out, err = run(capsys, "query", home / "bundle", QUERY)
    assert code == 0 and "semantic/retry-budget-policy.md" in out
    assert "note: the load cache was not used" in err and "--no-cache" in err
    code, out, err = run(capsys, "load", home / "bundle", "--cache")  # asked for by name: its failure is the error
    assert code == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["load", "--json"],
        ["validate", "--format", "json"],
        ["export", "--format", "trig"],
        ["export", "--format", "nquads", "--store", "memory", "--with-hashes"],
        ["query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"],
    ],
    ids=["load", "validate", "export-trig", "export-hashes", "query-count"],
)
def test_every_loading_command_answers_the_same_from_the_cache(home: Path, capsys, argv: list[str]) -> None:
    """Cold, warm and --no-cache give the same output (the cache entry never holds what a command added)."""
    command, *rest = argv
    outputs = []
    for extra in ([], [], ["--no-cache"]):
        code, out, _ = run(capsys, command, home / "bundle", *rest, *extra)
        outputs.append((code, out))
    assert outputs[0][1] and outputs[0][0] == outputs[1][0] == outputs[2][0]
    if command != "export":
        assert outputs[0] == outputs[1] == outputs[2]
        return
    fmt = rest[1]
    graphs = [_graphs(out, fmt) for _, out in outputs]
    assert graphs[0].keys() == graphs[1].keys() == graphs[2].keys() and len(graphs[0]) > 20
    for name in graphs[0]:
        assert_isomorphic(graphs[0][name], graphs[1][name], str(name))
        assert_isomorphic(graphs[0][name], graphs[2][name], str(name))


def _graphs(text: str, fmt: str) -> dict[str, Graph]:
    """Each named graph of an export (blank node labels differ from run to run: compared by isomorphism)."""
    dataset = Dataset()
    dataset.parse(data=text, format=fmt)
    return {str(g.identifier): g for g in dataset.graphs() if len(g)}


def test_a_folder_that_cannot_be_listed_loads_as_a_fresh_load_would(
    home: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its files would still open one by one: the cache must not keep them while a fresh load leaves them out."""
    folder = home / "bundle" / "episodic"
    assert run(capsys, "load", home / "bundle", "--json")[0] == 0
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if isinstance(path, (str, os.PathLike)) and Path(path).resolve() == folder.resolve():
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    cached = run(capsys, "load", home / "bundle", "--json")
    fresh = run(capsys, "load", home / "bundle", "--json", "--no-cache")
    assert cached[0] == fresh[0] == 1 and json.loads(cached[1]) == json.loads(fresh[1])
    assert json.loads(fresh[1])["by_type"].get("episodic", 0) == 0
