"""Issue 37 item 7: a SPARQL syntax error points at the token, shows it, and says what was probably meant.

The oracle for "the token" is the query text itself: each case names the
token the person got wrong, and the test finds it in the text (its line and
column) independently of the code under test.  Both stores must give the
same message: the place is found once, whichever engine refused the query.
"""

from __future__ import annotations

import re
import urllib.parse
import urllib.request

import pytest
from rdflib import Graph

from conftest import EXAMPLES, REPO
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.spelling import closest, edit_distance
from mif_rdf.queries import QuerySyntaxError, run_query, run_update
from mif_rdf.queries.syntax import pointer
from serve_process import ServeProcess


@pytest.fixture(scope="module")
def stores():
    return {store: load_bundle(EXAMPLES, store=store, progress=False) for store in ("memory", "oxigraph")}


def where(query: str, token: str, nth: int = 1) -> tuple[int, int]:
    """Line and column (from 1) of the ``nth`` occurrence of ``token`` in ``query``: the oracle."""
    index = -1
    for _ in range(nth):
        index = query.index(token, index + 1)
    return query.count("\n", 0, index) + 1, index - (query.rfind("\n", 0, index) + 1) + 1


def assert_points_at(error: QuerySyntaxError, query: str, token: str, nth: int = 1) -> None:
    line, column = where(query, token, nth)
    assert (error.line, error.column) == (line, column), str(error)
    header, shown, carets = str(error).split("\n")
    assert header.startswith(f"query syntax error at line {line}, column {column}: ")
    assert shown == "  " + query.splitlines()[line - 1].replace("\t", " ")
    assert carets.strip() == "^" * len(token) and shown[carets.index("^") :].startswith(token), str(error)


CASES = [  # query, the token it should point at (its nth occurrence), what was meant (None: no guess)
    ("SELCT ?x WHERE { ?x ?p ?o }", "SELCT", 1, "SELECT"),
    ("SELECT ?x WHRE { ?x ?p ?o }", "WHRE", 1, "WHERE"),
    ("SELECT ?x WHERE { ?x ?p ?o OPTINAL { ?x ?q ?r } }", "OPTINAL", 1, "OPTIONAL"),
    ('SELECT ?x WHERE { ?x mif:tags "a" FILTR(?x) }', "FILTR", 1, "FILTER"),
    ("SELECT ?x WHERE { ?x ?p ?o } LIMT 3", "LIMT", 1, "LIMIT"),
    ("SELECT ?x WHERE { ?x ?p ?o } ORDR BY ?x", "ORDR", 1, "ORDER"),
    ("SELECT ?x WHERE { { ?x ?p ?o } UNIN { ?x ?q ?o } }", "UNIN", 1, "UNION"),
    ("SELECT ?x WHERE { ?x ?p ?o } GROUP BY ?x HAVNG(?x)", "HAVNG", 1, "HAVING"),
    ("SELECT ?x WHERE {\n\t?x ?p ?o\n\tSELCET (?x) }", "SELCET", 1, "SELECT"),  # a swap of two letters: one slip
    # inside a clause the enclosing grammar gives up on as a whole: the token, not the clause's first word
    ('SELECT ?x WHERE { ?x ?p ?o OPTIONAL { ?x ?q ?r FILTER(REGX(?r, "a")) } }', "REGX", 1, "REGEX"),
    ("SELECT ?x WHERE {\n  ?x ?p ?o .\n  FILTER(?x > )\n}", ">", 1, None),
    ("SELECT ?x WHERE { ?x ?p ?o . FILTER(?x = = 1) }", "=", 1, None),
    ("SELECT ?x WHERE {\n  ?x dc:title ?o\n  ?x mif:tags ?t }", "?x", 3, None),  # a missing '.'
    ("SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x ZORK", "ZORK", 1, None),  # no keyword near: no guess
    ("SELECT ?x WHERE {  # FILTR, ORDR: words of a comment\n  ?x ?p ?o # a note\n  ?y ?q ?z }", "?y", 1, None),
    # rdflib reads codepoint escapes first (each one character): the place is in the text as written
    ('SELECT ?x WHERE { ?x ?p "\\u00e9\\U0001F600" FILTR(?x) }', "FILTR", 1, "FILTER"),
]


