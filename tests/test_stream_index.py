"""The streamed export's links index (output/stream_index.py) against a plain model of what it must answer.

The model keeps every key in dictionaries, the first row of a key winning;
the index keeps 64-bit fingerprints in memory and its rows on disk.  Each
scenario drives both as the stream's writer does (is the id taken, is the
document IRI taken, add; then the entity files; then every relationship with
its target) and compares every answer, with Python's own hash and with hashes
made to collide, so that fingerprint matches must be checked against the rows.
"""

from __future__ import annotations

import gc
import marshal
import os
import random
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mif_rdf.core.errors import MifRdfError
from mif_rdf.output import stream_index
from mif_rdf.output.stream_index import StreamIndex, _Keys, _records
from mif_rdf.source.identity import memory_iri

BASE = "mif://local/test/"


class Model:
    """What the index must answer, from dictionaries (the first row of a key wins)."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.keys: dict[str, tuple[str, str | None, str, bool]] = {}
        self.memories: list[tuple[str, str, bool, list[tuple[int, str, str, str]]]] = []

    def holder(self, memory_id: str) -> str | None:
        return self.ids.get(memory_id)

    def located(self, key: str) -> str | None:
        row = self.keys.get(key)
        return None if row is None else row[2]

    def add_memory(
        self, memory_id: str, iri: str, relpath: str, doc_iri: str, hidden: bool, links: list[tuple[int, str, str, str]]
    ) -> None:
        self.ids.setdefault(memory_id, relpath)
        row = (iri, doc_iri, relpath, hidden)
        self.keys.setdefault(doc_iri, row)
        self.keys.setdefault(iri, row)
        self.memories.append((relpath, iri, hidden, links))

    def add_entity(self, iri: str, relpath: str, hidden: bool) -> None:
        self.keys.setdefault(iri, (iri, None, relpath, hidden))

    def edges(self) -> Iterator[tuple[str, str, bool, int, str, str, str | None, bool]]:
        for relpath, source, hidden, links in self.memories:
            for position, kind, target, key in links:
                row = self.keys.get(key)
                yield relpath, source, hidden, position, kind, target, row and row[0], bool(row and row[3])


def scenario(
    count: int, seed: int
) -> tuple[list[tuple[str, str, str, bool, list[tuple[int, str, str, str]], bool]], list[tuple[str, str, bool, bool]]]:
    """Memories (id, relpath, document IRI, withheld, relationships, added even if taken) and entities
    (IRI, relpath, withheld, added even if taken): repeated ids and document IRIs, a document IRI that is
    another memory's IRI, long paths, and relationships to memories before and after, to document IRIs,
    to entities (always added last), to nothing, with their key the target or not."""
    rng = random.Random(seed)
    ids = [f"m{i:05d}" for i in range(count)]
    ids += rng.sample(ids, count // 20)  # ids given again
    rng.shuffle(ids)
    entities = [f"urn:mif:entity:thing:{i}" for i in range(count // 10 + 2)]
    memories = []
    for n, memory_id in enumerate(ids):
        relpath = f"notes/{memory_id}-{n}.md" if n % 97 else f"notes/{'long-' * 80}{n}.md"  # a row longer than a read
        doc = BASE + relpath
        if n % 53 == 0:
            doc = BASE + f"notes/{ids[n - 1]}-{n - 1}.md"  # the document IRI of the memory before it
        if n % 89 == 0:
            doc = memory_iri(rng.choice(ids))  # a document IRI that is a memory's IRI, before or after
        links = []
        for position in range(rng.randrange(0, 5)):
            kind = rng.choice(["relates-to", "part-of", "uses"])
            choice = rng.random()
            other = rng.randrange(len(ids))
            if choice < 0.4:  # a memory, before or after, by its IRI
                target = key = memory_iri(ids[other])
            elif choice < 0.55:  # a memory's file, by path
                target, key = f"../notes/{ids[other]}-{other}.md", BASE + f"notes/{ids[other]}-{other}.md"
            elif choice < 0.75:  # an entity
                target = key = rng.choice(entities)
            elif choice < 0.85:  # nothing of the bundle
                target = key = f"urn:mif:missing-{rng.randrange(count)}"
            else:  # the key is not the target
                target, key = ids[other], memory_iri(ids[other])
            links.append((position, kind, target, key))
        memories.append((memory_id, relpath, doc, rng.random() < 0.1, links, rng.random() < 0.02))
    entity_rows = [
        (iri, f".mif/entities/{i}.yaml", rng.random() < 0.2, rng.random() < 0.1) for i, iri in enumerate(entities)
    ]
    entity_rows.append((memory_iri(ids[3]), ".mif/entities/taken.yaml", False, True))  # an entity with a memory's IRI
    entity_rows.append((entities[0], ".mif/entities/again.yaml", False, True))  # an entity IRI given twice
    return memories, entity_rows


def drive(index: object, count: int, seed: int) -> list[object]:
    """Every answer ``index`` gives to the writer's traffic of a scenario, in order."""
    memories, entities = scenario(count, seed)
    answers: list[object] = []
    for memory_id, relpath, doc, hidden, links, forced in memories:
        holder, located = index.holder(memory_id), index.located(doc)  # type: ignore[attr-defined]
        answers.append((holder, located))
        if forced or (holder is None and located is None):
            index.add_memory(memory_id, memory_iri(memory_id), relpath, doc, hidden, links)  # type: ignore[attr-defined]
    for iri, relpath, hidden, forced in entities:
        located = index.located(iri)  # type: ignore[attr-defined]
        answers.append(located)
        if forced or located is None:
            index.add_entity(iri, relpath, hidden)  # type: ignore[attr-defined]
    answers.extend(index.edges())  # type: ignore[attr-defined]
    return answers


