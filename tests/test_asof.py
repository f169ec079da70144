""" "As of" over valid time (issue 38, item 4): the memories valid at a date by spec 9 (validFrom,
validUntil, ttl from recordedAt or created), checked against the test's own reading of the
files (yaml.safe_load and plain datetime arithmetic), on the API and the command line."""

from __future__ import annotations

import calendar
import csv
import io
import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from rdflib import URIRef

from conftest import memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.queries.asof import restrict, valid_memories

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")

#: name -> temporal block (None: no temporal data at all)
CORPUS = {
    "always": None,
    "from-feb": (
        "  validFrom: 2026-02-01T00:00:00Z\n  recordedAt: 2026-01-20T00:00:00Z\n  decay:\n"
        "    model: exponential\n    halfLife: P7D\n    lastReinforced: 2026-02-05T00:00:00Z\n"
    ),
    "until-march": "  validUntil: 2026-03-01T00:00:00Z\n",
    "from-date-open": "  validFrom: 2026-02-01\n  validUntil: null\n",
    "zoned-window": "  validFrom: 2026-01-01T00:00:00+02:00\n  validUntil: 2026-02-15T12:00:00-05:00\n",
    "ttl-recorded": "  recordedAt: 2026-01-20T00:00:00Z\n  ttl: P30D\n  decay:\n    model: linear\n",
    "ttl-created": "  ttl: P10D\n",
    "ttl-hours": "  recordedAt: 2026-02-10T00:00:00Z\n  ttl: PT12H\n",
    "ttl-month": "  recordedAt: 2026-01-31T00:00:00Z\n  ttl: P1M\n",
    "until-unzoned": "  validUntil: 2026-02-20T00:00:00\n",
    "bad-ttl": "  recordedAt: 2026-01-20T00:00:00Z\n  ttl: soon\n",
}
MOMENTS = [
    "2025-12-31",
    "2026-01-10",
    "2026-01-24",
    "2026-01-26T00:00:00Z",
    "2026-02-10T06:00:00Z",
    "2026-02-10T13:00:00Z",
    "2026-02-15T16:30:00Z",
    "2026-02-15T17:30:00Z",
    "2026-02-20",
    "2026-02-27T23:00:00Z",
    "2026-02-28",
    "2026-03-01",
    "2027-01-01",
]


def uuid_of(index: int) -> str:
    return f"00000000-0000-4000-8000-{index:012d}"


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("asof") / "bundle"
    names = list(CORPUS)
    for index, name in enumerate(names):
        temporal = CORPUS[name]
        extra = f"title: {name}\n" + (f"temporal:\n{temporal}" if temporal else "")
        target = names[(index + 1) % len(names)]  # a ring of links: each edge stays only when both ends do
        extra += f"relationships:\n  - type: relates-to\n    target: ./{target}.md\n"
        write_file(
            root,
            f"{name}.md",
            memory_text(
                uuid_of(index), extra, body=f"{name}.\n\n## Relationships\n- relates-to [{target}](./{target}.md)\n"
            ),
        )
    return root


# -- the oracle: the files as YAML, spec 9 by hand ---------------------------------------------
def utc(value: object) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def add_duration(start: datetime, text: str) -> datetime | None:
    match = re.fullmatch(r"P(?:(\d+)M)?(?:(\d+)D)?(?:T(\d+)H)?", text)
    if match is None or not any(match.groups()):
        return None
    months, days, hours = (int(g or 0) for g in match.groups())
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    moved = start.replace(year=year, month=month, day=min(start.day, calendar.monthrange(year, month)[1]))
    return moved + timedelta(days=days, hours=hours)


def expected_valid(root: Path, at: datetime) -> set[str]:
    valid = set()
    for path in sorted(root.glob("*.md")):
        frontmatter = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
        temporal = frontmatter.get("temporal") or {}
        start, until = utc(temporal.get("validFrom")), utc(temporal.get("validUntil"))
        recorded = utc(temporal.get("recordedAt")) or utc(frontmatter["created"])
        end_of_ttl = add_duration(recorded, temporal["ttl"]) if "ttl" in temporal else None
        if (start is None or start <= at) and (until is None or at < until) and (end_of_ttl is None or at < end_of_ttl):
            valid.add(path.name)
    return valid


