"""Valid time inside SPARQL on both engines and on ``serve`` (issue 38, item 4): ``mif:validAt``,
``mif:freshness`` and ``mif:strengthAt`` give the helpers' values on rdflib's engine and on Oxigraph's,
wherever the project runs a query (``run_query``, ``select``, ``query --store oxigraph``, serve's
endpoint), and ``serve --as-of`` serves the memories valid at a date, on the endpoint and the page,
as edits come and go."""

from __future__ import annotations

import csv
import io
import json
import shutil
import time
import urllib.parse
from datetime import datetime, timedelta
from pathlib import Path
from unittest import mock

import pytest
import yaml

from conftest import BUNDLES
from mif_rdf import load_bundle
from mif_rdf.core.namespaces import MIF
from mif_rdf.queries import freshness, native, run_query, select
from mif_rdf.queries.asof import valid_memories
from serve_process import ServeProcess
from test_asof import CORPUS, bundle_dir, expected_valid, run, utc  # noqa: F401  (bundle_dir: the corpus fixture)
from test_serve import get

NAMESPACES = BUNDLES / "namespaces"
ARCHITECTURE = "urn:mif:6a1d0f7e-0006-4c1a-9a00-000000000006"  # acme/architecture.md: P365D from acme-corp
IDEA = "urn:mif:6a1d0f7e-0013-4c1a-9a00-000000000013"  # _experimental/ideas: no ttl of its own, P30D from its prefix
QUERY = (
    'SELECT ?m ?valid ?fresh ?strength WHERE {{ ?m mif:path ?p . BIND(mif:validAt(?m, "{at}") AS ?valid) '
    'BIND(mif:freshness(?m, "{at}") AS ?fresh) BIND(mif:strengthAt(?m, "{at}") AS ?strength) }}'
)


def answers(bundle, at: str) -> dict[str, tuple]:
    """Each memory's three values (other things with a path, the namespaces, left out)."""
    memories = {m.iri for m in bundle.memories.values()}
    return {
        str(r.m): tuple(None if v is None else v.toPython() for v in (r.valid, r.fresh, r.strength))
        for r in run_query(bundle, QUERY.format(at=at))
        if str(r.m) in memories
    }


def idea_end_of_ttl() -> datetime:
    """The idea's recordedAt plus its prefix's ttl, read from the files (the test's own reading)."""
    [path] = [p for p in NAMESPACES.rglob("*.md") if IDEA.split(":")[-1] in p.read_text(encoding="utf-8")]
    frontmatter = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
    config = yaml.safe_load((NAMESPACES / ".mif" / "config.yaml").read_text(encoding="utf-8"))
    assert "ttl" not in frontmatter["temporal"] and frontmatter["namespace"].startswith("_experimental")
    days = int(config["reserved_prefixes"]["_experimental"]["ttl"].strip("PD"))
    return utc(frontmatter["temporal"]["recordedAt"]) + timedelta(days=days)


@pytest.mark.parametrize("at", ["2026-03-16T00:00:00Z", "2026-03-30T23:00:00Z", "2026-03-31T00:00:00Z", "2027-06-01"])
def test_both_engines_agree_with_the_helpers_and_inherit_the_ttl(at: str) -> None:
    memory, oxigraph = load_bundle(NAMESPACES), load_bundle(NAMESPACES, store="oxigraph")
    found = answers(memory, at)
    assert found == answers(oxigraph, at) and len(found) == len(memory.memories)
    assert {m for m, (valid, _, _) in found.items() if valid} == valid_memories(memory.dataset, at)
    assert {m: fresh for m, (_, fresh, _) in found.items()} == {
        str(r["memory"]): r["freshness"] for r in freshness(oxigraph, at)
    }
    assert all(fresh == strength for _, fresh, strength in found.values())
    assert found[IDEA][0] is (utc(at) < idea_end_of_ttl())  # the inherited ttl ends the idea's validity
    inherited = {str(s) for s in memory.dataset.subjects(MIF.inheritedTtl, None)}
    without = [m for m in memory.memories.values() if "temporal" not in m.frontmatter and m.iri not in inherited]
    assert without and all(found[m.iri][0] is True for m in without)  # no temporal data: valid at every date
    # no temporal block of its own, but its namespace's ttl (P365D) runs from its creation
    assert "temporal" not in memory.memories[ARCHITECTURE.split(":")[-1]].frontmatter
    assert found[ARCHITECTURE][0] is (utc(at) < utc("2026-02-01T10:00:00Z") + timedelta(days=365))


def test_the_idea_decays_by_its_inherited_ttl_on_both_engines() -> None:
    for store in ("memory", "oxigraph"):
        assert answers(load_bundle(NAMESPACES, store=store), "2026-03-16T00:00:00Z")[IDEA][1:] == (0.5, 0.5), store


def test_select_on_oxigraph_runs_the_functions(bundle_dir: Path) -> None:  # noqa: F811
    bundle = load_bundle(bundle_dir, store="oxigraph")
    at = "2026-02-15T16:30:00Z"
    table = select(bundle.dataset, f'SELECT ?p WHERE {{ ?m mif:path ?p FILTER(mif:validAt(?m, "{at}")) }}')
    assert set(table.column("p")) == expected_valid(bundle_dir, utc(at))


