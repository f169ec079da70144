"""Issue 17, item 8: the SPARQL Update push path sends no blank node in INSERT DATA (Virtuoso 7 refuses them)."""

from __future__ import annotations

from typing import Any

from rdflib import BNode, Dataset, URIRef
from rdflib.plugins.sparql.parser import parseUpdate

from mif_rdf.remote.gsp import GraphStore, Response, insert_triples

NTRIPLES = b'<urn:s> <urn:p> _:b1 .\n_:b1 <urn:q> "x" .\n_:b1 <urn:r> _:b2 .\n_:b2 <urn:q> "y" .\n'


class Recorder:
    """An HTTP client that keeps the requests instead of sending them."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, bytes]] = []

    def request(self, method: str, url: str, body: bytes = b"", headers: Any = None, **_: Any) -> Response:
        self.sent.append((method, url, body))
        return Response(204, {}, b"")


def test_a_graph_is_replaced_with_insert_where_not_insert_data() -> None:
    client = Recorder()
    GraphStore("http://store.example/gsp", update_endpoint="http://store.example/update", client=client).put_graph(
        "urn:mif:g", NTRIPLES
    )
    [(method, url, body)] = client.sent
    text = body.decode("utf-8")
    assert (method, url) == ("POST", "http://store.example/update")
    assert "INSERT DATA" not in text and text.startswith(
        "DROP SILENT GRAPH <urn:mif:g> ;\nINSERT { GRAPH <urn:mif:g> {"
    )
    assert text.rstrip().endswith("} } WHERE { }")
    parseUpdate(text)  # valid SPARQL 1.1 Update for an independent parser


def test_the_insert_makes_the_same_triples_with_fresh_blank_nodes() -> None:
    dataset = Dataset()
    dataset.update(insert_triples("urn:mif:g", NTRIPLES).decode("utf-8"))
    graph = dataset.graph(URIRef("urn:mif:g"))
    assert len(graph) == 4
    [middle] = graph.objects(URIRef("urn:s"), URIRef("urn:p"))
    [last] = graph.objects(middle, URIRef("urn:r"))
    assert (
        isinstance(middle, BNode) and isinstance(last, BNode) and middle != last
    )  # one label, one node; two labels, two
    assert {str(o) for o in graph.objects(None, URIRef("urn:q"))} == {"x", "y"}


def test_duration_literals_are_bound_where_virtuoso_takes_them() -> None:
    """Virtuoso 7 refuses "P730D"^^xsd:duration as a constant in an update;
    BIND(STRDT(...)) gives every store the same literal."""
    ntriples = (
        b'<urn:s> <urn:p> "P730D"^^<http://www.w3.org/2001/XMLSchema#duration> .\n'
        b'<urn:s> <urn:q> "say \\"P1D\\"^^<http://www.w3.org/2001/XMLSchema#duration> ." .\n'
    )
    text = insert_triples("urn:mif:g", ntriples).decode("utf-8")
    assert (
        '"P730D"^^' not in text.split("WHERE")[0]
        and 'BIND(STRDT("P730D", <http://www.w3.org/2001/XMLSchema#duration>) AS ?v0)' in text
    )
    parseUpdate(text)
    dataset = Dataset()
    dataset.update(text)
    graph = dataset.graph(URIRef("urn:mif:g"))
    assert {str(o) for o in graph.objects()} == {"P730D", 'say "P1D"^^<http://www.w3.org/2001/XMLSchema#duration> .'}