def test_the_oracle_sees_the_edges_of_the_windows(bundle_dir: Path) -> None:
    """The corpus is worth testing against: every memory is out of time at one moment and in at another."""
    seen = [expected_valid(bundle_dir, utc(m)) for m in MOMENTS]
    every = {f"{name}.md" for name in CORPUS}
    assert set().union(*seen) == every
    assert {name for name in every if all(name in s for s in seen)} == {"always.md", "bad-ttl.md"}
    assert "ttl-month.md" in expected_valid(
        bundle_dir, utc("2026-02-27T23:00:00Z")
    ) and "ttl-month.md" not in expected_valid(bundle_dir, utc("2026-02-28"))


@pytest.mark.parametrize("store", ["memory", "oxigraph"])  # the memories' triples read one by one; the helpers
def test_valid_memories_match_the_files_at_every_moment(bundle_dir: Path, store: str) -> None:
    bundle = load_bundle(bundle_dir, store=store)
    paths = {record.iri: record.relpath for record in bundle.memories.values()}
    for moment in MOMENTS:
        assert {paths[iri] for iri in valid_memories(bundle.dataset, moment)} == expected_valid(
            bundle_dir, utc(moment)
        ), moment
    assert valid_memories(bundle.dataset, date(2026, 2, 28)) == valid_memories(bundle.dataset, "2026-02-28T00:00:00Z")


@pytest.mark.parametrize("moment", ["2026-01-24", "2026-02-15T17:30:00Z"])
def test_restrict_keeps_the_valid_memories_and_only_links_between_them(bundle_dir: Path, moment: str) -> None:
    bundle = load_bundle(bundle_dir)
    every = {record.iri for record in bundle.memories.values()}
    gone = restrict(bundle, moment)
    expected = expected_valid(bundle_dir, utc(moment))
    assert {r.relpath for r in bundle.memories.values()} == expected and set(gone) == {
        f"{n}.md" for n in CORPUS
    } - expected
    kept = {record.iri for record in bundle.memories.values()}
    named = {str(g.identifier) for g in bundle.dataset.graphs()}
    assert kept <= named and not (every - kept) & named
    mentioned = {
        str(t)
        for triple in bundle.dataset.quads((None, None, None, None))
        for t in (triple[0], triple[2])
        if isinstance(t, URIRef)
    }
    assert not (every - kept) & mentioned  # no triple in any graph names a memory out of time
    edges = {(str(s), str(o)) for s, _, o in bundle.links if str(o) in every}
    ring = [uuid_of(i) for i in range(len(CORPUS))]
    expected_edges = {
        (f"urn:mif:{a}", f"urn:mif:{b}")
        for a, b in zip(ring, ring[1:] + ring[:1])
        if f"urn:mif:{a}" in kept and f"urn:mif:{b}" in kept
    }
    assert edges == expected_edges and edges


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MIF_RDF, *args], capture_output=True, text=True, timeout=300)


def test_query_as_of_on_the_command_line(bundle_dir: Path) -> None:
    moment = "2026-02-10T13:00:00Z"
    done = run(
        "query", "--format", "csv", str(bundle_dir), "SELECT ?path WHERE { ?m mif:path ?path }", "--as-of", moment
    )
    assert done.returncode == 0, done.stderr
    assert {row["path"] for row in csv.DictReader(io.StringIO(done.stdout))} == expected_valid(bundle_dir, utc(moment))
    assert f"as of {moment}: {len(expected_valid(bundle_dir, utc(moment)))} memories valid" in done.stderr


