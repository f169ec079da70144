"""Streaming N-Quads export: a bundle of any size in bounded memory.

``mif-rdf export BUNDLE --stream`` writes the quads ``export --format
nquads`` writes (tests compare the two on every fixture) without loading the
bundle into a store.  Each memory's graph, its layout triple and its place
in the links graph leave as soon as its file is read; memory files are read
in path order, by worker processes when cores are idle, as a load reads them.

Only the links graph's edges wait for the end: a relationship may name a
file that comes later, or a memory by an id not yet seen.  What resolving
them needs -- each memory's id, document IRI and whether it is withheld, and
each relationship's resolved target -- goes into a temporary index on disk
(:mod:`mif_rdf.output.stream_index`: files of the system's temporary folder,
removed at the end, or by the next run after a ``kill -9``:
:func:`mif_rdf.core.outputs.temporary_folder`), not into memory, but for a
table of 24-48 bytes a memory.  So peak memory grows little with the bundle:
the withheld memories (spec 10.2 ``_local``) and the entity files of
``.mif/entities`` are kept.

The export policy is :mod:`mif_rdf.output.policy`'s: withheld memories and
entities are not written, nor any triple of a shared graph that names them.
Blank node labels are unique in the file (each memory's walker has a random
prefix), so memories never share a blank node.

With worker processes, a memory's text does not travel through the pipe:
each worker writes a chunk's text to a spool file of that temporary folder
(:func:`spool_text`) and sends what the writer decides on (id, keys, links,
withholding); the main process copies the bytes of the memories it writes
from the spool file to the output in the kernel (``os.copy_file_range``)
when the output is a regular file, and removes each spool file once read.
Pickling, the pipe and writing the text from Python cost the two processes
together about as much CPU as the text's shaping (docs/performance.md).
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from rdflib import Literal, URIRef
from rdflib.namespace import RDF

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.namespaces import MIF
from mif_rdf.core.outputs import temporary_folder
from mif_rdf.core.progress import progress_bar
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import PATH, LoadedBundle
from mif_rdf.load.links import broken_link, expects_bundle_target, place_nquads, predicate_nquads
from mif_rdf.load.loader import memory_files, open_bundle
from mif_rdf.load.pipeline import PreparedMemory, ToRdfEngine, complete, prepare_memories, triples, worker_count
from mif_rdf.load.stages import duplicate_id, duplicate_location, entity_projection, read_entity, resolved_links
from mif_rdf.nsmodel.access import Withheld, local_only, withheld_reason
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.nsmodel.graphs import (
    GRAPH_INHERITED,
    GRAPH_NAMESPACES,
    memory_inherited,
    namespace_uri,
    namespaces_triples,
)
from mif_rdf.nsmodel.model import DEFAULT_AUTHORITY, NamespaceModel
from mif_rdf.nsmodel.reading import read_namespace_model
from mif_rdf.ontology.extended_types import Placement, Typer, placement_of
from mif_rdf.output.policy import trust_raised
from mif_rdf.output.serialize import nquad_line
from mif_rdf.output.stream_index import StreamIndex
from mif_rdf.rdf.jsonld_source import Authored, projection_problems
from mif_rdf.rdf.layout import layout_nquads
from mif_rdf.rdf.tordf import each_line_once
from mif_rdf.source.identity import GRAPH_LAYOUT, GRAPH_LINKS, GRAPH_TYPES, graph_iri, memory_iri
from mif_rdf.source.integrity import with_hash
from mif_rdf.source.parse import ParsedMemory

#: The trust-level predicate as it appears in a memory's N-Quads text.
_TRUST = f" <{MIF.trustLevel}> "


@dataclass
class StreamReport:
    """What a streaming export wrote and found."""

    quads: int = 0
    graphs: int = 0
    #: graph IRI -> what was left out and why (spec 10.2)
    withheld: dict[str, Withheld] = field(default_factory=dict)
    #: every problem, when no ``on_problem`` callback took them as they came
    problems: list[Problem] = field(default_factory=list)
    #: problems by severity (counted either way)
    severities: Counter[Severity] = field(default_factory=Counter)

    @property
    def errors(self) -> int:
        return self.severities[Severity.ERROR]


@dataclass
class StreamedMemory:
    """One memory file as a worker hands it to the writer: its lines, ready to write, and what the links need.

    Its lines travel as one UTF-8 block in the order the writer puts them in
    the output: the memory's own graph, its layout line, its ``#inherited``
    lines and its place in the links graph.  One ``bytes`` object pickles and
    writes at the speed of a copy, where a list of lines cost a string
    object each on both sides of the pipe.
    """

    relpath: str
    problems: list[Problem]
    id: str | None = None  # None: the file cannot be loaded
    doc_iri: str = ""
    notes: list[Problem] = field(default_factory=list)
    ill_typed: list[Problem] = field(default_factory=list)
    text: bytes = b""  # its N-Quads lines, UTF-8 (above)
    quads: int = 0  # the lines in ``text``
    inherits: bool = False  # whether ``text`` holds lines of the #inherited graph
    withheld: str | None = None  # why it stays on this machine
    links: list[tuple[int, str, str, str]] = field(default_factory=list)  # (index, type, target, resolved key)
    placement: Placement | None = None  # what decides its extended type (mif_rdf.ontology.extended_types)
    spooled: tuple[str, int, int] | None = None  # instead of ``text``: (spool file, offset, length) of its lines


def stream_nquads(
    root: str | Path,
    out: IO[bytes],
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    limits: Limits = DEFAULT_LIMITS,
    workers: int | None = None,
    progress: bool | None = None,
    with_hashes: bool = False,
    on_problem: Callable[[Problem], None] | None = None,
    audience: Audience | None = None,
    ontology_dirs: Iterable[Path | str] | None = None,
) -> StreamReport:
    """Write the bundle at ``root`` to ``out`` as N-Quads while reading it, in bounded memory.

    The quads are those of ``export_bundle(load_bundle(root, ...), "nquads",
    out)``, in another order; the problems are the load's and the export's
    (ill-typed literals), each given to ``on_problem`` as soon as it is found
    (or collected in the report).  ``with_hashes`` adds
    ``extensions.mif-rdf.hash`` to every memory, as ``export --with-hashes``.
    The memories' extended types go into ``<base>#types`` as a load writes
    them (``ontology_dirs``: the user ontology folders, default
    ``MIF_RDF_ONTOLOGY_PATH``).
    Raises :class:`~mif_rdf.core.errors.MifRdfError` only when the folder itself
    cannot be read.  With ``audience`` only what that party may read is
    written (:func:`~mif_rdf.nsmodel.access.withheld_reason`), as by the export.
    """
    bundle = open_bundle(root, base_iri=base_iri, engine=engine, limits=limits)
    report = StreamReport()

    def found(problems: Iterable[Problem]) -> None:
        for problem in problems:
            report.severities[problem.severity] += 1
            if on_problem is None:
                report.problems.append(problem)
            else:
                on_problem(problem)

    files = memory_files(bundle)
    found(bundle.problems)
    model = read_namespace_model(bundle.root, bundle.config, limits)
    found(model.problems)
    with temporary_folder("stream") as folder:
        index = StreamIndex(folder, len(files.memories))
        stream = StreamWriter(bundle, out, report, index, Typer(bundle.root, ontology_dirs), audience)
        stream.namespaces(model)
        try:
            shape = memory_shape(bundle, files.projections, model, with_hashes=with_hashes, audience=audience)
            count = worker_count(len(files.memories), workers, busy_main=False)
            spool = functools.partial(spool_text, folder=str(folder))
            # closed before the folder is removed: no worker is left writing a spool file into it
            with contextlib.closing(
                prepare_memories(
                    bundle.root, files.memories, bundle.base_iri, limits, engine, count, "nquads", shape, spool
                )
            ) as prepared:
                for item in progress_bar(prepared, len(files.memories), progress, "memories"):
                    found(stream.memory(item))
            before = len(bundle.problems)
            for relpath in files.entities:
                stream.entity(relpath)
            found(bundle.problems.items[before:])
            found(stream.edges())
            stream.write_triples(stream.typer.hierarchy(), stream.types)
            stream.flush()
        finally:
            stream.close_spool()
            index.close()
    report.graphs = stream.graphs + len(stream.shared)
    return report


def memory_shape(
    bundle: LoadedBundle,
    projections: Iterable[str],
    model: NamespaceModel,
    *,
    with_hashes: bool = False,
    audience: Audience | None = None,
) -> Callable[[PreparedMemory], StreamedMemory]:
    """:func:`streamed_memory` bound to a bundle's settings: the picklable per-file step workers run."""
    return functools.partial(
        streamed_memory,
        base=bundle.base_iri,
        engine=bundle.engine,
        with_hashes=with_hashes,
        audience=audience,
        model=model if model else None,
        authority=model.authority,
        projections=(bundle.root, frozenset(projections), bundle.limits),
    )


