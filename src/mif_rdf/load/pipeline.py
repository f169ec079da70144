"""Reading memory files into loadable pieces, in this process or in worker processes.

Preparing a memory -- reading the file, its YAML, the checks, the projection
and the triples -- needs nothing but that file, so for large bundles it runs
in worker processes while the main process adds the pieces already prepared
to the store: on two cores the two halves of a load overlap.  The main process
takes the pieces in path order, so duplicate ids, the order of problems and
the records are exactly those of a load in one process (tests compare the
two).  Terms cross between processes through :mod:`mif_rdf.load.termpickle`, which
keeps every lexical form.

When worker processes cannot start (no ``fork`` and a script whose ``__main__``
is not import-safe, a sandbox without semaphores), the load quietly goes on in
this process: workers change the speed of a load, never its result.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload
from typing import Literal as TypingLiteral

from mif_rdf.core.errors import Problem
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import process_exists
from mif_rdf.core.statements import Triple
from mif_rdf.load import termpickle
from mif_rdf.rdf.jsonld_source import is_jsonld_path, json_pointer_keys, markdown_path, read_memory
from mif_rdf.rdf.lexical import ill_typed_values
from mif_rdf.rdf.memory_nquads import memory_nquads
from mif_rdf.rdf.projection import Projection, project_memory
from mif_rdf.rdf.reference import pyld_graph
from mif_rdf.rdf.tordf import document_nquads, document_triples
from mif_rdf.source.identity import document_iri, memory_iri
from mif_rdf.source.integrity import hash_problems
from mif_rdf.source.parse import ParsedMemory

T = TypeVar("T")
#: How a projection becomes triples: the context walker (:mod:`mif_rdf.rdf.tordf`) or pyld's toRdf, the reference.
ToRdfEngine = TypingLiteral["fast", "pyld"]
#: What a prepared memory carries: rdflib triples, or N-Quads text for Oxigraph to parse.
TriplesAs = TypingLiteral["rdflib", "nquads"]
#: Memories per task sent to a worker: large enough to amortize the round trip.
CHUNK = 64
#: Below this many memory files a load stays in one process (starting workers costs more).
PARALLEL_THRESHOLD = 1_000


@dataclass
class PreparedMemory:
    """One memory file, read and turned into what the loader adds."""

    relpath: str
    problems: list[Problem]  # from reading and parsing the file
    parsed: ParsedMemory | None = None  # None when the file cannot be loaded
    notes: list[Problem] = field(default_factory=list)  # hash check and projection: kept only if the memory is loaded
    doc_iri: str = ""
    document: dict[str, Any] | None = None  # the projection document, when one was built (None: the record builds it)
    triples: list[Triple] = field(default_factory=list)
    nquads: str = ""  # instead of ``triples``, for an Oxigraph store: the memory's graph as N-Quads text
    ill_typed: list[Problem] = field(default_factory=list)  # ill-typed literals of the graph, which exports warn about


def prepare_memory(
    root: Path, relpath: str, base: str, limits: Limits, engine: ToRdfEngine, output: TriplesAs = "rdflib"
) -> PreparedMemory:
    """Read, parse, check, project and turn one memory file (``.md``, or ``.jsonld``: its JSON-LD form) into triples."""
    parsed, problems = read_memory(root, relpath, base, limits)
    if parsed is None:
        return PreparedMemory(relpath, problems)
    return complete(parsed, base, engine, problems, output)


def complete(
    parsed: ParsedMemory,
    base: str,
    engine: ToRdfEngine,
    problems: list[Problem] | None = None,
    output: TriplesAs = "rdflib",
) -> PreparedMemory:
    """The rest of :func:`prepare_memory`, for a memory already parsed.

    ``output="nquads"`` gives the fast engine's graph as N-Quads text in the
    memory's named graph (the pyld engine, the reference, always gives triples).
    """
    notes = hash_problems(parsed.relpath, parsed.frontmatter, parsed.body)
    notes.extend(ill_typed_values(parsed.relpath, parsed.frontmatter))
    doc_iri = document_iri(base, markdown_path(parsed.relpath))  # a .jsonld memory sits where its .md would
    graph = memory_iri(parsed.id)
    as_text = output == "nquads" and engine == "fast"
    one_pass = (
        memory_nquads(parsed.frontmatter, parsed.body, path=parsed.relpath, doc_iri=doc_iri, graph=graph)
        if as_text
        else None
    )
    if one_pass is not None:  # no projection notes: the text without the document (the record builds it)
        prepared = PreparedMemory(parsed.relpath, problems or [], parsed, notes, doc_iri, nquads=one_pass[0])
        ill_typed = one_pass[1]
    else:
        projection = project_memory(parsed.frontmatter, parsed.body, path=parsed.relpath, doc_iri=doc_iri)
        notes.extend(projection.notes)
        prepared = PreparedMemory(parsed.relpath, problems or [], parsed, notes, doc_iri, projection.document)
        ill_typed = projection.ill_typed
        if as_text:
            prepared.nquads = document_nquads(projection.document, doc_iri, graph)
        else:
            prepared.triples = triples(projection, engine)
    prepared.ill_typed = ill_typed
    if is_jsonld_path(parsed.relpath):  # a .jsonld memory's keys are JSON pointers into its file
        prepared.notes, prepared.ill_typed = json_pointer_keys(notes), json_pointer_keys(ill_typed)
    return prepared


def triples(projection: Projection, engine: ToRdfEngine) -> list[Triple]:
    """The triples of a projection document: the fast walker, or pyld's toRdf (the reference)."""
    if engine == "pyld":
        return list(pyld_graph(projection.document, projection.doc_iri))
    return document_triples(projection.document, projection.doc_iri)


