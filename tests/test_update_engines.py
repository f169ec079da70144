"""Write-back on both SPARQL engines (issue 31 item 5): rdflib's, and the in-memory pyoxigraph copy that
``engine="auto"`` takes on a memory-store bundle.  The oracle is rdflib's engine: every update must write the
same bytes (or refuse with the same messages) on both, including literals Oxigraph keeps in a canonical form."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mif_rdf.bundle import load_bundle
from mif_rdf.output.update import update_bundle
from mif_rdf.output.update.oxigraph_engine import oxigraph_can_run
from mif_rdf.output.update.plan import check_update_safety

pytest.importorskip("pyoxigraph")

EXAMPLES = Path(__file__).parent.parent / "examples"
INCIDENT = "urn:mif:16a9a01f-23e4-466b-94db-25d33054d295"
UPDATES = {
    "retag": 'DELETE { GRAPH ?m { ?m mif:tags "kafka" } } INSERT { GRAPH ?m { ?m mif:tags "streaming" } } '
    'WHERE { GRAPH ?m { ?m mif:tags "kafka" } }',
    "close validity windows": "DELETE { GRAPH ?m { ?t mif:validUntil ?u } } "
    'INSERT { GRAPH ?m { ?t mif:validUntil "2026-12-01T09:00:00+00:00"^^xsd:dateTime } } '
    "WHERE { GRAPH ?m { ?m ?has ?t . ?t mif:validFrom ?f OPTIONAL { ?t mif:validUntil ?u } } }",
    "lower trust": "DELETE { GRAPH ?m { ?p mif:confidence ?c } } INSERT { GRAPH ?m { ?p mif:confidence 0.250 } } "
    "WHERE { GRAPH ?m { ?m mif:provenance ?p . ?p mif:confidence ?c FILTER(?c > 0.5) } }",
    "time zone": "DELETE { GRAPH ?m { ?m mif:timestamp ?t } } "
    'INSERT { GRAPH ?m { ?m mif:timestamp "2026-12-06T10:00:00+01:00"^^xsd:dateTime } } '
    f"WHERE {{ BIND(<{INCIDENT}> AS ?m) GRAPH ?m {{ ?m mif:timestamp ?t }} }}",
    "language tag": f'INSERT DATA {{ GRAPH <{INCIDENT}> {{ <{INCIDENT}> mif:tags "Zahlungen"@de }} }}',
    "integer lexical form": f"INSERT DATA {{ GRAPH <{INCIDENT}> {{ <{INCIDENT}> mif:tags 07 }} }}",
}


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(tmp_path: Path, engine: str, update: str) -> tuple[dict[str, bytes], list[str], bool]:
    root = tmp_path / engine
    shutil.copytree(EXAMPLES, root)
    result = update_bundle(load_bundle(root), update, engine=engine)
    return _files(root), [str(problem) for problem in result.refusals], result.written


@pytest.mark.parametrize("name", list(UPDATES))
def test_both_engines_write_the_same_files(tmp_path: Path, name: str) -> None:
    update = UPDATES[name]
    assert oxigraph_can_run(update, check_update_safety(update))  # "auto" really takes Oxigraph here
    on_rdflib = _run(tmp_path, "rdflib", update)
    on_oxigraph = _run(tmp_path, "auto", update)
    assert on_oxigraph == on_rdflib
    files, refusals, written = on_rdflib
    assert written != bool(refusals)  # each case does something: writes, or is refused
    if written:
        assert files != _files(EXAMPLES)


def test_delete_where_with_a_graph_variable(tmp_path: Path) -> None:
    """rdflib's engine deletes nothing for ``DELETE WHERE { GRAPH ?m {...} }``; Oxigraph follows SPARQL 1.1 (the
    same as ``DELETE {...} WHERE {...}``), which the rdflib engine runs right: that is the oracle here."""
    update = 'DELETE WHERE { GRAPH ?m { ?m mif:tags "kafka" } }'
    assert oxigraph_can_run(update, check_update_safety(update))
    oracle = _run(
        tmp_path, "rdflib", 'DELETE { GRAPH ?m { ?m mif:tags "kafka" } } WHERE { GRAPH ?m { ?m mif:tags "kafka" } }'
    )
    files, refusals, written = _run(tmp_path / "auto", "auto", update)
    assert (files, refusals, written) == oracle and written
    assert b"  - kafka\n" not in files["episodic/incident-2025-11-webhook-backlog.md"]


@pytest.mark.parametrize(
    "update",
    [
        'INSERT { GRAPH ?m { ?m mif:tags "x" } } WHERE { ?m a mif:Concept }',  # WHERE on the default graph (union)
        'DELETE { ?m mif:tags "kafka" } WHERE { GRAPH ?m { ?m mif:tags "kafka" } }',  # template on the default graph
        "CLEAR GRAPH <urn:mif:x>",
        'INSERT DATA { GRAPH <urn:mif:x> { <urn:mif:x> mif:tags "servicE" } }',  # the word SERVICE
    ],
)
def test_updates_read_otherwise_by_oxigraph_stay_on_rdflib(update: str) -> None:
    assert not oxigraph_can_run(update, check_update_safety(update))


def test_unknown_engine_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="unknown update engine 'jena'"):
        update_bundle(load_bundle(EXAMPLES), UPDATES["retag"], engine="jena", dry_run=True)


def test_without_pyoxigraph_the_update_runs_on_rdflib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyoxigraph is an optional extra: without it ``engine="auto"`` falls back to rdflib's engine, same files."""
    import mif_rdf.load.stores as stores
    import mif_rdf.output.update.oxigraph_engine as oxigraph_engine

    expected = _run(tmp_path / "oracle", "rdflib", UPDATES["retag"])

    def no_oxigraph(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Oxigraph path ran without pyoxigraph")

    monkeypatch.setattr(stores, "oxigraph_installed", lambda: False)
    monkeypatch.setattr(oxigraph_engine, "run_on_oxigraph", no_oxigraph)
    assert _run(tmp_path / "fallback", "auto", UPDATES["retag"]) == expected and expected[2]


@pytest.mark.parametrize("under_the_store", [True, False])
def test_the_oxigraph_copy_holds_every_quad_of_the_dataset(under_the_store: bool) -> None:
    """The copy reads rdflib's memory store's per-graph sets (or, for any other store, the graphs as rdflib gives
    them); either way it holds exactly what ``Dataset.quads`` says, blank nodes, literals and the default graph
    included (the oracle: the quads converted one by one)."""
    import pyoxigraph as ox
    from rdflib import BNode, Literal, URIRef
    from rdflib.plugins.stores.memory import Memory

    from mif_rdf.output.update import oxigraph_engine

    bundle = load_bundle(EXAMPLES)
    dataset = bundle.dataset
    dataset.default_graph.add((URIRef("urn:x:s"), URIRef("urn:x:p"), Literal("in the default graph", lang="en")))
    dataset.graph(URIRef(INCIDENT)).add((BNode("b1"), URIRef("urn:x:p"), Literal("07")))
    if not under_the_store:

        class OtherMemory(Memory):  # not exactly rdflib's Memory: the copy must not look under it
            pass

        other = type(dataset)(store=OtherMemory())
        other.addN((s, p, o, other.graph(g)) for s, p, o, g in dataset.quads((None, None, None, None)))
        dataset = other
    oracle = ox.Store()
    term = oxigraph_engine._ox_terms()
    oracle.extend(
        ox.Quad(term(s), term(p), term(o), oxigraph_engine._ox_graph(g))
        for s, p, o, g in dataset.quads((None, None, None, None))
    )
    copied = oxigraph_engine._copy(dataset)
    dump = ox.RdfFormat.N_QUADS
    assert set(copied.dump(format=dump).splitlines()) == set(oracle.dump(format=dump).splitlines())
    assert len(copied) == len(oracle) > 1000
    assert len(list(copied.quads_for_pattern(None, None, None, ox.DefaultGraph()))) == 1
