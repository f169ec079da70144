"""The helpers give the same rows on every store, and parameters cannot change a query.

Three stores: rdflib's in-memory store (rdflib's SPARQL engine), oxrdflib's
Oxigraph store (Oxigraph's engine), and a ``SPARQLStore`` whose HTTP call is
replaced by a local pyoxigraph store, so the text a remote endpoint would
receive is really parsed and evaluated (results come back through the W3C
JSON results format, as over the wire).  Rows are compared as sets, values
by value, on all three; the two local stores give equal tables, row for row
with the same types, and so do Oxigraph's two ways out (rows read straight
from pyoxigraph, or through oxrdflib's rdflib terms), for helpers and for
every kind of term.
"""

from __future__ import annotations

import io
from collections import Counter
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from unittest import mock

import pandas
import pyarrow as pa
import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rdflib import Dataset
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.query import Result

from conftest import EXAMPLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import MIF
from mif_rdf.queries import (
    Table,
    conflicts,
    current_version,
    decay_profiles,
    freshness,
    memories_about,
    memories_between,
    memories_in_namespace,
    memories_of_type,
    memories_with_tag,
    neighbours,
    recorded_by,
    relationship_edges,
    run_query,
    select,
    supersession_chain,
    trusted,
    valid_at,
)
from mif_rdf.queries import native as native_module
from mif_rdf.queries.columns import Columns
from synthetic import generate_bundle

STORES = ("memory", "oxigraph", "remote")


class LocalEndpoint(SPARQLStore):
    """A SPARQL endpoint whose 'server' is a pyoxigraph store in this process."""

    def __init__(self, store: ox.Store) -> None:
        super().__init__(query_endpoint="http://endpoint.invalid/sparql", returnFormat="json")
        self.server, self.sent = store, []

    def _query(self, query: str, default_graph: str | None = None) -> Result:
        self.sent.append(query)
        answer = self.server.query(query, use_default_graph_as_union=True)
        return Result.parse(io.BytesIO(answer.serialize(format=ox.QueryResultsFormat.JSON)), format="json")


