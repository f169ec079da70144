"""``mif-rdf serve`` as a server people leave running (issues 33, 36 and 39): bounded queries,
limits on slow and large requests, no cross-origin or rebinding reads, answers streamed and stopped
when their client leaves, a default graph that is a set, and no traceback whatever clients do.

The servers run as users run them (the console script), except where a limit
is lowered to keep the test short (the Python API, :func:`mif_rdf.serve.start`).
Expensive queries are cross products over the example bundle (about 1,300
triples): ``COUNT`` over three patterns is one engine step of seconds that
yields nothing until it ends; ``SELECT *`` over three patterns yields rows
without end.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rdflib import BNode, Graph
from rdflib.namespace import Namespace

from conftest import EXAMPLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.serve import ServerLimits, start, stop
from serve_process import ServeProcess, mixed_requests

VOID = Namespace("http://rdfs.org/ns/void#")
SMALL = "SELECT ?m WHERE { ?m <https://mif-spec.dev/ns/conceptType> ?t } LIMIT 3"
#: seconds of work in one engine step (about 27 million solutions counted), nothing yielded until it ends
COUNTING = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g <https://mif-spec.dev/ns/conceptType> ?i }"
#: minutes of work in one engine step
COUNTING_LONG = (
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g <https://mif-spec.dev/ns/conceptType> ?i "
    ". ?j <https://mif-spec.dev/ns/conceptType> ?k }"
)
#: rows without end (two billion), streamed as they come
ENDLESS = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def call(
    url: str,
    *,
    accept: str = "application/sparql-results+json",
    headers: dict[str, str] | None = None,
    method: str | None = None,
    timeout: float = 60,
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept, **(headers or {})}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def query_url(server_url: str, query: str) -> str:
    return server_url + "query?" + urllib.parse.urlencode({"query": query})


@pytest.fixture(scope="module")
def server():
    with ServeProcess(
        EXAMPLES, "--no-watch", "--allow-host", "proxy.example", "--cors", "http://localhost:3000"
    ) as running:
        yield running


# -- who may read (issue 33, item 3) -----------------------------------------------------------------
@pytest.mark.parametrize(
    "host, allowed",
    [
        (None, True),
        ("localhost", True),
        ("LOCALHOST:{port}", True),
        ("127.0.0.1:{port}", True),
        ("[::1]:{port}", True),
        ("127.0.0.2", True),
        ("proxy.example", True),
        ("proxy.example:8080", True),
        ("evil.example", False),
        ("evil.example:{port}", False),
        ("localhost.evil.example", False),
        ("10.0.0.1", False),
        ("192.168.1.20:{port}", False),
        ("proxy.example.evil", False),
        ("not a host<>", False),
    ],
)
def test_host_allow_list_guards_against_dns_rebinding(server: ServeProcess, host: str | None, allowed: bool) -> None:
    port = server.url.rstrip("/").rsplit(":", 1)[1]
    headers = {} if host is None else {"Host": host.format(port=port)}
    for url in (query_url(server.url, SMALL), server.url + "api/overview", server.url + "store?default", server.url):
        status, _, body = call(url, accept="*/*", headers=headers)
        if allowed:
            assert status == 200, (host, url, body[:200])
        else:
            assert status == 403 and b"--allow-host" in body and b"urn:mif:" not in body, (host, url)


@pytest.mark.parametrize(
    "origin, allowed",
    [
        ("http://evil.example", False),
        ("null", False),
        ("http://127.0.0.1:1", False),
        ("http://{host}.evil.example", False),
        ("http://{host}", True),
        ("https://{host}", True),
        ("http://localhost:3000", True),
    ],
)
def test_foreign_origins_get_no_data(server: ServeProcess, origin: str, allowed: bool) -> None:
    host = server.url.split("/")[2]
    origin = origin.format(host=host)
    for url, method in (
        (query_url(server.url, SMALL), "GET"),
        (server.url + "api/overview", "GET"),
        (server.url + "store?default", "HEAD"),
    ):
        status, headers, body = call(url, headers={"Origin": origin}, method=method, accept="*/*")
        if not allowed:
            assert status == 403 and b"urn:mif:" not in body and "access-control-allow-origin" not in headers, (
                origin,
                url,
            )
        else:
            assert status == 200, (origin, url)
            assert headers.get("access-control-allow-origin") == (origin if origin == "http://localhost:3000" else None)
            assert "Accept" in headers.get("vary", "") or "api/" in url or method == "HEAD" or url.endswith("/")


def test_cors_preflight_only_for_the_allowed_origin(server: ServeProcess) -> None:
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    status, headers, _ = call(
        server.url + "query", method="OPTIONS", headers={"Origin": "http://localhost:3000", **ask}
    )
    assert status == 204 and headers["access-control-allow-origin"] == "http://localhost:3000"
    assert (
        "POST" in headers["access-control-allow-methods"] and "Content-Type" in headers["access-control-allow-headers"]
    )
    status, headers, _ = call(server.url + "query", method="OPTIONS", headers={"Origin": "http://evil.example", **ask})
    assert status == 403 and "access-control-allow-origin" not in headers
    request = urllib.request.Request(
        server.url + "query",
        data=SMALL.encode(),
        method="POST",
        headers={"Origin": "http://localhost:3000", "Content-Type": "application/sparql-query"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
        assert len(json.loads(response.read())["results"]["bindings"]) == 3


# -- bounded queries (issue 33, item 2) -------------------------------------------------------------
def test_a_small_query_answers_within_a_second_while_three_expensive_ones_run() -> None:
    pool = ThreadPoolExecutor(3)
    with ServeProcess(EXAMPLES, "--no-watch", "--max-concurrent", "4", "--query-timeout", "20") as running:
        heavy = [pool.submit(call, query_url(running.url, COUNTING_LONG), timeout=30) for _ in range(3)]
        time.sleep(1.0)
        assert not any(f.done() for f in heavy), "the expensive queries must still be running"
        started = time.monotonic()
        status, _, body = call(query_url(running.url, SMALL))
        took = time.monotonic() - started
        assert status == 200 and len(json.loads(body)["results"]["bindings"]) == 3
        assert took < 1.0, f"the small query took {took:.2f} s"
        assert not any(f.done() for f in heavy), "the expensive queries must still be running"
        assert running.process is not None
        running.process.kill()  # not the subject here (a graceful stop gives them seconds to finish)
    pool.shutdown(wait=True)  # the server stopped: their answers were cut


def test_a_query_past_its_time_gets_503_with_the_reason_and_busy_gets_retry_after() -> None:
    with ServeProcess(EXAMPLES, "--no-watch", "--max-concurrent", "1", "--query-timeout", "1") as running:
        started = time.monotonic()
        status, _, body = call(query_url(running.url, COUNTING_LONG))
        assert status == 503 and b"--query-timeout" in body and time.monotonic() - started < 3
        # the engine cannot be interrupted inside its one step: its worker stays counted until it returns
        status, headers, body = call(query_url(running.url, SMALL))
        assert status == 503 and headers.get("retry-after") == "1" and b"busy" in body
        assert running.process is not None
        running.process.kill()  # the runaway would hold a graceful stop for its grace time


def test_a_query_that_yields_is_stopped_at_its_time() -> None:
    with ServeProcess(EXAMPLES, "--no-watch", "--max-concurrent", "1", "--query-timeout", "1") as running:
        started = time.monotonic()
        with pytest.raises(http.client.IncompleteRead):  # its answer is cut at the deadline ...
            call(query_url(running.url, ENDLESS), accept="text/csv")
        assert time.monotonic() - started < 3
        status, _, _ = call(query_url(running.url, SMALL))
        assert status == 200  # ... and its worker stopped with it


def test_a_client_that_hangs_up_stops_its_query() -> None:
    with ServeProcess(EXAMPLES, "--no-watch", "--max-concurrent", "1") as running:
        host, port = running.url.split("/")[2].split(":")
        for _ in range(3):
            with socket.create_connection((host, int(port)), timeout=10) as client:
                target = "/query?" + urllib.parse.urlencode({"query": ENDLESS})
                client.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/csv\r\n\r\n".encode())
                assert client.recv(65536).startswith(b"HTTP/1.1 200")
            started = time.monotonic()
            status, _, _ = call(query_url(running.url, SMALL))  # the only worker is free again
            assert status == 200 and time.monotonic() - started < 2.0
    assert not [line for line in running.stderr[1:] if line.strip()], running.stderr


def test_slow_and_oversized_requests_are_dropped() -> None:
    limits = ServerLimits(head_timeout=1.0, max_head=8192, max_body=1000)
    server, watcher = start(load_bundle(EXAMPLES, store="oxigraph"), port=0, watch=False, limits=limits)
    try:
        host, port = server.server_address
        with socket.create_connection(
            (host, port), timeout=10
        ) as slow:  # one byte every 0.2 s: dropped after the head deadline
            started = time.monotonic()
            closed = False
            for byte in b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
                try:
                    slow.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                slow.settimeout(0.2)
                try:
                    if slow.recv(1) == b"":
                        closed = True
                        break
                except TimeoutError:
                    pass
            assert closed and 0.9 < time.monotonic() - started < 3.0
        status, _, _ = call(server.url + "api/status", headers={"X-Big": "a" * 10000})
        assert status in (400, 431)
        request = urllib.request.Request(
            server.url + "query", data=b"x" * 2000, headers={"Content-Type": "application/sparql-query"}
        )
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("a body over the limit was taken")
        except urllib.error.HTTPError as error:
            assert error.code == 413
        assert call(server.url + "api/status")[0] == 200  # and the server goes on
    finally:
        stop(server, watcher)


# -- the default graph is a set (issue 36, item 5) -----------------------------------------------------
def test_the_default_graph_is_a_set_of_triples(tmp_path: Path) -> None:
    """Three memories that refer to one ontology: its triples sit in three memory graphs, and count once."""
    for name in ("one", "two", "three"):
        write_file(
            tmp_path,
            f"notes/{name}.md",
            memory_text(f"shared-{name}", 'title: Shared\nontology:\n  id: team-base\n  version: "2.0.0"\n'),
        )
    local = load_bundle(tmp_path)
    quads = list(local.dataset.quads((None, None, None, None)))
    triples = {q[:3] for q in quads}
    ontology = [q for q in quads if str(q[0]).endswith("/notes/team-base")]
    assert len({q[3] for q in ontology}) == 3 and len(ontology) == 3 * len({q[:3] for q in ontology})
    assert int(next(iter(local.dataset.query(COUNT)))[0]) == len(triples)  # the memory store: a set already
    with ServeProcess(tmp_path, "--no-watch") as running:
        status, _, body = call(query_url(running.url, COUNT))
        assert status == 200 and int(json.loads(body)["results"]["bindings"][0]["n"]["value"]) == len(triples)
        status, _, body = call(query_url(running.url, "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"))
        assert int(json.loads(body)["results"]["bindings"][0]["n"]["value"]) == len(
            quads
        )  # the graphs still hold their own copies
        description = Graph().parse(data=call(running.url + "query", accept="text/turtle")[2], format="turtle")
        assert [int(n) for n in description.objects(None, VOID.triples)] == [len(triples)]
        status, _, body = call(running.url + "store?default", accept="application/n-triples")
        assert len(Graph().parse(data=body, format="nt")) == len(triples)
        status, _, body = call(running.url + "store", accept="application/n-quads")
        assert len([line for line in body.decode().splitlines() if line.strip()]) == len(
            quads
        )  # the dataset: its named graphs only


# -- nothing crashes, nothing leaks (issue 36, item 5; issue 39, item 4) -------------------------------
def test_mixed_requests_with_406s_and_hang_ups_leave_no_traceback() -> None:
    """200 here; the browser suite (long runs) sends 1,000 and 50 clients x 100."""
    with ServeProcess(EXAMPLES, "--no-watch") as running:
        assert all(mixed_requests(running, 200, clients=8))
        running.stop_cleanly()


def test_compaction_rebuilds_both_stores_without_changing_what_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every publication compacts here (thresholds at zero): the served store must still equal a fresh load,
    its default graph the set of its triples, and a query made before a compaction reads its own snapshot."""
    import shutil

    import pyoxigraph as ox

    from mif_rdf.output.policy import export_policy
    from mif_rdf.serve import served as served_module

    monkeypatch.setattr(served_module, "COMPACT_MIN", 0)
    monkeypatch.setattr(served_module, "COMPACT_RATIO", 0.0)
    bundle = tmp_path / "examples"
    shutil.copytree(EXAMPLES, bundle)
    served = served_module.ServedBundle(load_bundle(bundle, store="oxigraph"))
    first_store = served.current().store
    before = served.read(lambda snap: snap.store.quads_for_pattern(None, None, None, None))[1]
    policy = bundle / "semantic/idempotency-policy.md"
    policy.write_text(
        policy.read_text(encoding="utf-8").replace("title: Idempotency Key Policy", "title: Compacted"),
        encoding="utf-8",
    )
    write_file(bundle, "new/one.md", memory_text("compaction-new", "title: New\n"))
    assert served.apply(["semantic/idempotency-policy.md", "new/one.md"])
    (bundle / "new/one.md").unlink()
    assert served.apply(["new/one.md"])
    assert len(list(before)) > 1000  # made before: still its own snapshot, whole
    fresh = load_bundle(bundle)
    expected = {
        (str(s), str(p), str(o), str(g))
        for s, p, o, g in export_policy(fresh).restrict(fresh).dataset.quads((None, None, None, None))
        if not isinstance(s, BNode) and not isinstance(o, BNode)
    }
    store = served.current().store
    assert store is not first_store  # rebuilt
    got = {
        (q.subject.value, q.predicate.value, q.object.value, q.graph_name.value)
        for q in store.quads_for_pattern(None, None, None, None)
        if q.graph_name != ox.DefaultGraph()
        and not isinstance(q.subject, ox.BlankNode)
        and not isinstance(q.object, ox.BlankNode)
    }
    assert got == expected
    union = {
        (q.subject, q.predicate, q.object)
        for q in store.quads_for_pattern(None, None, None, None)
        if q.graph_name != ox.DefaultGraph()
    }
    assert (
        set((q.subject, q.predicate, q.object) for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph()))
        == union
    )
    from mif_rdf.load.stores import oxigraph_store

    fresh_store = oxigraph_store(load_bundle(bundle, store="oxigraph").dataset)
    assert served.working is oxigraph_store(served.bundle.dataset) and len(served.working) == len(
        fresh_store
    )  # the working store, compacted too
