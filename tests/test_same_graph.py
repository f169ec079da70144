"""``mif_rdf.rdf.layout.same_graph``: the linear isomorphism test write-back checks with, against rdflib's."""

from __future__ import annotations

import random

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic

from conftest import EXAMPLES
from mif_rdf import load_bundle
from mif_rdf.rdf.layout import _forest, same_graph


def _relabelled(graph: Graph) -> Graph:
    names: dict[BNode, BNode] = {}
    out = Graph()
    for s, p, o in graph:
        s, o = (names.setdefault(t, BNode()) if isinstance(t, BNode) else t for t in (s, o))
        out.add((s, p, o))
    return out


def _graphs() -> list[Graph]:
    bundle = load_bundle(EXAMPLES)
    graphs = []
    for record in bundle.memories.values():
        graph = Graph()
        for triple in bundle.dataset.graph(URIRef(record.iri)):
            graph.add(triple)
        graphs.append(graph)
    return graphs


def test_it_agrees_with_rdflib_on_memory_graphs_and_their_mutants() -> None:
    graphs = _graphs()
    assert sum(1 for g in graphs if any(isinstance(t, BNode) for triple in g for t in triple)) > 5
    assert all(_forest(g) is not None for g in graphs)  # the fast path is the one taken
    rng = random.Random(3)
    checked = 0
    for graph in graphs:
        assert same_graph(graph, _relabelled(graph))
        for _ in range(3):
            mutant = _relabelled(graph)
            triples = sorted(mutant, key=repr)
            s, p, o = rng.choice(triples)
            mutant.remove((s, p, o))
            kind = rng.randrange(3)
            if kind == 0:
                mutant.add((s, p, Literal("changed")))
            elif kind == 1:  # the same object moved under another blank node, or another predicate
                other = rng.choice([t for t in triples if isinstance(t[0], BNode)] or triples)[0]
                mutant.add((other, p, o))
            else:
                mutant.add((s, URIRef("urn:other"), o))
            assert same_graph(graph, mutant) == isomorphic(graph, mutant)
            checked += 1
        other = rng.choice(graphs)
        assert same_graph(graph, other) == isomorphic(graph, other)
    assert checked > 25


def test_swapped_subtrees_and_graphs_that_are_no_forest() -> None:
    a, b = BNode(), BNode()
    left = Graph()
    left += [(URIRef("urn:m"), URIRef("urn:p"), a), (a, URIRef("urn:q"), Literal(1)), (a, URIRef("urn:r"), Literal(2))]
    left += [(URIRef("urn:m"), URIRef("urn:p"), b), (b, URIRef("urn:q"), Literal(2)), (b, URIRef("urn:r"), Literal(1))]
    right = Graph()  # the same values, paired the other way: not isomorphic
    right += [(URIRef("urn:m"), URIRef("urn:p"), a), (a, URIRef("urn:q"), Literal(1)), (a, URIRef("urn:r"), Literal(1))]
    right += [(URIRef("urn:m"), URIRef("urn:p"), b), (b, URIRef("urn:q"), Literal(2)), (b, URIRef("urn:r"), Literal(2))]
    assert not same_graph(left, right) and same_graph(left, _relabelled(left))
    shared = Graph()  # a blank node with two parents, and a cycle: the general test decides
    shared += [(URIRef("urn:m"), URIRef("urn:p"), a), (URIRef("urn:n"), URIRef("urn:p"), a), (a, URIRef("urn:q"), b)]
    shared += [(b, URIRef("urn:q"), a)]
    assert _forest(shared) is None
    assert same_graph(shared, _relabelled(shared)) and isomorphic(shared, _relabelled(shared))
    cycle = Graph()
    cycle += [(a, URIRef("urn:q"), b), (b, URIRef("urn:q"), a)]
    assert _forest(cycle) is None and same_graph(cycle, _relabelled(cycle))
