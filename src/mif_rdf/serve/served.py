"""The bundle a server serves: a working bundle kept up to date, and the store queries read.

Two Oxigraph stores.  The *working* one is the loaded :class:`~mif_rdf.bundle.Bundle`,
changed file by file through :meth:`Bundle.reload` -- the incremental path the
load cache uses.  The *served* one is what queries see: after each reload only
the graphs the change touched (the files' own graphs and the links graph) are
brought up to date in it.

Readers never wait for a reload (issue 39).  Oxigraph's in-memory store is
versioned: a query, a ``quads_for_pattern`` or a dump reads the snapshot of the
moment it was *created*, however long it then runs and whatever is written
meanwhile.  A publication writes the served store while a sequence number is
odd; a reader reads the published :class:`Snapshot`, creates its query, and
reads the number again -- changed means it may have seen half a change, so it
creates the query again (:meth:`ServedBundle.read`).  No writer ever waits for
a reader, so a runaway query delays nobody but its own client; a reader waits
at most for the few milliseconds a publication takes.  (A second store beside
the served one, swapped in, gives the same guarantee at much more memory:
measured, and not kept; docs/performance.md.)

The default graph queries see is an RDF graph, a set (issue 36): Oxigraph's
union of named graphs counts a triple once per graph that holds it, so the
served store keeps the distinct triples of every served graph in its own
default graph (:mod:`mif_rdf.load.set_union`, as the Oxigraph queries of
``query`` and the Python API do), maintained with each publication.

pyoxigraph's in-memory store does not give back the memory of removed quads:
when the quads removed since the stores were built exceed
:data:`COMPACT_RATIO` of the served store (and :data:`COMPACT_MIN` quads),
both stores are built again from what they hold (:meth:`ServedBundle.compact`).

A file that stops loading (its YAML broke, say) keeps its last good graph and
record: the working bundle gets them back, and :attr:`Snapshot.kept` names the
file and its problems until it loads again.

``_local`` memories (spec 10.2) are left out unless ``include_local``: their
graphs are not served, and no other graph may name them or their paths, as
:mod:`mif_rdf.output.policy` decides for exports.  With an ``audience`` only
what that party may read is served (its agreements as read at the start).
With ``as_of`` only the memories valid at that date (``serve --as-of``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import pyoxigraph as ox

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.load.bundle import LoadedBundle, MemoryRecord
from mif_rdf.load.incremental import refresh_namespace_graphs, relink, reload
from mif_rdf.load.loader import fill
from mif_rdf.load.record_index import Record, RecordIndex
from mif_rdf.load.set_union import keep_default_graph, union_view
from mif_rdf.load.stores import new_dataset, oxigraph_store, replace_oxigraph_store
from mif_rdf.nsmodel.access import withheld_reason
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.nsmodel.graphs import GRAPH_INHERITED, GRAPH_NAMESPACES
from mif_rdf.serve.findings import _redacted, _says_local, shown
from mif_rdf.serve.retyping import TypesGraph
from mif_rdf.serve.snapshot import DEFAULT, Snapshot
from mif_rdf.source.bundle_files import is_concept_name, is_entity_path, loadable
from mif_rdf.source.identity import graph_iri
from mif_rdf.validation.user_shapes import ShapesSource

T = TypeVar("T")


#: Rebuild the stores when the quads removed since they were built exceed this fraction of the served store...
COMPACT_RATIO = 0.5


#: ... and this many quads (a small bundle is never worth it).
COMPACT_MIN = 10_000


_READ_ATTEMPTS = 5


class ServedBundle:
    """A bundle behind a server: :meth:`read` for queries and views, :meth:`apply` for file changes."""

    def __init__(
        self,
        bundle: LoadedBundle,
        *,
        include_local: bool = False,
        audience: Audience | None = None,
        shapes: Sequence[ShapesSource] = (),
        as_of: str | None = None,
    ) -> None:
        working = oxigraph_store(bundle.dataset)
        if working is None:
            raise MifRdfError("serve needs the bundle in an Oxigraph store (load_bundle(..., store='oxigraph'))")
        self.bundle = bundle
        self.working = working
        self.include_local = include_local
        self.audience = audience  # only what this party may read is served (mif_rdf.nsmodel.audience)
        self.shapes = list(shapes)  # the user's own SHACL shapes, in every validation of the page
        self.as_of = as_of  # only the memories valid at this date are served (mif_rdf.queries.asof)
        self.kept: set[str] = set()  # files served from their last good version
        self.writing = threading.Lock()  # one reload at a time; validation reads the working bundle under it too
        self._seq = 0  # odd while a publication writes the served store
        self._validation: tuple[int, list[Problem]] | None = None
        self.index = RecordIndex(bundle)  # records by path, by location, who links to what: kept across edits
        self._judge_all()
        self._withheld, self._hidden = self._policy()
        self.types = TypesGraph(bundle)  # <base>#types, typed again memory by memory
        self.store = self._build()
        self._removed = 0  # quads removed from the served store since it was built
        self._published = self._snapshot(0)

    # -- reading ---------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        return self._published.generation

    def current(self) -> Snapshot:
        """The published snapshot (waits only while a publication is being written: milliseconds)."""
        while True:
            seq = self._seq
            snapshot = self._published
            if seq % 2 == 0 and snapshot.seq == seq:
                return snapshot
            time.sleep(0.001)

    def read(self, make: Callable[[Snapshot], T]) -> tuple[Snapshot, T]:
        """``make(snapshot)`` on a snapshot no publication touched while it ran (created again when one did).

        ``make`` must only *create* store reads (queries, iterators: each reads
        the store as it was when created) or compute from the snapshot; what it
        returns may then be consumed at leisure.
        """
        made: list[T] = []  # handed out and emptied: a frame kept alive elsewhere (a traceback) never keeps a result
        for attempt in range(_READ_ATTEMPTS):
            snapshot = self.current()
            made.append(make(snapshot))
            if self._seq == snapshot.seq or attempt == _READ_ATTEMPTS - 1:
                break
            made.clear()  # pyoxigraph results are freed by the thread that made them
        return snapshot, made.pop()

    # -- what may be served ------------------------------------------------------------
    def _judge_all(self) -> None:
        """Judge every record for the policy (at the start, and after a full reload)."""
        self._judged: dict[tuple[str, str], tuple[Any, ...]] = {}  # record key -> (record, its part of the policy)
        self._withholding: set[tuple[str, str]] = set()  # the keys of the records withheld
        self._memory_graphs: set[Any] = set()  # every memory's graph
        self._judge((), [*self.bundle.memories.values(), *self.bundle.entities.values()])

    def _judge(self, old: Iterable[Record], new: Iterable[Record]) -> None:
        """The records ``old`` went and ``new`` came (a reload replaced them): only they are judged again.

        Judging every memory of a 10,000-memory bundle on each edit took
        0.1-0.4 s once, and a pass over the records 8 ms still.
        """
        judged = self._judged
        for record in old:
            key = _key(record)
            if key in judged and judged[key][0] is record:
                del judged[key]
                self._withholding.discard(key)
                if isinstance(record, MemoryRecord):
                    self._memory_graphs.discard(ox.NamedNode(record.iri))
        for record in new:
            key = _key(record)
            memory = isinstance(record, MemoryRecord)
            judged[key] = entry = (record, *self._judged_one(memory, record))
            if entry[1] is not None:
                self._withholding.add(key)
            if memory:
                self._memory_graphs.add(entry[3])

    def _policy(self) -> tuple[frozenset[Any], frozenset[Any]]:
        """Graphs withheld (``_local``), and the terms other graphs may not mention."""
        withheld: set[Any] = set()
        hidden: set[Any] = set()
        for key in self._withholding:
            _, graph, terms, _ = self._judged[key]
            withheld.add(graph)
            hidden.update(terms)
        if self.audience is not None:  # it describes every party's agreements
            withheld.add(ox.NamedNode(graph_iri(self.bundle.base_iri, GRAPH_NAMESPACES)))
        for iri, doc_iri in self.out_of_time():
            withheld.add(ox.NamedNode(iri))
            hidden.update((ox.NamedNode(iri), ox.NamedNode(doc_iri)))
        return frozenset(withheld), frozenset(hidden)

    def out_of_time(self) -> list[tuple[str, str]]:
        """The IRIs and document IRIs of the memories not valid at :attr:`as_of` (none without it).

        The memories ``--as-of`` keeps elsewhere (:func:`~mif_rdf.queries.asof.valid_memories`), computed
        again with each publication, so an edit that moves a memory in or out of its valid time is followed;
        what goes with them is what ``_local`` memories take with them: their graphs, and every triple of the
        other graphs that names them (so the links graph keeps only edges between served memories).
        """
        if self.as_of is None:
            return []
        from mif_rdf.queries.asof import valid_memories

        keep = valid_memories(self.bundle.dataset, self.as_of)
        return [(m.iri, m.doc_iri) for m in self.bundle.memories.values() if m.iri not in keep]

    def _withholds(self) -> bool:
        return not self.include_local or self.audience is not None

    def _judged_one(self, memory: bool, record: Any) -> tuple[Any, tuple[Any, ...], Any]:
        """One record's part of the policy: its graph if withheld, the terms it hides, its graph if a memory."""
        namespace = record.frontmatter.get("namespace") if memory else record.data.get("namespace")
        graph = ox.NamedNode(record.iri)
        withheld = self._withholds() and bool(
            withheld_reason(namespace, self.audience, include_local=self.include_local)
        )
        return (
            graph if withheld else None,
            (graph, ox.NamedNode(record.doc_iri)) if withheld else (),
            graph if memory else None,
        )

    def _allowed(self, quad: Any) -> bool:
        if quad.graph_name in self._withheld:
            return False
        if not self._hidden or quad.graph_name in self._memory_graphs:
            return True  # a memory is served as written, even when it names a withheld one
        return quad.subject not in self._hidden and quad.object not in self._hidden

    def allows(self, iri: str) -> bool:
        """Whether the memory or entity ``iri`` is served (as of the last publication)."""
        return self._published.allows(iri)

    def _build(self) -> Any:
        """A fresh served store: every quad that may be served, and their distinct triples as the default graph."""
        return union_view(q for q in self.working.quads_for_pattern(None, None, None, None) if self._allowed(q))

    def _snapshot(self, generation: int) -> Snapshot:
        return Snapshot(
            self.store,
            self._seq,
            generation,
            dict(self.bundle.memories),
            dict(self.bundle.entities),
            frozenset(self.kept),
            self._withheld,
            self.bundle.links_graph_iri,
            self.bundle.base_iri,
            self.bundle.root.name,
        )

    def _publish(self, write: Callable[[], None]) -> None:
        """Run ``write`` (changes to the served store) as one publication: readers see all of it or none."""
        generation = self._published.generation + 1
        self._seq += 1
        try:
            write()
        finally:
            self._seq += 1
            self._published = self._snapshot(generation)

    # -- changes -----------------------------------------------------------------------------
    def apply(self, relpaths: Iterable[str]) -> bool:
        """Reload changed, new and deleted files (bundle-relative paths) and publish the result at once.

        Returns whether anything was reloaded (paths that are not memory or
        entity files are ignored).
        """
        relpaths = sorted({p for p in relpaths if is_bundle_file(p)})
        if not relpaths:
            return False
        with self.writing:
            self.index.follow(self.bundle)
            # a file kept from its last good version may be read again when another claims its id or location
            last_good = {p: r for p in {*relpaths, *self.kept} if (r := self.index.memory_at(p)) is not None}
            last_quads = {
                p: list(self.working.quads_for_pattern(None, None, None, ox.NamedNode(r.iri)))
                for p, r in last_good.items()
            }
            subjects = reload(self.bundle, *relpaths, index=self.index)
            old = list(self.index.dropped)  # what the reload replaced: more than ``relpaths`` when claims moved
            read = sorted(self.index.read)
            subjects |= self._keep_last_good(sorted({*relpaths, *(self.kept & self.index.read)}), last_good, last_quads)
            new = self.index.records_at(read)
            self._judge(old, new)
            policy = self._policy()
            graphs = {ox.NamedNode(r.iri) for r in [*old, *new]}
            typed = self.types.retype(self.working, {g.value for g in graphs})  # a namespace may have changed
            if typed is None:
                graphs.add(self.types.name)
            links = ox.NamedNode(self.bundle.links_graph_iri)
            if policy != (self._withheld, self._hidden):  # in or out of _local: every shared graph may change
                graphs |= {g for g in self.working.named_graphs() if g not in self._memory_graphs} | (
                    policy[0] ^ self._withheld
                )
            self._withheld, self._hidden = policy
            inherited = ox.NamedNode(graph_iri(self.bundle.base_iri, GRAPH_INHERITED))
            every = (
                links,
                ox.NamedNode(self.bundle.layout_graph_iri),
                inherited,
            )  # the graphs every memory writes into
            shared = [(g, ox.NamedNode(s)) for g in every if g not in graphs for s in subjects]
            shared += [(self.types.name, s) for s in typed or () if self.types.name not in graphs]
            self._publish(lambda: self._sync_all([(g, None) for g in graphs] + shared))
            # len() of a store counts its quads (a quarter of a second at 10,000 memories): asked only past the minimum
            if self._removed > COMPACT_MIN and self._removed > COMPACT_RATIO * len(self.store):
                self.compact()
        return True

    def reload_all(self) -> None:
        """Load the bundle again from scratch (its configuration changed) and serve the new load."""
        fresh = fill(
            type(self.bundle)(
                root=self.bundle.root,
                base_iri=self.bundle.base_iri,
                dataset=new_dataset("oxigraph"),
                engine=self.bundle.engine,
                limits=self.bundle.limits,
            ),
            progress=False,
        )
        from mif_rdf.ontology import add_types_graph

        add_types_graph(fresh)
        with self.writing:
            self.bundle, self.working = fresh, oxigraph_store(fresh.dataset)
            self.types = TypesGraph(fresh)
            self.index = RecordIndex(fresh)
            self.kept = set()
            self._judge_all()
            self._withheld, self._hidden = self._policy()
            store = self._build()
            self._publish(lambda: setattr(self, "store", store))
            self._removed = 0

    def compact(self) -> None:
        """Build the working and served stores again from what they hold, giving back the memory of removed quads.

        Called with :attr:`writing` held.  Queries running on the old served
        store finish on it; the old stores are freed when the last one ends.
        """
        working = ox.Store()
        working.bulk_extend(self.working.quads_for_pattern(None, None, None, None))
        replace_oxigraph_store(self.bundle.dataset, working)
        self.working = working
        store = self._build()
        self._publish(lambda: setattr(self, "store", store))
        self._removed = 0
        _give_back_freed_memory()

    def _keep_last_good(
        self, relpaths: list[str], last_good: dict[str, MemoryRecord], last_quads: dict[str, list[Any]]
    ) -> set[str]:
        """Give a file that exists but no longer loads its last good record and graph back;
        the links-graph subjects rewritten."""
        subjects: set[str] = set()
        for relpath in relpaths:
            old = last_good.get(relpath)
            broken = (
                loadable(self.bundle.root, relpath)
                and self.index.memory_at(relpath) is None
                and relpath not in self.index.refused  # it loads, but another file holds its id or location
            )
            if not broken:
                self.kept.discard(relpath)
                continue
            if (
                old is None or old.id in self.bundle.memories or old.doc_iri in self.index.locations
            ):  # never loaded, or another file took its id or location meanwhile (a fresh load would give it them)
                self.kept.discard(relpath)
                continue
            self.bundle.memories[old.id] = old
            self.index.replace((), [old])
            self.working.extend(last_quads[relpath])
            self.kept.add(relpath)
            subjects |= relink(self.bundle, {relpath}, {old.doc_iri, old.iri}, {old.iri}, self.index)
        if subjects:  # the reload read the namespace graphs without the records given back
            refresh_namespace_graphs(self.bundle)
        return subjects

    def _sync_all(self, targets: list[tuple[Any, Any]]) -> None:
        """Make each (graph, subject or None) of the served store equal to what may be served of the working one,
        and keep the default graph the set of the served graphs' triples."""
        removed: set[Any] = set()
        added: set[Any] = set()
        for graph, subject in targets:
            gone, new = self._sync(graph, subject)
            removed |= gone
            added |= new
        keep_default_graph(self.store, added, removed)
        self._removed += len(removed)

    def _sync(self, graph: Any, subject: Any = None) -> tuple[set[Any], set[Any]]:
        """Make one served graph (or the triples of one subject in it)
        equal to the working one; the quads removed and added."""
        wanted = {q for q in self.working.quads_for_pattern(subject, None, None, graph) if self._allowed(q)}
        present = set(self.store.quads_for_pattern(subject, None, None, graph))
        for quad in present - wanted:
            self.store.remove(quad)
        if wanted - present:
            self.store.extend(wanted - present)
        if subject is None and not wanted and graph != DEFAULT and self.store.contains_named_graph(graph):
            self.store.remove_graph(graph)
        return present - wanted, wanted - present

    def findings(self, snapshot: Snapshot | None = None) -> list[Problem]:
        """Load problems and validation findings of what is served, plus a warning for each
        file served from its last good version.

        Validation runs once per published change, on the working bundle
        (so a change that arrives meanwhile waits for it); while a reload is
        at work, the findings of the last run are shown rather than waited for.  What would show a
        withheld file's path, or where the bundle is on disk, is left out or
        reworded.
        """
        from mif_rdf.validation import validate

        snapshot = snapshot or self.current()
        root = str(self.bundle.root.resolve())
        if self.writing.acquire(
            blocking=self._validation is None
        ):  # a reload at work: the last findings, rather than wait
            try:
                if self._validation is None or self._validation[0] != self.generation:
                    self._validation = (self.generation, validate(self.bundle, shapes=self.shapes).sorted_results())
            finally:
                self.writing.release()
        assert self._validation is not None
        results = self._validation[1]
        notes = [
            Problem(
                k,
                "this file no longer loads; its last good version is served until it is fixed",
                Severity.WARNING,
                rule="serve-kept",
            )
            for k in sorted(snapshot.kept)
        ]
        withheld = snapshot.withheld_paths()
        if not self.include_local:  # files that did not load (a duplicate id, say) but say they are _local
            withheld += [
                path
                for path in {p.path for p in results}
                if snapshot.memory_by_path(path) is None and _says_local(self.bundle.root, path)
            ]
        private = self.audience is not None  # for an audience, the agreements' files are every party's business
        return [
            _redacted(p, root, withheld)
            for p in results
            if shown(snapshot, p.path) and p.path not in withheld and not (private and p.path.startswith(".mif/"))
        ] + notes


def _key(record: Record) -> tuple[str, str]:
    """A record's key in the policy: memories by id, entities by IRI."""
    return ("m", record.id) if isinstance(record, MemoryRecord) else ("e", record.iri)


def _give_back_freed_memory() -> None:
    """Let glibc return the freed heap to the system (it keeps it otherwise: docs/performance.md)."""
    try:
        import ctypes
        import gc

        gc.collect()
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to ask
        pass


def is_bundle_file(relpath: str) -> bool:
    """Whether a bundle-relative path is one the loader reads: a memory ``.md`` or ``.jsonld`` file or an entity file.

    A ``.jsonld`` beside its ``.md`` is a projection the load checks (stale or
    not), so a change to it is a change to that memory's findings too.
    """
    parts = relpath.split("/")
    if is_entity_path(relpath):
        return relpath.endswith((".yaml", ".yml"))
    return is_concept_name(parts[-1]) and not any(part.startswith(".") for part in parts)
