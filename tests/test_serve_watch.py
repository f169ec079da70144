"""``mif-rdf serve`` stays in sync with its folder (issue 18, item 2).

Real file changes (edits, new files, moves, deletes, a folder moved out, a
file turning bad and being fixed, a memory moving into ``_local``) under a
running server; the endpoint is polled until the change is published, and
then the served dataset must equal a fresh load of the folder, graph by graph
(isomorphic, literals by value).  A file that turns bad must keep its last
good graph: the oracle then is a fresh load of the folder with that file's
last good text.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from rdflib import Dataset, URIRef

from conftest import EXAMPLES, assert_isomorphic, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.output.policy import export_policy
from serve_process import ServeProcess

DEADLINE_S = 20.0
POLICY = "semantic/idempotency-policy.md"


def fetch(url: str, accept: str = "application/json") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def generation(server: ServeProcess) -> int:
    return json.loads(fetch(server.url + "api/status"))["generation"]


def served(server: ServeProcess) -> Dataset:
    dataset = Dataset()
    dataset.parse(data=fetch(server.url + "store", "application/n-quads"), format="nquads")
    return dataset


def fresh(folder: Path, base: str) -> Dataset:
    """What a fresh load of ``folder`` serves by default (no _local)."""
    bundle = load_bundle(folder, base_iri=base)
    return export_policy(bundle).restrict(bundle).dataset


def assert_same(left: Dataset, right: Dataset, label: str) -> None:
    names = {str(g.identifier) for g in left.graphs() if len(g)}
    assert names == {str(g.identifier) for g in right.graphs() if len(g)}, label
    for name in names:
        assert_isomorphic(left.graph(URIRef(name)), right.graph(URIRef(name)), f"{label}: {name}")


def wait_for_change(server: ServeProcess, before: int) -> int:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        now = generation(server)
        if now > before:
            time.sleep(0.3)  # a save may arrive as two batches (truncate, write): let the second land
            return generation(server)
        time.sleep(0.02)
    raise AssertionError(f"no change was published within {DEADLINE_S} s")


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    return folder


BASE = "mif://local/examples/"


def test_every_kind_of_change_is_served_as_a_fresh_load_would(bundle: Path, tmp_path: Path) -> None:
    with ServeProcess(bundle, "--base", BASE) as server:
        time.sleep(0.5)  # the watcher starts listening just after the server
        assert_same(served(server), fresh(bundle, BASE), "at start")
        now = generation(server)

        def step(label: str, change, oracle: Path | None = None) -> None:
            nonlocal now
            change()
            now = wait_for_change(server, now)
            assert_same(served(server), fresh(oracle or bundle, BASE), label)

        policy = (bundle / POLICY).read_text(encoding="utf-8")
        step(
            "edit",
            lambda: (bundle / POLICY).write_text(
                policy.replace("title: Idempotency Key Policy", "title: Idempotency Key Policy, edited"),
                encoding="utf-8",
            ),
        )
        assert b"Idempotency Key Policy, edited" in fetch(server.url + "store", "application/n-quads")
        step(
            "create",
            lambda: write_file(
                bundle,
                "semantic/new-note.md",
                memory_text(
                    "0d9c7f4e-5b3a-4c2d-9e1f-1a2b3c4d5e6f",
                    "title: New note\nnamespace: _semantic/knowledge\nrelationships:\n  - type: relates-to\n"
                    "    target: ./idempotency-policy.md\n",
                    body="New.\n\n## Relationships\n- relates-to [Idempotency Key Policy](./idempotency-policy.md)\n",
                ),
            ),
        )
        step("move", lambda: (bundle / "semantic/new-note.md").rename(bundle / "procedural/new-note.md"))
        step("delete", lambda: (bundle / "procedural/new-note.md").unlink())
        outside = tmp_path / "outside"
        step("folder moved out", lambda: (bundle / "episodic").rename(outside))
        step("folder moved in", lambda: outside.rename(bundle / "episodic"))
        step(
            "into _local",
            lambda: (bundle / POLICY).write_text(
                policy.replace("namespace: _semantic/policies", "namespace: _local/policies"), encoding="utf-8"
            ),
        )
        step("out of _local", lambda: (bundle / POLICY).write_text(policy, encoding="utf-8"))
        config = bundle / ".mif" / "config.yaml"
        step(
            "configuration edited (a full reload)",
            lambda: config.write_text(config.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8"),
        )
        step(
            "an edit after the full reload",
            lambda: (bundle / POLICY).write_text(
                policy.replace("title: Idempotency Key Policy", "title: Again"), encoding="utf-8"
            ),
        )


def test_jsonld_memories_are_served_as_a_fresh_load_reads_them(bundle: Path, tmp_path: Path) -> None:
    """A memory written only as .jsonld (spec 3.3) is served, changed and removed like a markdown one."""
    from mif_rdf.cli.main import main

    converted = tmp_path / "converted"
    assert main(["convert", "to-jsonld", str(bundle), "-o", str(converted), "-q"]) == 0
    with ServeProcess(bundle, "--base", BASE) as server:
        time.sleep(0.5)  # the watcher starts listening just after the server
        now = generation(server)
        source = converted / POLICY.replace(".md", ".jsonld")
        (bundle / POLICY).unlink()  # the policy now exists only as JSON-LD
        shutil.copy(source, bundle / POLICY.replace(".md", ".jsonld"))
        now = wait_for_change(server, now)
        assert_same(served(server), fresh(bundle, BASE), "a .jsonld memory instead of its .md")
        text = source.read_text(encoding="utf-8").replace("Idempotency Key Policy", "Idempotency Key Policy (JSON-LD)")
        (bundle / POLICY.replace(".md", ".jsonld")).write_text(text, encoding="utf-8")
        now = wait_for_change(server, now)
        assert b"Idempotency Key Policy (JSON-LD)" in fetch(server.url + "store", "application/n-quads")
        assert_same(served(server), fresh(bundle, BASE), "the .jsonld memory edited")


def test_a_file_that_turns_bad_keeps_its_last_good_graph(bundle: Path, tmp_path: Path) -> None:
    good_text = (bundle / POLICY).read_text(encoding="utf-8")
    last_good = tmp_path / "last-good"
    shutil.copytree(bundle, last_good)
    with ServeProcess(bundle, "--base", BASE) as server:
        time.sleep(0.5)
        now = generation(server)
        (bundle / POLICY).write_text(good_text.replace("type: semantic", "type: [semantic"), encoding="utf-8")
        now = wait_for_change(server, now)
        assert_same(served(server), fresh(last_good, BASE), "broken: the last good version is served")
        overview = json.loads(fetch(server.url + "api/overview"))
        shown = [(p["path"], p.get("rule")) for p in overview["problems"]]
        assert (POLICY, "serve-kept") in shown and (POLICY, "yaml") in shown
        assert overview["kept"] == [POLICY]
        memory = json.loads(fetch(server.url + "api/memory?" + urllib.parse.urlencode({"path": POLICY})))
        assert memory["kept"] and {p.get("rule") for p in memory["problems"]} >= {"serve-kept", "yaml"}
        (bundle / POLICY).write_text(
            good_text.replace("title: Idempotency Key Policy", "title: Fixed"), encoding="utf-8"
        )
        wait_for_change(server, now)
        assert_same(served(server), fresh(bundle, BASE), "fixed")
        assert json.loads(fetch(server.url + "api/overview"))["kept"] == []


def test_no_query_sees_half_a_change(bundle: Path) -> None:
    """A memory whose id flips back and forth, and one that links to it: the link's target always has its graph.

    Between replacing the memory's graph and updating the links graph, the
    link would point at a memory that is not there; a query must never see that.
    """
    write_file(bundle, "flip.md", memory_text("flip-0", "title: Flip\n"))
    write_file(
        bundle,
        "pointer.md",
        memory_text(
            "pointer",
            "title: Pointer\nrelationships:\n  - type: relates-to\n    target: ./flip.md\n",
            body="P.\n\n## Relationships\n- relates-to [Flip](./flip.md)\n",
        ),
    )
    dangling = (
        "ASK { GRAPH ?links { <urn:mif:pointer> <https://mif-spec.dev/ns/relates-to> ?target } "
        "FILTER NOT EXISTS { GRAPH ?target { ?target ?p ?o } } }"
    )
    linked = "ASK { <urn:mif:pointer> <https://mif-spec.dev/ns/relates-to> ?target }"
    seen: list[bytes] = []
    with ServeProcess(bundle, "--base", BASE) as server:
        time.sleep(0.5)
        url = server.query_url + "?" + urllib.parse.urlencode({"query": dangling})
        stop = threading.Event()

        def ask() -> None:
            while not stop.is_set():
                seen.append(fetch(url, "text/csv").strip())

        asker = threading.Thread(target=ask)
        asker.start()
        try:
            now = generation(server)
            for i in range(1, 13):
                write_file(bundle, "flip.md", memory_text(f"flip-{i}", "title: Flip\n"))
                now = wait_for_change(server, now)
        finally:
            stop.set()
            asker.join(timeout=60)
        assert fetch(server.query_url + "?" + urllib.parse.urlencode({"query": linked}), "text/csv").strip() == b"true"
    assert len(seen) > 20 and set(seen) == {b"false"}


def test_the_watcher_applies_the_rules_of_a_fresh_load_to_symlinks_and_special_files(
    bundle: Path, tmp_path: Path
) -> None:
    """Issue 39: links created while serving -- to a memory outside, to a system file, swapped over a served
    memory, a symlinked folder, a FIFO -- are never read; the served dataset equals a fresh load's."""
    import os

    outside = tmp_path / "outside"
    write_file(outside, "secret.md", memory_text("outside-secret", "title: Outside secret\n"))
    write_file(outside, "folder/inner.md", memory_text("outside-inner", "title: Outside inner\n"))
    with ServeProcess(bundle, "--base", BASE) as server:
        time.sleep(0.5)
        now = generation(server)
        steps = [
            ("a link to a memory outside", lambda: os.symlink(outside / "secret.md", bundle / "semantic/linked.md")),
            ("a link to a system file", lambda: os.symlink("/etc/passwd", bundle / "semantic/passwd.md")),
            (
                "a link swapped over a served memory",
                lambda: (
                    os.replace(bundle / POLICY, tmp_path / "policy.md"),
                    os.symlink(outside / "secret.md", bundle / POLICY),
                ),
            ),
            ("a FIFO named like a memory", lambda: os.mkfifo(bundle / "semantic/pipe.md")),
            (
                "a symlinked folder (no file of the bundle changes: nothing is published)",
                lambda: os.symlink(outside / "folder", bundle / "semantic/folder"),
            ),
        ]
        for label, change in steps:
            change()
            if "nothing is published" in label:
                time.sleep(1.0)
                assert generation(server) == now, label
            else:
                now = wait_for_change(server, now)
            body = fetch(server.url + "store", "application/n-quads")
            assert b"outside-" not in body and b"root:" not in body, label
            assert_same(served(server), fresh(bundle, BASE), label)
        (bundle / POLICY).unlink()
        os.replace(tmp_path / "policy.md", bundle / POLICY)  # the real file back
        now = wait_for_change(server, now)
        assert_same(served(server), fresh(bundle, BASE), "the real file back")


