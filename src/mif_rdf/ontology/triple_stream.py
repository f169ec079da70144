"""The compiler's triples written as N-Triples lines as they are made, instead of into an rdflib graph.

rdflib's memory store costs about 1 KB a triple, and a compiled entity type
makes some 200 (its class, restrictions, node shape and property shapes):
an ontology compiled into graphs takes about 1,000 times its YAML's size
(issue 39).  The writers of :mod:`~mif_rdf.ontology.owl` and
:mod:`~mif_rdf.ontology.shapes` only ever add triples, so they write just as
well into a :class:`TripleStream`, which keeps nothing but the few sets that
:func:`~mif_rdf.ontology.owl_annotations.declare_borrowed` and the merged
view ask about.  N-Triples is also Turtle: the stream serves ``.ttl`` and
``.nt`` outputs alike.

:func:`rdf_list` writes an RDF list with additions only (rdflib's
``Collection`` reads the graph back while it builds one), as ``Collection``
builds it: an empty list is a fresh blank node with no triples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node

_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def nt_term(term: Node) -> str:
    """``term`` as N-Triples writes it (an IRI, a blank node label, a literal with its datatype or language)."""
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, BNode):
        return f"_:{term}"
    if isinstance(term, Literal):
        text = '"' + str(term).translate(_ESCAPES) + '"'
        if term.language:
            return f"{text}@{term.language}"
        return f"{text}^^<{term.datatype}>" if term.datatype is not None else text
    raise TypeError(f"not an RDF term: {term!r}")


class TripleStream:
    """A write-only graph: each added triple becomes one N-Triples line on ``out``.

    ``predicates()`` and ``objects(None, rdf:type)`` answer from the sets of
    predicates and types seen (what ``declare_borrowed`` asks); :attr:`typed`
    keeps the IRI subjects of the types :meth:`count_subjects_of` names (what a
    summary reports).  A triple added twice is written twice: a graph read from
    the file holds it once.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.written = 0
        self._predicates: set[Node] = set()
        self._types: set[Node] = set()
        self.typed: dict[Node, set[Node]] = {}  # type -> IRI subjects of it (classes, ontologies, node shapes)
        self._counted: frozenset[Node] = frozenset()

    def count_subjects_of(self, *types: Node) -> None:
        """Keep the IRI subjects typed with ``types`` (read back from :attr:`typed`)."""
        self._counted = frozenset(types)

    def add(self, triple: tuple[Node, Node, Node]) -> None:
        subject, predicate, value = triple
        self.out.write(f"{nt_term(subject)} {nt_term(predicate)} {nt_term(value)} .\n")
        self.written += 1
        self._predicates.add(predicate)
        if predicate == RDF.type:
            self._types.add(value)
            if value in self._counted and isinstance(subject, URIRef):
                self.typed.setdefault(value, set()).add(subject)

    def bind(self, *args: Any, **options: Any) -> None:
        """Prefixes: N-Triples has none (accepted so the writers need not know where they write)."""

    def predicates(self) -> Iterator[Node]:
        return iter(tuple(self._predicates))

    def objects(self, subject: Node | None = None, predicate: Node | None = None) -> Iterator[Node]:
        if subject is not None or predicate != RDF.type:
            raise NotImplementedError("a TripleStream answers only objects(None, rdf:type)")
        return iter(tuple(self._types))


def rdf_list(graph: Any, items: Iterable[Node]) -> BNode:
    """The head of a new RDF list of ``items`` in ``graph`` (a Graph or a :class:`TripleStream`)."""
    head = node = BNode()
    members = list(items)
    for index, item in enumerate(members):
        graph.add((node, RDF.first, item))
        following = BNode() if index + 1 < len(members) else RDF.nil
        graph.add((node, RDF.rest, following))
        node = following  # type: ignore[assignment]  # the last is rdf:nil, never used as a node again
    return head