def streamed_memory(
    prepared: PreparedMemory,
    *,
    base: str,
    engine: ToRdfEngine,
    with_hashes: bool,
    audience: Audience | None = None,
    model: NamespaceModel | None = None,
    authority: str = DEFAULT_AUTHORITY,
    projections: tuple[Path, frozenset[str], Limits] | None = None,
) -> StreamedMemory:
    """In the worker: a prepared memory reduced to its lines, its withholding and its relationships.

    ``projections`` (bundle folder, the ``.jsonld`` files beside a ``.md``,
    limits): a memory's projection is checked here, as a load does.
    """
    parsed = prepared.parsed
    if parsed is None:
        return StreamedMemory(prepared.relpath, prepared.problems)
    stale: list[Problem] = []
    if projections is not None and (twin := prepared.relpath[: -len(".md")] + ".jsonld") in projections[1]:
        authored = Authored(parsed.frontmatter, parsed.body, prepared.doc_iri)  # as written, before any hash is added
        stale = projection_problems(projections[0], [twin], {parsed.relpath: authored}.get, projections[2])
    if with_hashes:
        prepared = complete(
            ParsedMemory(parsed.relpath, with_hash(parsed.frontmatter, parsed.body), parsed.body),
            base,
            engine,
            prepared.problems,
            "nquads",
        )
        parsed = prepared.parsed
        assert parsed is not None
    prepared.notes += stale
    frontmatter, iri = parsed.frontmatter, memory_iri(parsed.id)
    if prepared.nquads:  # each line once, as a store holds each quad (tordf.each_line_once)
        graph = prepared.nquads
        quads = graph.count("\n")  # a literal's newline is escaped: one a line
    else:  # the pyld engine gives rdflib triples
        graph = each_line_once([nquad_line(s, p, o, URIRef(iri)) for s, p, o in prepared.triples])
        quads = graph.count("\n")
    inherited = (
        []
        if model is None
        else [
            nquad_line(s, p, o, URIRef(graph_iri(base, GRAPH_INHERITED)))
            for s, p, o in memory_inherited(model, base, parsed.id, frontmatter)
        ]
    )
    namespace = frontmatter.get("namespace")
    place = place_nquads(
        iri,
        parsed.relpath,
        prepared.doc_iri,
        namespace_uri(authority, namespace, parsed.id),
        graph_iri(base, GRAPH_LINKS),
    )
    text = "".join([graph, layout_nquads(iri, frontmatter, graph_iri(base, GRAPH_LAYOUT)), *inherited, place])
    return StreamedMemory(
        prepared.relpath,
        prepared.problems,
        parsed.id,
        prepared.doc_iri,
        prepared.notes,
        prepared.ill_typed,
        text.encode("utf-8"),
        quads + 1 + len(inherited) + place.count("\n"),  # one line each: a path's newline is escaped
        bool(inherited),
        _withheld(namespace, audience) or trust_raised(frontmatter, _stated_trust(graph)),
        resolved_links(frontmatter, prepared.doc_iri, base),
        placement_of(iri, frontmatter),
    )