HASHES: dict[str, Callable[[str], int]] = {
    "python": hash,
    # the same fingerprint for keys of one length, in slots chosen by another hash: fingerprint matches far from home
    "fingerprints shared": lambda key: (len(key) << 40) | (zlib.crc32(key.encode()) & 0xFFFF),
    # every key the same hash: one chain, every slot a fingerprint match to check
    "one hash": lambda key: 12345,
}


@pytest.mark.parametrize(
    ("hashing", "count", "expected"),
    [(hashing, 300, 300) for hashing in HASHES] + [("python", 3000, 0), ("fingerprints shared", 3000, 0)],
)
def test_the_index_answers_as_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing: str, count: int, expected: int
) -> None:
    """Taken ids and locations, the first row of a key, withheld sources and targets, relationships to memories
    before and after, to entities and to nothing, in order; ``expected`` 0: the key table grows (twice)."""
    monkeypatch.setattr(stream_index, "_hash", HASHES[hashing])
    index = StreamIndex(tmp_path, expected)
    slots = len(index._keys.slots)
    try:
        answers = drive(index, count, seed=count)
    finally:
        index.close()
    model = drive(Model(), count, seed=count)
    assert answers == model
    edges = [a for a in model if isinstance(a, tuple) and len(a) == 8]
    assert sum(edge[6] is None for edge in edges) > 10 and sum(edge[6] is not None for edge in edges) > 100
    assert any(edge[7] for edge in edges) and any(edge[2] for edge in edges)  # withheld targets and sources
    assert sum(a != (None, None) for a in model[:count]) > count // 40  # taken ids and locations
    assert (len(index._keys.slots) > slots) == (expected == 0)


def test_a_relationship_resolves_to_the_first_row_of_its_key_before_or_after_it(tmp_path: Path) -> None:
    index = StreamIndex(tmp_path, 10)
    links = [(0, "relates-to", "urn:mif:b", "urn:mif:b"), (1, "relates-to", "urn:mif:a", "urn:mif:a")]
    index.add_memory("a", "urn:mif:a", "a.md", BASE + "a.md", False, links)  # b comes after, a is itself
    index.add_memory("b", "urn:mif:b", "b.md", BASE + "b.md", True, [(0, "uses", "../a.md", BASE + "a.md")])
    index.add_memory("c", "urn:mif:c", "c.md", "urn:mif:e", False, [(0, "uses", "urn:mif:e", "urn:mif:e")])
    index.add_entity("urn:mif:e", ".mif/entities/e.yaml", True)  # its IRI is c's document IRI: c's row stays
    assert index.located("urn:mif:e") == "c.md" and index.holder("b") == "b.md" and index.holder("e") is None
    assert list(index.edges()) == [
        ("a.md", "urn:mif:a", False, 0, "relates-to", "urn:mif:b", "urn:mif:b", True),
        ("a.md", "urn:mif:a", False, 1, "relates-to", "urn:mif:a", "urn:mif:a", False),
        ("b.md", "urn:mif:b", True, 0, "uses", "../a.md", "urn:mif:a", False),
        ("c.md", "urn:mif:c", False, 0, "uses", "urn:mif:e", "urn:mif:c", False),
    ]
    index.close()