@pytest.mark.parametrize("query, token, nth, meant", CASES)
def test_the_error_points_at_the_token_on_both_stores(stores, query: str, token: str, nth: int, meant) -> None:
    messages = set()
    for store in ("memory", "oxigraph"):
        with pytest.raises(QuerySyntaxError) as caught:
            run_query(stores[store].dataset, query)
        error = caught.value
        assert_points_at(error, query, token, nth)
        assert error.token == token and error.suggestion == meant
        header = str(error).split("\n")[0]
        assert header.endswith(f"; did you mean {meant}?") if meant else "did you mean" not in header
        assert "Expected" not in header and "SelectQuery" not in header  # the parser's wording stays inside
        messages.add(str(error))
    assert len(messages) == 1, messages


@pytest.mark.parametrize(
    "query, prefix, meant",
    [
        ("SELECT ?x WHERE { ?x dcc:title ?o }", "dcc:", "dc:"),
        ("PREFIX team: <urn:team/>\nSELECT ?x WHERE {\n  ?x tean:owner ?o }", "tean:", "team:"),  # declared
        ("SELECT ?x WHERE { ?x foaff:name ?o }", "foaff:", "foaf:"),  # well-known
        ("SELECT ?x WHERE { ?x dcterms:title ?o }", "dcterms:", "dc: (the same namespace, declared for every query)"),
        ("SELECT ?x WHERE { ?x dcterm:title ?o }", "dcterm:", "dc:"),  # near a well-known name that is not read
        ("SELECT ?x WHERE { ?x foo:name ?o }", "foo:", None),
    ],
)
def test_an_undeclared_prefix_is_shown_with_the_nearest_one(stores, query: str, prefix: str, meant) -> None:
    for store in ("memory", "oxigraph"):
        with pytest.raises(QuerySyntaxError) as caught:
            run_query(stores[store].dataset, query)
        assert_points_at(caught.value, query, prefix)
        assert f"prefix {prefix} is not declared" in str(caught.value) and caught.value.suggestion == meant


@pytest.mark.parametrize(
    "update, token, meant",
    [
        ("INSRT DATA { <urn:a> <urn:b> <urn:c> }", "INSRT", "INSERT"),
        ("DELETE { ?s ?p ?o } WHRE { ?s ?p ?o }", "WHRE", "WHERE"),
        ("INSERT DATA { <urn:a> <urn:b> <urn:c> } ;\nDELET DATA { <urn:a> <urn:b> <urn:c> }", "DELET", "DELETE"),
        ("INSERT DATA { <urn:a> dcc:b <urn:c> }", "dcc:", "dc:"),
    ],
)
def test_updates_point_at_the_token(update: str, token: str, meant: str) -> None:
    """rdflib's own update grammar says "expected end of text" at the first character for any broken operation."""
    with pytest.raises(QuerySyntaxError) as caught:
        run_update(Graph(), update)
    assert_points_at(caught.value, update, token)
    assert caught.value.suggestion == meant


def test_a_query_that_stops_short_says_which_bracket_is_missing(stores) -> None:
    for store in ("memory", "oxigraph"):
        with pytest.raises(QuerySyntaxError) as caught:
            run_query(stores[store].dataset, "SELECT ?x WHERE {\n  ?x ?p ?o   \n")
        error = caught.value
        assert (error.line, error.column) == (2, 11)  # just after the last token
        assert "ends before it is complete: a closing '}' is missing" in str(error)


def test_a_rule_of_the_whole_query_only_oxigraph_checks_is_said_without_a_caret(stores) -> None:
    """rdflib reads this query; Oxigraph refuses it by a rule of the query as a whole, named among its tokens."""
    with pytest.raises(QuerySyntaxError) as caught:
        run_query(stores["oxigraph"].dataset, "SELECT * WHERE { ?s ?p ?o } GROUP BY ?s")
    assert str(caught.value) == "query syntax error: SELECT * is not authorized with GROUP BY"


