"""Issue 39 item 3: a query cannot crash the process or reach the network.

Crash cases run in a subprocess (a segfault must not take pytest down) and
check the exit code and the one-line error; the network cases run a loopback
listener that must receive nothing, on both stores, through the API, the
CLI and ``serve``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import EXAMPLES
from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.limits import MAX_QUERY_BYTES, MAX_QUERY_DEPTH
from mif_rdf.queries import run_query, select
from mif_rdf.queries.sparql import check_query_bounds
from serve_process import ServeProcess

BRACES_2200 = "SELECT * WHERE " + "{" * 2200 + " ?s ?p ?o " + "}" * 2200
BRACES_100K = "SELECT * WHERE " + "{" * 100_000 + " ?s ?p ?o " + "}" * 100_000
PATTERNS_700K = "SELECT * WHERE { " + " ".join(f"?s <urn:p> ?o{i} ." for i in range(700_000)) + " }"

_CRASH_SCRIPT = """
import sys
from mif_rdf.bundle import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries import run_query, select
query = sys.stdin.read()
for store in ("memory", "Oxigraph"):
    bundle = load_bundle(sys.argv[1], store=store, progress=False)
    for run in (run_query, select):
        try:
            run(bundle, query)
        except MifRdfError as exc:
            print(store, run.__name__, exc)
        else:
            print(store, run.__name__, "ran")
print(len(run_query(bundle, "SELECT * WHERE { ?s ?p ?o } LIMIT 3")), "rows after")
"""


@pytest.mark.parametrize(
    "query, limit",
    [(BRACES_2200, "MAX_QUERY_DEPTH"), (BRACES_100K, "MAX_QUERY_DEPTH"), (PATTERNS_700K, "MAX_QUERY_BYTES")],
    ids=["2200-braces", "100000-braces", "700000-patterns"],
)
def test_a_hostile_query_is_refused_on_both_stores_and_the_process_lives(query: str, limit: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CRASH_SCRIPT, str(EXAMPLES)], input=query, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and lines[-1] == "3 rows after"
    assert all(limit in line for line in lines[:4]), lines


@pytest.mark.parametrize(
    "query",
    [
        BRACES_2200,
        "SELECT * WHERE { FILTER(" + "(" * 40 + "1" + ")" * 40 + ") }",
        "SELECT * WHERE { ?s ?p [ ?q " * 40 + "] }" * 40,
    ],
)
def test_the_cli_names_the_depth_limit_on_both_stores(query: str, capsys: pytest.CaptureFixture[str]) -> None:
    for store in ("memory", "oxigraph"):
        assert main(["query", str(EXAMPLES), "--store", store, query]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"more than {MAX_QUERY_DEPTH} deep" in err and "Traceback" not in err


def test_bounds_count_what_any_parser_could_see() -> None:
    check_query_bounds("SELECT * WHERE " + "{" * MAX_QUERY_DEPTH + "}" * MAX_QUERY_DEPTH)  # at the limit: fine
    check_query_bounds("SELECT * { " + "{ } " * 10_000 + "}")  # many siblings are not depth
    with pytest.raises(MifRdfError, match="deep"):  # brackets in strings and comments count too: no reading is trusted
        check_query_bounds('SELECT * { FILTER(?x = "' + "(" * (MAX_QUERY_DEPTH + 1) + '") }')
    with pytest.raises(MifRdfError, match="bytes long"):
        check_query_bounds("#" * (MAX_QUERY_BYTES + 1))
    with pytest.raises(MifRdfError, match="bytes long"):  # bytes, not characters
        check_query_bounds("é" * (MAX_QUERY_BYTES // 2 + 1))


# -- SERVICE never reaches the network -------------------------------------------------


class Listener:
    """A loopback TCP listener that records every connection it is offered."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture()
def listener():
    found = Listener()
    yield found
    found.close()


