"""Which memories link to a file: the reverse of every memory's relationships, kept between edits.

:func:`mif_rdf.load.incremental.relink` rewrites the links of the memories
whose relationships resolve to a changed file.  Finding them by reading every
memory's relationships cost 0.2 s an edit at 10,000 memories (``serve``'s
edit-to-visible delay, docs/performance.md); a :class:`LinkIndex` held by the
caller across edits answers from a map of target keys to memory ids, and
resolves the relinked memories' targets without building
:meth:`LoadedBundle.targets` (a map of every memory's IRIs) for each edit.

A memory's entry is read again when its record object is not the one it was
read from: a reload replaces the record of every file it reads, and nothing
changes a record in place, so the index follows the bundle without being told.
"""

from __future__ import annotations

from collections.abc import Iterable

from mif_rdf.load.bundle import LoadedBundle, MemoryRecord, target_keys


class LinkIndex:
    """Memory ids by the target keys (resolved target IRIs, no fragment) of their relationships."""

    def __init__(self) -> None:
        self._base: str | None = None
        self._read: dict[str, tuple[MemoryRecord, frozenset[str]]] = {}  # memory id -> (record read, its keys)
        self._sources: dict[str, set[str]] = {}  # target key -> ids of the memories linking to it
        self._memories: dict[str, str] = {}  # document IRI and memory IRI -> memory IRI

    def sources(self, bundle: LoadedBundle, keys: Iterable[str]) -> set[str]:
        """The ids of the memories of ``bundle`` with a relationship whose target resolves to one of ``keys``."""
        self.follow(bundle)
        found: set[str] = set()
        for key in keys:
            found |= self._sources.get(key, set())
        return found

    def targets(self, bundle: LoadedBundle, keys: Iterable[str]) -> dict[str, str]:
        """:meth:`LoadedBundle.targets` for ``keys`` only (as of the last :meth:`follow` or :meth:`sources`)."""
        found: dict[str, str] = {}
        for key in keys:
            iri = self._memories.get(key) or (key if key in bundle.entities else None)
            if iri is not None:
                found[key] = iri
        return found

    def follow(self, bundle: LoadedBundle) -> None:
        """Bring the index up to the bundle's records: a look at each record, a read of the new or replaced ones."""
        if self._base != bundle.base_iri:  # every key resolves against the base
            self._base, self._read, self._sources, self._memories = bundle.base_iri, {}, {}, {}
        memories = bundle.memories
        for memory_id in [i for i in self._read if i not in memories]:
            self._drop(memory_id)
        for memory_id, record in memories.items():
            entry = self._read.get(memory_id)
            if entry is not None and entry[0] is record:
                continue
            if entry is not None:
                self._drop(memory_id)
            keys = frozenset(key for _, _, key in target_keys(record.frontmatter, record.doc_iri, bundle.base_iri))
            self._read[memory_id] = (record, keys)
            self._memories[record.doc_iri] = self._memories[record.iri] = record.iri
            for key in keys:
                self._sources.setdefault(key, set()).add(memory_id)

    def _drop(self, memory_id: str) -> None:
        record, keys = self._read.pop(memory_id)
        for iri in (record.doc_iri, record.iri):
            if self._memories.get(iri) == record.iri:
                del self._memories[iri]
        for key in keys:
            ids = self._sources[key]
            ids.discard(memory_id)
            if not ids:
                del self._sources[key]
