"""Which memories link to a file: the reverse of every memory's relationships, kept between edits.

:func:`mif_rdf.load.incremental.relink` rewrites the links of the memories
whose relationships resolve to a changed file.  Finding them by reading every
memory's relationships cost 0.2 s an edit at 10,000 memories (``serve``'s
edit-to-visible delay, docs/performance.md); a :class:`LinkIndex` answers from
a map of target keys to memory ids, and resolves the relinked memories'
targets without building :meth:`LoadedBundle.targets` (a map of every
memory's IRIs) for each edit.

It is told which records came and which went (:meth:`add`, :meth:`drop`) by
the :class:`~mif_rdf.load.record_index.RecordIndex` that holds it, which reads
every memory once when made: an edit then costs the relationships of the
records it changed, not a look at every record.
"""

from __future__ import annotations

from collections.abc import Iterable

from mif_rdf.load.bundle import LoadedBundle, MemoryRecord, target_keys


class LinkIndex:
    """Memory ids by the target keys (resolved target IRIs, no fragment) of their relationships."""

    def __init__(self, base_iri: str) -> None:
        self.base = base_iri  # every key resolves against it
        self._read: dict[str, tuple[MemoryRecord, frozenset[str]]] = {}  # memory id -> (record read, its keys)
        self._sources: dict[str, set[str]] = {}  # target key -> ids of the memories linking to it
        self._memories: dict[str, str] = {}  # document IRI and memory IRI -> memory IRI

    def sources(self, keys: Iterable[str]) -> set[str]:
        """The ids of the memories with a relationship whose target resolves to one of ``keys``."""
        found: set[str] = set()
        for key in keys:
            found |= self._sources.get(key, set())
        return found

    def targets(self, bundle: LoadedBundle, keys: Iterable[str]) -> dict[str, str]:
        """:meth:`LoadedBundle.targets` for ``keys`` only."""
        found: dict[str, str] = {}
        for key in keys:
            iri = self._memories.get(key) or (key if key in bundle.entities else None)
            if iri is not None:
                found[key] = iri
        return found

    def add(self, record: MemoryRecord) -> None:
        """Read a memory record the bundle now holds (the one it replaces must have been dropped)."""
        keys = frozenset(key for _, _, key in target_keys(record.frontmatter, record.doc_iri, self.base))
        self._read[record.id] = (record, keys)
        self._memories[record.doc_iri] = self._memories[record.iri] = record.iri
        for key in keys:
            self._sources.setdefault(key, set()).add(record.id)

    def drop(self, record: MemoryRecord) -> None:
        """Forget a memory record the bundle no longer holds (nothing when it is not the one read for its id)."""
        entry = self._read.get(record.id)
        if entry is None or entry[0] is not record:
            return
        del self._read[record.id]
        for iri in (record.doc_iri, record.iri):
            if self._memories.get(iri) == record.iri:
                del self._memories[iri]
        for key in entry[1]:
            ids = self._sources[key]
            ids.discard(record.id)
            if not ids:
                del self._sources[key]
