"""The work of one partition of memory files, or of one bucket of a shuffle, as Dask runs it in a worker.

Every step is the streamed export's own (:mod:`mif_rdf.output.stream_export`):
:func:`~mif_rdf.output.stream_export.memory_shape` prepares each file in the
worker that holds its partition, and the same
:class:`~mif_rdf.output.stream_export.StreamWriter` writes the memories,
the entity files and the links graph's edges.  Only the writer's index
differs: on one machine it is files filled in path order (``output.stream_index``); here
(:class:`ShuffledIndex`) its answers come from two shuffles, keyed by a
stable hash so every worker sends a key to the same bucket:

1. the claims (id, document IRI) of every memory, by id and then by
   document IRI: in each bucket the first file in path order keeps it, the
   later ones get the load's duplicate-id and duplicate-location errors;
2. the links graph's targets (each kept memory's document and memory IRIs,
   each entity's IRI) and edges (each relationship with its resolved key),
   by that key: in each bucket the edges are joined with their targets.

What a partition sends to a shuffle waits until every partition has been
written (the joins need all of them), so each bucket of records travels as
one compressed blob (:func:`pack`), opened only by the task that joins that
bucket, through a file of the output folder (:mod:`mif_rdf.distributed.spool`),
so they take no worker's memory while they wait (the validation, which
writes nothing, moves its claims and links records as Dask results).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import pickle
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from rdflib import URIRef

from mif_rdf.core.errors import Problem
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import replacing, temporary_folder
from mif_rdf.core.statements import Triple
from mif_rdf.distributed.location import fetch
from mif_rdf.distributed.spool import read_blob, spool_path, write_spool
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.loader import open_bundle
from mif_rdf.load.pipeline import ToRdfEngine, prepare_memories
from mif_rdf.nsmodel.access import Withheld
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.nsmodel.model import NamespaceModel
from mif_rdf.ontology.extended_types import Typer
from mif_rdf.output.stream_export import StreamedMemory, StreamReport, StreamWriter, memory_shape

#: (key, order, relpath): a memory's claim on an id or a document IRI; ``order`` is its place in path order.
Claim = tuple[str, int, str]
#: (id, order, relpath, document IRI): a memory's claim on its id, carrying its location for the next shuffle.
IdClaim = tuple[str, int, str, str]
C = TypeVar("C", Claim, IdClaim)
R = TypeVar("R")
P = ParamSpec("P")
#: (key, order, iri, relpath, hidden): what a link target key points at.
Target = tuple[str, int, str, str, bool]
#: (key, order, relpath, source iri, source hidden, position, type, target as written): one relationship.
Edge = tuple[str, int, str, str, bool, int, str, str]
#: order -> (why, the file that keeps it): "id" or "location"; only for the files that lose.
Verdicts = dict[int, tuple[str, str]]


def bucket(key: str, buckets: int) -> int:
    """The bucket of a key: the same in every process (``hash()`` of a str is salted per process)."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % buckets


def pack(records: list[R]) -> bytes:
    """One bucket's records as one zlib-compressed pickle.

    Held as tuples of strings, a memory's records (its targets, its edges,
    its id claim) take about 1 KB of a worker's memory from the partition's
    write to the joins at the end, and thousands of small objects keep the
    allocator's pages alive; a blob takes a fraction of that and is freed in
    one piece once its join has read it.  Pickle, as Dask itself uses
    between its workers: the blobs only ever pass between this export's own tasks.
    """
    return zlib.compress(pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL), 1)


def packed(buckets: list[list[R]]) -> list[bytes]:
    """Every bucket :func:`pack`-ed."""
    return [pack(records) for records in buckets]


def unpack(blobs: Iterable[bytes]) -> list[Any]:
    """The records of the blobs of one bucket (from every partition), in one list."""
    return [record for blob in blobs for record in pickle.loads(zlib.decompress(blob))]  # noqa: S301


@dataclass(frozen=True)
class Settings:
    """What every task needs to know about the export (small and picklable: it travels with each task)."""

    root: Path
    base_iri: str
    engine: ToRdfEngine
    limits: Limits
    projections: frozenset[str]
    model: NamespaceModel
    out_dir: Path
    with_hashes: bool = False
    audience: Audience | None = None
    ontology_dirs: tuple[str, ...] | None = None
    #: the URL the files are read from when the bundle is not a folder of the workers (``root`` is then the
    #: client's copy of its ``.mif`` and names: :func:`mif_rdf.distributed.location.opened`)
    source: str | None = None

    @contextlib.contextmanager
    def local(self, relpaths: Iterable[str]) -> Iterator[Settings]:
        """These settings with ``root`` a folder of this worker that holds ``relpaths`` (with their ``.jsonld``
        projections) and ``.mif``: the bundle itself, or those files downloaded from :attr:`source`."""
        if self.source is None:
            yield self
            return
        wanted = [
            twin
            for r in relpaths
            for twin in (r, r[: -len(".md")] + ".jsonld")
            if twin == r or twin in self.projections
        ]
        with temporary_folder("dask") as folder:
            root = Path(folder) / self.root.name
            fetch(self.source, wanted, root)
            yield dataclasses.replace(self, root=root)

    @property
    def home(self) -> str:
        """The bundle as its findings name it: its folder, or its URL."""
        return self.source or str(self.root)

    def bundle(self) -> LoadedBundle:
        return open_bundle(self.root, base_iri=self.base_iri, engine=self.engine, limits=self.limits)

    def writer(self, out: object, report: StreamReport, index: ShuffledIndex) -> StreamWriter:
        bundle = self.bundle()
        return StreamWriter(bundle, out, report, index, Typer(bundle.root, self.ontology_dirs), self.audience)  # type: ignore[arg-type]


class ShuffledIndex:
    """The stream writer's index (:class:`~mif_rdf.output.stream_export.LinkIndex`) on a cluster.

    What it answers was settled by a shuffle (``lost``: the files that lose an
    id or a location; ``taken``: keys already held; ``joined``: the edges of
    one bucket with their targets); what the writer adds to it goes out,
    bucketed, to the next shuffle (``targets``, ``links``; ``claimed``: the
    keys of ``entity_keys`` a memory holds, which the entity files need).
    """

    def __init__(
        self,
        buckets: int = 1,
        *,
        lost: Verdicts | None = None,
        taken: dict[str, str] | None = None,
        entity_keys: frozenset[str] = frozenset(),
        joined: Sequence[tuple[str, str, bool, int, str, str, str | None, bool]] = (),
        first_entity: int = 0,
    ) -> None:
        self.lost = lost or {}
        self.taken = taken or {}
        self.entity_keys = entity_keys
        self.joined = joined
        self.order = first_entity  # the place in path order of the file being written
        self.targets: list[list[Target]] = [[] for _ in range(buckets)]
        self.links: list[list[Edge]] = [[] for _ in range(buckets)]
        self.claimed: dict[str, tuple[int, str]] = {}

    def holder(self, memory_id: str) -> str | None:
        why, other = self.lost.get(self.order, ("", ""))
        return other if why == "id" else None

    def located(self, key: str) -> str | None:
        why, other = self.lost.get(self.order, ("", ""))
        return other if why == "location" else self.taken.get(key)

    def add_memory(
        self, memory_id: str, iri: str, relpath: str, doc_iri: str, hidden: bool, links: list[tuple[int, str, str, str]]
    ) -> None:
        for key in (doc_iri, iri):
            self._target(key, iri, relpath, hidden)
            if key in self.entity_keys:
                self.claimed.setdefault(key, (self.order, relpath))
        for position, kind, target, key in links:
            self.links[bucket(key, len(self.links))].append(
                (key, self.order, relpath, iri, hidden, position, kind, target)
            )

    def add_entity(self, iri: str, relpath: str, hidden: bool) -> None:
        self.taken.setdefault(iri, relpath)
        self._target(iri, iri, relpath, hidden)
        self.order += 1

    def edges(self) -> Iterable[tuple[str, str, bool, int, str, str, str | None, bool]]:
        return self.joined

    def _target(self, key: str, iri: str, relpath: str, hidden: bool) -> None:
        self.targets[bucket(key, len(self.targets))].append((key, self.order, iri, relpath, hidden))


# -- the tasks, in the order an export runs them --------------------------------------------------