def test_the_page_never_shows_where_the_bundle_is_or_a_local_path(bundle: Path) -> None:
    """Issue 39: no view names the bundle's absolute folder, and a problem between a shared and a `_local`
    memory (a duplicate id) does not name the `_local` file."""
    local = bundle / "semantic/redis-idempotency-idea.md"
    text = local.read_text(encoding="utf-8")
    shared_id = next(
        line.split(":", 1)[1].strip()
        for line in (bundle / POLICY).read_text(encoding="utf-8").splitlines()
        if line.startswith("id:")
    )
    local_id = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("id:"))
    write_file(
        bundle, "zz/duplicate-of-policy.md", text.replace(f"id: {local_id}", f"id: {shared_id}")
    )  # a _local copy, same id as the policy
    with ServeProcess(bundle, "--base", BASE) as server:
        overview = json.loads(fetch(server.url + "api/overview"))
        views = [fetch(server.url + "api/overview"), fetch(server.url + "api/status")]
        views += [
            fetch(server.url + "api/memory?" + urllib.parse.urlencode({"path": item["path"]}))
            for item in overview["list"]
        ]
    assert overview["folder"] == bundle.name
    for view in views:  # (a shared memory's own text may mention the _local one: it is served as written)
        assert str(bundle).encode() not in view and str(bundle.resolve()).encode() not in view
        assert b"duplicate-of-policy" not in view
    assert b"redis-idempotency-idea" not in views[0]
    assert overview["problems"] and not [
        p for p in overview["problems"] if "redis" in json.dumps(p) or "zz/" in json.dumps(p)
    ]
