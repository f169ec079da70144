"""A loaded bundle's records by path and by document IRI, and who links to what, kept up to date edit by edit.

An incremental reload (:func:`mif_rdf.load.incremental.reload`) needs the
records at the changed paths, the paths already taken by a document IRI (a
second file with the same location is refused), and the memories whose
relationships point at the changed files.  Reading them off the bundle is a
pass over every record, and an edit made about fifteen such passes: 85 % of
``serve``'s reload of one file at 10,000 memories (docs/performance.md).  A
:class:`RecordIndex` is made with one pass and then told what each reload
replaced (:meth:`RecordIndex.replace`), so an edit costs what it changed.

Nothing but a reload (and ``serve``'s giving back of a last good record, which
tells the index too) changes a bundle's records while an index follows it;
:meth:`RecordIndex.follows` is a cheap check that a caller still holds the
index of this bundle, not a proof that nothing else changed it.

It also keeps the files refused because another file holds their id or
location, with what they claim (:attr:`RecordIndex.refused`): when a claim
changes hands, the reload reads again every file that contends for it
(:meth:`RecordIndex.contending`), so the first file in load order holds it,
as in a fresh load.
"""

from __future__ import annotations

from collections.abc import Iterable

from mif_rdf.load.bundle import EntityRecord, LoadedBundle, MemoryRecord
from mif_rdf.load.link_index import LinkIndex
from mif_rdf.rdf.jsonld_source import markdown_path, read_memory
from mif_rdf.source.bundle_files import is_entity_path
from mif_rdf.source.identity import document_iri, memory_iri
from mif_rdf.source.parse import parse_entity

Record = MemoryRecord | EntityRecord
#: what a file claims: ``("id", IRI)`` (a memory's or an entity's IRI) or ``("at", document IRI)`` (a memory's location)
Claim = tuple[str, str]
#: the problems the loader gives a file it refuses because another file holds its id or location
REFUSALS = ("duplicate-id", "duplicate-path")


