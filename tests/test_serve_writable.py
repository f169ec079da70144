"""``serve --writable`` (issue 31 item 3): SPARQL Update on /update, written back to the files as ``mif-rdf update``
writes them; who may write (the token, the origin); refusals as 400; the served data then equals a fresh load."""

from __future__ import annotations

import json
import re
import shutil
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from rdflib import Dataset

from conftest import EXAMPLES, assert_isomorphic
from mif_rdf import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.serve import BundleServer, start, stop
from serve_process import ServeProcess
from test_serve_watch import BASE, assert_same, fresh, served

RETAG = (
    'DELETE { GRAPH ?m { ?m mif:tags "kafka" } } INSERT { GRAPH ?m { ?m mif:tags "streaming" } } '
    'WHERE { GRAPH ?m { ?m mif:tags "kafka" } }'
)
RETAGGED = [
    "episodic/incident-2025-11-webhook-backlog.md",
    "episodic/session-2026-01-23-outbox-design.md",
    "procedural/replay-stuck-outbox-events.md",
    "semantic/decisions/adopt-outbox-pattern.md",
]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def tags(url: str) -> set[str]:
    query = urllib.parse.quote("SELECT DISTINCT ?t WHERE { ?m mif:tags ?t }")
    request = urllib.request.Request(f"{url}query?query={query}", headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return {row["t"]["value"] for row in json.loads(answer.read())["results"]["bindings"]}


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    return folder


@pytest.fixture()
def writable(bundle: Path) -> Iterator[tuple[BundleServer, str]]:
    server, watcher = start(load_bundle(bundle, store="oxigraph", base_iri=BASE), writable=True)
    try:
        assert server.app.writer is not None
        yield server, server.app.writer.token
    finally:
        stop(server, watcher)


def test_an_update_writes_the_files_as_mif_rdf_update_does_and_is_served_at_once(
    writable: tuple[BundleServer, str], bundle: Path, tmp_path: Path
) -> None:
    server, token = writable
    status, text = post(
        server.url + "update",
        RETAG.encode(),
        {"Content-Type": "application/sparql-update", "Authorization": f"Bearer {token}"},
    )
    assert status == 200 and "changed 4 file(s)" in text, text
    assert "streaming" in tags(server.url) and "kafka" not in tags(server.url)  # read your writes: no waiting
    oracle = tmp_path / "oracle"  # the same update through the command line: the same bytes
    shutil.copytree(EXAMPLES, oracle)
    assert load_bundle(oracle).update(RETAG).changed == RETAGGED
    assert _files(bundle) == _files(oracle)
    assert_same(served(_Url(server.url)), fresh(bundle, BASE), "after an update")  # type: ignore[arg-type]
    # the working bundle (what later reloads and the page's findings start from) is a fresh load's too
    working = server.app.served.bundle.dataset
    reference = load_bundle(bundle, base_iri=BASE).dataset
    for path in RETAGGED:
        iri = load_bundle(bundle, base_iri=BASE).memory_by_path(path).iri
        assert_isomorphic(working.graph(iri), reference.graph(iri), path)


class _Url:
    """What test_serve_watch's helpers read of a server: its url."""

    def __init__(self, url: str) -> None:
        self.url = url


def test_a_form_post_and_the_token_header_work_too(writable: tuple[BundleServer, str], bundle: Path) -> None:
    server, token = writable
    body = urllib.parse.urlencode({"update": RETAG}).encode()
    status, text = post(
        server.url + "update", body, {"Content-Type": "application/x-www-form-urlencoded", "X-MIF-RDF-Token": token}
    )
    assert status == 200 and "changed 4 file(s)" in text, text
    assert "streaming" in (bundle / RETAGGED[0]).read_text()


def test_a_refused_update_is_a_400_naming_the_triple_and_changes_nothing(
    writable: tuple[BundleServer, str], bundle: Path
) -> None:
    server, token = writable
    before_files = _files(bundle)
    before = Dataset()
    for quad in server.app.served.bundle.dataset.quads((None, None, None, None)):
        before.add(quad)
    headers = {"Content-Type": "application/sparql-update", "Authorization": f"Bearer {token}"}
    links = f"{BASE}#links"
    status, text = post(
        server.url + "update",
        f"INSERT DATA {{ GRAPH <{links}> {{ <urn:mif:x> <urn:p> <urn:mif:y> }} }} ; {RETAG}".encode(),
        headers,
    )
    assert status == 400 and "the links graph is derived" in text and "no file written" in text, text
    status, text = post(server.url + "update", b"INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> ", headers)
    assert status == 400 and "syntax" in text.lower(), text
    status, text = post(server.url + "update", b"LOAD <http://example.org/x>", headers)
    assert status == 400 and "LOAD is refused" in text, text
    assert _files(bundle) == before_files
    assert "kafka" in tags(server.url)
    after = server.app.served.bundle.dataset  # the working bundle is put back: nothing of the refused update stays
    assert set(after.quads((None, None, None, None))) == set(before.quads((None, None, None, None)))


def test_only_the_token_holder_on_the_servers_own_origin_may_write(
    writable: tuple[BundleServer, str], bundle: Path
) -> None:
    server, token = writable
    before = _files(bundle)
    sparql = {"Content-Type": "application/sparql-update"}
    assert post(server.url + "update", RETAG.encode(), sparql)[0] == 401
    assert post(server.url + "update", RETAG.encode(), {**sparql, "Authorization": "Bearer not-the-token"})[0] == 401
    assert post(server.url + "update", RETAG.encode(), {**sparql, "X-MIF-RDF-Token": token[:-1]})[0] == 401
    foreign = {**sparql, "Authorization": f"Bearer {token}", "Origin": "http://evil.example"}
    assert post(server.url + "update", RETAG.encode(), foreign)[0] == 403
    rebinding = {**sparql, "Authorization": f"Bearer {token}", "Host": "evil.example"}
    assert post(server.url + "update", RETAG.encode(), rebinding)[0] == 403
    other = {"Content-Type": "text/plain", "Authorization": f"Bearer {token}"}
    assert post(server.url + "update", RETAG.encode(), other)[0] == 415
    assert _files(bundle) == before


def test_a_cors_origin_may_read_but_not_write(bundle: Path) -> None:
    server, watcher = start(load_bundle(bundle, store="oxigraph"), writable=True, cors=["http://localhost:3000"])
    try:
        assert server.app.writer is not None
        headers = {
            "Content-Type": "application/sparql-update",
            "Authorization": f"Bearer {server.app.writer.token}",
            "Origin": "http://localhost:3000",
        }
        status, text = post(server.url + "update", RETAG.encode(), headers)
        assert status == 403 and "another origin" in text
        preflight = urllib.request.Request(
            server.url + "update",
            method="OPTIONS",
            headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"},
        )
        with urllib.request.urlopen(preflight, timeout=10) as answer:  # a browser may never send the token across
            allowed = answer.headers.get("Access-Control-Allow-Headers", "").lower()
        assert "authorization" not in allowed and "x-mif-rdf-token" not in allowed
    finally:
        stop(server, watcher)


def test_without_writable_updates_stay_refused_and_audience_excludes_it(bundle: Path) -> None:
    loaded = load_bundle(bundle, store="oxigraph")
    server, watcher = start(loaded)
    try:
        assert server.app.writer is None
        status, text = post(server.url + "update", RETAG.encode(), {"Content-Type": "application/sparql-update"})
        assert status == 403 and "read-only" in text and "--writable" in text
    finally:
        stop(server, watcher)
    from mif_rdf.nsmodel.audience import Audience

    with pytest.raises(MifRdfError, match="writable or audience"):
        start(loaded, writable=True, audience=Audience("someone", model=None))  # type: ignore[arg-type]  # refused first


def test_the_command_prints_the_token_and_a_client_writes_with_it(bundle: Path) -> None:
    with ServeProcess(bundle, "--writable") as server:
        printed = "".join(server.stderr)
        found = re.search(r"Authorization: Bearer (\S+?)'", printed)
        assert found, printed
        headers = {"Content-Type": "application/sparql-update", "Authorization": f"Bearer {found.group(1)}"}
        status, text = post(server.url + "update", RETAG.encode(), headers)
        assert status == 200 and "changed 4 file(s)" in text, text
    assert "streaming" in (bundle / RETAGGED[0]).read_text()


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_a_plan_that_does_not_keep_puts_the_dataset_back(bundle: Path, store: str) -> None:
    from mif_rdf.output.update import plan_update

    loaded = load_bundle(bundle, store=store)
    before = set(loaded.dataset.quads((None, None, None, None)))
    result = plan_update(loaded, RETAG, keep=False)
    assert result.changed == RETAGGED
    assert set(loaded.dataset.quads((None, None, None, None))) == before
    plan_update(loaded, RETAG)  # the default keeps the update in the dataset, as Bundle.update documents
    assert set(loaded.dataset.quads((None, None, None, None))) != before
