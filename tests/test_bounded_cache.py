"""Memos bounded by bytes (:mod:`mif_rdf.core.bounded_cache`, issue 32 item 4): a memo empties itself before it
would pass its bound, holds no more than that bound (measured by tracemalloc, not by its own count), and the
per-file step's memos bounded so give the N-Quads they give unbounded."""

from __future__ import annotations

import gc
import io
import random
import re
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from conftest import canonical
from mif_rdf.core import context
from mif_rdf.core.bounded_cache import ENTRY_BYTES, BoundedCache, approximate_size, bounded_cache
from mif_rdf.output.stream_export import stream_nquads
from mif_rdf.rdf import lexical, memory_nquads, tordf
from mif_rdf.source import identity
from synthetic import generate_bundle

#: Every memo of the per-file step (read, project, write one memory's lines), as a load, a stream and a Dask
#: worker keep them.
MEMOS: dict[str, BoundedCache[Any, Any]] = {
    "tordf.uri": tordf._uri_cache,
    "tordf.RdflibTerms.literals": tordf.RdflibTerms.literals,
    "tordf.NQuadsTerms.literals": tordf.NQuadsTerms.literals,
    "memory_nquads.plain": memory_nquads._plain,
    "memory_nquads.scalars": memory_nquads._scalars,
    "memory_nquads.vocab": memory_nquads._vocab,
    "lexical.is_ill_typed": lexical.is_ill_typed.cache,
    "context.is_absolute_iri": context.is_absolute_iri.cache,
    "context.is_valid_iri": context.is_valid_iri.cache,
    "identity.resolve_target": identity._resolve_path.cache,
}


def entry_size(key: object, value: object) -> int:
    return approximate_size(key) + approximate_size(value) + ENTRY_BYTES


