"""Incremental updates: keep a loaded bundle equal to a fresh load of its files after some of them changed.

:func:`reload` re-reads changed, new or deleted files (the load cache and
``serve`` call it), :func:`relink` and :func:`rebuild_links` bring the links
and layout graphs up to date touching only what changed, :func:`forget`
drops one file's contribution, :func:`add_content_hashes` and
:func:`refresh_namespace_graphs` redo one kind of content for the whole bundle.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import PATH, EntityRecord, LoadedBundle, MemoryRecord, target_keys
from mif_rdf.load.pipeline import PreparedMemory
from mif_rdf.load.record_index import Record, RecordIndex, claims_in_file
from mif_rdf.load.stages import _Loader, check_projections
from mif_rdf.nsmodel import model_graphs, read_namespace_model
from mif_rdf.nsmodel.graphs import is_model_problem
from mif_rdf.rdf.jsonld_source import is_projection, pair_twins
from mif_rdf.rdf.layout import layout_triples
from mif_rdf.source.bundle_files import is_entity_path, loadable
from mif_rdf.source.identity import memory_iri
from mif_rdf.source.integrity import with_hash
from mif_rdf.source.parse import ParsedEntity, ParsedMemory


def reload(bundle: LoadedBundle, *relpaths: str, index: RecordIndex | None = None) -> set[str]:
    """Re-read changed, new or deleted memory and entity files; only their graphs are replaced.

    When a file's id or location is, or was, claimed by other files too
    (two files with one id; the holder deleted, renamed or given another id;
    a new claimant earlier in path order), those files are read again with
    it, in load order, so the first of them holds the claim and the others
    are refused with their problems, as in a fresh load.  The links and
    layout graphs change only where the files touch them (:func:`relink`);
    returns the links-graph subjects whose triples were written again.
    ``index``: the bundle's :class:`RecordIndex` when the caller keeps one
    across edits (``serve``), brought up to date here (its ``dropped`` and
    ``read`` say what this reload replaced); without one, one is made (a pass
    over every record).
    """
    relpaths = reloaded_paths(bundle.root, relpaths)
    if index is None:
        index = RecordIndex(bundle)
    index.follow(bundle)
    index.dropped, index.read = [], set()
    batch = index.contending(relpaths)  # with the files that claimed what these held or were refused for
    while True:
        _read(bundle, index, batch)
        more = index.contending(batch)  # with the files that claim what these claim now
        if more == batch:
            break
        batch = more  # read together again: which one holds a claim depends on all of them
    keys, subjects = _keys_of([*index.dropped, *index.records_at(sorted(index.read))])
    subjects = relink(bundle, index.read, keys, subjects, index)
    refresh_namespace_graphs(bundle)
    return subjects


def _read(bundle: LoadedBundle, index: RecordIndex, relpaths: set[str]) -> None:
    """Forget what the files at ``relpaths`` contributed and read them again, in the order of a fresh load."""
    ordered = sorted(relpaths, key=_load_order)
    old = index.records_at(ordered)
    for relpath in ordered:
        forget(bundle, relpath, index.at(relpath))
    index.replace(old, ())
    index.unrefuse(ordered)
    index.read |= relpaths
    loader = _Reloader(bundle, index)
    projections = []
    for relpath in ordered:
        if loadable(bundle.root, relpath):  # the rules of a fresh load: no symlink, a regular file
            if is_entity_path(relpath):
                loader.entity(relpath)
            elif is_projection(bundle.root, relpath):
                projections.append(relpath)
            else:
                loader.memory(relpath)
    loader.flush()
    check_projections(bundle, projections)
    index.replace((), loader.added())


def _load_order(relpath: str) -> tuple[bool, tuple[str, ...]]:
    """A fresh load reads every memory file in path order, then the entity files as its folder walk finds them."""
    return (True, tuple(relpath.split("/"))) if is_entity_path(relpath) else (False, (relpath,))


def reloaded_paths(root: Path, relpaths: Iterable[str]) -> tuple[str, ...]:
    """``relpaths`` and the other file of each ``.md``/``.jsonld`` pair among them: which of a pair loads depends
    on both, so :func:`reload` reads both."""
    relpaths = list(relpaths)
    return tuple(dict.fromkeys([*relpaths, *pair_twins(root, relpaths)]))


class _Reloader(_Loader):
    """The loader of a reload: the locations already taken are the index's (the plain loader maps every
    memory's on first use), and it keeps the records it adds."""

    def __init__(self, bundle: LoadedBundle, index: RecordIndex) -> None:
        super().__init__(bundle)
        self.index = index
        self._locations = index.locations  # a new memory's location is written into it, as into the loader's own
        self._added: list[Record] = []

    def accept(self, prepared: PreparedMemory) -> None:
        super().accept(prepared)
        parsed = prepared.parsed
        if parsed is None:  # not read: it claims nothing
            return
        record = self.bundle.memories.get(parsed.id)
        if record is not None and record.relpath == parsed.relpath:
            self._added.append(record)
        else:  # another file holds its id or its location
            self.index.refuse(prepared.relpath, {("id", memory_iri(parsed.id)), ("at", prepared.doc_iri)})

    def entity(self, relpath: str) -> None:
        super().entity(relpath)
        if not self._added or self._added[-1].relpath != relpath:  # not loaded: refused, or it cannot be read
            self.index.refuse(relpath, claims_in_file(self.bundle, relpath))

    def add_entity(self, parsed: ParsedEntity) -> None:
        super().add_entity(parsed)
        self._added.append(self.bundle.entities[parsed.iri])

    def added(self) -> list[Record]:
        """The records added that the bundle still holds (the store may refuse a memory when the loader flushes);
        a refused memory's location is free again."""
        kept: list[Record] = []
        for record in self._added:
            if isinstance(record, EntityRecord) or self.bundle.memories.get(record.id) is record:
                kept.append(record)
            elif self.locations().get(record.doc_iri) == record.relpath:
                del self.locations()[record.doc_iri]
        return kept