def prepare(settings: Settings, relpaths: list[str]) -> Iterator[StreamedMemory]:
    """Each memory file of a partition read, projected and reduced to its lines (in this worker), one at a time:
    a partition's memories are written as they come, never all held (their lines were most of a worker's
    working set: 35-50 MiB a partition of 5,000)."""
    bundle = settings.bundle()
    shape = memory_shape(
        bundle, settings.projections, settings.model, with_hashes=settings.with_hashes, audience=settings.audience
    )
    return prepare_memories(bundle.root, relpaths, bundle.base_iri, bundle.limits, bundle.engine, 0, "nquads", shape)


def claim_id(claims: list[list[IdClaim]], item: StreamedMemory, order: int) -> None:
    """A loadable memory's claim on its id, in its bucket by id (with its document IRI, for the next shuffle)."""
    if item.id is not None:
        claims[bucket(item.id, len(claims))].append((item.id, order, item.relpath, item.doc_iri))


def settle_ids(parts: list[bytes], buckets: int) -> tuple[Verdicts, list[bytes]]:
    """Per bucket of ids: the first file in path order keeps an id; the survivors' document IRIs go on."""
    lost: Verdicts = {}
    survivors: list[list[Claim]] = [[] for _ in range(buckets)]
    claims: list[IdClaim] = unpack(parts)
    for keeper, later in _first_of_each(claims):
        lost.update((claim[1], ("id", keeper[2])) for claim in later)
        _, order, relpath, doc_iri = keeper
        survivors[bucket(doc_iri, buckets)].append((doc_iri, order, relpath))
    return lost, packed(survivors)


def settle_spooled_ids(out_dir: Path, number: int, buckets: int) -> Verdicts:
    """:func:`settle_ids` on bucket ``number`` of every partition's spool file; the survivors, bucketed by document
    IRI, go to this bucket's own spool file (step ``ids``) for :func:`settle_spooled_locations`."""
    parts = [read_blob(spool_path(out_dir, i), 2 * buckets + number) for i in range(buckets)]
    lost, survivors = settle_ids(parts, buckets)
    write_spool(spool_path(out_dir, number, "ids"), survivors)
    return lost


def settle_spooled_locations(out_dir: Path, number: int, buckets: int) -> Verdicts:
    """:func:`settle_locations` on bucket ``number`` of every id bucket's survivors."""
    return settle_locations([read_blob(spool_path(out_dir, i, "ids"), number) for i in range(buckets)])


def settle_locations(parts: list[bytes]) -> Verdicts:
    """Per bucket of document IRIs: the first file in path order keeps a location."""
    lost: Verdicts = {}
    claims: list[Claim] = unpack(parts)
    for keeper, later in _first_of_each(claims):
        lost.update((claim[1], ("location", keeper[2])) for claim in later)
    return lost


def _first_of_each(claims: list[C]) -> Iterator[tuple[C, list[C]]]:
    """Claims grouped by key (item 0): the first in path order (item 1), and the later ones."""
    groups: dict[str, list[C]] = {}
    for claim in sorted(claims, key=lambda claim: claim[1]):
        groups.setdefault(claim[0], []).append(claim)
    for group in groups.values():
        yield group[0], group[1:]