def worker_count(files: int, workers: int | None, *, busy_main: bool = True, since: CpuReading | None = None) -> int:
    """Worker processes for ``files`` memory files: ``workers`` when given, else as many as there are idle cores.

    Workers only pay when they get cores of their own: they shorten a load on
    idle cores but lengthen it when other work holds a core, since moving
    results between processes costs CPU too (docs/performance.md has the
    figures).  So the default counts the
    cores idle right now (sampled over a tenth of a second; the load average
    would count this process's own past work) and uses workers only when at
    least two are idle: then the main process (which fills the store) keeps
    one and the workers take the rest.  ``busy_main`` is False for Oxigraph,
    whose main process mostly waits while Oxigraph parses in Rust, so every
    idle core gets a worker.  No workers by default where they would run the
    program's script again (:func:`_reruns_main_script`).  ``--workers``
    overrides the guess.  ``since``: a :func:`cpu_reading` taken before the
    caller's own work (finding the files), which the sample then overlaps.
    """
    if workers is not None:
        return max(0, workers)
    if files < PARALLEL_THRESHOLD or _reruns_main_script():
        return 0
    idle = round(usable_cores() - _busy_cores(since=since))
    if idle < 2:
        return 0
    return min(idle - 1 if busy_main else idle, 8)


def _reruns_main_script() -> bool:
    """Whether worker processes would run the program's own script again.

    Forking copies this process; where fork is unsafe (other threads: an open
    Oxigraph database, a Jupyter kernel) the workers are fresh interpreters,
    and multiprocessing imports the main script in each of them.  A script
    without an ``if __name__ == "__main__":`` guard would then load the bundle
    again in every worker (and wait forever on the cache lock its parent
    holds), so a default never asks for that; interactive sessions have no
    script to run again.  ``workers=N`` still starts them when asked.
    """
    if _start_method().get_start_method() == "fork":
        return False
    return getattr(sys.modules.get("__main__"), "__file__", None) is not None


def spare_core() -> bool:
    """Whether a second process started now would get a core of its own and can start by ``fork``.

    The same guess as :func:`worker_count`'s default: two cores idle (this
    process keeps one, the other process takes the other) and a single thread
    here (forking a process with other threads can deadlock the child).
    """
    return _start_method().get_start_method() == "fork" and round(usable_cores() - _busy_cores()) >= 2


