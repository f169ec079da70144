"""The query helpers on the example bundle, each checked against an answer computed here.

The expectations come from the frontmatter the loader read (``bundle.memories``)
or, for paths through the graph, from networkx over the links graph: never
from SPARQL, so a wrong query cannot agree with itself.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from decimal import Decimal

import networkx as nx
import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS

from conftest import memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import MIF
from mif_rdf.queries import (
    TRUST_LEVELS,
    Table,
    conflicts,
    current_version,
    memories_about,
    memories_between,
    memories_in_namespace,
    memories_of_type,
    memories_with_tag,
    neighbours,
    recorded_by,
    relationship_edges,
    select,
    supersession_chain,
    trusted,
    valid_at,
)
from mif_rdf.source.identity import relationship_iri
from synthetic import generate_bundle

UTC = UTC
POLICY = "urn:mif:8b8080e5-d237-47de-8ba5-66af64a00dcf"  # supersedes POLICY_V1
POLICY_V1 = "urn:mif:515066d6-6d84-4d49-93f3-01dd360eccd5"
OUTBOX = "urn:mif:33cefb56-c40c-470e-a77c-76fbcc934c7b"


def _memories(bundle, keep) -> set[str]:
    return {m.iri for m in bundle.memories.values() if keep(m.frontmatter)}


def _when(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _set(table: Table, column: str = "memory") -> set:
    return set(table.column(column))


@pytest.mark.parametrize("base_type", ["semantic", "episodic", "procedural"])
def test_memories_of_type(example_bundle, base_type: str) -> None:
    table = memories_of_type(example_bundle, base_type)
    assert _set(table) == _memories(example_bundle, lambda fm: fm["type"] == base_type)
    assert table.columns == ("memory", "path", "title")
    assert [r["path"] for r in table] == sorted(r["path"] for r in table)


@pytest.mark.parametrize(
    "prefix",
    ["_semantic", "_semantic/decisions/", "_episodic", "acme-payments", "_local/scratch", "_sem", "_semantic/decision"],
)
def test_namespace_subtree(example_bundle, prefix: str) -> None:
    root = prefix.strip("/")
    expected = _memories(
        example_bundle, lambda fm: fm.get("namespace") == root or fm.get("namespace", "").startswith(root + "/")
    )
    assert _set(memories_in_namespace(example_bundle, prefix)) == expected
    if prefix in ("_sem", "_semantic/decision"):  # a subtree is whole segments, not a string prefix
        assert not expected


@pytest.mark.parametrize("tag", ["incident", "idempotency", "postgresql", "no-such-tag", "Incident"])
def test_memories_with_tag(example_bundle, tag: str) -> None:
    assert _set(memories_with_tag(example_bundle, tag)) == _memories(
        example_bundle, lambda fm: tag in fm.get("tags", [])
    )


@pytest.mark.parametrize(
    "entity", ["urn:mif:entity:technology:redis", "urn:mif:entity:person:priya-raman", "urn:mif:entity:vendor:novapay"]
)
def test_memories_about_an_entity(example_bundle, entity: str) -> None:
    expected = {
        (m.iri, ref.get("role"))
        for m in example_bundle.memories.values()
        for ref in m.frontmatter.get("entities", [])
        if ref["entity"]["@id"] == entity
    }
    assert expected
    assert {(r["memory"], r["role"]) for r in memories_about(example_bundle, URIRef(entity))} == expected


@pytest.mark.parametrize("field", ["created", "modified"])
def test_memories_between(example_bundle, field: str) -> None:
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 10, 9, tzinfo=UTC)
    table = memories_between(example_bundle, start, end, field=field)
    assert _set(table) == _memories(example_bundle, lambda fm: field in fm and start <= _when(fm[field]) < end)
    assert [r["when"] for r in table] == sorted(r["when"] for r in table)
    open_start = memories_between(example_bundle, end=date(2025, 9, 1), field=field)
    assert _set(open_start) == _memories(
        example_bundle, lambda fm: field in fm and _when(fm[field]) < datetime(2025, 9, 1, tzinfo=UTC)
    )
    assert len(memories_between(example_bundle, field=field)) == sum(
        field in m.frontmatter for m in example_bundle.memories.values()
    )


def _valid(fm: dict, at: datetime) -> bool:
    temporal = fm.get("temporal", {})
    start, until = temporal.get("validFrom"), temporal.get("validUntil")
    return (start is None or _when(start) <= at) and (until is None or at < _when(until))


def _recorded(fm: dict) -> datetime:
    return _when(fm.get("temporal", {}).get("recordedAt", fm["created"]))


@pytest.mark.parametrize(
    "at", ["2025-11-18T02:30:00Z", "2026-01-21T22:30:00Z", "2026-01-23T15:00:00+01:00", "2026-03-09T17:50:00Z"]
)
def test_valid_at(example_bundle, at: str) -> None:
    moment = _when(at)
    table = valid_at(example_bundle, at)
    assert _set(table) == _memories(example_bundle, lambda fm: _valid(fm, moment))
    assert all(r["valid_until"] is None or isinstance(r["valid_until"], datetime) for r in table)


def test_valid_at_as_known_at_a_transaction_time(example_bundle) -> None:
    valid, known = _when("2026-01-21T22:30:00Z"), _when("2026-01-22T00:00:00Z")
    table = valid_at(example_bundle, valid, known_at=known)
    expected = _memories(example_bundle, lambda fm: _valid(fm, valid) and _recorded(fm) <= known)
    assert _set(table) == expected
    # the duplicate-charges incident was valid then but only recorded at 07:45 the next morning
    assert "urn:mif:a684d262-51f2-46bb-b02c-d032ca60d1f3" in _set(valid_at(example_bundle, valid)) - expected


@pytest.mark.parametrize("at", ["2025-08-01", "2025-10-06T08:15:00Z", "2026-02-10T09:00:00Z", "2030-01-01"])
def test_recorded_by(example_bundle, at: str) -> None:
    moment = _when(at)
    assert _set(recorded_by(example_bundle, at)) == _memories(example_bundle, lambda fm: _recorded(fm) <= moment)


# -- relationships, against networkx over the links graph ----------------------------------
@pytest.fixture(scope="module")
def links(example_bundle) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    nodes = {s for s, p, o in example_bundle.links if p == MIF.path}
    for s, p, o in example_bundle.links:
        if s in nodes and o in nodes:
            graph.add_edge(str(s), str(o), key=str(p))
    return graph


def _within(links: nx.MultiDiGraph, start: str, depth: int, direction: str, relationship: str | None) -> dict[str, int]:
    kept = nx.MultiDiGraph((a, b, k) for a, b, k in links.edges(keys=True) if relationship is None or k == relationship)
    kept.add_node(start)
    view = {"out": kept, "in": kept.reverse(), "both": kept.to_undirected(as_view=True)}[direction]
    lengths = nx.single_source_shortest_path_length(view, start, cutoff=depth)
    return {node: d for node, d in lengths.items() if node != start}


@pytest.mark.parametrize("direction", ["out", "in", "both"])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("relationship", [None, "relates-to", "DerivedFrom"])
@pytest.mark.parametrize("start", [POLICY, OUTBOX, "urn:mif:entity:technology:kafka"])
def test_neighbours(example_bundle, links, start: str, relationship: str | None, direction: str, depth: int) -> None:
    iri = relationship_iri(relationship) if relationship else None
    expected = _within(links, start, depth, direction, iri)
    table = neighbours(example_bundle, start, relationship, direction=direction, depth=depth)
    assert {r["neighbour"]: r["depth"] for r in table} == expected
    assert all(r["path"] and r["title"] for r in table)


def test_neighbours_at_the_depth_limit(example_bundle, links) -> None:
    scratch = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"  # five relates-to steps from the farthest memory
    table = neighbours(example_bundle, scratch, "relates_to", direction="both", depth=4)
    assert {r["neighbour"]: r["depth"] for r in table} == _within(
        links, scratch, 4, "both", relationship_iri("relates-to")
    )
    assert max(table.column("depth")) == 4
    assert len(_within(links, scratch, 5, "both", relationship_iri("relates-to"))) > len(table)  # the bound cuts


def test_neighbours_reach_entities_and_follow_any_spelling(example_bundle) -> None:
    by_id = neighbours(example_bundle, OUTBOX[len("urn:mif:") :], "created_by")
    assert [(r["neighbour"], r["title"]) for r in by_id] == [("urn:mif:entity:person:marcus-okafor", "Marcus Okafor")]
    custom = neighbours(
        example_bundle, "urn:mif:7b967c7c-ce23-440b-810c-414f1a0ec5ac", "team:Reinforces", direction="in"
    )
    assert _set(custom, "neighbour") == {"urn:mif:bc743bb4-792e-4fca-b148-85bfce676d34"}


def test_paths_do_not_pass_through_blank_nodes_or_ontology_nodes(example_bundle) -> None:
    # every memory points at its entity references (blank nodes) and at its ontology IRI;
    # two steps through those would make every memory a neighbour of every other
    reached = neighbours(example_bundle, POLICY, direction="both", depth=2)
    assert all(r["neighbour"].startswith("urn:mif:") for r in reached)
    assert len(reached) < len(example_bundle.memories) + len(example_bundle.entities) - 1


def test_relationship_edges(example_bundle, links) -> None:
    table = relationship_edges(example_bundle)
    assert {(r["source"], r["relationship"], r["target"]) for r in table} == {
        (a, k, b) for a, b, k in links.edges(keys=True)
    }
    assert all(r["source_label"] and r["target_label"] for r in table)
    paths = {str(s): str(o) for s, p, o in example_bundle.links if p == MIF.path}
    order = [(paths[r["source"]], r["relationship"], paths[r["target"]]) for r in table]
    assert order == sorted(order)  # by source path, relationship, target path


#: relationship_edges as one SPARQL query (its definition; the helper joins two queries in Python instead).
EDGES_IN_ONE_QUERY = """SELECT ?source ?source_label ?relationship ?target ?target_label WHERE {
  ?target mif:path ?target_path . ?source ?relationship ?target . ?source mif:path ?source_path .
  OPTIONAL { ?source dc:title ?st } OPTIONAL { ?source schema:name ?sn }
  OPTIONAL { ?target dc:title ?tt } OPTIONAL { ?target schema:name ?tn }
  BIND(COALESCE(?st, ?sn, ?source_path) AS ?source_label) BIND(COALESCE(?tt, ?tn, ?target_path) AS ?target_label)
}"""


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_relationship_edges_are_the_one_query_definition(tmp_path, store: str) -> None:
    root = tmp_path / "bundle"
    generate_bundle(root, 60, seed=8)
    bundle = load_bundle(root, store=store)
    hub = next(
        iri for iri in sorted(m.iri for m in bundle.memories.values()) if (URIRef(iri), None, None) in bundle.links
    )
    bundle.links.add(
        (URIRef(hub), DCTERMS.title, Literal("Second title"))
    )  # two titles: each of its edges comes once per title
    expected = Counter(tuple(row.values()) for row in select(bundle, EDGES_IN_ONE_QUERY))
    table = relationship_edges(bundle)
    assert (
        Counter(
            tuple(row[c] for c in ("source", "source_label", "relationship", "target", "target_label")) for row in table
        )
        == expected
    )
    assert any(row["source_label"] == "Second title" or row["target_label"] == "Second title" for row in table)


def test_conflicts_are_pairs_listed_once(example_bundle) -> None:
    pairs = {
        frozenset((m.iri, "urn:mif:" + rel["target"].split("urn:mif:")[-1]))
        for m in example_bundle.memories.values()
        for rel in m.frontmatter.get("relationships", [])
        if rel["type"] == "conflicts-with"
    }
    table = conflicts(example_bundle)
    assert (
        {frozenset((r["memory"], r["other"])) for r in table}
        == pairs
        == {frozenset(("urn:mif:33117db3-8b95-4061-b487-746a415d912f", "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"))}
    )
    assert all(r["title"] and r["other_title"] for r in table)


# -- supersession ------------------------------------------------------------------------------
def test_supersession_in_the_example_bundle(example_bundle) -> None:
    assert [(r["memory"], r["offset"]) for r in supersession_chain(example_bundle, POLICY_V1)] == [
        (POLICY, 1),
        (POLICY_V1, 0),
    ]
    assert [(r["memory"], r["offset"]) for r in supersession_chain(example_bundle, POLICY)] == [
        (POLICY, 0),
        (POLICY_V1, -1),
    ]
    assert current_version(example_bundle, POLICY_V1).column("memory") == [POLICY]
    assert current_version(example_bundle, POLICY).column("memory") == [POLICY]
    assert current_version(example_bundle, OUTBOX).column("memory") == [OUTBOX]  # never superseded: itself


def _versions_bundle(root, edges: dict[str, list[str]]):
    for name in sorted({n for pair in edges.items() for n in [pair[0], *pair[1]]}):
        rels = "".join(f"  - type: supersedes\n    target: /{old}.md\n" for old in edges.get(name, []))
        write_file(
            root,
            f"{name}.md",
            memory_text(name, f"title: Version {name}\nrelationships:\n{rels}" if rels else f"title: Version {name}\n"),
        )
    return load_bundle(root)


def test_long_chains_and_forks(tmp_path) -> None:
    # v29 supersedes v28 ... supersedes v0, and "fork" supersedes v0 too
    edges = {f"v{i}": [f"v{i - 1}"] for i in range(1, 30)} | {"fork": ["v0"]}
    bundle = _versions_bundle(tmp_path, edges)
    chain = supersession_chain(bundle, "v3")
    assert [(r["memory"], r["offset"]) for r in chain] == [(f"urn:mif:v{i}", i - 3) for i in range(29, -1, -1)]
    assert chain[0]["title"] == "Version v29" and chain[0]["path"] == "v29.md"
    assert current_version(bundle, "v0").column("memory") == [
        "urn:mif:fork",
        "urn:mif:v29",
    ]  # a fork: two current versions
    assert [(r["memory"], r["offset"]) for r in current_version(bundle, "v2")] == [("urn:mif:v29", 27)]
    assert {r["memory"] for r in supersession_chain(bundle, "fork")} == {"urn:mif:fork", "urn:mif:v0"}
    with pytest.raises(MifRdfError, match="no memory 'urn:mif:nope'"):
        current_version(bundle, "nope")
    assert len(supersession_chain(bundle, "nope")) == 0


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_the_version_helpers_agree_with_shortest_paths(tmp_path, seed: int, store: str) -> None:
    """Random supersedes graphs (forks, merges, cycles) against networkx: each version's offset is its shortest
    distance (newer ones along "superseded by", older ones along "supersedes", newer first), and the current
    versions are the newer ones (the start included) that nothing supersedes."""
    import random

    chance = random.Random(seed)
    names = [f"n{i}" for i in range(chance.randint(2, 9))]
    edges = {a: sorted({b for b in chance.sample(names, chance.randint(0, 2)) if b != a}) for a in names}
    for name in names:
        write_file(
            tmp_path,
            f"{name}.md",
            memory_text(
                name,
                "relationships:\n" + "".join(f"  - type: supersedes\n    target: /{old}.md\n" for old in edges[name])
                if edges[name]
                else "",
            ),
        )
    bundle = load_bundle(tmp_path, store=store, progress=False)
    supersedes = nx.DiGraph([(a, b) for a, olds in edges.items() for b in olds])
    supersedes.add_nodes_from(names)
    for start in names:
        newer = nx.single_source_shortest_path_length(supersedes.reverse(copy=False), start)
        older = nx.single_source_shortest_path_length(supersedes, start)
        expected = {n: d for n, d in newer.items()} | {n: -d for n, d in older.items() if n not in newer}
        chain = supersession_chain(bundle, start)
        assert {row["memory"]: row["offset"] for row in chain} == {f"urn:mif:{n}": d for n, d in expected.items()}
        assert [row["offset"] for row in chain] == sorted((row["offset"] for row in chain), reverse=True)
        heads = {n: d for n, d in newer.items() if supersedes.in_degree(n) == 0}
        if heads:
            found = current_version(bundle, start)
            assert {row["memory"]: row["offset"] for row in found} == {f"urn:mif:{n}": d for n, d in heads.items()}
            assert [row["path"] for row in found] == sorted(f"{n}.md" for n in heads)
        else:
            with pytest.raises(MifRdfError, match="a supersedes cycle"):
                current_version(bundle, start)


def test_a_supersession_cycle_has_no_current_version(tmp_path) -> None:
    bundle = _versions_bundle(tmp_path, {"a": ["b"], "b": ["a"]})
    with pytest.raises(MifRdfError, match="a supersedes cycle"):
        current_version(bundle, "a")
    assert {r["memory"]: r["offset"] for r in supersession_chain(bundle, "a")} == {"urn:mif:a": 0, "urn:mif:b": 1}


# -- trust ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("level", "confidence"),
    [
        ("verified", None),
        ("high_confidence", None),
        (None, 0.9),
        ("user_stated", 0.93),
        ("uncertain", 0.0),
        (None, None),
    ],
)
def test_trusted(example_bundle, level: str | None, confidence: float | None) -> None:
    def passes(fm: dict) -> bool:
        prov = fm.get("provenance")
        if prov is None:
            return False
        ok_level = level is None or (
            prov.get("trustLevel") in TRUST_LEVELS
            and TRUST_LEVELS.index(prov["trustLevel"]) >= TRUST_LEVELS.index(level)
        )
        ok_confidence = confidence is None or (
            "confidence" in prov and Decimal(str(prov["confidence"])) >= Decimal(str(confidence))
        )
        return ok_level and ok_confidence

    table = trusted(example_bundle, level, confidence)
    assert _set(table) == _memories(example_bundle, passes)
    ranks = [TRUST_LEVELS.index(r["trust_level"]) for r in table]
    assert ranks == sorted(ranks, reverse=True)  # most trusted first
    assert all(isinstance(r["confidence"], float) for r in table)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: memories_of_type(b, "Semantic"), "unknown base type 'Semantic'"),
        (lambda b: memories_in_namespace(b, "/"), "namespace prefix must be a non-empty string"),
        (lambda b: memories_with_tag(b, 3), "tag must be a non-empty string"),
        (lambda b: memories_about(b, "redis"), "entity must be an absolute IRI"),
        (lambda b: memories_between(b, "last tuesday"), "not an ISO 8601 date"),
        (lambda b: memories_between(b, field="recordedAt"), "unknown time field"),
        (lambda b: valid_at(b, 20260101), "a time must be a datetime"),
        (lambda b: neighbours(b, POLICY, direction="sideways"), "unknown direction"),
        (lambda b: neighbours(b, POLICY, depth=5), "from 1 to 4"),
        (lambda b: neighbours(b, POLICY, depth=True), "from 1 to 4"),
        (lambda b: neighbours(b, "an id with spaces"), "neither a memory id nor a memory IRI"),
        (lambda b: neighbours(b, POLICY, "relates to>"), "relationship type must be an absolute IRI"),
        (lambda b: trusted(b, "trusted"), "unknown trust level 'trusted'"),
        (lambda b: trusted(b, min_confidence=1.5), "from 0 to 1"),
        (lambda b: trusted(b, min_confidence="0.5"), "from 0 to 1"),
    ],
)
def test_bad_arguments_are_clear_errors(example_bundle, call, message: str) -> None:
    with pytest.raises(MifRdfError, match=message):
        call(example_bundle)


def test_tables_are_plain_rows_and_dataframes(example_bundle) -> None:
    table = trusted(example_bundle, "verified")
    row = table[0]
    assert set(row) == set(table.columns) and all(isinstance(v, (str, float)) for v in row.values())
    frame = table.to_dataframe()
    assert list(frame.columns) == list(table.columns) and len(frame) == len(table)
    assert frame["confidence"].dtype.kind == "f"
    with pytest.raises(MifRdfError, match="no column 'id'"):
        table.column("id")
    assert Literal(row["confidence"]).toPython() == row["confidence"]


# -- a helper's rows against the rows of the query it sends -------------------------------------
def _query_rows(monkeypatch, call) -> tuple[object, list[int]]:
    """The helper's result and the row count of each query it sent (the benchmark's floor evaluates those)."""
    from mif_rdf.queries.helpers import parameters

    counts: list[int] = []
    sent = parameters.select_columns

    def counted(*args, **kwargs):
        found = sent(*args, **kwargs)
        counts.append(len(found))
        return found

    monkeypatch.setattr(parameters, "select_columns", counted)
    return call(), counts


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_memories_between_keeps_only_the_times_it_reads_in_range_from_its_query_s_rows(
    tmp_path, monkeypatch, store: str
) -> None:
    """Its query lets every time without a zone (and every unreadable one) through: the stores compare those
    differently, so the helper decides them, read as UTC, and keeps fewer rows than the query gives."""
    created = {
        "in-range.md": "2026-01-15T10:00:00Z",
        "no-zone-in-range.md": '"2026-01-15T12:00:00"',
        "no-zone-before.md": '"2025-06-01T00:00:00"',
        "no-zone-after.md": '"2027-06-01T00:00:00"',
        "bare-date-after.md": "2027-01-01",
        "unreadable.md": '"not a time"',
        "zoned-after.md": "2027-01-01T00:00:00+02:00",
    }
    for name, when in created.items():
        write_file(tmp_path, name, memory_text(name[:-3], f"created: {when}\n"))
    bundle = load_bundle(tmp_path, store=store)
    table, counts = _query_rows(
        monkeypatch,
        lambda: memories_between(bundle, datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)),
    )
    assert [row["path"] for row in table] == ["in-range.md", "no-zone-in-range.md"]
    assert counts == [6]  # every row but the zoned time the store's filter decided


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_current_version_is_the_heads_of_the_version_rows_its_query_lists(tmp_path, monkeypatch, store: str) -> None:
    """Its query lists every version of the memory with each edge between them; the helper keeps the
    versions nothing supersedes (the chain's newest ones): here 2 rows of the query's 5, a forked chain."""
    edges = {"v1": ["v0"], "v2": ["v1"], "fork": ["v1"], "v3": ["v2"]}
    bundle = _versions_bundle(tmp_path, edges)
    heads, counts = _query_rows(monkeypatch, lambda: current_version(bundle, "v1"))
    assert heads.column("memory") == ["urn:mif:fork", "urn:mif:v3"]
    assert counts == [5]  # v0, v1, v2, v3, fork: one row each (each supersedes at most one)
    chain, counts = _query_rows(monkeypatch, lambda: supersession_chain(bundle, "v1"))
    assert len(chain) == 5 and counts == [5]  # the chain: every version the query lists
