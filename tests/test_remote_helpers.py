"""Issue 6 item 7 / issue 5: the query helpers give the same answers on a real remote store
(pushed to an Oxigraph server, read through rdflib's SPARQLStore) as on the local bundle."""

from __future__ import annotations

from mif_rdf.output.policy import export_policy
from mif_rdf.push import GraphStore, push_bundle
from mif_rdf.remote import OXIGRAPH_UNION, remote_dataset
from oxigraph_server import OxigraphServer, oxigraph  # noqa: F401  (oxigraph: the server fixture)
from test_helpers_stores import _calls, _rows


def test_every_helper_answers_the_same_remotely(oxigraph: OxigraphServer, example_bundle) -> None:  # noqa: F811
    push_bundle(example_bundle, GraphStore(oxigraph.store_url))
    shared = export_policy(example_bundle).restrict(example_bundle)  # what the store holds: no _local memory
    remote = remote_dataset(oxigraph.query_url, union_params=OXIGRAPH_UNION)
    empty = set()
    for name, call in _calls(shared).items():
        local_rows = _rows(call(shared.dataset))
        assert _rows(call(remote)) == local_rows, name
        if not local_rows:
            empty.add(name)
    assert empty == {"conflicts"}  # the examples' one conflicts-with pair involves the _local memory, not pushed