def usable_cores() -> int:
    """Cores this process may run on (a container's CPU set, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class CpuReading:
    """The machine's CPU counters (``/proc/stat``) and this process's own CPU time, at one moment."""

    total: int  # ticks of every core, in every state
    idle: int  # ticks idle or waiting on I/O
    cpus: int
    own: float  # this process's CPU seconds, every thread (time.process_time)
    at: float  # time.monotonic()


def cpu_reading() -> CpuReading | None:
    """A :class:`CpuReading` now, or None where there is no ``/proc/stat``."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            lines = handle.read().splitlines()
        fields = [int(x) for x in lines[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    cpus = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return CpuReading(sum(fields), idle, cpus, time.process_time(), time.monotonic())


#: Seconds over which :func:`worker_count` samples how busy the machine is.
SAMPLE_SECONDS = 0.1


def while_sampling(relpaths: list[str], since: CpuReading | None) -> Iterator[str]:
    """The first of ``relpaths``, one at a time, until the sample begun at ``since`` is long enough.

    :func:`worker_count` would otherwise wait for it (about 70 ms of a 10,000-memory load, after finding the
    files): a loader prepares these in this process meanwhile (its own CPU time is not counted as busy).
    Nothing when no sample is due (workers given, or too few files for any).
    """
    if since is None or len(relpaths) < PARALLEL_THRESHOLD:
        return
    for relpath in relpaths:
        if time.monotonic() - since.at >= SAMPLE_SECONDS:
            return
        yield relpath


def _busy_cores(interval: float = SAMPLE_SECONDS, since: CpuReading | None = None) -> float:
    """How many cores other processes keep busy, from two readings ``interval`` apart (0 where there is no /proc).

    ``since`` is a first reading taken earlier, while this process did work it
    had to do anyway: only what is left of ``interval`` is waited for (a
    command's load made its store, importing Oxigraph's rdflib plugin, and
    found its files in the meantime: usually all of it).  This process's own
    CPU time between the readings is not counted as busy.
    """
    first = since or cpu_reading()
    if first is None:
        return 0.0
    left = interval - (time.monotonic() - first.at)
    if left > 0:
        time.sleep(left)
    second = cpu_reading()
    if second is None or second.total <= first.total:
        return 0.0
    elapsed = second.total - first.total
    busy = first.cpus * (elapsed - (second.idle - first.idle)) / elapsed
    own = (second.own - first.own) / max(second.at - first.at, 1e-6)
    return max(0.0, busy - own)


def _as_is(prepared: PreparedMemory) -> PreparedMemory:
    return prepared


@overload
def prepare_memories(
    root: Path,
    relpaths: list[str],
    base: str,
    limits: Limits,
    engine: ToRdfEngine,
    workers: int,
    output: TriplesAs = "rdflib",
) -> Generator[PreparedMemory, None, None]: ...
@overload
def prepare_memories(
    root: Path,
    relpaths: list[str],
    base: str,
    limits: Limits,
    engine: ToRdfEngine,
    workers: int,
    output: TriplesAs,
    shape: Callable[[PreparedMemory], T],
    pack: Callable[[list[T]], list[T]] | None = None,
) -> Generator[T, None, None]: ...
def prepare_memories(
    root: Path,
    relpaths: list[str],
    base: str,
    limits: Limits,
    engine: ToRdfEngine,
    workers: int,
    output: TriplesAs = "rdflib",
    shape: Callable[[PreparedMemory], Any] = _as_is,
    pack: Callable[[list[Any]], list[Any]] | None = None,
) -> Generator[Any, None, None]:
    """:func:`prepare_memory` for every path, in order, using ``workers`` processes (0: this one).

    ``shape`` (a picklable function) turns each prepared memory into what the
    caller needs, in the worker: the streaming export sends back only its
    lines and keys, not the parsed frontmatter and projection.  ``pack`` (picklable too) runs in a
    worker on each chunk's shaped memories before they are pickled back (the streaming export puts
    their text in a spool file there); it never runs in this process.
    """
    if workers <= 0 or len(relpaths) <= CHUNK:
        yield from (shape(prepare_memory(root, relpath, base, limits, engine, output)) for relpath in relpaths)
        return
    starts = deque(range(0, len(relpaths), CHUNK))
    pending: deque[tuple[int, Future[bytes]]] = deque()
    pool: ProcessPoolExecutor | None = None
    try:
        with (
            _interrupts_held()
        ):  # a Ctrl-C while the pool forks its workers would leave it half made, and exit waiting on it
            try:
                pool = ProcessPoolExecutor(
                    workers, mp_context=_start_method(), initializer=_worker_start, initargs=(os.getpid(),)
                )
            except (OSError, ValueError, ImportError):  # no process support here: one process it is
                pool = None
            else:
                for _ in range(3 * workers):  # enough in flight to keep every worker busy, few enough to bound memory
                    _submit(pool, starts, pending, root, relpaths, base, limits, engine, output, shape, pack)
        if pool is None:
            yield from prepare_memories(root, relpaths, base, limits, engine, 0, output, shape)
            return
        while pending:
            start, future = pending.popleft()
            try:
                payload = future.result()
            except BrokenProcessPool:  # the workers could not start or died: finish here
                yield from prepare_memories(root, relpaths[start:], base, limits, engine, 0, output, shape)
                return
            _submit(pool, starts, pending, root, relpaths, base, limits, engine, output, shape, pack)
            yield from pickle.loads(payload)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _submit(
    pool: ProcessPoolExecutor,
    starts: deque[int],
    pending: deque[tuple[int, Future[bytes]]],
    root: Path,
    relpaths: list[str],
    base: str,
    limits: Limits,
    engine: ToRdfEngine,
    output: TriplesAs,
    shape: Callable[[PreparedMemory], Any],
    pack: Callable[[list[Any]], list[Any]] | None,
) -> None:
    """Give the pool the next chunk of paths, if any are left."""
    if starts:
        start = starts.popleft()
        chunk = relpaths[start : start + CHUNK]
        pending.append((start, pool.submit(_prepare_chunk, root, chunk, base, limits, engine, output, shape, pack)))


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (delivered when the block ends) in the main thread; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _worker_start(parent: int) -> None:
    """Set up a worker: no cyclic GC (short-lived objects), and an end within a second of its parent's.

    Signals are the parent's business: SIGINT (a terminal's Ctrl-C reaches the
    whole process group) is ignored and SIGTERM kills, rather than running a
    handler inherited through ``fork``.  A parent killed with ``kill -9``
    cannot stop its pool, so each worker watches for it to be gone (its
    parent pid changes to whoever adopts it) and ends itself.
    """
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # forked while the parent held them (:func:`_interrupts_held`)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)
    threading.Thread(target=_end_with, args=(parent, os.getppid()), name="mif-rdf-orphan-watch", daemon=True).start()


def _end_with(parent: int, spawner: int) -> None:
    """Exit this worker once the process that made it (the parent, or a fork server) is gone."""
    while os.getppid() == spawner and (spawner == parent or process_exists(parent)):
        time.sleep(0.25)
    os._exit(1)


def _prepare_chunk(
    root: Path,
    relpaths: list[str],
    base: str,
    limits: Limits,
    engine: ToRdfEngine,
    output: TriplesAs,
    shape: Callable[[PreparedMemory], Any],
    pack: Callable[[list[Any]], list[Any]] | None = None,
) -> bytes:
    shaped = [shape(prepare_memory(root, relpath, base, limits, engine, output)) for relpath in relpaths]
    return termpickle.dumps(shaped if pack is None else pack(shaped))


def _start_method() -> multiprocessing.context.BaseContext:
    """``fork`` when this process has a single thread (fast, nothing re-imported), else a fresh interpreter.

    Forking a process with other threads (a Jupyter kernel, an open Oxigraph
    database) can deadlock the child on a lock another thread held.
    """
    if sys.platform.startswith("linux") and _threads() == 1:
        return multiprocessing.get_context("fork")
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0