def spellings(port: int) -> list[str]:
    url = f"http://127.0.0.1:{port}/a"
    return [
        f"SELECT ?x WHERE {{ # \r SERVICE <{url}> {{ ?x ?y ?z }} \n}}",  # the issue's: Oxigraph ends the comment at \r
        f"SELECT ?x WHERE {{ # a comment\r SERVICE SILENT <{url}> {{ ?x ?y ?z }} \n}}",
        f"SELECT ?x WHERE {{ SERVICE <{url}> {{ ?x ?y ?z }} }}",
        f"select ?x where {{ service <{url}> {{ ?x ?y ?z }} }}",
        f"SELECT ?x WHERE {{ \\u0053ERVICE <{url}> {{ ?x ?y ?z }} }}",
        f"PREFIX ex: <http://127.0.0.1:{port}/> SELECT ?x WHERE {{ SERVICE ex:a {{ ?x ?y ?z }} }}",
        f"SELECT ?x WHERE {{ VALUES ?e {{ <{url}> }} SERVICE ?e {{ ?x ?y ?z }} }}",
        f"SELECT ?x WHERE {{ ?x ?y ?z FILTER EXISTS {{ SERVICE <{url}> {{ ?x ?y ?z }} }} }}",
        f"SELECT ?x WHERE {{ {{ SELECT ?x WHERE {{ SERVICE <{url}> {{ ?x ?y ?z }} }} }} }}",
        # rdflib cannot parse a triple term
        f"SELECT ?x WHERE {{ <<( ?x ?y ?z )>> ?p ?o . SERVICE <{url}> {{ ?x ?y ?z }} }}",
    ]


@pytest.fixture(scope="module")
def stores() -> dict:
    return {
        "memory": load_bundle(EXAMPLES, progress=False),
        "oxigraph": load_bundle(EXAMPLES, store="Oxigraph", progress=False),
    }


def test_no_spelling_of_service_reaches_the_network(
    stores: dict, listener: Listener, capsys: pytest.CaptureFixture[str]
) -> None:
    for query in spellings(listener.port):
        for name, bundle in stores.items():
            for run in (run_query, select):
                with pytest.raises(MifRdfError, match="SERVICE|carriage return"):
                    run(bundle, query)
            assert main(["query", str(EXAMPLES), "--store", name, query]) == 2
            assert "Traceback" not in capsys.readouterr().err
    assert listener.connections == 0


def test_allow_service_keeps_federation(stores: dict, listener: Listener) -> None:
    """Today's behaviour when asked for: Oxigraph calls the endpoint (which answers nothing useful here)."""
    query = f"SELECT ?x WHERE {{ SERVICE SILENT <http://127.0.0.1:{listener.port}/a> {{ ?x ?y ?z }} }}"
    run_query(stores["oxigraph"], query, allow_service=True)
    assert listener.connections >= 1


def test_queries_that_mention_service_as_data_still_run(stores: dict) -> None:
    for query in (
        'SELECT ?t WHERE { ?m dc:title ?t FILTER(CONTAINS(LCASE(?t), "service")) }',
        "SELECT ?service WHERE { ?service ?p ?o } LIMIT 1",
        "SELECT ?x WHERE { ?x <urn:mif:service> ?y }\r\n",
    ):
        for bundle in stores.values():
            run_query(bundle, query)


def test_serve_refuses_and_stays_up(listener: Listener) -> None:
    with ServeProcess(EXAMPLES, "--no-watch") as running:

        def ask(query: str, post: bool) -> int:
            data = urllib.parse.urlencode({"query": query}).encode()
            request = (
                urllib.request.Request(running.query_url, data=data)
                if post
                else urllib.request.Request(running.query_url + "?" + data.decode())
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    return answer.status
            except urllib.error.HTTPError as exc:
                return exc.code

        assert ask(BRACES_2200, post=False) == 400
        assert ask(BRACES_100K, post=True) in (400, 413)
        for query in spellings(listener.port)[:3]:
            assert ask(query, post=False) == 400 and ask(query, post=True) == 400
        assert ask("SELECT * WHERE { ?s ?p ?o } LIMIT 1", post=False) == 200
        assert running.process is not None and running.process.poll() is None
    assert listener.connections == 0
