"""docs/queries.md stays runnable: its ten queries, its commands and its Python, on examples/."""

from __future__ import annotations

import contextlib
import io
import re
import shlex

import pytest

from conftest import EXAMPLES, REPO
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.queries import python_value, run_query

DOC = (REPO / "docs" / "queries.md").read_text(encoding="utf-8")


def _blocks(language: str, text: str = DOC) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)


def _section(title: str) -> str:
    start = DOC.index(f"## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end > 0 else None]


TEN = _blocks("sparql", _section("The ten queries a new user wants first"))


def test_there_are_ten() -> None:
    assert len(TEN) == 10


@pytest.fixture(scope="module")
def stores() -> dict:
    return {"memory": load_bundle(EXAMPLES), "oxigraph": load_bundle(EXAMPLES, store="Oxigraph")}


@pytest.mark.parametrize("number", range(1, len(TEN) + 1))
def test_each_of_the_ten_queries_returns_rows_on_both_stores(stores, number: int) -> None:
    query = TEN[number - 1]
    rows = {
        name: [tuple(python_value(v) for v in row) for row in run_query(b.dataset, query)] for name, b in stores.items()
    }
    assert rows["memory"], f"query {number} returned nothing"
    assert all(any(v is not None for v in row) for row in rows["memory"])
    assert sorted(rows["memory"], key=repr) == sorted(rows["oxigraph"], key=repr)


COMMANDS = [line for block in _blocks("sh") for line in block.splitlines() if line.startswith("mif-rdf query ")]


def test_the_commands_are_there() -> None:
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("line", COMMANDS)
def test_each_documented_command_runs(capsys, monkeypatch, line: str) -> None:
    monkeypatch.chdir(REPO)
    assert main(shlex.split(line)[1:]) == 0
    out, err = capsys.readouterr()
    assert out.strip() and out.strip() not in ("false", "(0 rows)")
    assert "error" not in err


@pytest.mark.parametrize("code", _blocks("python"))
def test_each_python_example_runs(monkeypatch, code: str) -> None:
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/queries.md", "exec"), {})  # noqa: S102 - running the documentation is the point
    assert "Idempotency Key Policy" in out.getvalue()


def test_the_readme_shows_the_same_ten_queries() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("### The ten queries a new user wants first")
    shown = _blocks("sparql", readme[start : readme.index("\n## ", start)])
    assert shown == TEN  # and TEN is run on both stores above