def test_select_hands_oxigraph_the_functions_only_for_a_query_that_may_call_one(bundle_dir: Path) -> None:  # noqa: F811
    """A query gets the function table when it names a function or holds a codepoint escape (an IRI written
    with one still calls it); any other query goes without, the option left out (issue 34 item 5)."""
    bundle = load_bundle(bundle_dir, store="oxigraph")
    at = "2026-02-15T16:30:00Z"
    sent: list[dict] = []
    real = native.oxigraph_store(bundle.dataset)

    class Recording:  # the store, with each query's options noted
        def query(self, text: str, **options: object) -> object:
            sent.append(options)
            return real.query(text, **options)

        def __getattr__(self, name: str) -> object:  # the functions read the store
            return getattr(real, name)

    escaped_iri = str(MIF.validAt).replace("validAt", "valid\\u0041t")  # the IRI written with an escape
    escaped = f'SELECT ?p WHERE {{ ?m mif:path ?p FILTER(<{escaped_iri}>(?m, "{at}")) }}'
    with mock.patch.object(native, "oxigraph_store", lambda graph: Recording()):
        assert set(select(bundle.dataset, escaped).column("p")) == expected_valid(bundle_dir, utc(at))
        assert len(select(bundle.dataset, "SELECT ?p WHERE { ?m mif:path ?p }")) > 0
    assert [sorted(str(name.value) for name in options.get("custom_functions", {})) for options in sent] == [
        sorted(str(iri) for iri in (MIF.validAt, MIF.freshness, MIF.strengthAt)),
        [],
    ]


def test_query_store_oxigraph_on_the_command_line(bundle_dir: Path) -> None:  # noqa: F811
    at = "2026-01-24"
    query = f"SELECT ?path WHERE {{ ?m mif:path ?path FILTER(mif:validAt(?m, '{at}')) }}"
    for store in ("memory", "oxigraph"):
        done = run("query", str(bundle_dir), query, "--format", "csv", "--store", store, "--no-cache")
        assert done.returncode == 0, done.stderr
        assert {row["path"] for row in csv.DictReader(io.StringIO(done.stdout))} == expected_valid(bundle_dir, utc(at))


# -- serve ---------------------------------------------------------------------------------------------------
def served_paths(server: ServeProcess, query: str) -> set[str]:
    status, _, body = get(server.url + "query?" + urllib.parse.urlencode({"query": query}), accept="text/csv")
    assert status == 200, body
    return {row["path"] for row in csv.DictReader(io.StringIO(body.decode("utf-8")))}


def page_paths(server: ServeProcess) -> set[str]:
    _, _, body = get(server.url + "api/overview")
    listed = json.loads(body)["list"]
    return {item["path"] for item in listed}


def test_serve_endpoint_runs_the_functions(bundle_dir: Path) -> None:  # noqa: F811
    at = "2026-02-10T13:00:00Z"
    with ServeProcess(bundle_dir, "--no-watch") as server:
        valid = served_paths(server, f'SELECT ?path WHERE {{ ?m mif:path ?path FILTER(mif:validAt(?m, "{at}")) }}')
        fresh = served_paths(
            server, f'SELECT ?path WHERE {{ ?m mif:path ?path FILTER(mif:freshness(?m, "{at}") < 1) }}'
        )
    assert valid == expected_valid(bundle_dir, utc(at))
    bundle = load_bundle(bundle_dir)
    paths = {m.iri: m.relpath for m in bundle.memories.values()}
    decayed = {
        paths[str(r["memory"])] for r in freshness(bundle, at) if r["freshness"] is not None and r["freshness"] < 1
    }
    assert fresh == decayed and decayed


def test_serve_as_of_serves_the_valid_memories_and_follows_edits(bundle_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    root = tmp_path / "bundle"
    shutil.copytree(bundle_dir, root)
    at = "2026-01-24"
    expected = expected_valid(root, utc(at))
    assert 0 < len(expected) < len(CORPUS)
    every = "SELECT DISTINCT ?path WHERE { ?m mif:path ?path }"
    with ServeProcess(root, "--as-of", at) as server:
        assert served_paths(server, every) == expected
        assert page_paths(server) == expected
        assert f"as of {at}: {len(expected)} memories valid" in "".join(server.stderr)
        links = served_paths(
            server,
            "SELECT DISTINCT ?path WHERE { GRAPH ?g { ?a ?rel ?b } ?b mif:path ?path "
            "FILTER(STRENDS(STR(?g), '#links')) }",
        )
        assert links and links <= expected  # the links graph names only memories valid at the date
        # an edit that moves a memory into its valid time at the date is served with the restriction reapplied
        moved = root / "from-feb.md"
        assert "from-feb.md" not in expected
        moved.write_text(
            moved.read_text(encoding="utf-8").replace(
                "validFrom: 2026-02-01T00:00:00Z", "validFrom: 2026-01-01T00:00:00Z"
            ),
            encoding="utf-8",
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and served_paths(server, every) != expected | {"from-feb.md"}:
            time.sleep(0.2)
        assert served_paths(server, every) == expected | {"from-feb.md"} == expected_valid(root, utc(at))
        assert page_paths(server) == expected | {"from-feb.md"}


def test_serve_as_of_a_date_that_is_no_date_is_a_clear_error(bundle_dir: Path) -> None:  # noqa: F811
    done = run("serve", str(bundle_dir), "--port", "0", "--as-of", "last tuesday")
    assert done.returncode == 2 and "last tuesday" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_a_blank_node_given_for_the_memory_leaves_the_call_unbound(store: str) -> None:
    """Citations and entities are blank nodes with titles: a call on one is a SPARQL error (unbound), not a crash."""
    from conftest import EXAMPLES

    bundle = load_bundle(EXAMPLES, store=store)
    rows = list(
        bundle.query(
            "SELECT ?s ?valid ?strength WHERE { ?s dc:title ?t FILTER(isBlank(?s)) "
            "BIND(mif:validAt(?s, '2026-03-01') AS ?valid) BIND(mif:strengthAt(?s, '2026-03-01') AS ?strength) }"
        )
    )
    assert rows, "the examples have blank nodes with titles"
    assert all(row.valid is None and row.strength is None for row in rows)
