"""Issue 17, item 8: both push paths on Virtuoso 7 (Debian's virtuoso-opensource), on loopback.

Virtuoso refuses blank nodes in ``INSERT DATA``; the Update path writes
``INSERT { } WHERE { }``.  Each protocol pushes an upstream bundle into a
fresh Virtuoso (first push), pushes again (nothing to send), then pushes
after a memory file is deleted (its graph goes).  The store is read back with
plain urllib through Virtuoso's own Graph Store endpoint, independently of
mif-rdf's client.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from rdflib import BNode, Graph, Literal
from upstream import UPSTREAM_BUNDLES

from conftest import _comparable
from mif_rdf import load_bundle
from mif_rdf.push.sync import push_bundle
from mif_rdf.remote.gsp import GraphStore
from oxigraph_server import free_port

READY_DEADLINE_S = 60.0
INI = """[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx

[Parameters]
ServerPort = 127.0.0.1:{sql}
DirsAllowed = ., {d}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000

[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerThreads = 5

[SPARQL]
ResultSetMaxRows = 1000000
"""


@pytest.fixture
def virtuoso(tmp_path: Path) -> Iterator[str]:
    """A fresh Virtuoso on free loopback ports, SPARQL Update and Graph Store writes allowed; its base URL."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    if not (server and isql):
        pytest.fail("virtuoso-t and isql-vt are missing: install Debian's virtuoso-opensource package")
    sql, http = free_port(), free_port()
    (tmp_path / "virtuoso.ini").write_text(INI.format(d=tmp_path, sql=sql, http=http), encoding="utf-8")
    with open(tmp_path / "out.log", "wb") as log:
        process = subprocess.Popen(
            [server, "+foreground", "+configfile", str(tmp_path / "virtuoso.ini")],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=tmp_path,
        )
    try:
        url = f"http://127.0.0.1:{http}"
        deadline = time.monotonic() + READY_DEADLINE_S
        while not _answers(url + "/sparql?query=ASK%7B%7D"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"virtuoso did not start: {(tmp_path / 'virtuoso.log').read_text(errors='replace')[-1500:]}"
                )
            time.sleep(0.2)
        grants = "GRANT SPARQL_UPDATE TO \"SPARQL\"; DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 7);"
        subprocess.run(
            [isql, f"127.0.0.1:{sql}", "dba", "dba", f"exec={grants}"], check=True, capture_output=True, timeout=60
        )
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return answer.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def stored(url: str, graph: str) -> Graph | None:
    """One graph as Virtuoso's Graph Store endpoint serves it (plain urllib), None when it has none."""
    request = urllib.request.Request(
        f"{url}/sparql-graph-crud?{urllib.parse.urlencode({'graph': graph})}", headers={"Accept": "text/turtle"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return Graph().parse(data=answer.read().decode("utf-8"), format="turtle")
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def shape(graph: Graph) -> Counter:
    """Triples with blank nodes blurred and literals compared by value.

    Virtuoso keeps values, not lexical forms (``"1.0"^^xsd:decimal`` comes
    back ``"1"``), gives an ill-typed ``"2026-01-24"^^xsd:dateTime`` a time, and
    respells durations (``P365D`` as ``P1Y``): those two are compared by
    datatype only (mif-rdf warns about ill-typed literals on export).
    """

    def term(t: object) -> object:
        if isinstance(t, BNode):
            return "_:"
        if isinstance(t, Literal) and (str(t.datatype).endswith("#duration") or t.ill_typed):
            return ("by datatype", str(t.datatype))
        return _comparable(t)

    return Counter(tuple(term(t) for t in triple) for triple in graph)


def assert_store_holds(url: str, bundle) -> None:
    for graph in bundle.dataset.graphs():
        if len(graph):
            found = stored(url, str(graph.identifier))
            assert found is not None, graph.identifier
            assert shape(found) == shape(graph), graph.identifier


@pytest.mark.parametrize("protocol", ["gsp", "update"])
def test_both_push_paths_work_on_virtuoso(virtuoso: str, tmp_path: Path, protocol: str) -> None:
    root = tmp_path / "bundle"
    shutil.copytree(UPSTREAM_BUNDLES["ai-memory-examples"], root)
    store = GraphStore(
        f"{virtuoso}/sparql-graph-crud", update_endpoint=f"{virtuoso}/sparql" if protocol == "update" else None
    )
    bundle = load_bundle(root)
    first = push_bundle(bundle, store)
    assert first.sent == len([g for g in bundle.dataset.graphs() if len(g)]) and first.deleted == 0
    assert_store_holds(virtuoso, bundle)
    assert push_bundle(load_bundle(root), store).sent == 0
    gone = sorted(bundle.memories.values(), key=lambda m: m.relpath)[0]
    (root / gone.relpath).unlink()
    after = load_bundle(root)
    third = push_bundle(after, store)
    assert third.deleted == 1 and stored(virtuoso, gone.iri) is None
    assert_store_holds(virtuoso, after)
