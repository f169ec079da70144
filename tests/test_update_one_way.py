"""The change of an update that only inserts or only deletes, found graph by graph (issue 31 item 5).

The Oxigraph engine found every update's change by dumping the whole store
before and after and comparing the lines (1.9 s of CPU at 10,000 memories).
An update that only inserts (or only deletes) changes a graph's content
exactly when it changes the graph's number of quads, so
:func:`mif_rdf.output.update.oxigraph_engine.run_on_oxigraph` counts the quads
per graph and compares only the graphs whose count moved.  The oracle is the
whole-store comparison itself: on the same loaded bundle, the quads added and
removed must be the same (blank nodes the update makes are fresh on each run,
so they are compared as blank nodes, the bundle's own by their ids).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rdflib import BNode

from mif_rdf.bundle import load_bundle
from mif_rdf.output.update import oxigraph_engine
from mif_rdf.output.update.oxigraph_engine import one_way, run_on_oxigraph
from mif_rdf.output.update.plan import check_update_safety
from mif_rdf.queries.sparql import INIT_NS

pytest.importorskip("pyoxigraph")

EXAMPLES = Path(__file__).parent.parent / "examples"
INCIDENT = "urn:mif:16a9a01f-23e4-466b-94db-25d33054d295"
NEW = "urn:mif:0b7e5c1a-1111-4a2b-9c3d-123456789abc"
TAG = 'GRAPH ?m { ?m mif:tags "kafka" }'
X = "GRAPH <urn:mif:x> { <urn:mif:x> mif:tags"
ONE_WAY = {
    "retag by adding a tag": f'INSERT {{ GRAPH ?m {{ ?m mif:tags "streaming" }} }} WHERE {{ {TAG} }}',
    "close open validity windows": "INSERT { GRAPH ?m { ?t mif:validUntil "
    '"2026-12-01T09:00:00+00:00"^^xsd:dateTime } } '
    "WHERE { GRAPH ?m { ?m ?has ?t . ?t mif:validFrom ?f FILTER NOT EXISTS { ?t mif:validUntil ?u } } }",
    "a tag already there (no change) and a new one": f"INSERT DATA {{ GRAPH <{INCIDENT}> "
    f'{{ <{INCIDENT}> mif:tags "kafka", 07 }} }}',
    "a new memory": f"INSERT DATA {{ GRAPH <{NEW}> {{ <{NEW}> a mif:Concept ; mif:conceptType mif:SemanticType ; "
    'dc:created "2026-12-06T02:00:00Z"^^xsd:dateTime ; mif:namespace "_semantic/notes" ; dc:title "A note" } }',
    "a blank node inserted": 'INSERT { GRAPH ?m { ?m mif:provenance [ mif:confidence 0.5 ; mif:trustLevel "x" ] } } '
    f"WHERE {{ {TAG} }}",
    "delete a tag": f"DELETE WHERE {{ {TAG} }}",
    "delete under blank nodes, literals Oxigraph writes otherwise": "DELETE { GRAPH ?m { ?p mif:confidence ?c } } "
    "WHERE { GRAPH ?m { ?m mif:provenance ?p . ?p mif:confidence ?c } } ; "
    "DELETE WHERE { GRAPH ?m { ?m mif:timestamp ?t } }",
    "delete a whole memory": f"DELETE WHERE {{ GRAPH <{INCIDENT}> {{ ?s ?p ?o }} }}",
    "delete nothing": 'DELETE DATA { GRAPH <urn:mif:nobody> { <urn:mif:nobody> mif:tags "none" } }',
}


def _undo(dataset: Any, added: set[Any], removed: set[Any]) -> None:
    for s, p, o, g in added:
        (dataset.graph(g) if g is not None else dataset.default_graph).remove((s, p, o))
    for s, p, o, g in removed:
        (dataset.graph(g) if g is not None else dataset.default_graph).add((s, p, o))


def _fresh_blank_nodes_as_one(quads: set[Any], own: set[Any]) -> list[tuple[str, ...]]:
    """The quads with the blank nodes the update made (not the bundle's own) written alike, sorted with repeats."""
    return sorted(
        tuple("_:fresh" if isinstance(t, BNode) and t not in own else t.n3() if t is not None else "" for t in quad)
        for quad in quads
    )


@pytest.mark.parametrize("name", list(ONE_WAY))
def test_the_change_found_graph_by_graph_is_the_change_the_dumps_find(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = ONE_WAY[name]
    algebra = check_update_safety(update)
    assert oxigraph_engine.oxigraph_can_run(update, algebra) and one_way(algebra) is not None
    dataset = load_bundle(EXAMPLES).dataset
    original = set(dataset.quads((None, None, None, None)))
    own = {t for quad in original for t in quad if isinstance(t, BNode)}
    compared: list[int] = []
    changed_graphs = oxigraph_engine._changed_graphs

    def spied(*args: Any) -> Any:
        found = changed_graphs(*args)
        compared.append(len(found[0]) + len(found[1]))
        return found

    monkeypatch.setattr(oxigraph_engine, "_changed_graphs", spied)
    added, removed = run_on_oxigraph(dataset, update, INIT_NS, algebra)
    assert len(compared) == 1  # the graph-by-graph path ran
    assert set(dataset.quads((None, None, None, None))) == (original - removed) | added
    _undo(dataset, added, removed)
    assert set(dataset.quads((None, None, None, None))) == original
    whole_added, whole_removed = run_on_oxigraph(dataset, update, INIT_NS)  # no algebra: the whole-store dumps
    assert len(compared) == 1
    assert whole_removed == removed
    assert _fresh_blank_nodes_as_one(whole_added, own) == _fresh_blank_nodes_as_one(added, own)
    assert bool(added or removed) == (name != "delete nothing")


@pytest.mark.parametrize(
    ("update", "way"),
    [
        (f'INSERT DATA {{ {X} "a" }} }}', "insert"),
        (f'INSERT {{ GRAPH ?m {{ ?m mif:tags "a" }} }} WHERE {{ {TAG} }}', "insert"),
        (f'DELETE DATA {{ {X} "a" }} }}', "delete"),
        (f'DELETE WHERE {{ {TAG} }} ; DELETE DATA {{ {X} "a" }} }}', "delete"),
        (f'DELETE {{ {TAG} }} INSERT {{ GRAPH ?m {{ ?m mif:tags "a" }} }} WHERE {{ {TAG} }}', None),
        (f'INSERT DATA {{ {X} "a" }} }} ; DELETE DATA {{ {X} "b" }} }}', None),
    ],
)
def test_only_updates_that_go_one_way_are_compared_graph_by_graph(update: str, way: str | None) -> None:
    """A retag that deletes the old tag and inserts the new one can leave every count as it was: the whole store
    is compared for it."""
    assert one_way(check_update_safety(update)) == way
    assert one_way(None) is None
