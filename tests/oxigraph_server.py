"""A real Oxigraph server for the triple-store tests, and independent ways to read it back.

The ``oxigraph`` command comes from the ``oxigraph`` package of the test
extra; nothing is installed at run time.  Each server listens on a free
loopback port with its own data folder, is polled (bounded in count and
time) until it answers, and is stopped and waited for on teardown, so no
process outlives its test.

The read-back helpers use plain ``urllib``, SPARQL and rdflib, not
mif-rdf's client, so a test compares the store with the bundle independently
of the code under test; literals are compared by value, because Oxigraph
stores some in canonical form (``"1.0"^^xsd:decimal`` comes back as ``"1"``).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from rdflib import Graph

from conftest import assert_isomorphic
from mif_rdf import Bundle
from mif_rdf.output.policy import export_policy
from mif_rdf.push.manifest import graph_hash, manifest_iri

START_ATTEMPTS = 3  # a free port can be taken between finding and binding it
READY_DEADLINE_S = 15.0
POLL_INTERVAL_S = 0.02
STOP_WAIT_S = 10.0


def oxigraph_command() -> str:
    """The ``oxigraph`` executable next to this Python (the venv), else on PATH."""
    here = Path(sys.executable).parent / "oxigraph"
    found = str(here) if here.exists() else shutil.which("oxigraph")
    if not found:
        raise RuntimeError("the oxigraph server command is missing: pip install -e '.[test]' (package oxigraph)")
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OxigraphServer:
    """``oxigraph serve --location DIR --bind 127.0.0.1:PORT``, started and stopped on demand."""

    def __init__(self, location: Path) -> None:
        self.location = location
        self.log = location.parent / f"{location.name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def store_url(self) -> str:
        return self.url + "/store"

    @property
    def query_url(self) -> str:
        return self.url + "/query"

    @property
    def update_url(self) -> str:
        return self.url + "/update"

    def start(self) -> OxigraphServer:
        """Start on a new free port (the data folder is kept across restarts)."""
        assert self.process is None, "already running"
        self.location.mkdir(parents=True, exist_ok=True)
        for _ in range(START_ATTEMPTS):
            self.port = free_port()
            with open(self.log, "ab") as log:
                self.process = subprocess.Popen(
                    [oxigraph_command(), "serve", "--location", str(self.location), "--bind", f"127.0.0.1:{self.port}"],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                )
            if self._wait_ready():
                return self
            self.stop()
        raise RuntimeError(f"oxigraph did not start; its log:\n{self.log.read_text(errors='replace')[-2000:]}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + READY_DEADLINE_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.query_url + "?query=ASK%7B%7D", timeout=1) as answer:
                    if answer.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(POLL_INTERVAL_S)
        return False

    def stop(self) -> None:
        """Terminate and wait; kill if it does not go."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_WAIT_S)
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a crash or a power cut would end it, and wait for it to be gone."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(STOP_WAIT_S)
        self.process = None

    # -- independent read-back ---------------------------------------------------
    def select(self, query: str) -> list[dict[str, str]]:
        """Rows of a SELECT as {variable: value} (JSON results), through plain urllib."""
        request = urllib.request.Request(
            self.query_url,
            data=query.encode("utf-8"),
            headers={"Content-Type": "application/sparql-query", "Accept": "application/sparql-results+json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            bindings = json.loads(answer.read())["results"]["bindings"]
        return [{k: v["value"] for k, v in row.items()} for row in bindings]

    def graph_names(self) -> set[str]:
        return {row["g"] for row in self.select("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")}

    def graph(self, iri: str) -> Graph:
        """One named graph, read with the Graph Store Protocol."""
        url = f"{self.store_url}?graph={urllib.parse.quote(iri, safe='')}"
        request = urllib.request.Request(url, headers={"Accept": "application/n-triples"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return Graph().parse(data=answer.read(), format="nt")


@pytest.fixture
def oxigraph(tmp_path: Path) -> Iterator[OxigraphServer]:
    """A running Oxigraph server with an empty store of its own, stopped after the test."""
    server = OxigraphServer(tmp_path / "oxigraph-data").start()
    try:
        yield server
    finally:
        server.stop()


def expected_graphs(bundle: Bundle) -> dict[str, Graph]:
    """What a push must leave in a store: the graphs that may leave the bundle, as they may leave it."""
    policy = export_policy(bundle)
    graphs = {}
    for name in policy.graph_names(bundle.dataset):
        graph = Graph()
        for triple in policy.outgoing(bundle.dataset, name):
            graph.add(triple)
        graphs[str(name)] = graph
    return graphs


def stored_manifest(server: OxigraphServer, bundle: Bundle) -> dict[str, str | None]:
    """The bundle's manifest in the store, read with plain SPARQL: graph -> hash (None: pending)."""
    rows = server.select(
        f"SELECT ?g ?h WHERE {{ GRAPH <{manifest_iri(bundle.base_iri)}> {{ ?e <urn:mif-rdf:sync:graph> ?g "
        "OPTIONAL { ?e <urn:mif-rdf:sync:hash> ?h } } }"
    )
    return {row["g"]: row.get("h") for row in rows}


def assert_store_matches(server: OxigraphServer, bundle: Bundle) -> None:
    """The store holds exactly the bundle's outgoing graphs (equal by value, graph by graph) and a manifest of them."""
    expected = expected_graphs(bundle)
    assert server.graph_names() == set(expected) | {manifest_iri(bundle.base_iri)}
    for name, graph in expected.items():
        assert_isomorphic(graph, server.graph(name), name)
    assert stored_manifest(server, bundle) == {name: graph_hash(graph) for name, graph in expected.items()}
