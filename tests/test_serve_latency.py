"""The short request path of ``mif-rdf serve`` (issue 33, item 6): what it skips, and that it skips nothing it must do.

A small answer goes to the client in one piece, with its length, its status
line and headers in the same write as its body; a query that cannot name
SERVICE never waits for rdflib's parser, while every query that can still
goes through the whole check.  The latency figures themselves live in
``benchmarks/bench_serve.py`` (docs/serve.md), never in a timed test.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES
from mif_rdf import load_bundle
from mif_rdf.load.stores import oxigraph_store
from mif_rdf.ontology import add_types_graph
from mif_rdf.serve import ServerLimits, negotiate, protocol, retyping, start, stop
from mif_rdf.serve.protocol import HttpError, check_safety
from mif_rdf.serve.served import ServedBundle
from mif_rdf.serve.server import BundleServer, _JoinedWrites
from mif_rdf.serve.stream import Job
from test_validation_ontology import typed_bundle

SMALL = "SELECT ?m WHERE { ?m <https://mif-spec.dev/ns/conceptType> ?t } LIMIT 3"
#: more than one 64 KiB piece of JSON: streamed, not sent whole
LARGE = "SELECT * WHERE { ?s ?p ?o }"


@pytest.fixture(scope="module")
def server() -> Iterator[BundleServer]:
    running, watcher = start(load_bundle(EXAMPLES, store="oxigraph"), port=0, watch=False)
    yield running
    stop(running, watcher)


def _get(server: BundleServer, query: str, method: str = "GET") -> http.client.HTTPResponse:
    host, port = server.server_address
    connection = http.client.HTTPConnection(str(host), int(port), timeout=30)
    connection.request(
        method,
        "/query?" + urllib.parse.urlencode({"query": query}),
        headers={"Accept": "application/sparql-results+json"},
    )
    return connection.getresponse()


def test_a_small_answer_goes_whole_with_its_length_a_large_one_streamed(server: BundleServer) -> None:
    small = _get(server, SMALL)
    body = small.read()
    assert small.status == 200 and small.getheader("Content-Length") == str(len(body))
    assert small.getheader("Transfer-Encoding") is None and small.getheader("Vary") == "Accept"
    assert len(json.loads(body)["results"]["bindings"]) == 3
    large = _get(server, LARGE)
    body = large.read()
    assert large.status == 200 and large.getheader("Transfer-Encoding") == "chunked"
    assert len(body) > 64 * 1024 and json.loads(body)["results"]["bindings"]


def test_a_head_request_gets_the_headers_and_no_length_it_cannot_know(server: BundleServer) -> None:
    host, port = server.server_address
    connection = http.client.HTTPConnection(str(host), int(port), timeout=30)
    target = "/query?" + urllib.parse.urlencode({"query": SMALL})
    connection.request("HEAD", target, headers={"Accept": "application/sparql-results+json"})
    answer = connection.getresponse()  # waits forever if the held head never went out
    assert answer.status == 200 and answer.read() == b""
    assert answer.getheader("Content-Type", "").startswith("application/sparql-results+json")
    assert answer.getheader("Content-Length") is None
    connection.request("GET", target, headers={"Accept": "application/sparql-results+json"})
    follow = connection.getresponse()  # the same connection: nothing of the HEAD answer was left behind
    assert follow.status == 200 and json.loads(follow.read())["results"]["bindings"]
    connection.close()


def test_status_line_and_headers_go_out_in_the_same_packet_as_a_small_body(server: BundleServer) -> None:
    """One ``recv`` after the request gets the whole answer: head and body were one write (``TCP_NODELAY``)."""
    host, port = server.server_address
    target = "/query?" + urllib.parse.urlencode({"query": SMALL})
    with socket.create_connection((str(host), int(port)), timeout=30) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nAccept: text/csv\r\n\r\n".encode())
        first = sock.recv(65536)
    head, _, body = first.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and body.startswith(b"m\r\n") and body.count(b"\r\n") == 4


class _Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> str:
        return f"info {name}"


def test_joined_writes_hold_a_head_until_its_body_and_never_a_continue() -> None:
    transport = _Transport()
    joined = _JoinedWrites(transport)
    joined.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]  # the client waits for it before its body
    joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    assert len(transport.writes) == 1
    joined.write(b"ok")
    assert transport.writes[1:] == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]
    joined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")  # a HEAD answer: no body follows
    joined.flush()
    assert transport.writes[2:] == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"]
    joined.write(b"HTTP/1.1 503 Service Unavailable\r\n\r\n")
    joined.close()
    assert transport.writes[3:] == [b"HTTP/1.1 503 Service Unavailable\r\n\r\n"] and transport.closed
    assert joined.get_extra_info("peername") == "info peername"


def test_only_a_query_that_can_name_service_is_parsed_by_rdflib(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []

    def full_check(query: str, *, allow_service: bool = False) -> None:
        parsed.append(query)

    monkeypatch.setattr(protocol, "check_query_safety", full_check)
    protocol._refusal.cache_clear()
    check_safety("SELECT * WHERE { ?s ?p ?o } # a comment", False)
    check_safety("SELECT * WHERE { ?s <urn:x:SERVICE> ?o }", True)  # allowed: nothing to find
    assert parsed == []
    mentions = [
        "SELECT * WHERE { SERVICE <http://127.0.0.1:1/> { ?s ?p ?o } }",
        "SELECT * WHERE { ?s <urn:x:serviceLevel> ?o }",
        "SELECT * WHERE { \\u0053ERVICE <http://127.0.0.1:1/> { ?s ?p ?o } }",
        "SELECT * WHERE { \\U00000073ervice <http://127.0.0.1:1/> { ?s ?p ?o } }",
    ]
    for query in mentions:
        check_safety(query, False)
    assert parsed == mentions
    protocol._refusal.cache_clear()


def test_the_text_checks_still_run_on_every_query() -> None:
    for query, word in [
        ("SELECT * WHERE " + "{" * 200 + "}" * 200, "deep"),
        ("SELECT * WHERE { ?s ?p ?o } # a\rSERVICE", "carriage return"),
        ("SELECT * WHERE { ?s ?p '\udc80' }", "Unicode"),
    ]:
        with pytest.raises(HttpError) as refused:
            check_safety(query, False)
        assert refused.value.status == HTTPStatus.BAD_REQUEST and word in refused.value.message


def test_an_update_sent_as_a_query_is_still_refused_as_read_only(server: BundleServer) -> None:
    for update in ("INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }", "CLEAR ALL"):
        answer = _get(server, update)
        assert answer.status == 403 and b"SPARQL Update" in answer.read()
    broken = _get(server, "SELECT ?x WHERE { ?x ?y }")
    assert broken.status == 400 and b"syntax error" in broken.read()


@pytest.mark.parametrize("offers", [negotiate.RESULTS, negotiate.GRAPH, negotiate.DATASET])
def test_a_remembered_accept_answer_is_the_one_computed(offers: negotiate.Offers) -> None:
    headers = [
        None,
        "",
        "*/*",
        "application/sparql-results+json",
        "text/csv;q=0.5, application/sparql-results+xml",
        "text/*;q=0.9, application/json;q=0.2",
        "text/turtle;q=0, application/n-triples",
        "application/n-quads;q=bad, application/trig",
        "image/png",
        "text/plain;q=0.1, " * 40 + "application/ld+json",  # too long to remember: computed every time
    ]
    for header in headers * 2:  # the second time from memory where remembered
        assert negotiate.negotiate(header, offers) == negotiate._negotiate(header, offers), header
    assert negotiate._negotiated.cache_info().maxsize == 256


def test_a_job_is_taken_once_by_the_worker_or_by_the_loop_giving_up() -> None:
    job = Job(asyncio.new_event_loop(), 1024)
    barrier = threading.Barrier(8)
    won: list[bool] = []

    def take() -> None:
        barrier.wait()
        won.append(job.claim())

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False] * 7 + [True] and not job.claim()


def test_requests_no_worker_takes_get_503_busy_and_are_skipped_once_a_worker_is_free() -> None:
    """The workers' queue is the bound: a full queue is refused at once, a request left waiting past
    ``queue_wait`` gets 503 with ``Retry-After``, and the worker skips it when it is free again."""
    limits = ServerLimits(max_concurrent=1, queue_wait=1.0, max_waiting=1, query_timeout=20)
    running, watcher = start(load_bundle(EXAMPLES, store="oxigraph"), port=0, watch=False, limits=limits)
    try:
        host, port = running.server_address
        pool = ThreadPoolExecutor(1)
        with socket.create_connection((str(host), int(port)), timeout=10) as holder:  # holds the only worker
            target = "/query?" + urllib.parse.urlencode({"query": "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }"})
            holder.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nAccept: text/csv\r\n\r\n".encode())
            assert holder.recv(65536).startswith(b"HTTP/1.1 200")  # and never read again: its worker waits
            started = time.monotonic()
            waiting = pool.submit(
                lambda: (lambda a: (a.status, a.getheader("Retry-After"), a.read()))(_get(running, SMALL))
            )
            time.sleep(0.3)
            refused = _get(running, SMALL)  # the queue holds one already
            assert refused.status == 503 and refused.getheader("Retry-After") == "1" and b"busy" in refused.read()
            assert time.monotonic() - started < 0.9
            status, retry, body = waiting.result(timeout=10)
            assert status == 503 and retry == "1" and b"busy" in body and time.monotonic() - started >= 1.0
        time.sleep(0.5)  # the holder left: its worker stops at its next piece, then passes the given-up job by
        answered = _get(running, SMALL)
        assert answered.status == 200 and len(json.loads(answered.read())["results"]["bindings"]) == 3
        pool.shutdown(wait=True)
    finally:
        stop(running, watcher)


# -- the edit path: only the changed memories are typed again -----------------------------------------
def _types_of(store: Any, name: Any) -> set[str]:
    return {str(q) for q in store.quads_for_pattern(None, None, None, name)}


def test_an_edit_types_only_its_memory_and_the_graph_equals_a_fresh_typing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = typed_bundle(tmp_path / "b")
    monkeypatch.delenv("MIF_RDF_ONTOLOGY_PATH", raising=False)
    bundle = load_bundle(root, store="oxigraph", progress=False)
    add_types_graph(bundle)
    served = ServedBundle(bundle)
    assert served.types.retype(served.working, []) == set()  # typed at load: no whole graph to write again
    asked: list[list[str] | None] = []
    real = retyping.placements
    monkeypatch.setattr(
        retyping,
        "placements",
        lambda b, memories=None: asked.append(None if memories is None else list(memories)) or real(b, memories),
    )
    edits = [
        ("m/asset.md", "_semantic/assets", "_episodic/inspections"),  # another class
        ("m/untyped.md", "_semantic/decisions", "_semantic/assets"),  # typed now
        ("m/prune.md", "_procedural/pruning", "_semantic/decisions"),  # untyped: its class goes out of use
        ("m/deep.md", None, None),  # deleted
    ]
    for relpath, old, new in edits:
        path = root / relpath
        if old is None:
            path.unlink()
        else:
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        assert served.apply([relpath])
        fresh = load_bundle(root, store="oxigraph", progress=False)
        add_types_graph(fresh)
        name = served.types.name
        expected = _types_of(oxigraph_store(fresh.dataset), name)
        assert expected and _types_of(served.current().store, name) == expected, relpath
        assert _types_of(served.working, name) == expected, relpath
    assert asked and all(a is not None and len(a) == 1 for a in asked), asked  # one memory each, never the bundle
    pruning = {q for q in _types_of(served.current().store, served.types.name) if "pruning-guide" in q}
    assert not pruning  # no memory has the class any more: its chain left with it


@pytest.mark.parametrize("service", ["SERVICE", "sErViCe", "\\u0053ERVICE", "\\U00000053ERVICE"])
def test_a_service_only_oxigraph_can_read_never_reaches_the_network(server: BundleServer, service: str) -> None:
    """LATERAL is Oxigraph's, not rdflib's: the query takes the whole check (the word is there) and is refused."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.5)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/sparql"
        query = f"SELECT * WHERE {{ ?s ?p ?o LATERAL {{ {service} <{url}> {{ ?s ?p ?o }} }} }}"
        answer = _get(server, query)
        assert answer.status == 400 and b"SERVICE" in answer.read()
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody called
    lateral = _get(server, "SELECT * WHERE { ?s ?p ?o LATERAL { BIND(1 AS ?x) } } LIMIT 1")
    assert lateral.status == 200 and len(json.loads(lateral.read())["results"]["bindings"]) == 1