def _keys_of(records: Iterable[Record]) -> tuple[set[str], set[str]]:
    """The target IRIs ``records`` answer to (document, memory, entity IRIs) and their links-graph subjects."""
    keys: set[str] = set()
    subjects: set[str] = set()
    for record in records:
        keys |= {record.doc_iri, record.iri} if isinstance(record, MemoryRecord) else {record.iri}
        subjects.add(record.iri)
    return keys, subjects


def relink(
    bundle: LoadedBundle, relpaths: set[str], keys: set[str], subjects: set[str], index: RecordIndex | None = None
) -> set[str]:
    """Bring the links graph up to date after the files at ``relpaths`` changed, touching only what they touch.

    Every links-graph triple has its source as subject, so the edges of the
    changed files (``subjects``, before and after) and of every memory with
    a relationship whose target resolves to one of ``keys`` (the changed
    files' IRIs, before and after) are removed and written again; nothing
    else can have changed.  The result equals :func:`rebuild_links`, at a
    cost that grows with the change, not with the bundle.  Returns the
    subjects whose triples were written again.  The layout graph's triples
    of the changed files (``subjects``) are written again too.

    The records at ``relpaths`` and the memories linking to ``keys`` come from
    ``index`` (the bundle's :class:`RecordIndex`, up to date; made here when
    not given: a pass over every record and its relationships).
    """
    layout = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
    for subject in subjects:
        layout.remove((URIRef(subject), None, None))
    if index is None:
        index = RecordIndex(bundle)
    index.follow(bundle)
    changed = index.records_at(sorted(relpaths))
    sources = [r for r in changed if isinstance(r, MemoryRecord)]
    linking = index.links.sources(keys) - {m.id for m in sources}
    sources += [bundle.memories[i] for i in sorted(linking)]
    resolved_again = {m.relpath for m in sources}
    bundle.problems.items = [p for p in bundle.problems if not (p.rule == "link" and p.path in resolved_again)]
    graph = bundle.links
    subjects = subjects | {m.iri for m in sources}
    for subject in subjects:
        graph.remove((URIRef(subject), None, None))
    loader = _Loader(bundle)
    targets = index.links.targets(
        bundle, {key for m in sources for _, _, key in target_keys(m.frontmatter, m.doc_iri, bundle.base_iri)}
    )
    triples = [t for m in sources for t in loader.source_triples(m, targets)]
    triples += [(URIRef(e.iri), PATH, Literal(e.relpath)) for e in changed if isinstance(e, EntityRecord)]
    loader.add_graph(bundle.links_graph_iri, triples)
    loader.add_graph(bundle.layout_graph_iri, layout_triples(m for m in changed if isinstance(m, MemoryRecord)))
    loader.flush()
    return subjects


