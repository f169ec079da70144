"""The streamed export's links index: the memories' keys in a compact table, their rows and relationships on disk.

The writer (:class:`mif_rdf.output.stream_export.StreamWriter`) asks it, for
every memory, whether its id or document IRI is taken, adds the memory with
its relationships, then the entity files, and after that reads every
relationship back, in the order it was added, with what its target resolves
to: the first memory or entity added with that key (a document, memory or
entity IRI; it never changes once given).

Until session 17 this was three text-keyed SQLite B-trees and a join at the
end: 35-42 us a memory to add at 300,000 memories (most of it SQLite moving
pages of random keys between its cache and the file) and 11-13 us to join.
Now nothing is looked up by text on disk.  The keys are 64-bit slots of a
hash table in memory (:class:`_Keys`: 24-48 bytes a memory), each pointing
at where its row starts in a file that is only appended to; a key the table
has no slot for is certainly new, and a slot that matches is checked against
its row, read back with one ``pread``, so a fingerprint two keys share costs
a read, never a wrong answer.  A relationship whose target came before it
keeps the candidate found when it is added; the others look theirs up after
the last entity.  ``benchmarks/bench_links_index.py`` measures it; the
figures are in docs/performance.md.
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections.abc import Iterator
from pathlib import Path

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError
from mif_rdf.source.identity import memory_iri

#: The hash of a key; a module name, so that a test can make keys share one.
_hash = hash
#: Bits of a slot below its fingerprint: the entry (a row's offset in ``index-rows``, times two, plus its role).
_ENTRY_BITS = 37
_ENTRY = (1 << _ENTRY_BITS) - 1
_WORD = (1 << 64) - 1

#: A memory or an entity as the index keeps it: (IRI, document IRI or None for an entity, bundle path, withheld).
Row = tuple[str, str | None, str, bool]
#: A relationship as it waits for the end: (position, type, target, key or None when it is the target, candidate).
Link = tuple[int, str, str, str | None, int]
#: What :meth:`StreamIndex.edges` gives for each relationship (as ``LinkIndex.edges``).
Edge = tuple[str, str, bool, int, str, str, str | None, bool]


class _Keys:
    """Every key given to the index as one 64-bit slot of an open-addressing table (linear probing).

    A slot holds the top 27 bits of the key's hash (its fingerprint) above
    its *entry*: the offset of its row in ``index-rows`` times two, plus 1
    for a memory's document IRI (0: the row's own IRI).  The low bits of the
    hash choose where the slot goes, so the fingerprint adds 27 bits of its
    own to them.  Keys themselves are not kept: a slot with the key's
    fingerprint is a candidate the caller checks against its row.  A key
    given twice (by two rows) has two slots; the smaller entry is the first
    row (rows are only appended).  The table holds ``size`` keys at most two
    thirds full, so 12-24 bytes a key.
    """

    def __init__(self, size: int) -> None:
        slots = 1 << max(12, (3 * size // 2).bit_length())
        self.slots = array("Q", bytes(8 * slots))
        self.mask = slots - 1
        self.room = slots * 2 // 3

    def add(self, key: str, entry: int) -> None:
        """A slot for ``key`` (the caller makes sure there is :attr:`room`)."""
        hashed = _hash(key) & _WORD
        slots, mask = self.slots, self.mask
        at = hashed & mask
        while slots[at]:
            at = (at + 1) & mask
        slots[at] = hashed >> _ENTRY_BITS << _ENTRY_BITS | entry
        self.room -= 1

    def first(self, key: str) -> int:
        """The smallest entry with ``key``'s fingerprint; 0: none, so ``key`` was certainly never given."""
        hashed = _hash(key) & _WORD
        slots, mask, fingerprint = self.slots, self.mask, hashed >> _ENTRY_BITS
        at, best = hashed & mask, 0
        while slot := slots[at]:
            if slot >> _ENTRY_BITS == fingerprint and (not best or slot & _ENTRY < best):
                best = slot & _ENTRY
            at = (at + 1) & mask
        return best

    def entries(self, key: str) -> list[int]:
        """Every entry with ``key``'s fingerprint, smallest first (nearly always none: a new key)."""
        hashed = _hash(key) & _WORD
        slots, mask, fingerprint = self.slots, self.mask, hashed >> _ENTRY_BITS
        at, found = hashed & mask, None
        while slot := slots[at]:
            if slot >> _ENTRY_BITS == fingerprint:
                if found is None:
                    found = []
                found.append(slot & _ENTRY)
            at = (at + 1) & mask
        return [] if found is None else sorted(found)


