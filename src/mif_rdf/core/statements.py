"""The shapes of RDF statements the stages hand each other: one definition, one meaning.

A :data:`Triple` is three rdflib terms, a :data:`Quad` a triple and the name of
its graph.  The JSON-LD walker (:mod:`mif_rdf.rdf.tordf`) also writes triples of
N-Triples text, under a name of its own (``WalkedTriple``), so an annotation
says which of the two a function takes.
"""

from __future__ import annotations

from rdflib.term import IdentifiedNode, Node

#: Subject, predicate, object, as rdflib terms.
Triple = tuple[Node, Node, Node]
#: Subject, predicate, object and graph name (None: the default graph), as rdflib terms,
#: as rdflib's ``quads`` gives them.
Quad = tuple[Node, Node, Node, IdentifiedNode | None]
