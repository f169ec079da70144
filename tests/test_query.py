"""Running SPARQL: predeclared prefixes, all query forms on both engines, result formats, syntax errors, the CLI."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.query import Result

from conftest import EXAMPLES, isomorphic
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.html import problems_html
from mif_rdf.queries import (
    QuerySyntaxError,
    Table,
    format_result,
    python_value,
    run_query,
    select,
    trusted,
)

PREFIXED = """SELECT ?memory ?title WHERE {
  ?memory a mif:Concept ; dc:title ?title ; mif:provenance ?p .
  OPTIONAL { ?p prov:wasDerivedFrom ?from } OPTIONAL { ?memory schema:name ?n }
  OPTIONAL { ?memory rdfs:label ?l } OPTIONAL { ?memory owl:sameAs ?same } OPTIONAL { ?memory skos:broader ?b }
  FILTER(DATATYPE(?title) = xsd:string || LANG(?title) = "")
} ORDER BY ?title"""


@pytest.fixture(scope="module")
def stores() -> dict:
    return {"memory": load_bundle(EXAMPLES), "oxigraph": load_bundle(EXAMPLES, store="Oxigraph")}


def _values(result) -> set:
    return {tuple(python_value(v) for v in row) for row in result}


def test_the_usual_prefixes_need_no_declaration(stores) -> None:
    rows = {name: _values(run_query(bundle.dataset, PREFIXED)) for name, bundle in stores.items()}
    assert rows["memory"] == rows["oxigraph"]
    assert len(rows["memory"]) == len(stores["memory"].memories)


def test_declared_prefixes_still_win(stores) -> None:
    query = "PREFIX mif: <urn:other:> SELECT ?s WHERE { ?s mif:supersedes ?o }"
    for bundle in stores.values():
        assert len(run_query(bundle.dataset, query)) == 0


def test_ask_construct_and_describe_on_both_engines(stores) -> None:
    graphs = {}
    for name, bundle in stores.items():
        dataset = bundle.dataset
        assert run_query(dataset, "ASK { ?a mif:supersedes ?b }").askAnswer is True
        assert run_query(dataset, "ASK { ?a mif:supersedes ?a }").askAnswer is False
        built = run_query(dataset, "CONSTRUCT { ?new mif:replaces ?old } WHERE { ?new mif:supersedes ?old }")
        graphs[name] = built.graph
        described = run_query(dataset, "DESCRIBE <urn:mif:entity:technology:redis>").graph
        assert (URIRef("urn:mif:entity:technology:redis"), URIRef("https://schema.org/name"), Literal("Redis")) in {
            (s, p, Literal(str(o)) if isinstance(o, Literal) else o) for s, p, o in described
        }
    assert isomorphic(graphs["memory"], graphs["oxigraph"]) and len(graphs["memory"]) == 1


def test_the_oxigraph_store_is_queried_by_oxigraph(stores, monkeypatch) -> None:
    def rdflib_engine(*args, **kwargs):
        raise AssertionError("rdflib's SPARQL engine was used")

    monkeypatch.setattr("rdflib.plugins.sparql.processor.evalQuery", rdflib_engine)
    assert len(trusted(stores["oxigraph"], "verified")) == 6
    assert len(run_query(stores["oxigraph"].dataset, "SELECT ?s WHERE { ?s mif:supersedes ?o }")) == 1
    with pytest.raises(AssertionError, match="rdflib's SPARQL engine"):
        run_query(stores["memory"].dataset, "SELECT ?s WHERE { ?s mif:supersedes ?o }")


def test_bindings_are_terms(stores) -> None:
    query = "SELECT ?memory ?level WHERE { ?memory mif:provenance ?p . ?p mif:trustLevel ?level }"
    level = URIRef("https://mif-spec.dev/ns/Uncertain")
    for bundle in stores.values():
        rows = list(run_query(bundle.dataset, query, {"level": level}))
        assert [str(r[0]) for r in rows] == ["urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"]


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
@pytest.mark.parametrize(
    ("query", "line", "column", "message"),
    [
        ("SELECT ?x WHERE { ?x ?p ?o } LIMT 3", 1, None, ""),
        ("SELECT ?x\nWHERE { ?x nope:p ?o }", 2, 12, "prefix nope: is not declared"),
        ("SELECT ?x WHERE {\n  ?x ?p ?o .\n  FILTER(?x = = 1)\n}", None, None, ""),
    ],
)
def test_syntax_errors_name_the_position(
    stores, store: str, query: str, line: int | None, column: int | None, message: str
) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        run_query(stores[store].dataset, query)
    error = caught.value
    assert error.line is not None and error.column is not None
    if line is not None:
        assert error.line == line
    else:  # engines point at the broken FILTER (line 3) or the token after it (line 4)
        assert error.line in (3, 4)
    if column is not None:
        assert error.column == column
    assert str(error).startswith(f"query syntax error at line {error.line}, column {error.column}: {message}")
    header, shown, carets = str(error).split("\n")  # issue 37.7: the query's line and a caret under the token
    assert len(header) < 300 and shown == "  " + query.splitlines()[error.line - 1] and carets.strip().startswith("^")


def test_an_empty_query_is_an_error(stores) -> None:
    with pytest.raises(MifRdfError, match="empty"):
        run_query(stores["memory"].dataset, "  \n")


# -- result formats ------------------------------------------------------------------------
SELECT = """SELECT ?memory ?level ?confidence ?title WHERE {
  ?memory mif:provenance ?p ; dc:title ?title . ?p mif:trustLevel ?level .
  OPTIONAL { ?p mif:confidence ?confidence FILTER(?confidence > 0.9) }
} ORDER BY ?memory"""


def test_csv_is_the_w3c_sparql_csv_format(stores) -> None:
    text = format_result(run_query(stores["memory"].dataset, SELECT), "csv")
    assert "\r\n" in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 17 and list(rows[0]) == ["memory", "level", "confidence", "title"]
    assert rows[0]["memory"].startswith("urn:mif:") and rows[0]["level"].startswith("https://mif-spec.dev/ns/")
    assert {r["confidence"] for r in rows} >= {"", "0.95"}


def test_json_is_the_w3c_sparql_json_format(stores) -> None:
    data = json.loads(format_result(run_query(stores["oxigraph"].dataset, SELECT), "json"))
    assert data["head"]["vars"] == ["memory", "level", "confidence", "title"]
    first = data["results"]["bindings"][0]
    assert first["memory"]["type"] == "uri" and first["level"]["type"] == "uri"
    assert first["title"] == {"type": "literal", "value": first["title"]["value"]}
    with_confidence = next(b for b in data["results"]["bindings"] if "confidence" in b)
    assert with_confidence["confidence"]["datatype"] == str(XSD.decimal)
    assert any("confidence" not in b for b in data["results"]["bindings"])  # unbound stays out
    text = format_result(run_query(stores["memory"].dataset, SELECT), "json")
    assert _values(Result.parse(io.StringIO(text), format="json")) == _values(
        run_query(stores["memory"].dataset, SELECT)
    )


def test_tsv_writes_terms_in_sparql_syntax(stores) -> None:
    lines = format_result(run_query(stores["memory"].dataset, SELECT), "tsv").splitlines()
    assert lines[0] == "?memory\t?level\t?confidence\t?title"
    cells = lines[1].split("\t")
    assert (
        cells[0].startswith("<urn:mif:")
        and cells[1].startswith("<https://mif-spec.dev/ns/")
        and cells[3].startswith('"')
    )
    assert len(lines) == 18


def test_table_is_aligned_and_compact(stores) -> None:
    text = format_result(run_query(stores["memory"].dataset, SELECT), "table")
    lines = text.splitlines()
    assert lines[0].split() == ["memory", "level", "confidence", "title"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert "mif:Verified" in text and "https://mif-spec.dev/ns/Verified" not in text
    assert lines[-1] == "(17 rows)"


def test_ask_formats(stores) -> None:
    result = run_query(stores["memory"].dataset, "ASK { ?a mif:conflicts-with ?b }")
    assert format_result(result, "table") == format_result(result, "csv") == "true\n"
    assert json.loads(format_result(result, "json")) == {"head": {}, "boolean": True}


def test_graph_results_in_every_format(stores) -> None:
    query = "CONSTRUCT { ?new mif:replaces ?old . ?new dc:title ?t } WHERE { ?new mif:supersedes ?old ; dc:title ?t }"
    result = run_query(stores["memory"].dataset, query)
    expected = result.graph
    turtle = format_result(result, "table")
    assert "@prefix mif:" in turtle and isomorphic(Graph().parse(data=turtle, format="turtle"), expected)
    assert isomorphic(Graph().parse(data=format_result(result, "json"), format="json-ld"), expected)
    rows = list(csv.reader(io.StringIO(format_result(result, "csv"))))
    assert rows[0] == ["subject", "predicate", "object"] and len(rows) == 3
    assert format_result(result, "tsv").splitlines()[0] == "?subject\t?predicate\t?object"


def test_unknown_format(stores) -> None:
    with pytest.raises(MifRdfError, match="unknown result format 'xml'"):
        format_result(run_query(stores["memory"].dataset, "ASK {}"), "xml")


# -- select: a SELECT as a Table ---------------------------------------------------------------
def test_select_gives_equal_tables_on_both_stores(stores) -> None:
    tables = {name: select(bundle.dataset, SELECT) for name, bundle in stores.items()}
    assert tables["memory"].columns == tables["oxigraph"].columns == ("memory", "level", "confidence", "title")
    assert len(tables["memory"]) == 17
    typed = {name: [[(k, type(v), v) for k, v in row.items()] for row in table] for name, table in tables.items()}
    assert typed["memory"] == typed["oxigraph"]  # same order (ORDER BY ?memory), values and types
    assert {type(r["confidence"]) for r in tables["oxigraph"]} == {float, type(None)}


def test_select_takes_bindings_columns_and_bundles(stores) -> None:
    query = "SELECT ?memory ?level WHERE { ?memory mif:provenance ?p . ?p mif:trustLevel ?level }"
    for bundle in stores.values():
        table = select(
            bundle, query, {"level": URIRef("https://mif-spec.dev/ns/Uncertain")}, columns=("nothing", "memory", "nada")
        )
        assert table.columns == ("nothing", "memory", "nada")
        assert table == [{"nothing": None, "memory": "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127", "nada": None}]


def test_select_on_one_named_graph_sees_only_it(stores) -> None:
    query = "SELECT ?s ?o WHERE { ?s mif:supersedes ?o }"
    counts = {
        name: (len(select(bundle.links, query)), len(select(bundle.graph(next(iter(bundle.memories))), query)))
        for name, bundle in stores.items()
    }
    assert counts["memory"] == counts["oxigraph"] == (1, 0)


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_select_refuses_what_is_not_a_select(stores, store: str) -> None:
    dataset = stores[store].dataset
    with pytest.raises(MifRdfError, match="a table needs a SELECT query, not ASK"):
        select(dataset, "ASK { ?s ?p ?o }")
    with pytest.raises(MifRdfError, match="SPARQL Update"):
        select(dataset, "INSERT DATA { <urn:a> <urn:b> <urn:c> }")
    with pytest.raises(QuerySyntaxError) as caught:
        select(dataset, "SELECT ?x\nWHERE { ?x nope:p ?o }")
    assert (caught.value.line, caught.value.column) == (2, 12)


# -- the command -------------------------------------------------------------------------------
def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_cli_query(capsys, store: str) -> None:
    code, out, err = _run(
        capsys,
        "query",
        str(EXAMPLES),
        "SELECT ?m WHERE { ?m mif:supersedes ?old }",
        "--format",
        "csv",
        "--store",
        store,
        "--no-progress",
    )
    assert (code, out, err) == (0, "m\r\nurn:mif:8b8080e5-d237-47de-8ba5-66af64a00dcf\r\n", "")


def test_cli_query_from_a_file(capsys, tmp_path) -> None:
    query = tmp_path / "q.rq"
    query.write_text(
        "# conflicting memories\nSELECT (COUNT(*) AS ?n) WHERE { ?a mif:conflicts-with ?b }\n", encoding="utf-8"
    )
    code, out, _ = _run(capsys, "query", str(EXAMPLES), "--file", str(query), "--format", "json")
    assert code == 0 and json.loads(out)["results"]["bindings"][0]["n"]["value"] == "1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["SELECT ?x WHERE { ?x ?p }"], "mif-rdf: error: query syntax error at line 1, column "),
        ([], "mif-rdf: error: no query: give it as an argument or with --file FILE"),
        (["ASK {}", "--file", "q.rq"], "mif-rdf: error: give the query either as an argument or with --file, not both"),
        (["--file", "/no/such/q.rq"], "mif-rdf: error: cannot read the query file '/no/such/q.rq'"),
        (["ASK {}", "--reason", "nonsense"], "mif-rdf: error: unknown reasoning profile 'nonsense'"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, "query", str(EXAMPLES), *argv)
    assert code == 2 and out == ""
    lines = 3 if "syntax error" in message else 1  # a syntax error shows the query's line and a caret
    assert err.startswith(message) and err.count("\n") == lines and "Traceback" not in err


def test_cli_reason_adds_inferences_before_querying(capsys) -> None:
    query = "SELECT ?a WHERE { ?a mif:conflicts-with ?b }"
    _, plain, _ = _run(capsys, "query", str(EXAMPLES), query, "--format", "csv")
    code, reasoned, err = _run(capsys, "query", str(EXAMPLES), query, "--format", "csv", "--reason", "fast")
    assert code == 0 and len(reasoned.splitlines()) == len(plain.splitlines()) + 1  # conflicts-with is symmetric
    assert err.startswith("reasoning (fast): ") and "inferred triples" in err


def test_cli_reason_without_the_reasoning_module(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mif_rdf.reasoning", None)
    code, _, err = _run(capsys, "query", str(EXAMPLES), "ASK {}", "--reason", "fast")
    assert (
        code == 2 and err == "mif-rdf: error: --reason needs mif_rdf.reasoning, which this installation does not have\n"
    )


# -- rich display ---------------------------------------------------------------------------------
def test_bundle_html_summary(stores) -> None:
    page = stores["memory"]._repr_html_()
    assert (
        "Bundle examples" in page
        and stores["memory"].base_iri in page
        and stores["memory"].base_iri.startswith("mif://examples-")
    )
    assert "17 (episodic 4, procedural 3, semantic 10)" in page
    assert "<td>named graphs</td><td>29</td>" in page  # 17 memories, 10 entities, the links and layout graphs
    assert "0 errors, 1 warning, 0 notes" in page
    assert "retired-rate-limit-policy.md" in page and ">warning</span>" in page
    assert "<script" not in page


def test_problems_html_shows_everything_a_person_needs_in_the_given_order() -> None:
    problems = [
        Problem("b.md", "warned", Severity.WARNING),
        Problem("a.md", "bad <type>", key="type", line=3, rule="base-type", value={"x": 1}, level=1),
        Problem("c.md", "okf rule", Severity.INFO, level=0),
    ]
    page = problems_html(problems, caption="Findings")
    assert page.index("b.md") < page.index("a.md") < page.index("c.md")
    assert "<caption>Findings</caption>" in page and "bad &lt;type&gt;" in page
    row = page[page.index("a.md") - 120 : page.index("bad &lt;type&gt;")]
    assert all(
        cell in row
        for cell in ("<td>3</td>", "<td>type</td>", "{&quot;x&quot;: 1}", "<td>base-type</td>", "<td>level 1</td>")
    )
    assert "<td>OKF</td>" in page and ">error</span>" in page and ">info</span>" in page
    assert problems_html([]) == "<p>No problems.</p>"


def test_table_html_escapes_and_truncates() -> None:
    table = Table(
        ("memory", "title"),
        [{"memory": f"urn:mif:{i}", "title": "<script>alert(1)</script>" if i == 0 else None} for i in range(130)],
    )
    page = table._repr_html_()
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert page.count("<tr>") == 101 and "... and 30 more rows" in page


# -- safety (issue 7): no update through a query, no network unless asked ---------------------------
def test_update_is_refused_with_a_clear_message(capsys) -> None:
    from mif_rdf.cli.main import main

    assert main(["query", str(EXAMPLES), "INSERT DATA { <urn:a> <urn:b> <urn:c> }"]) == 2
    assert "SPARQL Update" in capsys.readouterr().err


def test_update_runs_only_when_asked() -> None:
    from rdflib import URIRef

    from mif_rdf import load_bundle
    from mif_rdf.queries import run_update

    bundle = load_bundle(EXAMPLES)
    run_update(bundle.dataset, "INSERT DATA { GRAPH <urn:x:g> { <urn:a> <urn:b> <urn:c> } }")
    assert (URIRef("urn:a"), URIRef("urn:b"), URIRef("urn:c")) in bundle.dataset


def test_service_is_off_unless_allowed(capsys) -> None:
    import socket

    from mif_rdf.cli.main import main
    from mif_rdf.queries import check_query_safety

    query = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    calls = []
    original = socket.create_connection
    socket.create_connection = lambda *a, **k: calls.append(a) or original(*a, **k)  # type: ignore[assignment]
    try:
        assert main(["query", str(EXAMPLES), query]) == 2
    finally:
        socket.create_connection = original  # type: ignore[assignment]
    assert calls == [] and "SERVICE federation is off" in capsys.readouterr().err
    check_query_safety(query, allow_service=True)  # allowed when asked