#: Spool files this worker process has written (their names: the pid and this count).
_SPOOLED = itertools.count()


def spool_text(items: list[StreamedMemory], folder: str) -> list[StreamedMemory]:
    """In a worker: a chunk's memories with their text moved into a new spool file in ``folder``.

    Each memory keeps where its bytes are (``spooled``); the main process copies
    them to the output and removes the file (:class:`StreamWriter`).  When the file
    cannot be written (the folder is gone because the export is ending, a full
    disk) the text travels in the memories as it is.
    """
    texts = [item.text for item in items if item.text]
    if not texts or not hasattr(os, "writev"):  # writev and pread (the main process's reading) are POSIX
        return items
    path = os.path.join(folder, f"chunk-{os.getpid()}-{next(_SPOOLED)}")  # the folder is the stream's own
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return items
    try:
        try:
            written, total = os.writev(fd, texts), sum(map(len, texts))
            if written < total:  # a short write (a signal, the disk nearly full): the rest as one block
                rest = memoryview(b"".join(texts))[written:]
                while rest:
                    rest = rest[os.write(fd, rest) :]
        finally:
            os.close(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return items
    offset = 0
    for item in items:
        if item.text:
            item.spooled, item.text = (path, offset, len(item.text)), b""
            offset += item.spooled[2]
    return items


_RDF_TYPE = RDF.type.n3()

#: local_only by namespace value: a bundle has few namespaces and the check normalizes Unicode each time.
_local_only = functools.lru_cache(maxsize=4096)(local_only)


def _withheld(namespace: object, audience: Audience | None) -> str | None:
    """:func:`~mif_rdf.nsmodel.access.withheld_reason` for a memory, its common case remembered."""
    if audience is None and isinstance(namespace, str):
        return _local_only(namespace)
    return withheld_reason(namespace, audience)


def _stated_trust(graph: str) -> list[str]:
    """The trust levels a memory's graph states (IRIs and plain values), read from its N-Quads text."""
    stated: list[str] = []
    at = graph.find(_TRUST)
    while at >= 0:
        obj = graph[at + len(_TRUST) : graph.index("\n", at)]
        if obj.startswith("<"):
            stated.append(obj[1 : obj.index(">")])
        elif obj.startswith('"'):
            stated.append(json.JSONDecoder(strict=False).raw_decode(obj)[0])  # N-Triples escapes are JSON ones
        at = graph.find(_TRUST, at + len(_TRUST))
    return stated


class LinkIndex(Protocol):
    """What the writer asks of the links graph's index: :class:`~mif_rdf.output.stream_index.StreamIndex`
    here, the joined partitions of :mod:`mif_rdf.distributed` on a cluster (which feeds the same writer)."""

    def holder(self, memory_id: str) -> str | None: ...
    def located(self, key: str) -> str | None: ...
    def add_memory(
        self, memory_id: str, iri: str, relpath: str, doc_iri: str, hidden: bool, links: list[tuple[int, str, str, str]]
    ) -> None: ...
    def add_entity(self, iri: str, relpath: str, hidden: bool) -> None: ...
    def edges(self) -> Iterable[tuple[str, str, bool, int, str, str, str | None, bool]]: ...


class StreamWriter:
    """The writing half: memories as they come, then entity files, then the links graph's edges."""

    def __init__(
        self,
        bundle: LoadedBundle,
        out: IO[bytes],
        report: StreamReport,
        index: LinkIndex,
        typer: Typer,
        audience: Audience | None = None,
    ) -> None:
        self.bundle, self.out, self.report, self.index, self.typer, self.audience = (
            bundle,
            out,
            report,
            index,
            typer,
            audience,
        )
        self.links = URIRef(graph_iri(bundle.base_iri, GRAPH_LINKS))
        self.types = URIRef(graph_iri(bundle.base_iri, GRAPH_TYPES))
        self.layout = URIRef(graph_iri(bundle.base_iri, GRAPH_LAYOUT))
        self.inherited = URIRef(graph_iri(bundle.base_iri, GRAPH_INHERITED))
        self.graphs = 0  # memory and entity graphs written
        self.shared: set[URIRef] = set()  # the links and layout graphs, once written to
        #: withheld memories and entities, and their document IRIs: shared graphs may not name them
        self.hidden: set[URIRef] = set()
        self._target = _copy_target(out)  # the output's file descriptor when the kernel can copy into it
        self._spool: tuple[str, int] | None = None  # the spool file being read (path, descriptor)
        self._span: tuple[int, int] | None = None  # bytes of it to copy to the output next (start, end)

    def namespaces(self, model: NamespaceModel) -> None:
        """The ``#namespaces`` graph, or (for one party) its withholding: no party reads the agreements."""
        namespaces = graph_iri(self.bundle.base_iri, GRAPH_NAMESPACES)
        if self.audience is None:
            self.write_triples(list(namespaces_triples(model, self.bundle.base_iri)), URIRef(namespaces))
        elif model:  # an export for one party leaves out every party's agreements (push.access)
            self.report.withheld[namespaces] = Withheld.namespaces_graph(namespaces, self.audience.party)

    def memory(self, item: StreamedMemory) -> list[Problem]:
        """Write one memory (unless it cannot be loaded, its id or location is taken,
        or it is withheld); its problems."""
        problems = list(item.problems)
        if item.spooled is not None and (self._spool is None or self._spool[0] != item.spooled[0]):
            self._open_spool(item.spooled[0])  # the previous chunk's file is read to its end: removed
        if item.id is None:
            return problems
        other = self.index.holder(item.id)
        if other is not None:
            return problems + [duplicate_id(item.relpath, item.id, other)]
        other = self.index.located(item.doc_iri)
        if other is not None:
            return problems + [duplicate_location(item.relpath, item.doc_iri, other)]
        iri = memory_iri(item.id)
        self.index.add_memory(item.id, iri, item.relpath, item.doc_iri, item.withheld is not None, item.links)
        if item.withheld is not None:
            self.withhold(iri, item.relpath, item.doc_iri, item.withheld)
            return problems + item.notes
        if item.spooled is not None:
            self._copy_later(item.spooled[1], item.spooled[1] + item.spooled[2])
        else:
            self._emit(item.text)
        self.report.quads += item.quads
        self.graphs += 1
        self.shared.update((self.layout, self.links, self.inherited) if item.inherits else (self.layout, self.links))
        cls = self.typer.class_of(item.placement) if item.placement is not None else None
        if cls is not None:
            self.write([f"<{iri}> {_RDF_TYPE} {cls.n3()} <{self.types}> .\n"], self.types)
        return problems + item.notes + item.ill_typed

    def entity(self, relpath: str) -> None:
        """One entity file, after every memory (as a load reads them); its problems go to the bundle's log."""
        bundle = self.bundle
        parsed = read_entity(bundle, relpath, self.index.located)
        if parsed is None:
            return
        record, projection = entity_projection(parsed, bundle.base_iri)
        reason = withheld_reason(parsed.data.get("namespace"), self.audience)
        self.index.add_entity(record.iri, record.relpath, reason is not None)
        bundle.problems.extend(projection.notes)
        if reason is not None:
            self.withhold(record.iri, record.relpath, record.doc_iri, reason)
            return
        bundle.problems.extend(projection.ill_typed)
        name = URIRef(record.iri)
        kept = [t for t in triples(projection, bundle.engine) if t[0] not in self.hidden and t[2] not in self.hidden]
        if kept:
            self.write([nquad_line(s, p, o, name) for s, p, o in kept])
            self.graphs += 1
        self.write_triples([(name, PATH, Literal(record.relpath))], self.links)

    def edges(self) -> Iterator[Problem]:
        """The links graph's edges, in memory and relationship order:
        each resolved one written, each broken one reported (the last lines are written when the iteration ends)."""
        tail, lines = f" <{self.links}> .\n", []
        for relpath, source, source_hidden, position, kind, target, resolved, target_hidden in self.index.edges():
            if resolved is None:
                if expects_bundle_target(target):
                    yield broken_link(relpath, position, target)
                continue
            predicate = predicate_nquads(kind)
            if predicate is not None and not source_hidden and not target_hidden:
                lines.append(f"<{source}> {predicate} <{resolved}>{tail}")
                if len(lines) == 4096:  # written in blocks: this stage runs alone, after every memory
                    self.write(lines, self.links)
                    lines = []
        self.write(lines, self.links)

    def withhold(self, iri: str, relpath: str, doc_iri: str, reason: str) -> None:
        self.report.withheld[iri] = Withheld(iri, relpath, reason)
        self.hidden.update((URIRef(iri), URIRef(doc_iri)))

    def write(self, lines: list[str], shared: URIRef | None = None) -> None:
        """N-Quads lines to the output, counted; ``shared`` names the links or layout graph they belong to."""
        if lines:
            self._emit("".join(lines).encode("utf-8"))
            self.report.quads += len(lines)
            if shared is not None:
                self.shared.add(shared)

    def write_triples(self, triples: Iterable[Triple], graph: URIRef) -> None:
        self.write([nquad_line(s, p, o, graph) for s, p, o in triples], graph)

    def _emit(self, data: bytes) -> None:
        """Bytes to the output, after the spooled bytes that come before them."""
        self.flush()
        self.out.write(data)

    def _open_spool(self, path: str) -> None:
        """Read the spool file at ``path`` from now on (the previous one is copied from and removed)."""
        self.flush()
        self.close_spool()
        self._spool = (path, os.open(path, os.O_RDONLY))

    def close_spool(self) -> None:
        """Close and remove the current spool file; bytes of it not yet copied (:meth:`flush`) are dropped."""
        self._span = None
        if self._spool is not None:
            path, fd = self._spool
            self._spool = None
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)

    def _copy_later(self, start: int, end: int) -> None:
        """Bytes of the current spool file for the output: adjacent ones (a chunk's memories) are copied as one."""
        if self._span is not None and self._span[1] == start:
            self._span = (self._span[0], end)
        else:
            self.flush()
            self._span = (start, end)

    def flush(self) -> None:
        """Copy the spooled bytes that wait to the output: in the kernel where it can, else through a buffer."""
        if self._span is None or self._spool is None:
            return
        (start, end), source = self._span, self._spool[1]
        self._span = None
        if self._target is not None:
            self.out.flush()
            position = self.out.tell()
            try:
                while start < end:
                    copied = os.copy_file_range(source, self._target, end - start, start, position)
                    if copied <= 0:
                        break
                    start, position = start + copied, position + copied
            except OSError:  # this file system or kernel cannot: copy through a buffer from now on
                self._target = None
            self.out.seek(position)
        while start < end:
            data = os.pread(source, min(end - start, 1 << 24), start)
            if not data:
                raise OSError(f"spool file {self._spool[0]} ended early")
            self.out.write(data)
            start += len(data)


def _copy_target(out: IO[bytes]) -> int | None:
    """The descriptor of ``out`` when it is a plain buffered regular file the kernel may copy into
    (not appending, not compressed, not a pipe or a terminal), else None."""
    if not hasattr(os, "copy_file_range") or type(out) is not io.BufferedWriter or type(out.raw) is not io.FileIO:
        return None
    import fcntl  # POSIX, as copy_file_range (Linux)

    try:
        fd = out.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode) or fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
            return None
    except (OSError, ValueError):
        return None
    return fd
