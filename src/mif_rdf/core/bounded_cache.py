"""Memo caches bounded by the bytes they hold, not by their number of entries.

The per-file step (read, project, write the lines of one memory) keeps small
memos of what repeats across memories: the text of a literal, whether an IRI
is valid, whether a date is ill-typed.  Capped by entry count (65,536 or
200,000 entries), those memos took 100-150 MiB of a Dask worker at 150,000
memories and filled only after tens of thousands of memories, so a worker's
peak grew with the bundle (docs/scale.md).  What repeats in a bundle (enums,
tags, datatypes, the IRIs many memories link to) is few and comes back soon;
what fills a memo is the values each memory has alone (ids, titles, times),
which no later memory asks for.  So a memo of a few MiB keeps nearly every
hit (measured per memo in docs/scale.md, "Memos bounded by bytes").

When the next entry would take a cache past its bound, the cache starts again
(it is emptied): on these streams that keeps nearly the hits of evicting the
least recently used entry (within 1-3 points, measured), and a hit stays one
dict lookup, where an LRU would reorder its entries on every hit.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, Protocol, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

#: Bytes an entry costs beyond its key and value: its slot in the dict's tables (24 bytes of entry and an index,
#: in tables kept at most two-thirds full and grown by doubling), and the allocator's rounding of the two objects.
ENTRY_BYTES = 128


def approximate_size(value: object) -> int:
    """The bytes ``value`` holds of its own: a string's, a number's, a tuple's with its items'.

    A class, ``None`` and a flag count nothing: one object shared by every
    entry.  An object with slots counts the objects in them too (an rdflib
    Literal keeps its datatype and parsed value there: 340 bytes for a date,
    where its text alone is 110), one level deep.  Strings an entry shares
    with others (a datatype, a base IRI) are counted in each: the bound is an
    upper bound.
    """
    kind = type(value)
    if kind is str:  # the common cases first, without a call of this function per string
        return _sizeof(value)
    if kind is tuple:
        size = _sizeof(value)
        for item in value:  # type: ignore[attr-defined]
            size += _sizeof(item) if type(item) is str else approximate_size(item)
        return size
    if value is None or kind is bool or kind is type:
        return 0
    size = _sizeof(value)
    for name in _slots(kind):
        size += _sizeof(getattr(value, name, None))
    return size


_sizeof = sys.getsizeof
#: The slot names of each class :func:`approximate_size` has met.
_SLOT_NAMES: dict[type, tuple[str, ...]] = {}


def _slots(kind: type) -> tuple[str, ...]:
    """The names of the slots of ``kind`` and of its bases."""
    found = _SLOT_NAMES.get(kind)
    if found is None:
        names: list[str] = []
        for klass in kind.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            names.extend((slots,) if isinstance(slots, str) else slots)
        found = _SLOT_NAMES[kind] = tuple(name for name in names if name not in ("__dict__", "__weakref__"))
    return found


class BoundedCache(dict[K, V]):
    """A dict that holds at most about ``max_bytes``: looked up with :meth:`get`, filled with :meth:`keep`.

    ``held`` counts the :func:`approximate_size` of every key and value kept,
    and :data:`ENTRY_BYTES` for each entry; an entry that would take it past
    ``max_bytes`` empties the cache first, and one larger than ``max_bytes``
    alone is not kept.  Its entries are what a plain dict would hold: only
    which of them are still there differs, never what a lookup returns.
    """

    __slots__ = ("max_bytes", "held")  # no __dict__: a lookup costs what a dict's does

    def __init__(self, max_bytes: int) -> None:
        super().__init__()
        self.max_bytes = max_bytes
        self.held = 0

    def keep(self, key: K, value: V, size: int | None = None) -> V:
        """Remember ``value`` under ``key`` (which a lookup has just missed), within the bound; returns ``value``.

        ``size``: what the key and value take, when the caller knows it more cheaply than
        :func:`approximate_size` (sizing an entry is most of what a miss adds to the memoized call).
        """
        if size is None:
            if type(key) is str and type(value) is str:
                size = _sizeof(key) + _sizeof(value)
            else:
                size = approximate_size(key) + approximate_size(value)
        size += ENTRY_BYTES
        if self.held + size > self.max_bytes:
            self.clear()
            if size > self.max_bytes:
                return value
        self[key] = value
        self.held += size
        return value

    def clear(self) -> None:
        super().clear()
        self.held = 0


class Memoized(Protocol[P, R_co]):
    """A function memoized by :func:`bounded_cache`: call it as the function; ``cache`` holds its results."""

    cache: BoundedCache[Any, Any]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


_MISSING = object()


class _OneArgumentMemo(BoundedCache[Any, Any]):
    """A function of one argument memoized in the :class:`BoundedCache` it is: a call is the dict's own lookup.

    ``__call__`` is ``dict.__getitem__`` itself, so a hit runs no Python
    code (70 ns against 170 for a wrapper function, about lru_cache's 56);
    a miss reaches :meth:`__missing__`, which calls the function and keeps
    its result.  The memoized functions of the per-file step are called
    dozens of times a memory, nearly always hitting: the wrapper cost the
    streamed export about 5 % of its CPU.
    """

    __call__ = dict.__getitem__

    def __init__(self, function: Callable[[Any], Any], max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.function = function
        functools.update_wrapper(self, function)  # name, module, docstring: it stands where the function stood

    def __missing__(self, key: Any) -> Any:
        found = self.function(key)
        size = _sizeof(key) if type(key) is str else approximate_size(key)
        return self.keep(key, found, size if type(found) is bool else size + approximate_size(found))

    @property
    def cache(self) -> BoundedCache[Any, Any]:
        """The memo itself (as :func:`bounded_cache`'s wrappers have one)."""
        return self

    def __reduce__(self) -> str:
        return str(self.__qualname__)  # type: ignore[attr-defined]  # pickled by name, as the function was

    def __hash__(self) -> int:  # type: ignore[override]  # a function is hashable by identity; a dict is not
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other


def bounded_cache(max_bytes: int) -> Callable[[Callable[P, R]], Memoized[P, R]]:
    """``functools.lru_cache`` for functions of strings (or other flat hashable values), bounded by bytes.

    A function of one parameter becomes a :class:`_OneArgumentMemo` (keyed by
    its argument, called by position only, as its callers do); any other is
    wrapped, keyed by the tuple of arguments (a call with keywords is not cached).
    """

    def decorate(function: Callable[P, R]) -> Memoized[P, R]:
        if _one_positional_parameter(function):
            return cast(Memoized[P, R], _OneArgumentMemo(function, max_bytes))
        cache: BoundedCache[tuple[Any, ...], Any] = BoundedCache(max_bytes)

        @functools.wraps(function)
        def cached(*args: P.args, **kwargs: P.kwargs) -> R:
            if kwargs:
                return function(*args, **kwargs)
            found = cache.get(args, _MISSING)
            if found is _MISSING:
                found = function(*args, **kwargs)
                size = _sizeof(args) + sum(map(_sizeof, args))  # strings, as the memoized functions take
                cache.keep(args, found, size if type(found) is bool else size + approximate_size(found))
            return cast(R, found)

        memoized = cast(Memoized[P, R], cached)
        memoized.cache = cache
        return memoized

    return decorate


def _one_positional_parameter(function: Callable[..., Any]) -> bool:
    """Whether ``function`` takes exactly one parameter, which can be given by position."""
    parameters = list(inspect.signature(function).parameters.values())
    return len(parameters) == 1 and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )
