"""``mif-rdf serve`` as a SPARQL endpoint (issue 18, item 1), through the console script.

Every answer is checked against the bundle loaded locally (what may leave the
machine: no ``_local`` memory) with independent clients: rdflib's
``SPARQLStore``, mif-rdf's ``remote_dataset`` with every query helper, and
``curl`` in a subprocess with each media type, its output parsed back by rdflib.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef
from rdflib.namespace import Namespace
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.query import Result

from conftest import EXAMPLES, assert_isomorphic, comparable_graph
from mif_rdf import load_bundle
from mif_rdf.output.policy import export_policy
from mif_rdf.remote import remote_dataset
from oxigraph_server import OxigraphServer, oxigraph  # noqa: F401  (oxigraph: the server fixture)
from serve_process import ServeProcess
from test_helpers_stores import _calls, _rows

SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
PREFIXES = "PREFIX dc: <http://purl.org/dc/terms/>\nPREFIX mif: <https://mif-spec.dev/ns/>\n"
TITLES = PREFIXES + "SELECT ?memory ?title WHERE { ?memory dc:title ?title FILTER(isIRI(?memory)) } ORDER BY ?memory"
CONSTRUCT = (
    PREFIXES + "CONSTRUCT { ?memory dc:title ?title ; mif:supersedes ?old } WHERE { ?memory dc:title ?title OPTIONAL { "
    "?memory mif:supersedes ?old } }"
)
LOCAL_ID = "redis-idempotency-idea"  # examples/semantic/redis-idempotency-idea.md, namespace _local
CURL = shutil.which("curl")
MEDIA = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
}


@pytest.fixture(scope="module")
def server():
    with ServeProcess(EXAMPLES) as running:
        yield running


@pytest.fixture(scope="module")
def shared():
    """The examples as they may leave the machine: the oracle for everything served by default."""
    bundle = load_bundle(EXAMPLES)
    assert any(m.id.startswith(LOCAL_ID) or LOCAL_ID in m.relpath for m in bundle.memories.values())
    return export_policy(bundle).restrict(bundle)


def get(
    url: str, accept: str | None = None, data: bytes | None = None, method: str | None = None, ctype: str | None = None
) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, data=data, method=method)
    if accept:
        request.add_header("Accept", accept)
    if ctype:
        request.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


def curl(*args: str) -> subprocess.CompletedProcess[bytes]:
    assert CURL, "curl is needed for this test (apt-get install curl)"
    return subprocess.run([CURL, "--silent", "--show-error", *args], capture_output=True, timeout=60)


def local_rows(shared, query: str) -> set:
    return {tuple(str(v) for v in row) for row in shared.dataset.query(query)}


def test_rdflib_sparqlstore_reads_the_union(server: ServeProcess, shared) -> None:
    graph = Graph(store=SPARQLStore(server.query_url))
    rows = {tuple(str(v) for v in row) for row in graph.query(TITLES)}
    assert rows == local_rows(shared, TITLES) and len(rows) >= 10


def test_remote_dataset_and_every_helper_answer_as_the_local_bundle(server: ServeProcess, shared) -> None:
    remote = remote_dataset(server.query_url)  # probes: the default graph already is the union
    for name, call in _calls(shared).items():
        assert _rows(call(remote)) == _rows(call(shared.dataset)), name


@pytest.mark.parametrize(
    "accept, fmt",
    [
        ("application/sparql-results+json", "json"),
        ("application/sparql-results+xml", "xml"),
        ("text/csv", "csv"),
        ("text/tab-separated-values", "tsv"),
        ("application/json", "json"),
        ("text/csv;q=0.5, application/sparql-results+xml;q=0.9", "xml"),
    ],
)
def test_curl_select_in_every_results_format(server: ServeProcess, shared, accept: str, fmt: str) -> None:
    done = curl(
        "-H", f"Accept: {accept}", "--data-urlencode", f"query={TITLES}", "-w", "\n%{content_type}", server.query_url
    )
    assert done.returncode == 0, done.stderr
    body, _, ctype = done.stdout.rpartition(b"\n")
    assert ctype.decode().split(";")[0] == MEDIA[fmt]
    result = Result.parse(io.BytesIO(body), format=fmt)
    rows = {tuple(str(v) for v in row) for row in result}
    assert rows == local_rows(shared, TITLES)


@pytest.mark.parametrize(
    "accept, fmt",
    [
        ("text/turtle", "turtle"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
        ("application/ld+json", "json-ld"),
        ("text/n3", "n3"),
        ("application/n-quads", "nquads"),
        ("application/trig", "trig"),
    ],
)
def test_curl_construct_in_every_rdf_format(server: ServeProcess, shared, accept: str, fmt: str) -> None:
    done = curl(
        "-G",
        "-H",
        f"Accept: {accept}",
        "--data-urlencode",
        f"query={CONSTRUCT}",
        "-w",
        "\n%{content_type}",
        server.query_url,
    )
    assert done.returncode == 0, done.stderr
    body, _, ctype = done.stdout.rpartition(b"\n")
    assert ctype.decode().startswith(accept)
    parsed = Dataset() if fmt in ("nquads", "trig") else Graph()
    parsed.parse(data=body.decode("utf-8"), format=fmt)
    triples = (
        parsed.triples((None, None, None))
        if isinstance(parsed, Graph) and not isinstance(parsed, Dataset)
        else (q[:3] for q in parsed.quads())
    )
    assert_isomorphic(comparable_graph(triples), shared.dataset.query(CONSTRUCT).graph, accept)


def test_graph_store_reads_one_graph_the_default_graph_and_the_dataset(server: ServeProcess, shared) -> None:
    memory = sorted(shared.memories.values(), key=lambda m: m.relpath)[0]
    status, ctype, body = get(server.url + "store?" + urllib.parse.urlencode({"graph": memory.iri}), "text/turtle")
    assert status == 200 and ctype.startswith("text/turtle")
    assert_isomorphic(Graph().parse(data=body, format="turtle"), shared.graph(memory.id), memory.relpath)
    status, _, body = get(server.url + "store?default", "application/n-triples")
    assert status == 200
    assert_isomorphic(
        Graph().parse(data=body, format="nt"), {q[:3] for q in shared.dataset.quads()}, "?default (the union)"
    )
    status, ctype, body = get(server.url + "store", "application/n-quads")
    assert status == 200 and ctype.startswith("application/n-quads")
    served = Dataset()
    served.parse(data=body, format="nquads")
    names = {str(g.identifier) for g in served.graphs() if len(g)}
    assert names == {str(g.identifier) for g in shared.dataset.graphs() if len(g)}
    for name in names:
        assert_isomorphic(served.graph(URIRef(name)), shared.dataset.graph(URIRef(name)), name)


def test_service_description(server: ServeProcess) -> None:
    status, ctype, body = get(server.query_url, "text/turtle")
    assert status == 200 and ctype.startswith("text/turtle")
    description = Graph().parse(data=body, format="turtle")
    service = URIRef(server.query_url)
    assert (service, SD.endpoint, service) in description
    assert (service, SD.supportedLanguage, SD.SPARQL11Query) in description
    assert (service, SD.feature, SD.UnionDefaultGraph) in description
    assert len(set(description.objects(service, SD.resultFormat))) == 11
    port = server.url.rstrip("/").rsplit(":", 1)[1]
    done = curl(
        "-H", f"Host: localhost:{port}", "-H", "Accept: application/n-triples", server.query_url
    )  # named as the client named it
    named = URIRef(f"http://localhost:{port}/query")
    assert done.returncode == 0 and (named, SD.endpoint, named) in Graph().parse(data=done.stdout, format="nt")
    done = curl(
        "-H", "Host: not a host<>", "-w", "%{http_code}", "-o", "/dev/null", server.query_url
    )  # a Host no IRI can hold
    assert done.stdout == b"403"


def test_read_only_and_refusals(server: ServeProcess) -> None:
    assert get(server.url + "update", data=b"update=DROP+ALL", ctype="application/x-www-form-urlencoded")[0] == 403
    assert get(server.query_url, data=b"update=DROP+ALL", ctype="application/x-www-form-urlencoded")[0] == 403
    assert get(server.query_url, data=b"DROP ALL", ctype="application/sparql-update")[0] == 403
    status, _, body = get(server.query_url, data=b"CLEAR ALL", ctype="application/sparql-query")
    assert status == 403 and b"SPARQL Update" in body
    assert (
        get(server.url + "store?default", data=b"<a:b> <a:c> <a:d> .", method="PUT", ctype="application/n-triples")[0]
        == 405
    )
    assert get(server.url + "store?graph=urn:mif:x", method="DELETE")[0] == 405
    assert get(server.url + "store?graph=urn:mif:no-such-memory")[0] == 404
    assert get(server.query_url + "?" + urllib.parse.urlencode({"query": TITLES}), "image/png")[0] == 406
    status, _, body = get(server.query_url + "?" + urllib.parse.urlencode({"query": "SELECT ?x WHERE { ?x ?y }"}))
    assert status == 400 and b"syntax error" in body
    service = "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }"
    status, _, body = get(server.query_url + "?" + urllib.parse.urlencode({"query": service}))
    assert status == 400 and b"--allow-service" in body


def test_local_memories_are_not_served_by_default(server: ServeProcess) -> None:
    ask = (
        "ASK { ?m ?p ?o FILTER(CONTAINS(STR(?m), 'redis-idempotency-idea') || CONTAINS(STR(?o), "
        "'redis-idempotency-idea')) }"
    )
    status, _, body = get(
        server.query_url + "?" + urllib.parse.urlencode({"query": ask}), "application/sparql-results+json"
    )
    assert status == 200 and b'"boolean":false' in body
    status, _, body = get(server.url + "store", "application/n-quads")
    assert b"_local" not in body and b"redis-idempotency-idea" not in body


def test_include_local_serves_them(shared) -> None:
    local = load_bundle(EXAMPLES)
    with ServeProcess(EXAMPLES, "--include-local", "--no-watch") as running:
        status, _, body = get(running.url + "store", "application/n-quads")
    assert status == 200
    served = Dataset()
    served.parse(data=body, format="nquads")
    assert len(served) == len(local.dataset) > len(shared.dataset)


def test_allow_service_lets_a_query_reach_another_endpoint(oxigraph: OxigraphServer) -> None:  # noqa: F811
    put = urllib.request.Request(
        oxigraph.store_url + "?default",
        data=b'<urn:x:a> <urn:x:p> "from the other store" .',
        method="PUT",
        headers={"Content-Type": "application/n-triples"},
    )
    urllib.request.urlopen(put, timeout=30).read()
    query = f"SELECT ?o WHERE {{ SERVICE <{oxigraph.query_url}> {{ <urn:x:a> <urn:x:p> ?o }} }}"
    with ServeProcess(EXAMPLES, "--allow-service", "--no-watch") as running:
        status, _, body = get(running.query_url + "?" + urllib.parse.urlencode({"query": query}), "text/csv")
    assert status == 200 and body.decode().splitlines() == ["o", "from the other store"]


def test_another_bind_address_is_warned_about(tmp_path: Path) -> None:
    """192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes, then a one-line error."""
    done = subprocess.run(
        [*ServeProcess(EXAMPLES).command[:2], str(EXAMPLES), "--bind", "192.0.2.1", "--port", "0", "--no-watch"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "warning: serving on 192.0.2.1" in done.stderr and "Traceback" not in done.stderr


def test_ctrl_c_stops_cleanly_after_queries() -> None:
    """Ctrl-C ends the server with exit 0 and nothing on standard error but its start-up line (a pyoxigraph
    result freed by another thread than its own would print a RuntimeError here)."""
    import signal

    with ServeProcess(EXAMPLES, "--no-watch") as running:
        for accept in ("text/csv", "application/sparql-results+json"):
            assert get(running.query_url + "?" + urllib.parse.urlencode({"query": TITLES}), accept)[0] == 200
        assert get(running.query_url + "?" + urllib.parse.urlencode({"query": CONSTRUCT}), "text/turtle")[0] == 200
        assert running.process is not None
        running.process.send_signal(signal.SIGINT)
        assert running.process.wait(timeout=30) == 0
        time.sleep(0.2)  # the reader thread takes the last lines
    assert [line for line in running.stderr if line.strip()] == [running.stderr[0]], running.stderr