def test_a_long_line_is_cut_around_the_token() -> None:
    triples = " ".join(f"?x <urn:p{i}> ?o{i} ." for i in range(40))
    query = f"SELECT ?x WHERE {{ {triples} FILTR(?x) {triples} }}"
    with pytest.raises(QuerySyntaxError) as caught:
        run_query(Graph(), query)
    _, shown, carets = str(caught.value).split("\n")
    assert len(shown) < 110 and shown.startswith("  …") and shown.endswith("…")
    assert shown[carets.index("^") :].startswith("FILTR") and carets.strip() == "^^^^^"


def test_pointer_keeps_the_caret_under_the_token_with_tabs_and_at_the_line_end() -> None:
    assert pointer("SELECT\t?x", 1, 8, 2) == "\n  SELECT ?x\n         ^^"
    assert pointer("ASK {", 1, 6) == "\n  ASK {\n       ^"


def test_the_command_line_shows_the_token(capsys) -> None:
    query = 'SELECT ?x WHERE { ?x mif:tags "a" FILTR(?x) }'
    code = main(["query", str(EXAMPLES), query])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.splitlines() == [
        "mif-rdf: error: query syntax error at line 1, column 35: 'FILTR' is not a SPARQL keyword; "
        "did you mean FILTER?",
        "  " + query,
        "  " + " " * 34 + "^^^^^",
    ]
    code = main(["update", str(EXAMPLES), "--dry-run", "DELETE { ?s ?p ?o } WHRE { ?s ?p ?o }"])
    err = capsys.readouterr().err
    assert code == 2 and "column 21: 'WHRE' is not a SPARQL keyword; did you mean WHERE?" in err
    assert err.splitlines()[2] == "  " + " " * 20 + "^^^^"


def test_the_example_of_docs_queries_is_what_the_command_prints(capsys) -> None:
    shown = re.search(
        r"```text\n(mif-rdf: error: query syntax error.*?)```", (REPO / "docs" / "queries.md").read_text(), re.S
    )
    assert shown is not None
    assert main(["query", str(EXAMPLES), "SELECT ?m WHERE {\n  ?m dc:title ?t\n  OPTINAL { ?m mif:tags ?tag }\n}"]) == 2
    assert capsys.readouterr().err == shown.group(1)


def test_the_python_api_raises_it_with_the_parts(stores) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        stores["memory"].query("SELECT ?x WHERE { ?x ?p ?o } ORDR BY ?x")
    error = caught.value
    assert (error.line, error.column, error.token, error.suggestion) == (1, 30, "ORDR", "ORDER")
    assert error.reason == "'ORDR' is not a SPARQL keyword"


def test_serve_answers_400_with_the_token_shown() -> None:
    query = "SELECT ?x WHERE {\n  ?x dc:title ?t\n  OPTINAL { ?x mif:tags ?g } }"
    with ServeProcess(EXAMPLES) as server:
        url = server.query_url + "?" + urllib.parse.urlencode({"query": query})
        try:
            urllib.request.urlopen(url, timeout=60)
            raise AssertionError("a broken query was answered")
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read().decode("utf-8")
    assert status == 400
    assert "line 3, column 3: 'OPTINAL' is not a SPARQL keyword; did you mean OPTIONAL?" in body
    assert "\n    OPTINAL { ?x mif:tags ?g } }\n    ^^^^^^^" in body


# -- the one "did you mean" --------------------------------------------------------------------------------------


def test_one_measure_for_every_suggestion() -> None:
    assert edit_distance("SELCET", "SELECT") == 1 and edit_distance("kitten", "sitting") == 3
    assert closest("exprot", ["export", "import"]) == "export"  # a command
    assert closest("WHRE", ["WHERE", "HAVING"]) == "WHERE"  # a keyword
    assert closest("foo", ["geo", "mif"]) is None  # a short word two edits away is another word
    assert closest("incidnets", ["incidents", "sessions"]) == "incidents"  # an ontology name
    assert closest("same", ["same"]) is None and closest("Same", ["same"]) == "same"