def _stores(root: Path) -> dict:
    memory = load_bundle(root)
    server = ox.Store()
    server.load(memory.dataset.serialize(format="nquads").encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    return {
        "memory": memory,
        "oxigraph": load_bundle(root, store="Oxigraph"),
        "remote": Dataset(store=LocalEndpoint(server), default_union=True),
        "bundle": memory,
    }


@pytest.fixture(scope="module")
def examples() -> dict:
    return _stores(EXAMPLES)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("synthetic") / "bundle"
    generate_bundle(root, 120, seed=5)
    return _stores(root)


def _calls(bundle) -> dict:
    """Every helper, with arguments that have answers in ``bundle`` (and ``as_`` passed on)."""
    memories = sorted(bundle.memories.values(), key=lambda m: m.relpath)
    superseded = next(
        (
            m.iri
            for m in memories
            for r in bundle.memories.values()
            for rel in r.frontmatter.get("relationships", [])
            if rel["type"] == "supersedes" and rel["target"].endswith(m.relpath)
        ),
        memories[0].iri,
    )
    hub = max(memories, key=lambda m: len(m.frontmatter.get("relationships", []))).iri
    cited = Counter(
        str(o) for s, p, o in bundle.links if p == MIF["relates-to"] and str(o) in {m.iri for m in memories}
    )
    popular = max(sorted(cited), key=cited.__getitem__)
    times = sorted(_when(m.frontmatter["created"]) for m in memories)
    tag = next(t for m in memories for t in m.frontmatter.get("tags", []))
    entity = next(ref["entity"]["@id"] for m in memories for ref in m.frontmatter.get("entities", []))
    namespace = next(m.frontmatter["namespace"] for m in memories if "namespace" in m.frontmatter).split("/")[0]
    return {
        "type": lambda g, **shape: memories_of_type(g, "semantic", **shape),
        "namespace": lambda g, **shape: memories_in_namespace(g, namespace, **shape),
        "tag": lambda g, **shape: memories_with_tag(g, tag, **shape),
        "entity": lambda g, **shape: memories_about(g, entity, **shape),
        "between": lambda g, **shape: memories_between(g, times[2].isoformat(), times[len(times) // 2], **shape),
        "modified": lambda g, **shape: memories_between(g, start=times[len(times) // 3], field="modified", **shape),
        "valid": lambda g, **shape: valid_at(g, times[len(times) // 2], **shape),
        "valid-known": lambda g, **shape: valid_at(g, times[len(times) // 2], known_at=times[len(times) // 3], **shape),
        "recorded": lambda g, **shape: recorded_by(g, times[len(times) // 2].date(), **shape),
        "freshness": lambda g, **shape: freshness(g, times[-1] + timedelta(days=20), **shape),
        "neighbours": lambda g, **shape: neighbours(g, hub, direction="both", depth=2, **shape),
        "neighbours-in": lambda g, **shape: neighbours(g, popular, "relates-to", direction="in", depth=3, **shape),
        "neighbours-typed-both": lambda g, **shape: neighbours(
            g, hub, "derived-from", direction="both", depth=3, **shape
        ),
        "chain": lambda g, **shape: supersession_chain(g, superseded, **shape),
        "current": lambda g, **shape: current_version(g, superseded, **shape),
        "conflicts": conflicts,
        "trusted": lambda g, **shape: trusted(g, "high_confidence", 0.5, **shape),
        "edges": relationship_edges,
    }


def _when(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _rows(table) -> set:
    return {
        tuple(sorted((k, v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items())) for row in table
    }


@pytest.mark.parametrize("bundle_name", ["examples", "synthetic"])
def test_every_helper_gives_the_same_rows_on_every_store(request, bundle_name: str) -> None:
    stores = request.getfixturevalue(bundle_name)
    answered = 0
    for name, call in _calls(stores["bundle"]).items():
        results = {store: call(stores[store] if store == "remote" else stores[store].dataset) for store in STORES}
        reference = _rows(results["memory"])
        for store in STORES[1:]:
            assert _rows(results[store]) == reference, f"{bundle_name}: {name} differs on {store}"
        answered += bool(reference)
    assert answered == len(_calls(stores["bundle"]))  # every call had rows to compare


def test_the_remote_store_gets_parameters_ahead_of_the_where_clause(examples) -> None:
    endpoint: LocalEndpoint = examples["remote"].store
    trusted(examples["remote"], "verified", 0.95)
    sent = endpoint.sent[-1]
    body = sent.split("WHERE {", 1)[1]
    assert body.lstrip().startswith(
        'VALUES (?min_rank ?min_confidence) { ("5"^^<http://www.w3.org/2001/XMLSchema#integer> "0.95"^^'
    )
    assert "\nVALUES" not in sent  # not the trailing VALUES rdflib would append, which FILTERs never see


# -- parameters are data, never query text --------------------------------------------------
INJECTIONS = [
    'incident" } ; DROP ALL ; #',
    "incident' } UNION { ?memory ?p ?o } #",
    'x" . ?memory mif:tags ?any . } #',
    '\\" ) } UNION { ?memory ?p ?o } #',
    'line\nbreak"""\n} UNION { ?memory ?p ?o }',
    'incident" } INSERT DATA { <urn:x> <urn:y> <urn:z> } #',
]


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("text", INJECTIONS)
def test_text_parameters_cannot_change_the_query(examples, store: str, text: str) -> None:
    graph = examples[store] if store == "remote" else examples[store].dataset
    before = len(examples["memory"].dataset)
    assert memories_with_tag(graph, text) == []
    assert memories_in_namespace(graph, text) == []
    assert len(examples["memory"].dataset) == before


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize(
    "text", ["x> } UNION { ?memory ?p ?o } #", 'urn:mif:x" ) }', "urn:mif:a b", "urn:mif:entity:x>"]
)
def test_iri_parameters_that_are_not_iris_are_refused(examples, store: str, text: str) -> None:
    graph = examples[store] if store == "remote" else examples[store].dataset
    with pytest.raises(
        MifRdfError, match="not a valid IRI|neither a memory id nor a memory IRI|must be an absolute IRI"
    ):
        neighbours(graph, text)
    with pytest.raises(MifRdfError):
        memories_about(graph, text)
    if " " not in text:  # a relationship type name turns spaces into hyphens (identity.canonical_relationship_name)
        with pytest.raises(MifRdfError):
            neighbours(graph, "urn:mif:8b8080e5-d237-47de-8ba5-66af64a00dcf", text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.sampled_from(["incident", "policy", "decision", "kafka"]),
        st.text(min_size=1, max_size=30).filter(lambda t: t.strip("/ ")),
    )
)
def test_any_tag_text_means_exactly_that_tag_on_the_remote_store(examples, tag: str) -> None:
    bundle = examples["bundle"]
    expected = {m.iri for m in bundle.memories.values() if tag in m.frontmatter.get("tags", [])}
    assert set(memories_with_tag(examples["remote"], tag).column("memory")) == expected


# -- the Oxigraph store: same tables, to the type, whichever way the rows come out -------------
def _typed(table) -> list:
    """Rows with each value's type and its exact form (a datetime's offset, a float's sign and NaN included)."""
    return [
        tuple(
            (
                k,
                type(v).__name__,
                v.isoformat() if isinstance(v, (datetime, date)) else repr(v) if isinstance(v, float) else v,
            )
            for k, v in row.items()
        )
        for row in table
    ]


def _by_oxrdflib(monkeypatch) -> None:
    """Send Oxigraph-backed graphs the old way: oxrdflib's rdflib terms, rdflib's Result, Table.from_result."""
    monkeypatch.setattr("mif_rdf.queries.native.oxigraph_store", lambda graph: None)


@pytest.mark.parametrize("bundle_name", ["examples", "synthetic"])
def test_every_helper_gives_equal_tables_on_both_local_stores(request, bundle_name: str) -> None:
    stores = request.getfixturevalue(bundle_name)
    for name, call in _calls(stores["bundle"]).items():
        memory, oxigraph = call(stores["memory"].dataset), call(stores["oxigraph"].dataset)
        assert memory.columns == oxigraph.columns, name
        assert _typed(memory) == _typed(oxigraph), f"{bundle_name}: {name} differs"  # in the same order, too


@pytest.mark.parametrize("bundle_name", ["examples", "synthetic"])
def test_oxigraph_tables_come_straight_from_pyoxigraph_unchanged(request, monkeypatch, bundle_name: str) -> None:
    stores = request.getfixturevalue(bundle_name)
    native = {name: call(stores["oxigraph"]) for name, call in _calls(stores["bundle"]).items()}
    _by_oxrdflib(monkeypatch)  # and parameters substituted, not a VALUES block
    for name, call in _calls(stores["bundle"]).items():
        through_rdflib = call(stores["oxigraph"])
        assert native[name].columns == through_rdflib.columns, name
        assert _typed(native[name]) == _typed(through_rdflib), (
            f"{bundle_name}: {name} differs"
        )  # in the same order, too


def test_the_native_path_is_taken_for_oxigraph(examples, monkeypatch) -> None:
    def no_rdflib(*args, **kwargs):
        raise AssertionError("went through rdflib")

    monkeypatch.setattr("mif_rdf.queries.native.run_query", no_rdflib)
    assert len(memories_of_type(examples["oxigraph"], "semantic")) > 0
    with pytest.raises(AssertionError, match="through rdflib"):
        memories_of_type(examples["memory"], "semantic")


XSD_ = "http://www.w3.org/2001/XMLSchema#"
DATATYPES = [
    XSD_ + name
    for name in (
        "string",
        "integer",
        "decimal",
        "double",
        "float",
        "boolean",
        "dateTime",
        "date",
        "time",
        "duration",
        "dayTimeDuration",
        "yearMonthDuration",
        "gYear",
        "int",
        "long",
        "unsignedByte",
        "negativeInteger",
        "normalizedString",
        "token",
        "anyURI",
        "hexBinary",
        "base64Binary",
    )
] + ["http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON", "urn:example:datatype"]
LEXICAL = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**20), 10**20).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.floats().map(repr),
    st.sampled_from(
        [
            "true",
            "false",
            "1",
            "0",
            "TRUE",
            "yes",
            "INF",
            "-INF",
            "NaN",
            "-0",
            "+7",
            "007",
            ".5",
            "1e3",
            " 12 ",
            "1_000",
            "P1Y2M",
            "PT36H",
            "P0D",
            "-P1D",
        ]
    ),
    st.datetimes(timezones=st.sampled_from([None, UTC, timezone(timedelta(hours=-5, minutes=-30))])).map(
        lambda d: d.isoformat()
    ),
    st.dates().map(str),
    st.sampled_from(
        [
            "2026-01-15T10:30:00Z",
            "2026-01-15T10:30:00.1234567Z",
            "2026-01-15",
            "2026-01-15Z",
            "2026-01-15+02:00",
            "10:30:00",
            "24:00:00",
            "2026-02-30T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "12026-01-01T00:00:00Z",
        ]
    ),
)
TERMS = st.one_of(
    st.tuples(LEXICAL, st.sampled_from(DATATYPES)).map(lambda t: ox.Literal(t[0], datatype=ox.NamedNode(t[1]))),
    st.tuples(st.text(max_size=12), st.sampled_from(["en", "de-CH", "fr", "zh-Hant-TW"])).map(
        lambda t: ox.Literal(t[0], language=t[1])
    ),
    st.text(max_size=12).map(ox.Literal),
    st.sampled_from(["urn:x:a", "https://example.org/a?b=c#d", "urn:x:é"]).map(ox.NamedNode),
    st.sampled_from(["b1", "node7"]).map(ox.BlankNode),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TERMS, min_size=1, max_size=8))
def test_every_kind_of_term_has_the_value_rdflib_gives_it(terms: list) -> None:
    import warnings

    dataset = Dataset(store="Oxigraph", default_union=True)
    inner = dataset.store._inner
    for i, term in enumerate(terms):
        inner.add(ox.Quad(ox.NamedNode(f"urn:s:{i}"), ox.NamedNode("urn:p"), term, ox.NamedNode("urn:g")))
        inner.add(
            ox.Quad(
                ox.NamedNode(f"urn:s:{i}"),
                ox.NamedNode("urn:q"),
                ox.Literal(str(i), datatype=ox.NamedNode(XSD_ + "integer")),
                ox.NamedNode("urn:g"),
            )
        )
    query = "SELECT ?i ?o ?none WHERE { ?s <urn:p> ?o ; <urn:q> ?i } ORDER BY ?i"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdflib warns about a boolean such as "yes"
        native = select(dataset, query)
        through_rdflib = Table.from_result(run_query(dataset, query))
        with mock.patch.object(native_module, "_SHORT_COLUMN", 0):  # the reading of long columns, on these terms
            read_as_long = select(dataset, query)
    assert native.columns == through_rdflib.columns == read_as_long.columns == ("i", "o", "none")
    assert _typed(native) == _typed(through_rdflib) == _typed(read_as_long)


#: Columns of one kind of term, which :func:`mif_rdf.queries.native._column` reads in one split: any text in the strings
#: (quotes, backslashes, tabs and newlines are escaped in TSV, and those cells go one by one),
#: IRIs with any allowed character.
PLAIN_TEXTS = st.text(alphabet=st.characters(codec="utf-8"), max_size=12).map(ox.Literal)
IRI_TEXTS = (
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters='<>"{}|^`\\% \t\n\r\x00'), max_size=8)
    .map(lambda t: _iri_or_none("urn:x:" + t))
    .filter(bool)
)


def _iri_or_none(text: str) -> ox.NamedNode | None:
    try:
        return ox.NamedNode(text)
    except ValueError:  # not every character may stand anywhere in an IRI
        return None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(PLAIN_TEXTS, min_size=1, max_size=8), st.lists(IRI_TEXTS, min_size=1, max_size=8)))
def test_columns_of_one_kind_have_the_values_rdflib_gives_them(terms: list) -> None:
    test_every_kind_of_term_has_the_value_rdflib_gives_it.hypothesis.inner_test(terms)


#: Terms that end or start like a simple cell or a timestamp without being one (or that Python cannot read as one):
#: a column holding one must still give rdflib's values.
LOOKALIKES = [
    ox.Triple(ox.NamedNode("urn:x:a"), ox.NamedNode("urn:x:p"), ox.Literal("o")),  # <<( ... )>> starts with <
    ox.Literal('say "hi"'),  # escaped quotes end with "
    ox.Literal("a\\b"),
    ox.Literal("x", datatype=ox.NamedNode("urn:example:datatype")),  # ends with >
    ox.Literal("x", language="en"),
    ox.Literal("7", datatype=ox.NamedNode(XSD_ + "integer")),  # bare
    ox.BlankNode("b1"),
    ox.Literal("2026-02-30T00:00:00Z", datatype=ox.NamedNode(XSD_ + "dateTime")),  # ill-typed: kept as text
    ox.Literal(
        "2026-01-15T10:30:00.1234567Z", datatype=ox.NamedNode(XSD_ + "dateTime")
    ),  # Python keeps 6 of the digits
    ox.Literal("2026-01-15", datatype=ox.NamedNode(XSD_ + "date")),
]


@pytest.mark.parametrize("odd", LOOKALIKES, ids=str)
@pytest.mark.parametrize("where", [0, 1, 3])
@pytest.mark.parametrize(
    "kind",
    [
        ox.NamedNode("urn:x:plain"),
        ox.Literal("plain"),
        ox.Literal("2026-01-15T10:30:00+02:00", datatype=ox.NamedNode(XSD_ + "dateTime")),
    ],
    ids=["iris", "strings", "timestamps"],
)
def test_one_lookalike_in_a_column_of_one_kind_gives_rdflib_s_value(odd, where: int, kind) -> None:
    terms = [kind] * 3
    terms.insert(where, odd)
    test_every_kind_of_term_has_the_value_rdflib_gives_it.hypothesis.inner_test(terms)


# -- times without a zone: one meaning (UTC) on every store ----------------------------------------
_ZONES = {  # file -> frontmatter lines after id and type
    "bare-date.md": "created: 2026-01-15\n",  # unquoted: an ill-typed xsd:dateTime, kept as written
    "no-zone.md": 'created: "2026-01-15T10:00:00"\n',
    "utc.md": "created: 2026-01-15T10:00:00Z\n",
    "offset.md": "created: 2026-01-15T10:00:00+05:00\n",
    "recorded-no-zone.md": 'created: 2026-01-01T00:00:00Z\ntemporal:\n  recordedAt: "2026-01-16T00:00:00"\n',
    "valid-no-zone.md": (
        'created: 2026-01-01T00:00:00Z\ntemporal:\n  validFrom: "2026-01-10T00:00:00"\n'
        '  validUntil: "2026-02-01T00:00:00"\n'
    ),
    "unreadable.md": 'created: "not a time"\n',
}


def _utc(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@pytest.fixture(scope="module")
def zones(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("zones")
    for index, (name, lines) in enumerate(_ZONES.items()):
        (root / name).write_text(
            f"---\nid: 00000000-0000-4000-8000-00000000000{index}\ntype: semantic\n{lines}---\nBody\n", encoding="utf-8"
        )
    return _stores(root)


@pytest.mark.parametrize(
    "at",
    [
        "2024-06-13T11:47:11Z",
        "2026-01-15T05:00:00Z",
        "2026-01-15T10:00:00Z",
        "2026-01-15T12:00:00+02:00",
        "2026-01-20T00:00:00Z",
        "2030-01-01T00:00:00Z",
    ],
)
def test_times_without_a_zone_are_utc_on_every_store(zones: dict, at: str) -> None:
    """rdflib and Oxigraph compare zoneless times differently; the helpers give both the package's reading (UTC)."""
    moment = datetime.fromisoformat(at)

    def expected(recorded: str | None, valid: tuple[str, str] | None = None) -> bool:
        return (
            recorded is not None
            and _utc(recorded) <= moment
            and (valid is None or _utc(valid[0]) <= moment < _utc(valid[1]))
        )

    recorded = {
        "bare-date.md": "2026-01-15",
        "no-zone.md": "2026-01-15T10:00:00",
        "utc.md": "2026-01-15T10:00:00Z",
        "offset.md": "2026-01-15T10:00:00+05:00",
        "recorded-no-zone.md": "2026-01-16T00:00:00",
        "valid-no-zone.md": "2026-01-01T00:00:00Z",
        "unreadable.md": None,
    }
    paths = {store: {row["path"] for row in recorded_by(zones[store], moment)} for store in STORES}
    want = {name for name, when in recorded.items() if expected(when)}
    assert paths == {store: want for store in STORES}
    valid = {store: {row["path"] for row in valid_at(zones[store], moment, known_at=moment)} for store in STORES}
    window = ("2026-01-10T00:00:00", "2026-02-01T00:00:00")
    want_valid = {
        name for name, when in recorded.items() if expected(when, window if name == "valid-no-zone.md" else None)
    }
    assert valid == {store: want_valid for store in STORES}
    created = {**recorded, "recorded-no-zone.md": "2026-01-01T00:00:00Z"}
    before = {store: [row["path"] for row in memories_between(zones[store], end=moment)] for store in STORES}
    want_before = {
        name for name, when in created.items() if when is not None and _utc(when) < moment
    }  # end is excluded
    assert {store: set(rows) for store, rows in before.items()} == {store: want_before for store in STORES}
    assert len({tuple(rows) for rows in before.values()}) == 1  # in one order, too


def test_freshness_reads_zoneless_times_alike_on_every_store(zones: dict) -> None:
    at = datetime(2026, 1, 15, 7, tzinfo=UTC)
    tables = {
        store: {row["path"]: (row["freshness"], row["problem"]) for row in freshness(zones[store], at)}
        for store in STORES
    }
    assert tables["oxigraph"] == tables["memory"] == tables["remote"]
    assert tables["memory"]["bare-date.md"] == (1.0, None) and tables["memory"]["no-zone.md"] == (
        None,
        "not recorded yet",
    )


def test_memories_between_orders_every_time_as_utc(zones: dict) -> None:
    rows = {store: [row["path"] for row in memories_between(zones[store])] for store in STORES}
    assert len({tuple(paths) for paths in rows.values()}) == 1
    # 10:00+05:00 is 05:00Z, a bare date is midnight UTC, the unreadable time last
    assert rows["memory"][-5:] == ["bare-date.md", "offset.md", "no-zone.md", "utc.md", "unreadable.md"]


# -- columnar results: DataFrames and Arrow tables hold the Table's rows ---------------------------
def _columnar_calls(bundle) -> dict:
    return {**_calls(bundle), "profiles": decay_profiles}


def _arrow_expected(values: list, kind) -> list:
    """A Table column as its Arrow table reads back: the values, or their text in a text column."""
    if not pa.types.is_string(kind) or all(v is None or isinstance(v, str) for v in values):
        return values
    return [None if v is None else v.isoformat() if isinstance(v, (date, datetime)) else str(v) for v in values]


@pytest.mark.parametrize("bundle_name", ["examples", "synthetic"])
@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_each_helper_gives_its_table_as_a_dataframe_and_an_arrow_table(request, bundle_name: str, store: str) -> None:
    stores = request.getfixturevalue(bundle_name)
    graph = stores[store].dataset
    for name, call in _columnar_calls(stores["bundle"]).items():
        table = call(graph)
        pandas.testing.assert_frame_equal(
            call(graph, as_="dataframe"), table.to_dataframe(), obj=f"{bundle_name} {store} {name}"
        )
        arrow = call(graph, as_="arrow")
        assert arrow.column_names == list(table.columns), name
        assert arrow.num_rows == len(table), name
        for column in table.columns:
            read = arrow.column(column).to_pylist()
            assert read == _arrow_expected(table.column(column), arrow.schema.field(column).type), f"{name}.{column}"


@pytest.mark.parametrize("length", [4, 70])  # a short chain goes to Arrow as buffers, a long one through pyarrow
def test_the_version_helpers_give_their_table_as_arrow_on_both_stores(tmp_path, length: int) -> None:
    """``supersession_chain`` and ``current_version`` (issue 34 item 5): versions without a title and with
    non-ASCII ones, a fork, offsets on both sides of zero; the Arrow table holds the Table's rows, typed,
    and both stores give the same."""
    names = [f"v{i}" for i in range(length)]
    for i, name in enumerate(names):
        title = "" if i % 3 == 1 else f"title: Fassung {name} – naïve 版\n"
        older = f"relationships:\n  - type: supersedes\n    target: /{names[i - 1]}.md\n" if i else ""
        write_file(tmp_path, f"{name}.md", memory_text(name, title + older))
    write_file(tmp_path, "fork.md", memory_text("fork", "relationships:\n  - type: supersedes\n    target: /v1.md\n"))
    found: dict[str, list] = {}
    for store in ("default", "Oxigraph"):
        bundle = load_bundle(tmp_path, store=store)
        for helper in (supersession_chain, current_version):
            for memory in ("v1", f"v{length // 2}"):
                table, arrow = helper(bundle, memory), helper(bundle, memory, as_="arrow")
                assert arrow.column_names == list(table.columns) == ["memory", "path", "title", "offset"]
                assert [str(kind) for kind in arrow.schema.types] == ["string", "string", "string", "int64"]
                assert arrow.to_pylist() == list(table)
                found.setdefault(store, []).append(list(table))
    chain, heads = found["Oxigraph"][1], found["Oxigraph"][2]  # the chain around the middle; v1's heads
    assert len(chain) == length and {row["offset"] for row in chain} >= {-1, 0, 1}
    assert None in [row["title"] for row in chain] and "Fassung v0 – naïve 版" in [row["title"] for row in chain]
    assert [row["memory"] for row in heads] == ["urn:mif:fork", f"urn:mif:v{length - 1}"]
    assert found["Oxigraph"] == found["default"]


@pytest.mark.parametrize("length", [3, 100])  # a short column is typed here, a long one by pyarrow
def test_arrow_columns_keep_their_values_and_whole_numbers_past_64_bits_become_text(length: int) -> None:
    numbers = [*range(length - 1), None]
    columns = Columns(("text", "number", "huge", "none"), [["a"] * length, numbers, [2**64] * length, [None] * length])
    arrow = columns.arrow()
    assert [str(arrow.schema.field(name).type) for name in columns.names] == ["string", "int64", "string", "null"]
    assert arrow.column("number").to_pylist() == numbers
    assert arrow.column("huge").to_pylist() == [str(2**64)] * length


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.lists(st.one_of(st.none(), st.text()), min_size=1, max_size=63),
        st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), min_size=1, max_size=63),
    )
)
@example(["a\ud800", None])  # a lone surrogate: no UTF-8 for it
@example([None, "", "é€𝄞"])
def test_short_arrow_columns_built_from_their_buffers_are_pyarrow_s_own(column: list) -> None:
    """A short column of text or whole numbers goes to Arrow as its buffers: the array pyarrow makes of the list."""
    if all(value is None for value in column):  # pyarrow types those itself (null), as before
        column = [*column, "a"]
    try:
        expected = pa.array(column, pa.string() if any(isinstance(v, str) for v in column) else pa.int64())
    except (UnicodeEncodeError, pa.ArrowException) as exc:  # a lone surrogate: the same error as pyarrow's
        with pytest.raises(type(exc)):
            Columns(("c",), [column]).arrow()
        return
    got = Columns(("c",), [column]).arrow().column("c").chunk(0)
    got.validate(full=True)
    assert got.type == expected.type and got.equals(expected) and got.null_count == expected.null_count
    assert got.to_pylist() == column


def test_arrow_tables_hold_each_column_once_in_order() -> None:
    """Columns become the table's columns in their order; a repeated name is one column (its last values),
    as a dict of columns has it."""
    arrow = Columns(("b", "a"), [[1, None], ["x", "y"]]).arrow()
    assert arrow.equals(pa.table({"b": pa.array([1, None]), "a": pa.array(["x", "y"])}))
    repeated = Columns(("x", "y", "x"), [[1, 2], ["a", "b"], [3, 4]]).arrow()
    assert repeated.column_names == ["x", "y"] and repeated.column("x").to_pylist() == [3, 4]


def test_objects_become_text_in_arrow(examples) -> None:
    arrow = decay_profiles(examples["oxigraph"], as_="arrow")
    assert pa.types.is_string(arrow.schema.field("profile").type)
    assert arrow.column("profile").to_pylist()[0].startswith("DecayProfile(")


def test_columnar_results_build_no_row_dicts_on_oxigraph(synthetic, monkeypatch) -> None:
    """On Oxigraph a DataFrame comes from the result's columns: no Table, no dict per row."""

    def no_rows(*args, **kwargs):
        raise AssertionError("rows were built")

    expected = {name: call(synthetic["oxigraph"]) for name, call in _columnar_calls(synthetic["bundle"]).items()}
    monkeypatch.setattr(Columns, "rows", no_rows)
    monkeypatch.setattr(Table, "__init__", no_rows)
    for name, call in _columnar_calls(synthetic["bundle"]).items():
        assert len(call(synthetic["oxigraph"], as_="dataframe")) == len(expected[name]), name


def test_select_gives_the_same_shapes_and_refuses_unknown_ones(examples) -> None:
    query = "SELECT ?memory ?path WHERE { ?memory mif:path ?path } ORDER BY ?path"
    for store in ("memory", "oxigraph"):
        table = select(examples[store], query)
        pandas.testing.assert_frame_equal(select(examples[store], query, as_="dataframe"), table.to_dataframe())
        assert select(examples[store], query, as_="arrow").to_pylist() == list(table)
        with pytest.raises(MifRdfError, match="unknown result shape 'polars'"):
            select(examples[store], query, as_="polars")  # type: ignore[arg-type]
