"""The bundle a server serves: a working bundle kept up to date, and the store queries read.

Two Oxigraph stores.  The *working* one is the loaded :class:`~mif_rdf.bundle.Bundle`,
changed file by file through :meth:`Bundle.reload` -- the incremental path the
load cache uses.  The *served* one is what queries see: after each reload only
the graphs the change touched (the files' own graphs and the links graph) are
brought up to date in it, quad by quad, while a write lock keeps every query
out (a reload and its publication are one write).  Queries hold the read
lock until their results are written, so none sees a half-applied change.

A file that stops loading (its YAML broke, say) keeps its last good graph and
record: the working bundle gets them back, and :attr:`ServedBundle.kept`
names the file and its problems until it loads again.

``_local`` memories (spec 10.2) are left out unless ``include_local``: their
graphs are not served, and no other graph may name them or their paths, as
:mod:`mif_rdf.push.access` decides for exports.  With an ``audience`` only
what that party may read is served (its agreements as read at the start).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyoxigraph as ox

from ..bundle import Bundle, MemoryRecord
from ..errors import MifRdfError, Problem, Severity
from ..oxigraph_sink import oxigraph_store
from ..parse import RESERVED_NAMES, is_entity_path
from ..identity import graph_iri
from ..nsmodel.audience import Audience
from ..nsmodel.graphs import GRAPH_INHERITED, GRAPH_NAMESPACES
from ..push.access import withheld_reason


class ReadWriteLock:
    """Many readers or one writer; a waiting writer goes before new readers (a busy server still reloads)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False
        self._waiting_writers = 0

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._waiting_writers:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._cond:
            self._waiting_writers += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._waiting_writers -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


