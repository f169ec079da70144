"""Issue 37.7: the query from standard input (``-``, ``--file -``) and ``--param NAME=VALUE`` bindings."""

from __future__ import annotations

import io
import json

import pytest

from conftest import EXAMPLES
from mif_rdf.cli.main import main

TITLES = "SELECT ?title WHERE { ?m mif:tags ?tag ; dc:title ?title } ORDER BY ?title"


def run(capsys, monkeypatch, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["query", str(EXAMPLES), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("how", [["-"], ["--file", "-"]], ids=["dash", "file-dash"])
def test_the_query_from_standard_input(capsys, monkeypatch, how: list[str]) -> None:
    code, out, _ = run(capsys, monkeypatch, *how, "--format", "json", stdin='ASK { ?m mif:tags "incident" }')
    assert code == 0 and json.loads(out)["boolean"] is True


def test_a_string_param_binds_a_variable(capsys, monkeypatch) -> None:
    code, out, _ = run(capsys, monkeypatch, TITLES, "--param", "tag=incident", "--format", "csv")
    bound = out.splitlines()[1:]
    code_2, out_2, _ = run(capsys, monkeypatch, TITLES.replace("?tag", '"incident"'), "--format", "csv")
    assert code == code_2 == 0 and bound == out_2.splitlines()[1:] and len(bound) == 2


@pytest.mark.parametrize(
    "value, datatype",
    [
        ("42", "http://www.w3.org/2001/XMLSchema#integer"),
        ("1.5", "http://www.w3.org/2001/XMLSchema#decimal"),
        ("true", "http://www.w3.org/2001/XMLSchema#boolean"),
        ('"42"', None),
        ("42 apples", None),
    ],
)
def test_a_param_is_typed_as_sparql_writes_it(capsys, monkeypatch, value: str, datatype: str | None) -> None:
    code, out, _ = run(
        capsys, monkeypatch, "SELECT ?v (DATATYPE(?v) AS ?t) WHERE {}", "-p", f"v={value}", "--format", "json"
    )
    (row,) = json.loads(out)["results"]["bindings"]
    assert code == 0
    assert row["t"]["value"] == (datatype or "http://www.w3.org/2001/XMLSchema#string")
    assert row["v"]["value"] == value.strip('"')


def test_a_param_iri_and_a_hostile_value(capsys, monkeypatch) -> None:
    code, out, _ = run(
        capsys,
        monkeypatch,
        "SELECT ?m ?v WHERE { ?m mif:path ?p }",
        "-p",
        "m=<urn:nowhere>",
        "-p",
        'v=x" } DELETE {',
        "--format",
        "json",
    )
    assert (
        code == 0 and json.loads(out)["results"]["bindings"] == []
    )  # no memory has that IRI; the value stayed a string
    code, out, _ = run(capsys, monkeypatch, "SELECT ?v WHERE {}", "-p", 'v=x" } DELETE {', "--format", "json")
    assert json.loads(out)["results"]["bindings"][0]["v"]["value"] == 'x" } DELETE {'


@pytest.mark.parametrize("param, said", [("novalue", "NAME=VALUE"), ("1x=2", "NAME=VALUE"), ("a=1", "twice")])
def test_a_malformed_param_is_a_clear_error(capsys, monkeypatch, param: str, said: str) -> None:
    extra = ["-p", "a=2"] if said == "twice" else []
    code, out, err = run(capsys, monkeypatch, "SELECT * WHERE {}", "-p", param, *extra)
    assert code == 2 and said in err and "Traceback" not in err


@pytest.mark.parametrize(
    "query, meant, store",
    [
        ('SELECT ?x WHERE { ?x mif:tags "a" FILTR(?x) }', "did you mean FILTER?", "memory"),
        ("SELEC ?x WHERE { ?x ?p ?o }", "did you mean SELECT?", "memory"),
        ("SELECT ?x WHERE { ?x dcc:title ?o }", "did you mean dc:?", "memory"),
        ("SELECT ?x WHERE { ?x dcc:title ?o }", "did you mean dc:?", "oxigraph"),
    ],
)
def test_a_syntax_error_suggests_the_keyword_or_prefix_meant(
    capsys, monkeypatch, query: str, meant: str, store: str
) -> None:
    """Issue 37.7: the closest SPARQL keyword or predeclared prefix (every case: tests/test_sparql_errors.py)."""
    code, _, err = run(capsys, monkeypatch, query, "--store", store)
    assert code == 2 and "query syntax error at line 1" in err and err.splitlines()[0].endswith(meant)


def test_no_guess_when_nothing_is_close(capsys, monkeypatch) -> None:
    code, _, err = run(capsys, monkeypatch, "SELECT ?x WHERE { ?x foo:bar ?o }")
    assert code == 2 and "prefix foo: is not declared" in err and "did you mean" not in err
