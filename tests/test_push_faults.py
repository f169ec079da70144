"""Faults on the way to a store: each has its one-line message and exit code; transient ones are retried.

A scripted stdlib HTTP server on a free loopback port plays the store, so a
test can answer 401, 503, a redirect or nothing at all exactly when it wants.
"""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import memory_text, write_file
from mif_rdf.cli.main import main
from mif_rdf.push import GraphStore, HttpClient, RetryPolicy, StoreUnreachable
from oxigraph_server import free_port

HANG, RESET = "hang", "reset"
Answer = tuple[int, dict[str, str], bytes] | str
MEMORY_ID = "44444444-4444-4444-8444-444444444444"


@dataclass
class Seen:
    method: str
    graph: str | None
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeStore:
    """Answers each request with ``script(method, graph)``; records what it was asked."""

    script: Callable[[str, str | None], Answer]
    seen: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""


@pytest.fixture
def fake_store() -> Iterator[Callable[[Callable[[str, str | None], Answer]], FakeStore]]:
    servers: list[tuple[ThreadingHTTPServer, threading.Thread, FakeStore]] = []

    def start(script: Callable[[str, str | None], Answer]) -> FakeStore:
        fake = FakeStore(script)

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                graph = parse_qs(urlsplit(self.path).query).get("graph", [None])[0]
                fake.seen.append(Seen(self.command, graph, dict(self.headers), body))
                answer = fake.script(self.command, graph)
                if answer == HANG:
                    fake.release.wait(5)  # bounded: teardown sets it at once
                    return
                if answer == RESET:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, headers, payload = answer  # type: ignore[misc]
                self.send_response(status)
                for key, value in {"Content-Length": str(len(payload)), **headers}.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        fake.url = f"http://127.0.0.1:{server.server_address[1]}/store"
        servers.append((server, thread, fake))
        return fake

    yield start
    for server, thread, fake in servers:
        fake.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A bundle without problems, so standard error holds nothing but the fault."""
    root = tmp_path / "tiny"
    write_file(root, ".mif/config.yaml", "bundle_id: tiny\n")  # graph names below: mif://tiny/#...
    write_file(root, "a.md", memory_text(MEMORY_ID, "title: A\n"))
    return root


def push(capsys, *argv: object) -> tuple[int, str, str]:
    code = main(["push", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mif-rdf: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def empty_store(method: str, graph: str | None) -> Answer:
    """A store that has no manifest yet and accepts every write."""
    return (404, {}, b"no such graph") if method == "GET" else (204, {}, b"")


def test_unreachable_store_exits_3(capsys, tiny: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/store"
    code, _, err = push(capsys, tiny, "--endpoint", url, "--retries", "0")
    assert code == 3
    one_line(err, "cannot reach the store at http://127.0.0.1:", "onnection refused", "(1 attempt)")


def test_refused_connections_are_retried_with_doubling_backoff() -> None:
    waits: list[float] = []
    client = HttpClient(timeout=2, retry=RetryPolicy(retries=3, backoff=0.5, sleep=waits.append))
    with pytest.raises(StoreUnreachable, match=r"\(4 attempts\)"):
        GraphStore(f"http://127.0.0.1:{free_port()}/store", client=client).get_graph("urn:g")
    assert waits == [0.5, 1.0, 2.0]


def test_a_silent_store_times_out_with_exit_4(capsys, tiny: Path, fake_store) -> None:
    fake = fake_store(lambda method, graph: HANG)
    started = time.monotonic()
    code, _, err = push(capsys, tiny, "--endpoint", fake.url, "--timeout", "0.3")
    assert code == 4
    one_line(err, "did not answer GET graph <mif://tiny/#sync-manifest> within 0.3 s", "--timeout")
    assert len(fake.seen) == 1  # a timeout is not retried
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_exit_5_and_basic_auth_is_sent(
    capsys, monkeypatch, tiny: Path, fake_store, status: int
) -> None:
    fake = fake_store(lambda method, graph: (status, {}, b"go away"))
    monkeypatch.setenv("MIF_RDF_PASSWORD", "s3cret")
    code, _, err = push(capsys, tiny, "--endpoint", fake.url, "--user", "bob")
    assert code == 5
    line = one_line(err, "the store refused GET graph", str(status), "check user 'bob'")
    assert "s3cret" not in line
    assert fake.seen[0].headers["Authorization"] == "Basic " + base64.b64encode(b"bob:s3cret").decode()
    code, _, err = push(capsys, tiny, "--endpoint", fake.url)
    assert code == 5 and "Authorization" not in fake.seen[-1].headers
    one_line(err, "it needs credentials: --user")


def test_a_bearer_token_comes_from_the_named_variable(capsys, monkeypatch, tiny: Path, fake_store) -> None:
    fake = fake_store(empty_store)
    monkeypatch.setenv("STORE_TOKEN", "tok-123")
    code, out, err = push(capsys, tiny, "--endpoint", fake.url, "--token-env", "STORE_TOKEN")
    assert code == 0, err
    assert "sent 3" in out  # a.md, links, layout
    assert {s.headers["Authorization"] for s in fake.seen} == {"Bearer tok-123"}


def test_a_rejected_request_exits_6_with_the_stores_reason(capsys, tiny: Path, fake_store) -> None:
    def script(method: str, graph: str | None) -> Answer:
        if graph and graph.startswith("urn:mif:"):
            return 400, {"Content-Type": "text/plain"}, b"Parser error at line 3\nmore detail"
        return empty_store(method, graph)

    fake = fake_store(script)
    code, out, err = push(capsys, tiny, "--endpoint", fake.url, "--verbose")
    assert code == 6
    err = "".join(
        line for line in err.splitlines(keepends=True) if not line.startswith("cache: ")
    )  # -v names the cache entry
    one_line(err, f"the store rejected PUT graph <urn:mif:{MEMORY_ID}>: 400 Bad Request: Parser error at line 3")
    assert "send      a.md: new" in out  # the plan was shown before anything was written
    manifest_puts = [s for s in fake.seen if s.method == "PUT" and s.graph == "mif://tiny/#sync-manifest"]
    assert len(manifest_puts) == 2  # both graphs pending before the batch; after the fault only the one in flight
    assert b"mif://tiny/#links" in manifest_puts[0].body and b"mif://tiny/#links" not in manifest_puts[1].body
    assert f"<urn:mif:{MEMORY_ID}>".encode() in manifest_puts[1].body and b"sync:hash" not in manifest_puts[1].body
    assert [s.graph for s in fake.seen if s.method == "PUT" and s.graph != manifest_puts[0].graph] == [
        f"urn:mif:{MEMORY_ID}"
    ]


def test_a_server_error_exits_7_and_is_not_retried(capsys, tiny: Path, fake_store) -> None:
    fake = fake_store(lambda method, graph: (500, {}, b"internal error"))
    code, _, err = push(capsys, tiny, "--endpoint", fake.url, "--retries", "3")
    assert code == 7
    one_line(err, "the store failed GET graph", "500 Internal Server Error: internal error")
    assert len(fake.seen) == 1


def test_busy_answers_are_retried_until_they_pass(fake_store) -> None:
    answers = iter([(503, {}, b"busy"), (502, {"Retry-After": "2"}, b"bad gateway"), (404, {}, b"")])
    fake = fake_store(lambda method, graph: next(answers))
    waits: list[float] = []
    store = GraphStore(fake.url, client=HttpClient(timeout=2, retry=RetryPolicy(retries=3, sleep=waits.append)))
    assert store.get_graph("urn:g") is None
    assert waits == [0.5, 2.0]  # doubling backoff, then the server's Retry-After
    assert len(fake.seen) == 3


def test_a_store_that_stays_busy_exits_7(capsys, tiny: Path, fake_store) -> None:
    fake = fake_store(lambda method, graph: (429, {"Retry-After": "0"}, b"slow down"))
    code, _, err = push(capsys, tiny, "--endpoint", fake.url, "--retries", "2")
    assert code == 7
    one_line(err, "the store kept failing GET graph", "429 Too Many Requests", "(3 attempts)")
    assert len(fake.seen) == 3


def test_a_dropped_connection_is_retried(fake_store) -> None:
    answers = iter([RESET, (204, {}, b"")])
    fake = fake_store(lambda method, graph: next(answers))
    store = GraphStore(fake.url, client=HttpClient(timeout=2, retry=RetryPolicy(retries=1, sleep=lambda _: None)))
    store.put_graph("urn:g", b"<urn:a> <urn:b> <urn:c> .\n")
    assert [s.method for s in fake.seen] == ["PUT", "PUT"]


def test_redirects_are_not_followed(capsys, tiny: Path, fake_store) -> None:
    elsewhere = f"http://127.0.0.1:{free_port()}/other"
    fake = fake_store(lambda method, graph: (307, {"Location": elsewhere}, b""))
    code, _, err = push(capsys, tiny, "--endpoint", fake.url)
    assert code == 6
    one_line(err, f"redirected GET graph <mif://tiny/#sync-manifest> to {elsewhere}")
    assert len(fake.seen) == 1


def test_an_unreadable_manifest_is_a_clear_error(capsys, tiny: Path, fake_store) -> None:
    fake = fake_store(lambda method, graph: (200, {"Content-Type": "text/turtle"}, b"this is not turtle"))
    code, _, err = push(capsys, tiny, "--endpoint", fake.url)
    assert code == 2
    one_line(err, "the manifest graph <mif://tiny/#sync-manifest> in the store is not valid text/turtle")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--user", "bob"], "needs a password: set MIF_RDF_PASSWORD"),
        (["--password", "x"], "--password needs --user"),
        (["--token-env", "NO_SUCH_VARIABLE_SET"], "NO_SUCH_VARIABLE_SET: that environment variable is not set"),
        (["--user", "bob", "--password", "x", "--token-env", "T"], "either --user or --token-env"),
        (["--retries", "-1"], "--retries must be 0 or more"),
        (["--timeout", "0"], "timeout must be positive"),
    ],
)
def test_bad_options_exit_2(capsys, monkeypatch, tiny: Path, argv: list[str], needle: str) -> None:
    monkeypatch.delenv("MIF_RDF_PASSWORD", raising=False)
    monkeypatch.delenv("NO_SUCH_VARIABLE_SET", raising=False)
    code, _, err = push(capsys, tiny, "--endpoint", f"http://127.0.0.1:{free_port()}/store", *argv)
    assert code == 2
    one_line(err, needle)


@pytest.mark.parametrize("url", ["ftp://example.org/store", "localhost:7878/store", "http:///store"])
def test_an_endpoint_must_be_an_http_url(capsys, tiny: Path, url: str) -> None:
    code, _, err = push(capsys, tiny, "--endpoint", url)
    assert code == 2
    one_line(err, "--endpoint must be an http:// or https:// URL")