def test_a_taken_id_and_location_are_found_waiting_or_written(tmp_path: Path) -> None:
    index = StreamIndex(tmp_path)
    index.add_memory("a", "urn:mif:a", "a.md", "mif://b/a.md", False, [])
    assert index.holder("a") == "a.md" and index.located("mif://b/a.md") == "a.md"
    index.flush()
    assert index.holder("a") == "a.md" and index.located("urn:mif:a") == "a.md"
    assert index.holder("b") is None and index.located("mif://b/b.md") is None
    assert index.holder("a.md") is None  # a document IRI is not an id
    index.close()


def test_the_key_table_never_misses_a_key_and_rarely_offers_another(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = _Keys(50_000)
    given = [f"urn:mif:{i:08x}-key" for i in range(50_000)]
    for entry, key in enumerate(given, 1):
        keys.add(key, entry << 1)
    assert all(keys.first(key) == entry << 1 for entry, key in enumerate(given, 1))
    assert sum(keys.first(f"mif://local/x/{i}.md") != 0 for i in range(50_000)) < 3  # 27 bits of fingerprint
    assert keys.room == len(keys.slots) * 2 // 3 - 50_000


@pytest.mark.parametrize("memories", [1, 1000, 100_000, 300_000, 1_000_000])
def test_the_key_table_takes_at_most_48_bytes_a_memory(tmp_path: Path, memories: int) -> None:
    index = StreamIndex(tmp_path, memories)
    table = index._keys
    assert table.room >= 2 * memories + 1024  # no growing for the memories and a thousand entities
    assert len(table.slots) * table.slots.itemsize <= 48 * memories + 48 * 1024
    index.close()


def test_records_are_read_back_across_chunks(tmp_path: Path) -> None:
    values = [("x" * size, size) for size in (0, 1, 5, 300, 2, 70_000, 3)]
    path = tmp_path / "records"
    path.write_bytes(b"".join(stream_index._record(value) for value in values))
    fd = os.open(path, os.O_RDONLY)
    try:
        for chunk in (1, 7, 64, 1 << 20):
            read = [(offset, marshal.loads(data)) for offset, data in _records(fd, path.stat().st_size, chunk=chunk)]
            assert [value for _, value in read] == values
            assert [offset for offset, _ in read] == [
                sum(len(stream_index._record(v)) for v in values[:i]) for i in range(len(values))
            ]
        with pytest.raises(OSError, match="ended early"):
            list(_records(fd, path.stat().st_size + 10))
    finally:
        os.close(fd)


def test_the_join_pauses_the_collector_until_it_ends_or_is_closed(tmp_path: Path) -> None:
    assert gc.isenabled()
    index = StreamIndex(tmp_path)
    for name in "abc":
        index.add_memory(name, memory_iri(name), f"{name}.md", BASE + f"{name}.md", False, [(0, "uses", "x", "x")])
    edges = index.edges()
    next(edges)
    assert not gc.isenabled()
    assert len(list(edges)) == 2 and gc.isenabled()
    edges = index.edges()
    next(edges)
    edges.close()
    assert gc.isenabled()
    index.close()


def test_rows_beyond_what_an_entry_can_address_are_refused(tmp_path: Path) -> None:
    index = StreamIndex(tmp_path)
    index._written = 1 << 36  # as if 64 GiB of rows were written
    with pytest.raises(MifRdfError, match="64 GiB"):
        index.add_memory("a", "urn:mif:a", "a.md", BASE + "a.md", False, [])
    index.close()