class RecordIndex:
    """The records of one bundle by path, its memories' document IRIs, and its :class:`LinkIndex`."""

    def __init__(self, bundle: LoadedBundle) -> None:
        self.reads = 0  # how many times the whole bundle was read: once, unless something changed it behind its back
        self._read(bundle)

    def _read(self, bundle: LoadedBundle) -> None:
        self.reads += 1
        self.bundle = bundle
        self.base = bundle.base_iri
        self._by_path: dict[str, Record] = {}
        #: document IRI -> path of the memory at that location (what the loader checks a new file against)
        self.locations: dict[str, str] = {}
        self._by_iri: dict[str, str] = {}  # memory or entity IRI -> path of its record
        self.links = LinkIndex(bundle.base_iri)
        #: path of a file refused for a taken id or location -> what it claims
        self.refused: dict[str, frozenset[Claim]] = {}
        self._refusers: dict[Claim, set[str]] = {}
        #: every record the last reload dropped, and every path it read (more than it was given when claims moved)
        self.dropped: list[Record] = []
        self.read: set[str] = set()
        for memory in bundle.memories.values():
            self._put(memory)
        for entity in bundle.entities.values():
            self._put(entity)
        for relpath in {p.path for p in bundle.problems if p.rule in REFUSALS and p.path not in self._by_path}:
            self.refuse(relpath, claims_in_file(bundle, relpath))  # rare: read the file for what it claims

    def follows(self, bundle: LoadedBundle) -> bool:
        """Whether this is an index of ``bundle`` as it is: same bundle, same base IRI, as many records."""
        return (
            bundle is self.bundle
            and bundle.base_iri == self.base
            and len(self._by_path) == len(bundle.memories) + len(bundle.entities)
        )

    def follow(self, bundle: LoadedBundle) -> None:
        """Read ``bundle`` again when this index does not :meth:`follow <follows>` it."""
        if not self.follows(bundle):
            self._read(bundle)

    def at(self, relpath: str) -> Record | None:
        """The memory or entity record loaded from ``relpath``."""
        return self._by_path.get(relpath)

    def memory_at(self, relpath: str) -> MemoryRecord | None:
        record = self._by_path.get(relpath)
        return record if isinstance(record, MemoryRecord) else None

    def records_at(self, relpaths: Iterable[str]) -> list[Record]:
        """The records loaded from ``relpaths`` (those that have one), in the order given."""
        return [r for r in map(self._by_path.get, relpaths) if r is not None]

    def paths(self) -> list[str]:
        """Every path a record was loaded from."""
        return list(self._by_path)

    def replace(self, old: Iterable[Record], new: Iterable[Record]) -> None:
        """The bundle dropped the records ``old`` and now holds ``new`` (every one of ``old`` before any of ``new``)."""
        for record in old:
            self.dropped.append(record)
            if self._by_path.get(record.relpath) is record:
                del self._by_path[record.relpath]
            if self._by_iri.get(record.iri) == record.relpath:
                del self._by_iri[record.iri]
            if isinstance(record, MemoryRecord):
                if self.locations.get(record.doc_iri) == record.relpath:
                    del self.locations[record.doc_iri]
                self.links.drop(record)
        for record in new:
            self._put(record)

    def _put(self, record: Record) -> None:
        self._by_path[record.relpath] = record
        self._by_iri[record.iri] = record.relpath
        if isinstance(record, MemoryRecord):
            self.locations[record.doc_iri] = record.relpath
            self.links.add(record)

    # -- claims: ids and locations -------------------------------------------------------
    def refuse(self, relpath: str, claims: Iterable[Claim]) -> None:
        """The file at ``relpath`` was refused because another file holds one of its ``claims``."""
        self.unrefuse([relpath])
        if not (claims := frozenset(claims)):
            return
        self.refused[relpath] = claims
        for claim in self.refused[relpath]:
            self._refusers.setdefault(claim, set()).add(relpath)

    def unrefuse(self, relpaths: Iterable[str]) -> None:
        """The files at ``relpaths`` are read again: they are no longer known as refused."""
        for relpath in relpaths:
            for claim in self.refused.pop(relpath, ()):
                refusers = self._refusers[claim]
                refusers.discard(relpath)
                if not refusers:
                    del self._refusers[claim]

    def claims_of(self, relpath: str) -> frozenset[Claim]:
        """What the file at ``relpath`` claims, as last read: its record's id and location, or its refused claims."""
        record = self._by_path.get(relpath)
        if isinstance(record, MemoryRecord):
            return frozenset({("id", record.iri), ("at", record.doc_iri)})
        if record is not None:
            return frozenset({("id", record.iri)})
        return self.refused.get(relpath, frozenset())

    def claimants(self, claim: Claim) -> set[str]:
        """The paths of the files that claim ``claim``: its holder and the files refused for it."""
        kind, iri = claim
        holder = self._by_iri.get(iri) if kind == "id" else self.locations.get(iri)
        found = set(self._refusers.get(claim, ()))
        if holder is not None:
            found.add(holder)
        return found

    def contending(self, relpaths: Iterable[str]) -> set[str]:
        """``relpaths`` and every file that contends with them, directly or through another, for an id or a location.

        Which of them holds a claim depends on all of them (the first in load
        order wins), so a reload reads them together; without clashes this is
        ``relpaths`` itself, found with a few lookups a path.
        """
        found = set(relpaths)
        todo = list(found)
        while todo:
            for claim in self.claims_of(todo.pop()):
                for other in self.claimants(claim) - found:
                    found.add(other)
                    todo.append(other)
        return found


def claims_in_file(bundle: LoadedBundle, relpath: str) -> frozenset[Claim]:
    """What the memory or entity file at ``relpath`` claims, read from the file (nothing when it cannot be read)."""
    if is_entity_path(relpath):
        entity, _ = parse_entity(bundle.root, relpath, bundle.limits)
        return frozenset() if entity is None else frozenset({("id", entity.iri)})
    memory, _ = read_memory(bundle.root, relpath, bundle.base_iri, bundle.limits)
    if memory is None:
        return frozenset()
    return frozenset({("id", memory_iri(memory.id)), ("at", document_iri(bundle.base_iri, markdown_path(relpath)))})