class StreamIndex:
    """The links graph's index (:class:`~mif_rdf.output.stream_export.LinkIndex`): keys in memory, rows on disk.

    Two files of ``folder`` (the stream's temporary folder, removed with it)
    are only appended to: ``index-rows``, each memory's or entity's
    :data:`Row` as its length and its :mod:`marshal` bytes, and
    ``index-links``, for each batch of :data:`BATCH` memories their
    relationships.  What is not yet written waits in memory, a batch at most.
    ``expected``: how many memories will come (it sizes the key table; when
    more come, a table twice the size is made from the rows).  The ``iri``
    given with a memory is ``memory_iri`` of its id (as the writer gives it).
    """

    #: Memories whose rows and relationships wait in memory before they are written.
    BATCH = 512
    #: Target rows kept once read at the end (entities and other targets many memories name).
    KEPT = 4096

    def __init__(self, folder: Path, expected: int = 0) -> None:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        self._rows_fd = os.open(folder / "index-rows", flags, 0o600)
        self._links_fd = os.open(folder / "index-links", flags, 0o600)
        self._keys = _Keys(2 * expected + 1024)
        #: rows not yet written; they start at offset ``_written`` (the file starts with one byte, so that no
        #: entry is 0, an empty slot)
        self._rows, self._written = bytearray(b"\n"), 0
        self._links: list[tuple[str, str, bool, list[Link]]] = []
        self._memories = 0

    def holder(self, memory_id: str) -> str | None:
        """The file that already has this id."""
        key = memory_iri(memory_id)
        for entry in self._keys.entries(key):
            if not entry & 1:
                iri, doc, relpath, _ = self._row(entry >> 1)
                if doc is not None and iri == key:
                    return relpath
        return None

    def located(self, key: str) -> str | None:
        """The file already at this document IRI, or with this memory or entity IRI."""
        row = self._first(key)
        return None if row is None else row[2]

    def add_memory(
        self, memory_id: str, iri: str, relpath: str, doc_iri: str, hidden: bool, links: list[tuple[int, str, str, str]]
    ) -> None:
        if self._keys.room < 2:
            self._grow()
        offset = self._add_row((iri, doc_iri, relpath, hidden))
        keys = self._keys
        keys.add(iri, offset << 1)
        keys.add(doc_iri, offset << 1 | 1)
        if links:
            first = keys.first
            self._links.append(
                (
                    relpath,
                    iri,
                    hidden,
                    [
                        (position, kind, target, None if key == target else key, first(key))
                        for position, kind, target, key in links
                    ],
                )
            )
        self._memories += 1
        if self._memories % self.BATCH == 0:
            self.flush()

    def add_entity(self, iri: str, relpath: str, hidden: bool) -> None:
        if self._keys.room < 1:
            self._grow()
        self._keys.add(iri, self._add_row((iri, None, relpath, hidden)) << 1)

    def flush(self) -> None:
        """The waiting rows and relationships into their files."""
        _append(self._rows_fd, self._rows)
        self._written += len(self._rows)
        self._rows = bytearray()
        if self._links:
            _append(self._links_fd, _record(self._links))
            self._links = []

    def edges(self) -> Iterator[Edge]:
        """Every relationship with what its target resolves to (None:
        nothing of the bundle), in the order they were read.

        The cyclic collector is paused until the last one (or until the
        iteration is closed), its caller's lines included: none of it makes
        cycles, and its collections took a tenth of the join (bench_links_index).
        """
        self.flush()
        first = self._keys.first
        kept: dict[int, Row] = {}  # by entry
        with no_cyclic_gc():  # the tuples made here make no cycles; collections would walk them all the same
            for _, batch in _records(self._links_fd, os.fstat(self._links_fd).st_size):
                for relpath, source, hidden, links in marshal.loads(batch):
                    for position, kind, target, key, entry in links:
                        if key is None:
                            key = target
                        if not entry:  # read before its target was added, or nothing of the bundle has the key
                            entry = first(key)
                        row = None
                        if entry:
                            row = kept.get(entry)
                            if row is None:
                                if len(kept) >= self.KEPT:
                                    kept.clear()
                                row = kept[entry] = self._row(entry >> 1)
                            if (row[1] if entry & 1 else row[0]) != key:  # it shares the key's fingerprint, not the key
                                row = self._first(key)
                        if row is None:
                            yield relpath, source, hidden, position, kind, target, None, False
                        else:
                            yield relpath, source, hidden, position, kind, target, row[0], row[3]

    def close(self) -> None:
        os.close(self._rows_fd)
        os.close(self._links_fd)

    def _add_row(self, row: Row) -> int:
        """Where ``row`` starts in ``index-rows`` (it waits in memory until :meth:`flush`)."""
        rows, data = self._rows, marshal.dumps(row)
        offset = self._written + len(rows)
        if offset >> (_ENTRY_BITS - 1):
            raise MifRdfError("the streamed export's links index holds 64 GiB of rows at most")
        rows += len(data).to_bytes(4, "little")
        rows += data
        return offset

    def _row(self, offset: int) -> Row:
        """The row that starts at ``offset`` of ``index-rows``, written or waiting."""
        if offset >= self._written:
            start = offset - self._written
            size = int.from_bytes(self._rows[start : start + 4], "little")
            data: bytes | bytearray = self._rows[start : start + 4 + size]
        else:
            data = _read(self._rows_fd, 256, offset)
            size = int.from_bytes(data[:4], "little")
            if size > len(data) - 4:
                data = _read(self._rows_fd, 4 + size, offset)
        row: Row = marshal.loads(memoryview(data)[4:])  # what follows the row is ignored
        return row

    def _first(self, key: str) -> Row | None:
        """The first row with this key, each fingerprint match checked against its row."""
        for entry in self._keys.entries(key):
            row = self._row(entry >> 1)
            if (row[1] if entry & 1 else row[0]) == key:
                return row
        return None

    def _grow(self) -> None:
        """A key table twice the size, filled from the rows (the table keeps no keys)."""
        self.flush()
        keys = _Keys(2 * (len(self._keys.slots) * 2 // 3))
        for offset, data in _records(self._rows_fd, self._written, start=1):
            iri, doc, _, _ = marshal.loads(data)
            keys.add(iri, offset << 1)
            if doc is not None:
                keys.add(doc, offset << 1 | 1)
        self._keys = keys


def _record(value: Row | list[tuple[str, str, bool, list[Link]]]) -> bytes:
    """``value``'s :mod:`marshal` bytes after their length (4 bytes): one record of the index's files."""
    data = marshal.dumps(value)
    return len(data).to_bytes(4, "little") + data


def _records(fd: int, end: int, start: int = 0, chunk: int = 1 << 20) -> Iterator[tuple[int, memoryview]]:
    """Each record of the file ``fd`` from ``start`` to ``end``, with its offset, read a chunk at a time
    (a record is used before the next is asked for: it is a view of the chunk)."""
    buffer, base, at = b"", start, 0  # buffer: the file from offset base; at: the next record in it
    while base + at < end:
        need = 4
        if at + 4 <= len(buffer):
            need += int.from_bytes(buffer[at : at + 4], "little")
            if at + need <= len(buffer):
                yield base + at, memoryview(buffer)[at + 4 : at + need]
                at += need
                continue
        rest = buffer[at:]
        more = _read(fd, max(chunk, need - len(rest)), base + len(buffer))
        if not more:
            raise OSError("a file of the links index ended early")
        buffer, base, at = rest + more, base + at, 0


def _append(fd: int, data: bytes | bytearray) -> None:
    """All of ``data`` at the end of the file ``fd`` (a short write goes on where it stopped)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if hasattr(os, "pread"):
    _read = os.pread
else:  # Windows: the files are opened to append, so moving to read does not move where writes go

    def _read(fd: int, size: int, offset: int) -> bytes:
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, size)
