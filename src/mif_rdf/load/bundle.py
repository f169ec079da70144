"""The loaded bundle as data: :class:`LoadedBundle` and its memory and entity records.

One named graph per memory (named by the memory IRI) and per entity file
(named by the entity IRI), plus a *links* graph (``<base>#links``) with direct
typed edges between memories (and entities) whose relationship targets
resolve, and each memory's bundle path, and a *layout* graph
(``<base>#layout``, :mod:`mif_rdf.rdf.layout`) with what the round trip needs
beyond the JSON-LD graph; when the bundle declares a namespace model (spec
10.4-10.7), the ``<base>#namespaces`` and ``<base>#inherited`` graphs
(:mod:`mif_rdf.nsmodel`).  Queries see the union by default.

:mod:`mif_rdf.load.loader` fills it; every later stage (validation, queries,
output, serve) reads it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from typing import Literal as TypingLiteral

from rdflib import Dataset, Graph, URIRef

from mif_rdf.core.context import MIF_NS
from mif_rdf.core.errors import MifRdfError, Problem, ProblemLog, Severity, counted
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.rdf.projection import project_memory
from mif_rdf.source.identity import (
    GRAPH_LAYOUT,
    GRAPH_LINKS,
    canonical_relationship_name,
    graph_iri,
    memory_iri,
    resolve_target,
)

PATH = URIRef(MIF_NS + "path")
LOCATION = URIRef(MIF_NS + "location")
NAMESPACE_URI = URIRef(MIF_NS + "namespaceUri")


@dataclass(frozen=True)
class CacheReport:
    """What a cached load did: ``warm`` reused the entry, ``cold`` (re)built it and says why."""

    entry: Path
    state: TypingLiteral["cold", "warm"]
    reason: str = ""
    reparsed: tuple[str, ...] = ()  # files read again on a warm load (changed or new)
    removed: tuple[str, ...] = ()  # files gone since the entry was written


@dataclass
class MemoryRecord:
    """One loaded memory: where it came from and what it projected to."""

    id: str
    relpath: str
    doc_iri: str
    frontmatter: dict[str, Any]
    body: str
    #: the projection document, when the load built one (None: :attr:`document` builds it when first asked)
    projected: dict[str, Any] | None
    #: the ill-typed literal warnings of the load's projection (:attr:`Projection.ill_typed`, keys as the
    #: frontmatter's), which every export reports; None: not kept (project the memory again to know them)
    ill_typed: list[Problem] | None = None

    @property
    def iri(self) -> str:
        return memory_iri(self.id)

    @property
    def document(self) -> dict[str, Any]:
        """The memory's JSON-LD projection document (spec 15.1).

        A load into Oxigraph writes most memories' quads straight from the frontmatter
        (:mod:`mif_rdf.rdf.memory_nquads`) without building the document; few readers want it
        (``convert``, JSON-LD output), so it is made from the same frontmatter on first use.
        """
        if self.projected is None:
            self.projected = project_memory(
                self.frontmatter, self.body, path=self.relpath, doc_iri=self.doc_iri
            ).document
        return self.projected


@dataclass
class EntityRecord:
    iri: str
    relpath: str
    doc_iri: str
    data: dict[str, Any]
    document: dict[str, Any]


@dataclass(frozen=True)
class Link:
    """One frontmatter relationship and what its target resolves to in the bundle."""

    source: MemoryRecord
    index: int  # position in the source's relationships list
    type: str
    target: str
    resolved: str | None  # IRI of the memory or entity it points at, None when broken or external


RecordMaps = tuple[dict[str, MemoryRecord], dict[str, EntityRecord]]


class Records:
    """A bundle's memory and entity records, possibly still to be read.

    A warm load from the cache hands out the dataset at once and reads the
    records (tens of megabytes of parsed frontmatter at 10,000 memories) only
    when something asks for them: most SPARQL work never does.
    """

    def __init__(self, read: Callable[[], RecordMaps] | None = None, maps: RecordMaps | None = None) -> None:
        self._read = read
        self._maps: RecordMaps = maps or ({}, {})

    def maps(self) -> RecordMaps:
        if self._read is not None:
            self._maps, self._read = self._read(), None
        return self._maps


@dataclass
class LoadedBundle:
    """What was loaded: the Dataset plus the records needed to explain and reverse it.

    Loading is :func:`mif_rdf.load.loader.load`'s; this class only answers
    questions about the result.  :class:`mif_rdf.Bundle` adds the
    conveniences of the public API (``query``, ``export``, ``update``, the
    Jupyter view) on top.
    """

    root: Path
    base_iri: str
    #: Everything loaded, ``_local`` memories included (spec 10.2: they never leave the machine):
    #: write files with :meth:`export`, not ``dataset.serialize``.
    dataset: Dataset
    engine: ToRdfEngine = "fast"
    config: dict[str, Any] = field(default_factory=dict)
    problems: ProblemLog = field(default_factory=ProblemLog)
    limits: Limits = DEFAULT_LIMITS
    cache: CacheReport | None = None  # what the cache did, when loaded with one
    records: Records = field(default_factory=Records, repr=False)

    @property
    def memories(self) -> dict[str, MemoryRecord]:
        """Every loaded memory by id, in path order."""
        return self.records.maps()[0]

    @property
    def entities(self) -> dict[str, EntityRecord]:
        """Every loaded entity file by entity IRI."""
        return self.records.maps()[1]

    @property
    def links_graph_iri(self) -> str:
        return graph_iri(self.base_iri, GRAPH_LINKS)

    @property
    def layout_graph_iri(self) -> str:
        return graph_iri(self.base_iri, GRAPH_LAYOUT)

    @property
    def links(self) -> Graph:
        return self.dataset.graph(URIRef(self.links_graph_iri))

    def graph(self, memory_id: str) -> Graph:
        """The named graph of one memory."""
        if memory_id not in self.memories:
            raise MifRdfError(f"no memory with id {memory_id!r} in {self.root}")
        return self.dataset.graph(URIRef(memory_iri(memory_id)))

    def relationships(self, types: Collection[str] | None = None) -> Iterator[Link]:
        """Every well-formed frontmatter relationship, with its target resolved.

        Targets resolve to memories (by path, absolute or document-relative, or
        by ``urn:mif:<id>``) and to entities of ``.mif/entities``; a fragment
        (``x.md#section``) still points at ``x.md``.  ``types`` (canonical,
        kebab-case names) keeps only relationships of those types, before any
        target is resolved.
        """
        targets = self.targets()
        for record in self.memories.values():
            yield from self.links_of(record, targets, types)

    def targets(self) -> dict[str, str]:
        """What a resolved target IRI points at: document IRIs and memory IRIs to memories, entity IRIs to entities."""
        targets: dict[str, str] = {entity.iri: entity.iri for entity in self.entities.values()}
        for record in self.memories.values():
            targets[record.doc_iri] = targets[record.iri] = record.iri
        return targets

    def links_of(
        self, record: MemoryRecord, targets: Mapping[str, str], types: Collection[str] | None = None
    ) -> Iterator[Link]:
        for index, rel, key in target_keys(record.frontmatter, record.doc_iri, self.base_iri, types):
            yield Link(record, index, rel["type"], rel["target"], targets.get(key))

    def memory_by_path(self, relpath: str) -> MemoryRecord | None:
        return next((m for m in self.memories.values() if m.relpath == relpath), None)

    def __len__(self) -> int:
        return len(self.dataset)

    def __repr__(self) -> str:
        """One line: where it is and what it holds (the Dataset and config are too big to print)."""
        problems = Counter(p.severity.value for p in self.problems)
        found = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in problems.items()) or "no problems"
        return (
            f"<{type(self).__name__} {str(self.root)!r}: {counted(len(self.memories), 'memory', 'memories')}, "
            f"{counted(len(self.dataset), 'triple')}, {found}>"
        )

    def counts(self) -> dict[str, Any]:
        """Figures for summaries: memories by type, triples, graphs, problems by severity."""
        kinds = Counter(str(m.frontmatter.get("type", "?")) for m in self.memories.values())
        severities = Counter(p.severity.value for p in self.problems)
        return {
            "memories": len(self.memories),
            "by_type": dict(sorted(kinds.items())),
            "entities": len(self.entities),
            "links": len(self.links),
            "triples": len(self.dataset),
            "problems": {s.value: severities.get(s.value, 0) for s in Severity},
        }


def target_keys(
    frontmatter: Mapping[str, Any], doc_iri: str, base: str, types: Collection[str] | None = None
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each well-formed relationship of a memory (of ``types``, canonical names, when given) with the IRI its target
    resolves to (without fragment)."""
    relationships = frontmatter.get("relationships")
    if not isinstance(relationships, list):
        return
    for index, rel in enumerate(relationships):
        if isinstance(rel, dict) and isinstance(rel.get("target"), str) and isinstance(rel.get("type"), str):
            if types is None or canonical_relationship_name(rel["type"]) in types:
                yield index, rel, resolve_target(rel["target"], doc_iri, base).split("#", 1)[0]
