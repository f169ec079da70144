"""The load cache's journal: what warm loads changed, kept beside the entry instead of rewriting it whole.

A warm load whose files changed used to pickle rdflib's whole memory store
and every record again, so moving from one revision of a 10,000-memory bundle
to the next spent most of its time rewriting 145 MB that hardly differ
(docs/performance.md, "Time and change").  Now the entry keeps its pickles
(the *base*) and a *journal*, one :class:`Segment` per such load:

* the writes the reload made to rdflib's memory store, call by call
  (``add``, ``addN``, ``remove``, ``add_graph``, ``remove_graph``, ``bind``),
  graphs by name; the journal is pickled through
  :mod:`mif_rdf.load.termpickle`, so terms come back exactly;
* for the memory and the entity records, the keys dropped and the records
  set (and the whole key order, when dropping and appending do not give it).

The next warm load restores the base and replays the segments in order.
rdflib's memory store is deterministic (the same calls on an equal store
leave equal dictionaries, in the same order), so the result is the very
store a rewrite would have pickled, blank node names included (this holds
because every write reaches the store through those bound methods, as
rdflib's graphs make them; a write :func:`recording` cannot name by graph
makes the cache write the whole entry instead).  When the
journal grows past :data:`JOURNAL_SHARE` of the base, the cache writes the
base again and starts an empty journal, so replaying stays a small part of a
warm load.  An Oxigraph entry keeps its database as before (a checkpoint is
cheap) and journals only the records.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rdflib import Graph
from rdflib.store import Store

#: Once the journal is larger than this share of the base's pickles, the next save rewrites the base.
#: Replaying a byte of the journal (a store write each) costs about fifteen times unpickling a byte of the
#: base (measured at 10,000 memories: a segment of 100 changed files, 1.1 MB, replays in about 0.4 s, the
#: 144 MB base unpickles in about 4.3 s), so two such segments are kept at most before the base is rewritten.
JOURNAL_SHARE = 0.02

#: The store's write methods a reload may call; each is recorded with its arguments, graphs by name.
_WRITES = ("add", "addN", "remove", "add_graph", "remove_graph", "bind")

Op = tuple[Any, ...]


@dataclass(frozen=True)
class RecordsDelta:
    """How one records map (memories by id, or entities by IRI) changed: keys dropped, then records set."""

    dropped: tuple[str, ...]
    added: dict[str, Any]
    order: tuple[str, ...] | None = None  # every key in order, only when dropping and appending do not give it

    def apply(self, records: dict[str, Any]) -> dict[str, Any]:
        """``records`` changed as the delta says (in place, unless the order must be rebuilt)."""
        for key in self.dropped:
            del records[key]
        records.update(self.added)
        return records if self.order is None else {key: records[key] for key in self.order}


def records_delta(before: dict[str, Any], after: dict[str, Any]) -> RecordsDelta:
    """What turns ``before`` into ``after`` (a record counts as changed when it is another object)."""
    dropped = tuple(key for key, record in before.items() if after.get(key) is not record)
    added = {key: record for key, record in after.items() if before.get(key) is not record}
    gone = set(dropped)
    appended = [key for key in before if key not in gone] + list(added)
    return RecordsDelta(dropped, added, None if appended == list(after) else tuple(after))


@dataclass
class Segment:
    """What one warm load changed: the store's writes (None on Oxigraph) and the records' deltas."""

    writes: list[Op] | None
    memories: RecordsDelta
    entities: RecordsDelta


@dataclass
class Recorder:
    """The writes made to a store while :func:`recording`; ``portable`` is False when one cannot be replayed."""

    writes: list[Op] = field(default_factory=list)
    portable: bool = True
    depth: int = 0  # writes made inside a recorded write (remove_graph calls remove) are not recorded again


def _name(context: Any) -> Any:
    """The graph a write names, as a portable value (None: every graph, or the store's default)."""
    if context is None:
        return None
    if type(context) is not Graph:  # a quoted graph or a store-specific one: not replayed by name
        raise _NotPortable
    return context.identifier


class _NotPortable(Exception):
    pass


def _portable(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Op, tuple[Any, ...]]:
    """The recorded form of one write and the arguments to pass on (a generator of quads is read once)."""
    if name == "add":
        triple, context = args[0], args[1] if len(args) > 1 else kwargs.pop("context")
        if kwargs.pop("quoted", False) or (len(args) > 2 and args[2]) or kwargs:
            raise _NotPortable
        return ("add", tuple(triple), _name(context)), (triple, context)
    if name == "addN":
        return ("addN", [(s, p, o, _name(c)) for s, p, o, c in args[0]]), args
    if name == "remove":
        pattern, context = args[0], args[1] if len(args) > 1 else kwargs.pop("context", None)
        if kwargs:
            raise _NotPortable
        return ("remove", tuple(pattern), _name(context)), (pattern, context)
    if name in ("add_graph", "remove_graph"):
        return (name, _name(args[0])), args
    override = args[2] if len(args) > 2 else kwargs.pop("override", True)
    if kwargs:
        raise _NotPortable
    return ("bind", args[0], args[1], override), (args[0], args[1], override)


@contextlib.contextmanager
def recording(store: Store) -> Iterator[Recorder]:
    """Record every write made to ``store`` (rdflib's memory store) inside the block.

    Each write method is shadowed on the instance for the block's duration and
    restored after, so the store pickles as before.
    """
    recorder = Recorder()

    def wrap(name: str) -> Any:
        method = getattr(store, name)

        def recorded(*args: Any, **kwargs: Any) -> Any:
            if recorder.depth:
                return method(*args, **kwargs)
            if name == "addN":  # quads may come as a generator: read once, recorded and passed on
                args = (list(args[0]), *args[1:])
            try:
                write, args = _portable(name, args, dict(kwargs))
                kwargs = {}
                recorder.writes.append(write)
            except _NotPortable:
                recorder.portable = False
            recorder.depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                recorder.depth -= 1

        return recorded

    for name in _WRITES:
        setattr(store, name, wrap(name))
    try:
        yield recorder
    finally:
        for name in _WRITES:
            delattr(store, name)


def replay(store: Store, writes: list[Op]) -> None:
    """Make on ``store`` the writes :func:`recording` recorded, in order."""
    graphs: dict[Any, Graph] = {}

    def graph(name: Any) -> Any:  # None stays None: every graph (remove), or the store's default
        if name is not None and name not in graphs:
            graphs[name] = Graph(store=store, identifier=name)
        return None if name is None else graphs[name]

    for write in writes:
        kind = write[0]
        if kind == "add":
            store.add(write[1], graph(write[2]))
        elif kind == "addN":
            store.addN((s, p, o, graph(c)) for s, p, o, c in write[1])
        elif kind == "remove":
            store.remove(write[1], graph(write[2]))
        elif kind == "add_graph":
            store.add_graph(graph(write[1]))
        elif kind == "remove_graph":
            store.remove_graph(graph(write[1]))
        else:
            store.bind(write[1], write[2], override=write[3])