def test_export_as_of_writes_only_the_valid_memories(bundle_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.nq"
    done = run("export", str(bundle_dir), "--as-of", "2026-01-10", "-o", str(out))
    assert done.returncode in (0, 1), done.stderr
    graphs = {line.rsplit(" ", 2)[-2] for line in out.read_text(encoding="utf-8").splitlines() if line.strip()}
    memories = {g.strip("<>") for g in graphs if g.startswith("<urn:mif:")}
    bundle = load_bundle(bundle_dir)
    expected = {r.iri for r in bundle.memories.values() if r.relpath in expected_valid(bundle_dir, utc("2026-01-10"))}
    assert memories == expected


def test_a_date_that_is_no_date_is_a_clear_error(bundle_dir: Path) -> None:
    done = run("query", str(bundle_dir), "ASK {}", "--as-of", "last tuesday")
    assert done.returncode == 2 and "last tuesday" in done.stderr and "Traceback" not in done.stderr


# -- inside SPARQL: mif:validAt and mif:freshness ---------------------------------------------
@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_sparql_valid_at_and_freshness_agree_with_the_helpers_at_every_moment(bundle_dir: Path, store: str) -> None:
    from mif_rdf.queries import freshness, run_query

    bundle = load_bundle(bundle_dir, store=store)
    decaying: set[float] = set()
    for moment in MOMENTS:
        rows = run_query(
            bundle,
            f'SELECT ?m ?valid ?fresh WHERE {{ ?m mif:location ?l . BIND(mif:validAt(?m, "{moment}") AS ?valid) '
            f'BIND(mif:freshness(?m, "{moment}") AS ?fresh) }}',
        )
        rows = list(rows)
        assert len(rows) == len(CORPUS)
        assert {str(r.m) for r in rows if r.valid.toPython() is True} == valid_memories(bundle.dataset, moment), moment
        helper = {str(r["memory"]): r["freshness"] for r in freshness(bundle, moment)}
        assert {str(r.m): (None if r.fresh is None else r.fresh.toPython()) for r in rows} == helper, moment
        decaying.update(value for value in helper.values() if value is not None and 0 < value < 1)
    assert len(decaying) >= 4  # the exponential and linear models were evaluated, not only "none"
    strength = run_query(
        bundle, 'SELECT ?m ?s WHERE { ?m mif:location ?l BIND(mif:strengthAt(?m, "2026-02-20") AS ?s) }'
    )
    assert {str(r.m): (None if r.s is None else r.s.toPython()) for r in strength} == {
        str(r["memory"]): r["freshness"] for r in freshness(bundle, "2026-02-20")
    }
    selected = run_query(
        bundle, 'SELECT ?p WHERE { ?m mif:path ?p . FILTER(mif:validAt(?m, "2026-02-10T13:00:00Z"^^xsd:dateTime)) }'
    )
    assert {str(r.p) for r in selected} == expected_valid(bundle_dir, utc("2026-02-10T13:00:00Z"))


def test_an_unknown_function_on_oxigraph_is_a_clear_error(bundle_dir: Path) -> None:
    done = run(
        "query",
        str(bundle_dir),
        "--store",
        "oxigraph",
        'SELECT ?m WHERE { ?m mif:path ?p FILTER(mif:validWhen(?m, "2026-01-01")) }',
    )
    assert done.returncode == 2 and "mif:validAt" in done.stderr and "validWhen" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


AS_OF_QUERIES = (
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",  # the default graph: a set of the remaining graphs' triples
    "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g",
    "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRENDS(STR(?g), '#links')) } ORDER BY ?s ?p ?o",
)


def test_query_as_of_from_the_query_database_is_the_memory_store_restricted(
    bundle_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default route (Oxigraph's query database, one per moment, kept in the cache) answers what rdflib's
    memory store answers after the restriction, note included; a moment asked again reads nothing again."""
    from mif_rdf.cli.main import main

    cache = ["--cache-dir", str(tmp_path / "cache")]

    def query(text: str, *options: str) -> tuple[str, str]:
        assert main(["query", str(bundle_dir), text, "--format", "csv", "--as-of", "2026-02-10", *options]) == 0
        out, err = capsys.readouterr()
        return out, next(line for line in err.splitlines() if line.startswith("as of"))

    for text in AS_OF_QUERIES:
        expected = query(text, "--store", "memory", "--no-cache")
        assert query(text, *cache) == expected, text
        assert expected[0].count("\n") > 1
    assert main(["query", str(bundle_dir), AS_OF_QUERIES[0], "--as-of", "2026-02-10T00:00:00Z", "-v", *cache]) == 0
    assert "the query database answers" in capsys.readouterr().err  # the same moment, written another way
    plain = main(["query", str(bundle_dir), AS_OF_QUERIES[0], "--format", "csv", *cache])
    out, _ = capsys.readouterr()
    assert plain == 0 and out != query(AS_OF_QUERIES[0], *cache)[0]  # the plain query database is another
