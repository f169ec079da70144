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
"""

from __future__ import annotations

from collections.abc import Iterable

from mif_rdf.load.bundle import EntityRecord, LoadedBundle, MemoryRecord
from mif_rdf.load.link_index import LinkIndex

Record = MemoryRecord | EntityRecord


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
        self.links = LinkIndex(bundle.base_iri)
        for memory in bundle.memories.values():
            self._put(memory)
        for entity in bundle.entities.values():
            self._put(entity)

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
            if self._by_path.get(record.relpath) is record:
                del self._by_path[record.relpath]
            if isinstance(record, MemoryRecord):
                if self.locations.get(record.doc_iri) == record.relpath:
                    del self.locations[record.doc_iri]
                self.links.drop(record)
        for record in new:
            self._put(record)

    def _put(self, record: Record) -> None:
        self._by_path[record.relpath] = record
        if isinstance(record, MemoryRecord):
            self.locations[record.doc_iri] = record.relpath
            self.links.add(record)
