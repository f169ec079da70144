"""``mif-rdf serve`` as users run it: the console script in a subprocess, on a free port.

The server prints its address on standard error once it listens (``--port 0``
lets it pick a free port); :class:`ServeProcess` reads it from there, polls
until the endpoint answers (bounded in count and time), and stops the process
and waits for it on exit, so no server outlives its test.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
READY_DEADLINE_S = 60.0
URL = re.compile(r" at (http://\S+/) ")


class ServeProcess:
    """``mif-rdf serve BUNDLE --port 0 ...``; ``url`` is its base address once started."""

    def __init__(self, bundle: Path, *options: str) -> None:
        self.command = [MIF_RDF, "serve", str(bundle), "--port", "0", "--no-progress", *options]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.stderr: list[str] = []

    def __enter__(self) -> ServeProcess:
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        found = threading.Event()

        def read() -> None:
            assert self.process is not None and self.process.stderr is not None
            for line in self.process.stderr:
                self.stderr.append(line)
                match = URL.search(line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(READY_DEADLINE_S) or not self.url:
            self.stop()
            raise RuntimeError(f"mif-rdf serve did not start: {''.join(self.stderr)}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the address is printed once the socket listens; one request proves it
            try:
                urllib.request.urlopen(self.url + "api/status", timeout=5).read()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mif-rdf serve at {self.url} does not answer")

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def stop_cleanly(self) -> None:
        """SIGTERM, as a service manager stops it: exit 0, and nothing on standard error but the start-up line."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=60) == 0
        time.sleep(0.2)  # the reader thread takes the last lines
        assert [line for line in self.stderr if line.strip()] == [self.stderr[0]], self.stderr[:20]

    @property
    def query_url(self) -> str:
        return self.url + "query"


def mixed_requests(server: ServeProcess, count: int, clients: int) -> list[bool]:
    """``count`` requests from ``clients`` threads: answers, 406s (a CONSTRUCT asked for as SPARQL JSON results, as
    rdflib's SPARQLStore does), 400s, 404s, and one in ten clients that hang up early (mid-request, or after the
    first bytes of an endless answer).  Each item: whether the request got the status it should."""
    construct = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 50"
    endless = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    small = "SELECT ?m WHERE { ?m <https://mif-spec.dev/ns/conceptType> ?t } LIMIT 3"

    def url(query: str) -> str:
        return server.query_url + "?" + urllib.parse.urlencode({"query": query})

    kinds = [
        (url(construct), "application/sparql-results+json", 406),
        (url(small), "image/png", 406),
        (url(small), "text/csv", 200),
        (url(construct), "text/turtle", 200),
        (server.url + "store?default", "application/sparql-results+json", 406),
        (server.url + "store?graph=urn:mif:nothing", "text/turtle", 404),
        (server.url + "api/status", "application/json", 200),
        (url("SELECT ?x WHERE { ?x"), "text/csv", 400),
    ]
    host, port = server.url.split("/")[2].rsplit(":", 1)

    def hang_up(i: int) -> None:
        with socket.create_connection((host, int(port)), timeout=10) as client:
            target = "/query?" + urllib.parse.urlencode({"query": construct if i % 2 else endless})
            head = f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/turtle\r\n\r\n".encode()
            if i % 3 == 0:  # the first bytes of the answer, then gone
                client.sendall(head)
                client.recv(10)
            else:  # gone mid-request, or just after it
                client.sendall(head[: 40 + i % 300])

    def one(i: int) -> bool:
        if i % 10 == 9:
            hang_up(i)
            return True
        address, accept, expected = kinds[i % len(kinds)]
        request = urllib.request.Request(address, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                response.read()
                return response.status == expected
        except urllib.error.HTTPError as error:
            error.read()
            return error.code == expected or (error.code == 503 and error.headers.get("Retry-After") is not None)

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(one, range(count)))
