"""The working bundle's ``<base>#types`` graph kept up to date memory by memory, for ``mif-rdf serve``.

A file change can change its memory's extended type (its namespace or
ontology changed).  :func:`mif_rdf.ontology.add_types_graph` writes the
graph again from every memory, reading the whole bundle: 0.5-1 s at 10,000
memories, most of the edit-to-visible delay.  :class:`TypesGraph` holds
each memory's class and the class chains in use, types only the memories a
change touched, and writes the difference; the graph stays what
``add_types_graph`` would write (the serve tests compare the served
dataset with a fresh load after every change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import pyoxigraph as ox
from rdflib import URIRef

from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.oxigraph_sink import OxigraphSink
from mif_rdf.load.stores import oxigraph_store
from mif_rdf.ontology.extended_types import Typer, placements
from mif_rdf.source.identity import GRAPH_TYPES, graph_iri

RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


class TypesGraph:
    """Each memory's extended class and the class chains in use, as ``<base>#types`` holds them.

    The first :meth:`retype` writes the whole graph when the bundle was not
    typed so already (served untyped); later ones only the difference.
    """

    def __init__(self, bundle: LoadedBundle) -> None:
        self.bundle = bundle
        self.name = ox.NamedNode(graph_iri(bundle.base_iri, GRAPH_TYPES))
        self.typer = Typer(bundle.root)
        self.classes: dict[str, URIRef] = {}  # memory IRI -> its class
        self._members: Counter[URIRef] = Counter()  # class -> how many memories have it
        self._chains: dict[URIRef, set[Any]] = {}  # class -> its chain, as quads of the graph
        self._type(p.memory for p in placements(bundle))
        store = oxigraph_store(bundle.dataset)  # already typed as this would type it (the CLI types at load)?
        self._written = store is not None and set(store.quads_for_pattern(None, None, None, self.name)) == self._all()

    def _type(self, memories: Iterable[str]) -> dict[str, URIRef | None]:
        """Type ``memories`` again; the class each had before, for those whose class changed."""
        memories = list(memories)
        found = {p.memory: p for p in placements(self.bundle, memories)}
        changed: dict[str, URIRef | None] = {}
        for memory in memories:
            cls = self.typer.class_of(found[memory]) if memory in found else None
            old = self.classes.get(memory)
            if cls == old:
                continue
            changed[memory] = old
            if old is not None:
                self._members[old] -= 1
            if cls is None:
                del self.classes[memory]
            else:
                self.classes[memory] = cls
                self._members[cls] += 1
        return changed

    def _type_quad(self, memory: str, cls: URIRef) -> Any:
        return ox.Quad(ox.NamedNode(memory), RDF_TYPE, ox.NamedNode(str(cls)), self.name)

    def _hierarchy(self) -> set[Any]:
        """The chains of the classes in use (each triple once)."""
        quads: set[Any] = set()
        for cls, count in self._members.items():
            if count > 0:
                if cls not in self._chains:
                    term = OxigraphSink.term
                    self._chains[cls] = {
                        ox.Quad(term(s), term(p), term(o), self.name) for s, p, o in self.typer.chain(cls)
                    }
                quads |= self._chains[cls]
        return quads

    def _all(self) -> set[Any]:
        return {self._type_quad(m, c) for m, c in self.classes.items()} | self._hierarchy()

    def retype(self, store: Any, memories: Iterable[str]) -> set[Any] | None:
        """Type ``memories`` (IRIs) again and write the difference into the working ``store``.

        Returns the subjects whose triples in the graph changed, or None
        when the whole graph was written (the first time).
        """
        hierarchy = self._hierarchy()
        changed = self._type(memories)
        if not self._written:
            store.remove_graph(self.name)
            store.extend(self._all())
            self._written = True
            return None
        gone = {self._type_quad(m, old) for m, old in changed.items() if old is not None}
        new = {self._type_quad(m, self.classes[m]) for m in changed if m in self.classes}
        if changed:  # a class may have come into use or gone out of it
            now = self._hierarchy()
            gone |= hierarchy - now
            new |= now - hierarchy
        for quad in gone:
            store.remove(quad)
        store.extend(new)
        return {q.subject for q in gone | new}