@dataclass
class Written:
    """What writing one partition (or the bundle's own file, or one bucket of links) produced."""

    file: str
    quads: int = 0
    graphs: int = 0
    shared: set[URIRef] = field(default_factory=set)
    withheld: dict[str, Withheld] = field(default_factory=dict)
    problems: list[tuple[int, Problem]] = field(default_factory=list)  # (place in path order, problem)
    hidden: set[URIRef] = field(default_factory=set)
    hierarchy: list[Triple] = field(default_factory=list)
    claimed: dict[str, tuple[int, str]] = field(default_factory=dict)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library is another (macOS, musl)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back_memory() -> None:
    """The C heap's free pages returned to the system (glibc's ``malloc_trim``; nothing on other C libraries).

    A partition's lines, projections and buffers are freed when it is
    written, but glibc keeps the freed pages in its heap, scattered among
    what lives on (the per-file step's term caches), and the next partitions
    do not reuse them all: a worker's resident memory crept up with the
    partitions it had written (0.31 GiB at 100,000 memories, 0.37 at 300,000,
    two workers, with no record left in them).  Dask's own documentation
    gives this call for such unmanaged memory.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def giving_back_memory(task: Callable[P, R]) -> Callable[P, R]:
    """``task``, then :func:`give_back_memory` once what it freed is freed (its locals are gone when it returns)."""

    @functools.wraps(task)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        result = task(*args, **kwargs)
        give_back_memory()
        return result

    return run


@giving_back_memory
def write_partition(
    settings: Settings,
    number: int,
    relpaths: list[str],
    first: int,
    lost: Verdicts,
    entity_keys: frozenset[str],
    buckets: int,
) -> bytes:
    """A partition's memory files read and written to ``part-NNNNN.nq.gz``: what it wrote and found
    (:class:`Written`, packed: :func:`pack`).  Its link targets, edges and id claims, bucketed and packed, go to
    its spool file (:func:`~mif_rdf.distributed.spool.spool_path`: of bucket ``j``, targets at ``j``, edges at
    ``buckets + j``, claims at ``2 * buckets + j``), read by the shuffles' tasks.  The partition's working set,
    freed when it is written, is given back to the system (:func:`give_back_memory`).

    ``lost``: the files (by place in path order) that lose their id or location
    to an earlier file.  The first run of every partition takes none (they
    are what the claims it returns settle); the few partitions a later file
    of which loses are written again with them.  So a partition's memories
    leave the worker as soon as they are written and memory does not grow
    with the bundle, at the price of reading those few partitions twice.
    """
    index = ShuffledIndex(buckets, lost=lost, entity_keys=entity_keys)
    report = StreamReport()
    written = Written(f"part-{number:05d}.nq.gz")
    claims: list[list[IdClaim]] = [[] for _ in range(buckets)]
    with settings.local(relpaths) as here, replacing(settings.out_dir / written.file, gzipped=True) as out:
        items = prepare(here, relpaths)
        writer = here.writer(out, report, index)
        for offset, item in enumerate(items):
            index.order = first + offset
            written.problems.extend((index.order, problem) for problem in writer.memory(item))
            claim_id(claims, item, index.order)
    _summed(written, writer, report)
    written.hidden, written.hierarchy, written.claimed = writer.hidden, writer.typer.hierarchy(), index.claimed
    blobs = packed(index.targets) + packed(index.links) + packed(claims)
    write_spool(spool_path(settings.out_dir, number), blobs)
    return pack([written])


@giving_back_memory
def join_links(settings: Settings, number: int, partitions: int, entities: bytes) -> Written:
    """Per bucket of keys: the edges joined with their targets, written to ``links-NNNNN.nq.gz``.

    The bucket's records are read from every partition's spool file (there
    are as many buckets as partitions), the entity files' targets (packed)
    come from the client.  A key held twice (a memory's IRI and an entity's)
    points at the first in path order, entity files coming after every
    memory, as on one machine.  What it freed is given back, as after a
    partition: a worker's memory at the start of each join crept from 124 to
    133 MiB over its 30 joins at 300,000 memories without it (sampled).
    """
    spools = [spool_path(settings.out_dir, i) for i in range(partitions)]
    found: dict[str, Target] = {}
    held: list[Target] = unpack([entities, *(read_blob(path, number) for path in spools)])
    for each in sorted(held, key=lambda t: t[1]):
        found.setdefault(each[0], each)
    links: list[Edge] = unpack(read_blob(path, partitions + number) for path in spools)
    rows = []
    for key, order, relpath, source, hidden, position, kind, written_as in sorted(links, key=lambda e: (e[1], e[5])):
        target = found.get(key)
        rows.append(
            (
                order,
                (relpath, source, hidden, position, kind, written_as, target and target[2], bool(target and target[4])),
            )
        )
    index = ShuffledIndex(joined=[row for _, row in rows])
    report = StreamReport()
    written = Written(f"links-{number:05d}.nq.gz")
    with settings.local([]) as here, replacing(settings.out_dir / written.file, gzipped=True) as out:
        writer = here.writer(out, report, index)
        broken = list(writer.edges())
    orders = {row[0]: order for order, row in rows}  # a broken link's file, back to its place in path order
    written.problems = [(orders[problem.path], problem) for problem in broken]
    _summed(written, writer, report)
    return written


def _summed(written: Written, writer: StreamWriter, report: StreamReport) -> None:
    written.quads, written.graphs, written.shared, written.withheld = (
        report.quads,
        writer.graphs,
        writer.shared,
        report.withheld,
    )


def part(value: Sequence[object], number: int) -> object:
    """One item of a task's result, as a task of its own (so only that item moves to the task that needs it)."""
    return value[number]
