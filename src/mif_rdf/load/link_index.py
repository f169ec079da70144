"""Which memories link to a file: the reverse of every memory's relationships, kept between edits.

:func:`mif_rdf.load.incremental.relink` rewrites the links of the memories
whose relationships resolve to a changed file.  Finding them by reading every
memory's relationships cost 0.2 s an edit at 10,000 memories (``serve``'s
edit-to-visible delay, docs/performance.md); a :class:`LinkIndex` held by the
caller across edits answers from a map of target keys to memory ids.

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

    def sources(self, bundle: LoadedBundle, keys: Iterable[str]) -> set[str]:
        """The ids of the memories of ``bundle`` with a relationship whose target resolves to one of ``keys``."""
        self._follow(bundle)
        found: set[str] = set()
        for key in keys:
            found |= self._sources.get(key, set())
        return found

    def _follow(self, bundle: LoadedBundle) -> None:
        """Bring the index up to the bundle's records: a look at each record, a read of the new or replaced ones."""
        if self._base != bundle.base_iri:  # every key resolves against the base
            self._base, self._read, self._sources = bundle.base_iri, {}, {}
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
            for key in keys:
                self._sources.setdefault(key, set()).add(memory_id)

    def _drop(self, memory_id: str) -> None:
        _, keys = self._read.pop(memory_id)
        for key in keys:
            ids = self._sources[key]
            ids.discard(memory_id)
            if not ids:
                del self._sources[key]