class ServedBundle:
    """A bundle behind a server: :attr:`store` for queries, :meth:`apply` for file changes."""

    def __init__(self, bundle: Bundle, *, include_local: bool = False, audience: Audience | None = None) -> None:
        working = oxigraph_store(bundle.dataset)
        if working is None:
            raise MifRdfError("serve needs the bundle in an Oxigraph store (load_bundle(..., store='oxigraph'))")
        self.bundle = bundle
        self.working = working
        self.include_local = include_local
        self.audience = audience  # only what this party may read is served (mif_rdf.nsmodel.audience)
        self.store = ox.Store()
        self.lock = ReadWriteLock()
        self.generation = 0  # counts applied changes; the page polls it
        self.kept: set[str] = set()  # files served from their last good version
        self._validation: tuple[int, list[Problem]] | None = None
        self._validation_lock = threading.Lock()
        self._withheld, self._hidden, self._memory_graphs = self._policy()
        self.store.bulk_extend(q for q in working.quads_for_pattern(None, None, None, None) if self._allowed(q))

    # -- what may be served ------------------------------------------------------------
    def _policy(self) -> tuple[frozenset[Any], frozenset[Any], frozenset[Any]]:
        """Graphs withheld (``_local``), the terms other graphs may not mention, every memory graph."""
        withheld: set[Any] = set()
        hidden: set[Any] = set()
        if not self.include_local or self.audience is not None:
            for iri, doc_iri, namespace in self._owners():
                if withheld_reason(namespace, self.audience, include_local=self.include_local):
                    withheld.add(ox.NamedNode(iri))
                    hidden.update((ox.NamedNode(iri), ox.NamedNode(doc_iri)))
            if self.audience is not None:  # it describes every party's agreements
                withheld.add(ox.NamedNode(graph_iri(self.bundle.base_iri, GRAPH_NAMESPACES)))
        memory_graphs = frozenset(ox.NamedNode(m.iri) for m in self.bundle.memories.values())
        return frozenset(withheld), frozenset(hidden), memory_graphs

    def _owners(self) -> Iterator[tuple[str, str, Any]]:
        for m in self.bundle.memories.values():
            yield m.iri, m.doc_iri, m.frontmatter.get("namespace")
        for e in self.bundle.entities.values():
            yield e.iri, e.doc_iri, e.data.get("namespace")

    def _allowed(self, quad: Any) -> bool:
        if quad.graph_name in self._withheld:
            return False
        if not self._hidden or quad.graph_name in self._memory_graphs:
            return True  # a memory is served as written, even when it names a withheld one
        return quad.subject not in self._hidden and quad.object not in self._hidden

    def allows(self, iri: str) -> bool:
        """Whether the memory or entity ``iri`` is served."""
        return ox.NamedNode(iri) not in self._withheld

    # -- changes -----------------------------------------------------------------------------
    def apply(self, relpaths: Iterable[str]) -> bool:
        """Reload changed, new and deleted files (bundle-relative paths) and publish the result at once.

        Returns whether anything was reloaded (paths that are not memory or
        entity files are ignored).
        """
        relpaths = sorted({p for p in relpaths if is_bundle_file(p)})
        if not relpaths:
            return False
        with self.lock.writing():  # the page's views read the records too: nothing is read half-reloaded
            before = self._graphs_of(relpaths)
            last_good = {p: r for p in relpaths if (r := self._memory_at(p)) is not None}
            last_quads = {p: list(self.working.quads_for_pattern(None, None, None, ox.NamedNode(r.iri))) for p, r in last_good.items()}
            subjects = self.bundle.reload(*relpaths) | self._keep_last_good(relpaths, last_good, last_quads)
            policy = self._policy()
            graphs = before | self._graphs_of(relpaths) | {self._retyped()}
            links = ox.NamedNode(self.bundle.links_graph_iri)
            if policy[:2] != (self._withheld, self._hidden):  # a file moved in or out of _local: every shared graph may change
                graphs |= {g for g in self.working.named_graphs() if g not in policy[2]} | (policy[0] ^ self._withheld)
            self._withheld, self._hidden, self._memory_graphs = policy
            for graph in graphs:
                self._sync(graph)
            inherited = ox.NamedNode(graph_iri(self.bundle.base_iri, GRAPH_INHERITED))
            for shared in (links, ox.NamedNode(self.bundle.layout_graph_iri), inherited):  # the graphs every memory writes into
                if shared not in graphs:
                    for subject in subjects:
                        self._sync(shared, ox.NamedNode(subject))
            self.generation += 1
        return True

    def _retyped(self) -> Any:
        """Write the working bundle's extended types again (a namespace may have changed); the graph's name."""
        from ..identity import GRAPH_TYPES, graph_iri
        from ..ontology import add_types_graph

        add_types_graph(self.bundle)
        return ox.NamedNode(graph_iri(self.bundle.base_iri, GRAPH_TYPES))

    def reload_all(self) -> None:
        """Load the bundle again from scratch (its configuration changed) and serve the new load."""
        from ..bundle import fill, new_dataset

        fresh = fill(Bundle(root=self.bundle.root, base_iri=self.bundle.base_iri, dataset=new_dataset("oxigraph"),
                            engine=self.bundle.engine, limits=self.bundle.limits), progress=False)
        from ..ontology import add_types_graph

        add_types_graph(fresh)
        served = ServedBundle(fresh, include_local=self.include_local, audience=self.audience)
        with self.lock.writing():
            self.bundle, self.working, self.store = fresh, served.working, served.store
            self._withheld, self._hidden, self._memory_graphs = served._withheld, served._hidden, served._memory_graphs
            self.kept = set()
            self.generation += 1

    def _memory_at(self, relpath: str) -> MemoryRecord | None:
        return None if is_entity_path(relpath) else self.bundle.memory_by_path(relpath)

    def _graphs_of(self, relpaths: list[str]) -> set[Any]:
        wanted = set(relpaths)
        graphs = {ox.NamedNode(m.iri) for m in self.bundle.memories.values() if m.relpath in wanted}
        return graphs | {ox.NamedNode(e.iri) for e in self.bundle.entities.values() if e.relpath in wanted}

    def _keep_last_good(self, relpaths: list[str], last_good: dict[str, MemoryRecord], last_quads: dict[str, list[Any]]) -> set[str]:
        """Give a file that exists but no longer loads its last good record and graph back; the links-graph subjects rewritten."""
        subjects: set[str] = set()
        for relpath in relpaths:
            old = last_good.get(relpath)
            broken = (self.bundle.root / relpath).is_file() and self._memory_at(relpath) is None
            if not broken:
                self.kept.discard(relpath)
                continue
            if old is None or old.id in self.bundle.memories:  # never loaded, or another file took its id meanwhile
                continue
            self.bundle.memories[old.id] = old
            self.working.extend(last_quads[relpath])
            self.kept.add(relpath)
            subjects |= self.bundle.relink({relpath}, {old.doc_iri, old.iri}, {old.iri})
        return subjects

    def _sync(self, graph: Any, subject: Any = None) -> None:
        """Make one served graph (or the triples of one subject in it) equal to what may be served of the working one."""
        wanted = {q for q in self.working.quads_for_pattern(subject, None, None, graph) if self._allowed(q)}
        present = set(self.store.quads_for_pattern(subject, None, None, graph))
        for quad in present - wanted:
            self.store.remove(quad)
        if wanted - present:
            self.store.extend(wanted - present)
        if subject is None and not wanted and graph != ox.DefaultGraph() and self.store.contains_named_graph(graph):
            self.store.remove_graph(graph)

    def findings(self) -> list[Problem]:
        """Load problems and validation findings of what is served, plus a warning for each file served from its last good version.

        Validation runs once per published change (call with the read lock held).
        """
        from ..validation import validate

        with self._validation_lock:
            if self._validation is None or self._validation[0] != self.generation:
                self._validation = (self.generation, validate(self.bundle).sorted_results())
            results = self._validation[1]
        notes = [Problem(k, "this file no longer loads; its last good version is served until it is fixed",
                         Severity.WARNING, rule="serve-kept") for k in sorted(self.kept)]
        return [p for p in results if self.shown(p.path)] + notes

    def shown(self, relpath: str) -> bool:
        """Whether findings about this file may be shown (it is not a withheld memory; for an audience, not a .mif file)."""
        if self.audience is not None and relpath.startswith(".mif/"):
            return False  # the agreements' files are every party's business
        record = self._memory_at(relpath)
        return record is None or self.allows(record.iri)


def is_bundle_file(relpath: str) -> bool:
    """Whether a bundle-relative path is one the loader reads: a memory ``.md`` file or an entity file."""
    parts = relpath.split("/")
    if is_entity_path(relpath):
        return relpath.endswith((".yaml", ".yml"))
    return relpath.endswith(".md") and parts[-1] not in RESERVED_NAMES and not any(part.startswith(".") for part in parts)


def bundle_relpath(root: Path, path: str | Path) -> str | None:
    """``path`` relative to the bundle root, in the loader's form, or None when it is outside."""
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None