def test_an_entry_that_would_pass_the_bound_empties_the_cache_first() -> None:
    keys = [f"key-{i:04d}" for i in range(10)]
    size = entry_size(keys[0], "v" * 20)
    large = entry_size(keys[4], "w" * 300)
    assert size < large < 3 * size
    cache: BoundedCache[str, str] = BoundedCache(3 * size + size // 2)  # room for three entries, not four
    for key in keys[:3]:
        assert cache.get(key) is None
        assert cache.keep(key, "v" * 20) == "v" * 20
    assert list(cache) == keys[:3] and cache.held == 3 * size
    assert cache.keep(keys[3], "v" * 20) == "v" * 20  # the fourth: the cache starts again with it
    assert list(cache) == [keys[3]] and cache.held == size
    cache.keep(keys[4], "w" * 300)  # a larger entry takes the room of two: it fits beside one small one
    assert list(cache) == [keys[3], keys[4]] and cache.held == size + large
    cache.keep(keys[5], "v" * 20)  # not beside them
    assert list(cache) == [keys[5]] and cache.held == size <= cache.max_bytes


def test_an_entry_larger_than_the_bound_alone_is_returned_and_not_kept() -> None:
    cache: BoundedCache[str, str] = BoundedCache(1000)
    cache.keep("small", "s")
    big = "x" * 1000
    assert cache.keep("big", big) is big
    assert "big" not in cache and cache.held == 0 and len(cache) == 0


def test_the_size_counts_strings_tuples_and_what_slots_hold() -> None:
    """A str its own size; a tuple its items too; a class, None and flags nothing; an rdflib Literal its datatype
    and parsed value (slots), which its text alone leaves out."""
    assert approximate_size("abc") == sys.getsizeof("abc")
    assert approximate_size((str, "abc", None, True)) == sys.getsizeof((str, "abc", None, True)) + sys.getsizeof("abc")
    date = Literal("2024-11-28T00:18:38Z", datatype=XSD.dateTime, normalize=False)
    assert approximate_size(date) >= sys.getsizeof(date) + sys.getsizeof(date.datatype) + sys.getsizeof(date.value)


def _fresh_entry(i: int, rng: random.Random) -> tuple[object, object]:
    """A key and value of one of the shapes the memos hold, made anew (nothing else holds them)."""
    text = "".join(rng.choice("abcdéü😀") for _ in range(rng.randint(1, 150))) + str(i)
    kind = i % 5
    if kind == 0:
        return text, '"' + text + '"'
    if kind == 1:
        return (str, text, "http://www.w3.org/2001/XMLSchema#string"), '"' + text + '"^^<http://x/>'
    if kind == 2:
        return (float, repr(i / 7), None), f'"{i / 7!r}"'
    if kind == 3:
        return ("./" + text, "https://example.org/b/" + text, "https://example.org/b/"), "https://example.org/b/" + text
    return (str, text, None), Literal(f"2024-01-{i % 28 + 1:02d}T00:00:{i % 60:02d}Z", datatype=XSD.dateTime)


def _peak(bound: int, keep: bool) -> tuple[int, int, int]:
    """Made and dropped: 6,000 fresh entries, kept in a cache of ``bound`` when ``keep``; (the most memory
    tracemalloc saw taken meanwhile, the most the cache counted, what the entries would take together)."""
    rng = random.Random(bound)
    gc.collect()
    tracemalloc.start()
    try:
        cache: BoundedCache[object, object] = BoundedCache(bound)
        start = tracemalloc.get_traced_memory()[0]
        most, total = 0, 0
        for i in range(6000):
            key, value = _fresh_entry(i, rng)
            total += entry_size(key, value)
            if keep and cache.get(key) is None:
                cache.keep(key, value)
            most = max(most, cache.held)
            del key, value
        return tracemalloc.get_traced_memory()[1] - start, most, total
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("bound", [128 << 10])
def test_a_cache_never_holds_more_than_its_bound(bound: int) -> None:
    """Filled with 6,000 fresh entries of every shape the memos hold, which would take many times its bound, a
    cache takes no more than its bound: the peak memory tracemalloc sees passes the peak of the same entries
    made and dropped by at most the bound (the cache's count is an upper bound of what it holds)."""
    _peak(bound, keep=False)  # whatever the first Literal of a kind makes once
    alone, _, total = _peak(bound, keep=False)
    kept, counted, _ = _peak(bound, keep=True)
    assert total > 8 * bound  # the entries would have held many times the bound
    assert bound // 2 < counted <= bound  # the cache filled up to its bound, not past it
    assert kept - alone <= bound, f"the cache took {kept - alone} bytes, over its bound of {bound}"


def test_a_function_memoized_within_bytes_returns_what_it_returns() -> None:
    calls: list[tuple[str, str]] = []

    @bounded_cache(4096)
    def joined(a: str, b: str) -> str:
        """Its docstring stays."""
        calls.append((a, b))
        return a + "/" + b

    assert joined("x", "y") == "x/y" and joined("x", "y") == "x/y" and calls == [("x", "y")]
    assert joined.__doc__ == "Its docstring stays." and joined.__name__ == "joined"
    assert joined("x", b="z") == "x/z" and ("x", "z") in calls and ("x", "z") not in joined.cache  # keywords: no memo
    for i in range(500):
        assert joined(str(i), "q" * 50) == f"{i}/{'q' * 50}"
        assert joined.cache.held <= 4096
    assert 0 < len(joined.cache) < 500


def test_a_function_of_one_argument_is_its_own_memo_and_stands_where_the_function_stood() -> None:
    """One parameter: the memo is the dict, called through ``dict.__getitem__`` (no Python frame on a hit); it
    keeps the function's name and docstring, pickles by name, hashes and compares as a function does."""
    import pickle

    calls: list[str] = []

    @bounded_cache(4096)
    def doubled(value: str) -> str:
        """Its docstring stays."""
        calls.append(value)
        return value * 2

    assert doubled("ab") == "abab" and doubled("ab") == "abab" and calls == ["ab"]
    assert doubled.cache is doubled and "ab" in doubled.cache  # keyed by the argument itself
    assert doubled.__doc__ == "Its docstring stays." and doubled.__name__ == "doubled"
    for i in range(500):
        assert doubled(str(i) * 20) == str(i) * 40
        assert doubled.cache.held <= 4096
    assert 0 < len(doubled.cache) < 500
    assert pickle.loads(pickle.dumps(context.is_valid_iri)) is context.is_valid_iri  # by name, not its entries
    other = bounded_cache(4096)(lambda value: value)
    other.cache.clear()
    doubled.cache.clear()
    assert doubled != other and len({doubled, other, doubled}) == 2  # two empty memos are two functions
    with pytest.raises(TypeError):
        doubled(["unhashable"])  # as lru_cache says it


@pytest.fixture
def tiny_memos(monkeypatch: pytest.MonkeyPatch) -> dict[str, BoundedCache[Any, Any]]:
    """Every memo of the per-file step emptied and bounded to 2 KiB (a few entries: it starts again all the time)."""
    for memo in MEMOS.values():
        memo.clear()
        monkeypatch.setattr(memo, "max_bytes", 2048)
    return MEMOS


def _loaded(root: Path) -> dict[str, frozenset[Any]]:
    """Each graph of a load into the memory store, blank nodes named by structure."""
    from mif_rdf.bundle import load_bundle

    dataset = load_bundle(root, progress=False, workers=0, cache=False).dataset
    return {str(graph.identifier): canonical(graph) for graph in dataset.graphs()}


def _streamed(root: Path) -> str:
    """The streamed export's N-Quads, blank nodes named by their order of appearance (the walker's take a random
    prefix a memory, an entity file's are rdflib's own)."""
    out = io.BytesIO()
    stream_nquads(root, out, progress=False, workers=0, on_problem=lambda problem: None)
    names: dict[str, str] = {}
    return re.sub(r"_:\S+", lambda m: names.setdefault(m.group(), f"_:n{len(names)}"), out.getvalue().decode())


def test_the_memos_bounded_to_a_few_entries_give_the_same_nquads(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The streamed export of a generated bundle (and a load into the memory store, which memoizes rdflib terms)
    line for line the same with every memo emptied all the time as with its bound; and no memo past its bound."""
    generate_bundle(tmp_path, 120, seed=3, broken_links=2)
    for memo in MEMOS.values():
        memo.clear()
    expected = _streamed(tmp_path)
    expected_graphs = _loaded(tmp_path)
    assert max(len(memo) for memo in MEMOS.values()) > 20  # they were used
    memos = request.getfixturevalue("tiny_memos")
    assert _streamed(tmp_path) == expected
    assert _loaded(tmp_path) == expected_graphs
    for name, memo in memos.items():
        assert memo.held <= memo.max_bytes == 2048, name
        assert len(memo) < 20, name


def test_every_memo_of_the_per_file_step_holds_a_few_mib_at_most() -> None:
    assert all(memo.max_bytes <= 8 << 20 for memo in MEMOS.values())
    assert isinstance(tordf._uri(str(XSD.string)), URIRef)
