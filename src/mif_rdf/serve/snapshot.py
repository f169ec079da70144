"""What one published change of a served bundle serves: the store queries read and the records the page reads.

A :class:`Snapshot` is never changed after publication (:mod:`.served`
publishes a new one for each change), so a reader holding one sees one
consistent state of the bundle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from mif_rdf.load.bundle import EntityRecord, MemoryRecord

DEFAULT = ox.DefaultGraph()


@dataclass(frozen=True)
class Snapshot:
    """What one published change serves: the store and the records the page reads (never changed after publication)."""

    store: Any
    seq: int
    generation: int
    memories: dict[str, MemoryRecord]
    entities: dict[str, EntityRecord]
    kept: frozenset[str]
    withheld: frozenset[Any]
    links_graph_iri: str
    base_iri: str
    name: str  # the bundle folder's name (the page never shows where it is on disk)
    _triples: list[int] = field(default_factory=list, compare=False)
    _paths: list[dict[str, MemoryRecord]] = field(default_factory=list, compare=False)

    def allows(self, iri: str) -> bool:
        """Whether the memory or entity ``iri`` is served."""
        return ox.NamedNode(iri) not in self.withheld

    def memory_by_path(self, relpath: str) -> MemoryRecord | None:
        """The memory loaded from ``relpath``; the map is made once per snapshot (the page asks it for every
        finding: a scan of the records each time grew with findings times memories)."""
        if not self._paths:  # two readers may both make it: each appends a whole map, and the first is used
            self._paths.append({m.relpath: m for m in self.memories.values()})
        return self._paths[0].get(relpath)

    def withheld_paths(self) -> list[str]:
        return [m.relpath for m in self.memories.values() if not self.allows(m.iri)] + [
            e.relpath for e in self.entities.values() if not self.allows(e.iri)
        ]

    @property
    def triples(self) -> int:
        """The number of triples of the default graph (distinct, as SPARQL counts them); counted once per snapshot."""
        if not self._triples:
            solutions = self.store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", default_graph=DEFAULT)
            self._triples.append(int(next(iter(solutions))[0].value))
        return self._triples[0]