def forget(bundle: LoadedBundle, relpath: str, record: MemoryRecord | EntityRecord | None) -> None:
    """Drop what one file contributed: its graph, its ``record`` (the one loaded from ``relpath``, if any)
    and its problems (not its links)."""
    if isinstance(record, EntityRecord):
        bundle.dataset.remove_graph(URIRef(record.iri))
        del bundle.entities[record.iri]
    elif record is not None:
        bundle.dataset.remove_graph(URIRef(record.iri))
        del bundle.memories[record.id]
    bundle.problems.drop_path(relpath)


def add_content_hashes(bundle: LoadedBundle) -> None:
    """Give every memory ``extensions.mif-rdf.hash`` (spec 18.2) in the dataset; files are untouched."""
    bundle.problems.items = [p for p in bundle.problems if p.rule != "integrity"]  # checked again below
    records = list(bundle.memories.values())
    for record in records:  # all of them first: a memory still listed would hold its own location
        bundle.dataset.remove_graph(URIRef(record.iri))
        del bundle.memories[record.id]
    loader = _Loader(bundle)
    for record in records:
        loader.add_memory(ParsedMemory(record.relpath, with_hash(record.frontmatter, record.body), record.body))
    loader.flush()
    rebuild_links(bundle)  # the layout graph holds the frontmatter, which now has the hash


def refresh_namespace_graphs(bundle: LoadedBundle) -> None:
    """Read the namespace model again (:mod:`mif_rdf.nsmodel`) and replace the
    ``#namespaces`` and ``#inherited`` graphs.

    Its problems replace the ones an earlier read gave.  A bundle without
    agreements, namespace files or reserved prefixes costs a look at
    ``.mif`` and two empty graphs; the records are not read then.
    """
    model = read_namespace_model(bundle.root, bundle.config, bundle.limits)
    bundle.problems.items = [p for p in bundle.problems if not is_model_problem(p, model.config_path)] + model.problems
    names = set(model_graphs(model, bundle.base_iri, ()))
    # one index lookup per graph (listing every graph costs a term per memory; dataset.graph() would create them)
    present = [
        URIRef(name)
        for name in sorted(names)
        if next(iter(bundle.dataset.quads((None, None, None, URIRef(name)))), None) is not None  # type: ignore[arg-type]
    ]
    if not model and not present:
        return
    for iri in present:
        bundle.dataset.remove_graph(iri)
    loader = _Loader(bundle)
    for name, content in model_graphs(
        model, bundle.base_iri, ((m.id, m.frontmatter) for m in bundle.memories.values())
    ).items():
        loader.add_graph(name, content)
    loader.flush()


def rebuild_links(bundle: LoadedBundle) -> None:
    """Bring the links and layout graphs up to date with the memories: only triples that differ are removed or added.

    A changed file changes a few links; removing the whole graph and adding
    it again costs time that grows with the bundle, not with the change
    (figures in docs/performance.md).
    """
    bundle.problems.items = [p for p in bundle.problems if p.rule != "link"]  # found again below
    loader = _Loader(bundle)
    for name, wanted in (
        (bundle.links_graph_iri, set(loader.link_triples())),
        (bundle.layout_graph_iri, set(layout_triples(bundle.memories.values()))),
    ):
        graph = bundle.dataset.graph(URIRef(name))
        stored = {
            _plain_strings(triple): triple for triple in graph
        }  # Oxigraph hands back xsd:string, the loader wrote plain
        for key, triple in stored.items():
            if key not in wanted:
                graph.remove(triple)
        loader.add_graph(name, [triple for triple in wanted if _plain_strings(triple) not in stored])
    loader.flush()


def _plain_strings(triple: Triple) -> Triple:
    """``triple`` with an ``xsd:string`` object written as the plain literal it equals in RDF 1.1."""
    s, p, o = triple
    if isinstance(o, Literal) and o.datatype == XSD.string and o.language is None:
        return s, p, Literal(str(o))
    return triple
