"""Loading a bundle: files -> projection -> triples -> a :class:`~mif_rdf.load.bundle.LoadedBundle`.

:func:`load` reads a folder (through the cache when asked); :func:`open_bundle`
and :func:`fill` are its two halves, which the streamed export and ``serve``
use on their own.  The incremental functions (:func:`reload`, :func:`relink`,
:func:`rebuild_links`, :func:`add_content_hashes`) keep a loaded bundle equal
to a fresh load of its files after some of them changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

from rdflib import Literal, URIRef
from rdflib.namespace import XSD
from rdflib.store import Store

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.context import is_absolute_iri, is_valid_iri
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.progress import progress_bar
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import (
    LOCATION,
    NAMESPACE_URI,
    PATH,
    EntityRecord,
    LoadedBundle,
    MemoryRecord,
    target_keys,
)
from mif_rdf.load.cache import default_cache_dir, load_cached
from mif_rdf.load.pipeline import (
    PreparedMemory,
    ToRdfEngine,
    TriplesAs,
    complete,
    prepare_memories,
    prepare_memory,
    triples,
    worker_count,
)
from mif_rdf.load.stores import new_dataset, sink_for
from mif_rdf.nsmodel import model_graphs, read_namespace_model
from mif_rdf.nsmodel.graphs import is_model_problem, namespace_uri
from mif_rdf.nsmodel.model import authority_of
from mif_rdf.rdf.jsonld_source import (
    Authored,
    is_jsonld_path,
    is_projection,
    json_pointer,
    pair_twins,
    projection_problems,
)
from mif_rdf.rdf.layout import layout_triples
from mif_rdf.rdf.projection import Projection, project_entity
from mif_rdf.source.identity import (
    BUNDLE_ID_KEY,
    ENTITY_PREFIX,
    MEMORY_PREFIX,
    bundle_id_problem,
    document_iri,
    memory_iri,
    normalize_base_iri,
    relationship_iri,
)
from mif_rdf.source.integrity import with_hash
from mif_rdf.source.parse import (
    BundleFiles,
    ParsedEntity,
    ParsedMemory,
    bundle_base_iri,
    discover,
    is_entity_path,
    loadable,
    parse_config,
    parse_entity,
)

B = TypeVar("B", bound=LoadedBundle)


def reload(bundle: LoadedBundle, *relpaths: str) -> set[str]:
    """Re-read changed, new or deleted memory and entity files; only their graphs are replaced.

    The links and layout graphs change only where the files touch them
    (:func:`relink`); returns the links-graph subjects whose triples were
    written again.
    """
    relpaths = tuple(
        dict.fromkeys([*relpaths, *pair_twins(bundle.root, relpaths)])
    )  # which of a .md/.jsonld pair loads depends on both
    changed = set(relpaths)
    old_keys, old_subjects = _keys_of(bundle, changed)
    for relpath in relpaths:
        forget(bundle, relpath)
    loader = _Loader(bundle)
    projections = []
    for relpath in relpaths:
        if loadable(bundle.root, relpath):  # the rules of a fresh load: no symlink, a regular file
            if is_entity_path(relpath):
                loader.entity(relpath)
            elif is_projection(bundle.root, relpath):
                projections.append(relpath)
            else:
                loader.memory(relpath)
    loader.flush()
    check_projections(bundle, projections)
    new_keys, new_subjects = _keys_of(bundle, changed)
    subjects = relink(bundle, changed, old_keys | new_keys, old_subjects | new_subjects)
    refresh_namespace_graphs(bundle)
    return subjects


def _keys_of(bundle: LoadedBundle, relpaths: set[str]) -> tuple[set[str], set[str]]:
    """The target IRIs the files at ``relpaths`` answer to (document, memory, entity IRIs) and their links-graph subjects."""
    keys: set[str] = set()
    subjects: set[str] = set()
    for m in bundle.memories.values():
        if m.relpath in relpaths:
            keys |= {m.doc_iri, m.iri}
            subjects.add(m.iri)
    for e in bundle.entities.values():
        if e.relpath in relpaths:
            keys.add(e.iri)
            subjects.add(e.iri)
    return keys, subjects


def relink(bundle: LoadedBundle, relpaths: set[str], keys: set[str], subjects: set[str]) -> set[str]:
    """Bring the links graph up to date after the files at ``relpaths`` changed, touching only what they touch.

    Every links-graph triple has its source as subject, so the edges of the
    changed files (``subjects``, before and after) and of every memory with
    a relationship whose target resolves to one of ``keys`` (the changed
    files' IRIs, before and after) are removed and written again; nothing
    else can have changed.  The result equals :func:`rebuild_links`, at a
    cost that grows with the change, not with the bundle.  Returns the
    subjects whose triples were written again.  The layout graph's triples
    of the changed files (``subjects``) are written again too.
    """
    layout = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
    for subject in subjects:
        layout.remove((URIRef(subject), None, None))
    sources = [
        m
        for m in bundle.memories.values()
        if m.relpath in relpaths
        or any(key in keys for _, _, key in target_keys(m.frontmatter, m.doc_iri, bundle.base_iri))
    ]
    resolved_again = {m.relpath for m in sources}
    bundle.problems.items = [p for p in bundle.problems if not (p.rule == "link" and p.path in resolved_again)]
    graph = bundle.links
    subjects = subjects | {m.iri for m in sources}
    for subject in subjects:
        graph.remove((URIRef(subject), None, None))
    loader = _Loader(bundle)
    targets = bundle.targets()
    triples = [t for m in sources for t in loader.source_triples(m, targets)]
    triples += [(URIRef(e.iri), PATH, Literal(e.relpath)) for e in bundle.entities.values() if e.relpath in relpaths]
    loader.add_graph(bundle.links_graph_iri, triples)
    loader.add_graph(
        bundle.layout_graph_iri, layout_triples(m for m in bundle.memories.values() if m.relpath in relpaths)
    )
    loader.flush()
    return subjects


def forget(bundle: LoadedBundle, relpath: str) -> None:
    """Drop what one file contributed: its graph, its record and its problems (not its links)."""
    if is_entity_path(relpath):
        entity = next((e for e in bundle.entities.values() if e.relpath == relpath), None)
        if entity is not None:
            bundle.dataset.remove_graph(URIRef(entity.iri))
            del bundle.entities[entity.iri]
    else:
        old = bundle.memory_by_path(relpath)
        if old is not None:
            bundle.dataset.remove_graph(URIRef(old.iri))
            del bundle.memories[old.id]
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
    """Read the namespace model again (:mod:`mif_rdf.nsmodel`) and replace the ``#namespaces`` and ``#inherited`` graphs.

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
        if next(iter(bundle.dataset.quads((None, None, None, URIRef(name)))), None) is not None
    ]
    if not model and not present:
        return
    for name in present:
        bundle.dataset.remove_graph(name)
    loader = _Loader(bundle)
    for name, content in model_graphs(
        model, bundle.base_iri, ((m.id, m.frontmatter) for m in bundle.memories.values())
    ).items():
        loader.add_graph(name, content)
    loader.flush()


def rebuild_links(bundle: LoadedBundle) -> None:
    """Bring the links and layout graphs up to date with the memories: only triples that differ are removed or added.

    A changed file changes a few links; removing the whole graph and adding
    it again cost seconds on a large bundle (2 s for the removal alone in an
    on-disk Oxigraph database at 10,000 memories).
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


class _Loader:
    """Fills a :class:`~mif_rdf.load.bundle.LoadedBundle` stage by stage."""

    def __init__(self, bundle: LoadedBundle) -> None:
        self.bundle = bundle
        self.ds = bundle.dataset
        self.authority = authority_of(bundle.config)  # of namespace URIs (spec 10.6)
        self.sink = sink_for(bundle.dataset, self.refused)  # bulk loading on Oxigraph; call flush() when done
        #: Oxigraph takes memories as N-Quads text (parsed in Rust); other stores take rdflib triples.
        self.output: TriplesAs = "nquads" if self.sink is not None else "rdflib"
        self._locations: dict[str, str] | None = None

    def locations(self) -> dict[str, str]:
        """Document IRI -> bundle path of the memories loaded so far (built on first use)."""
        if self._locations is None:
            self._locations = {m.doc_iri: m.relpath for m in self.bundle.memories.values()}
        return self._locations

    def add_graph(self, name: str, triples: Iterable[Triple]) -> None:
        if self.sink is not None:
            self.sink.add(URIRef(name), triples)
            return
        graph = self.ds.graph(URIRef(name))
        self.ds.addN((s, p, o, graph) for s, p, o in triples)

    def flush(self) -> None:
        """Write what a bulk sink still holds (a no-op for other stores)."""
        if self.sink is not None:
            self.sink.flush()

    def memory(self, relpath: str) -> None:
        bundle = self.bundle
        self.accept(prepare_memory(bundle.root, relpath, bundle.base_iri, bundle.limits, bundle.engine, self.output))

    def accept(self, prepared: PreparedMemory) -> None:
        """Add one prepared memory, unless its file cannot be loaded or its id is taken."""
        self.bundle.problems.extend(prepared.problems)
        parsed = prepared.parsed
        if parsed is None:
            return
        clash = self.bundle.memories.get(parsed.id) or self.bundle.entities.get(memory_iri(parsed.id))
        if clash is not None:
            self.bundle.problems.items.append(duplicate_id(prepared.relpath, parsed.id, clash.relpath))
            return
        same_place = self.locations().get(prepared.doc_iri)
        if same_place is not None:
            self.bundle.problems.items.append(duplicate_location(prepared.relpath, prepared.doc_iri, same_place))
            return
        self.bundle.problems.extend(prepared.notes)
        record = MemoryRecord(
            parsed.id, parsed.relpath, prepared.doc_iri, parsed.frontmatter, parsed.body, prepared.document
        )
        self.bundle.memories[parsed.id] = record
        self.locations()[record.doc_iri] = record.relpath
        if prepared.nquads and self.sink is not None:
            self.sink.add_text(record.iri, prepared.nquads)
        else:
            self.add_graph(record.iri, prepared.triples)

    def refused(self, graph: str, message: str) -> None:
        """A memory graph the store would not take: report its file and take back its record."""
        record = next((m for m in self.bundle.memories.values() if m.iri == graph), None)
        if record is None:  # pragma: no cover - the sink only queues memory graphs as text
            return
        del self.bundle.memories[record.id]
        self.bundle.problems.add(
            record.relpath, f"the store refused this memory ({message}); this file is not loaded", rule="store"
        )

    def add_memory(self, parsed: ParsedMemory) -> None:
        self.accept(complete(parsed, self.bundle.base_iri, self.bundle.engine, output=self.output))

    def entity(self, relpath: str) -> None:
        bundle = self.bundle
        parsed = read_entity(
            bundle,
            relpath,
            lambda iri: getattr(
                bundle.entities.get(iri) or bundle.memories.get(iri[len(MEMORY_PREFIX) :]), "relpath", None
            ),
        )
        if parsed is not None:
            self.add_entity(parsed)

    def add_entity(self, parsed: ParsedEntity) -> None:
        record, projection = entity_projection(parsed, self.bundle.base_iri)
        self.bundle.problems.extend(projection.notes)
        self.bundle.entities[parsed.iri] = record
        self.add_graph(parsed.iri, triples(projection, self.bundle.engine))

    def links(self) -> None:
        """The links and layout graphs, once every memory is in."""
        self.add_graph(self.bundle.links_graph_iri, self.link_triples())
        self.add_graph(self.bundle.layout_graph_iri, layout_triples(self.bundle.memories.values()))

    def link_triples(self) -> Iterator[Triple]:
        bundle = self.bundle
        for entity in bundle.entities.values():
            yield URIRef(entity.iri), PATH, Literal(entity.relpath)
        targets = bundle.targets()
        for record in bundle.memories.values():
            yield from self.source_triples(record, targets)

    def source_triples(self, record: MemoryRecord, targets: Mapping[str, str]) -> Iterator[Triple]:
        """One memory's links-graph triples (its path, location and resolved edges); a broken link is reported."""
        yield from place_triples(
            record.iri,
            record.relpath,
            record.doc_iri,
            namespace_uri(self.authority, record.frontmatter.get("namespace"), record.id),
        )
        for link in self.bundle.links_of(record, targets):
            if link.resolved is not None:
                predicate = link_predicate(link.type)
                if predicate is not None:
                    yield URIRef(link.source.iri), predicate, URIRef(link.resolved)
            elif expects_bundle_target(link.target):
                self.bundle.problems.items.append(broken_link(link.source.relpath, link.index, link.target))


def place_triples(iri: str, relpath: str, doc_iri: str, uri: str | None = None) -> tuple[Triple, ...]:
    """Where a memory is, in the links graph: its bundle path, its document IRI and its namespace URI (spec 10.6), if it has one."""
    place = (URIRef(iri), PATH, Literal(relpath)), (URIRef(iri), LOCATION, URIRef(doc_iri))
    return place if uri is None else (*place, (URIRef(iri), NAMESPACE_URI, URIRef(uri)))


def read_entity(bundle: LoadedBundle, relpath: str, defined_by: Callable[[str], str | None]) -> ParsedEntity | None:
    """One entity file of ``.mif/entities``, unless it cannot be read or its IRI is taken (``defined_by`` names the file that has it)."""
    parsed, problems = parse_entity(bundle.root, relpath, bundle.limits)
    bundle.problems.extend(problems)
    if parsed is None:
        return None
    other = defined_by(parsed.iri)
    if other is not None:
        bundle.problems.add(
            relpath,
            f"duplicate entity {parsed.iri}: already defined by {other}; not loaded",
            key="id",
            rule="duplicate-id",
        )
        return None
    return parsed


def entity_projection(parsed: ParsedEntity, base: str) -> tuple[EntityRecord, Projection]:
    """An entity file's record and its JSON-LD projection (whose notes are the file's problems)."""
    doc_iri = document_iri(base, parsed.relpath)
    projection = project_entity(parsed.data, iri=parsed.iri, path=parsed.relpath, doc_iri=doc_iri)
    return EntityRecord(parsed.iri, parsed.relpath, doc_iri, parsed.data, projection.document), projection


def link_predicate(relationship_type: str) -> URIRef | None:
    """The links graph's predicate for a relationship type; None when it makes no IRI (the projection noted that type on its memory and field)."""
    predicate = relationship_iri(relationship_type)
    return URIRef(predicate) if is_valid_iri(predicate) else None


def broken_link(relpath: str, index: int, target: str) -> Problem:
    """The warning for a relationship target that should resolve inside the bundle (a path, a memory URN) and does not."""
    key = f"relationships[{index}].target"
    return Problem(
        relpath,
        f"relationship target {target!r} does not resolve to a memory of the bundle (broken link)",
        Severity.WARNING,
        key=json_pointer(key) if is_jsonld_path(relpath) else key,
        value=target,
        rule="link",
    )


def duplicate_id(relpath: str, memory_id: str, other: str) -> Problem:
    """The error for a memory whose id an earlier file (in path order) already has: the later file is not loaded."""
    return Problem(
        relpath,
        f"duplicate id {memory_id!r}: already used by {other} (the same graph <{memory_iri(memory_id)}>); this file is not loaded",
        key="id",
        value=memory_id,
        rule="duplicate-id",
    )


def duplicate_location(relpath: str, doc_iri: str, other: str) -> Problem:
    """The error for two paths with one document IRI ('a b.md' and 'a%20b.md'): links could not tell them apart."""
    return Problem(
        relpath,
        f"path has the same location <{doc_iri}> as {other}; this file is not loaded",
        value=relpath,
        rule="duplicate-path",
    )


def _plain_strings(triple: Triple) -> Triple:
    """``triple`` with an ``xsd:string`` object written as the plain literal it equals in RDF 1.1."""
    s, p, o = triple
    if isinstance(o, Literal) and o.datatype == XSD.string and o.language is None:
        return s, p, Literal(str(o))
    return triple


def expects_bundle_target(target: str) -> bool:
    """Paths and memory URNs should resolve inside the bundle; other IRIs may point anywhere."""
    if target.startswith(MEMORY_PREFIX):
        return not target.startswith(ENTITY_PREFIX)
    return not is_absolute_iri(target)


def load(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    store: str | Store = "memory",
    progress: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
    cache: bool | str | Path | None = None,
    workers: int | None = None,
    into: type[LoadedBundle] = LoadedBundle,
) -> LoadedBundle:
    """Load a MIF bundle folder into an rdflib Dataset, as an ``into`` (:func:`mif_rdf.load_bundle` documents the arguments).

    ``into`` is the class of the result: :class:`~mif_rdf.Bundle` for the
    public API, the plain :class:`LoadedBundle` inside the pipeline.  The cache
    (:mod:`mif_rdf.load.cache`) is handed the steps it needs (make an empty
    bundle, fill it, reload changed files) and never imports this module.
    """
    if cache is not None and cache is not False:
        folder = default_cache_dir() if cache is True else Path(cache)
        root, base = _located(root, base_iri, engine)
        bundle = load_cached(
            root,
            base,
            engine=engine,
            store=store,
            limits=limits,
            cache_dir=folder,
            progress=progress,
            workers=workers,
            into=into,
            fill=fill,
            reload=reload,
        )
        refresh_namespace_graphs(bundle)  # the cache does not watch .mif/shared-agreements and .mif/namespaces
        return bundle
    return fill(
        open_bundle(root, base_iri=base_iri, engine=engine, store=store, limits=limits, into=into), progress, workers
    )


def open_bundle(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    store: str | Store = "memory",
    limits: Limits = DEFAULT_LIMITS,
    into: type[LoadedBundle] = LoadedBundle,
) -> LoadedBundle:
    """An empty bundle for the folder ``root``, its arguments checked: what :func:`fill` reads the files into.

    The streaming export (:mod:`mif_rdf.output.stream_export`) starts from it too, so
    both read the same folder under the same base IRI and report the same
    problems for the same arguments.
    """
    root, base = _located(root, base_iri, engine)
    return into(root=root, base_iri=base, dataset=new_dataset(store), engine=engine, limits=limits)


def _located(root: str | Path, base_iri: str | None, engine: str) -> tuple[Path, str]:
    """The bundle folder (checked, absolute) and its base IRI."""
    root = Path(root)
    if root.is_file():
        raise MifRdfError(f"{str(root)!r} is a file; give the bundle folder")
    if not root.is_dir():
        raise MifRdfError(f"bundle folder {str(root)!r} does not exist")
    if engine not in ("fast", "pyld"):
        raise MifRdfError(f"unknown engine {engine!r}: use 'fast' or 'pyld'")
    root = root.resolve()
    return root, normalize_base_iri(base_iri) if base_iri else bundle_base_iri(root)


def fill(bundle: B, progress: bool | None = None, workers: int | None = None) -> B:
    """Read every file of ``bundle.root`` into the (empty) bundle and return it."""
    with no_cyclic_gc():
        _fill(bundle, progress, workers)
    return bundle


def memory_files(bundle: LoadedBundle) -> BundleFiles:
    """Discover the bundle's files and read its config: the memory files to load, in path order, within the limit.

    Discovery's, the config's and the limit's problems go to ``bundle.problems``.
    """
    root = bundle.root
    files: BundleFiles = discover(root)
    bundle.problems.extend(files.problems)
    if files.config:
        bundle.config, problems = parse_config(root, files.config, bundle.limits)
        bundle.problems.extend(problems)
        why = bundle_id_problem(bundle.config[BUNDLE_ID_KEY]) if BUNDLE_ID_KEY in bundle.config else None
        if why is not None:
            bundle.problems.add(
                files.config,
                why,
                Severity.WARNING,
                key=BUNDLE_ID_KEY,
                value=bundle.config[BUNDLE_ID_KEY],
                rule="config",
            )
    memories = files.memories
    if not memories:
        bundle.problems.add(
            ".",
            "no memory files found: a memory is a .md file with YAML frontmatter, or its .jsonld form (index and log are reserved names)",
            Severity.WARNING,
            rule="empty",
        )
    if len(memories) > bundle.limits.max_memories:
        bundle.problems.add(
            ".",
            f"{len(memories):,} memory files, over the limit of {bundle.limits.max_memories:,} (--max-memories); "
            f"files after {memories[bundle.limits.max_memories - 1]} (in path order) are not loaded",
            rule="limit",
        )
        files.memories = memories[: bundle.limits.max_memories]
    return files


def check_projections(bundle: LoadedBundle, projections: list[str]) -> None:
    """A "stale projection" warning for each ``.jsonld`` beside a loaded ``.md`` that no longer projects it."""
    if not projections:
        return
    by_path = {m.relpath: Authored(m.frontmatter, m.body, m.doc_iri) for m in bundle.memories.values()}
    bundle.problems.extend(projection_problems(bundle.root, projections, by_path.get, bundle.limits))


def _fill(bundle: LoadedBundle, progress: bool | None, workers: int | None) -> None:
    files = memory_files(bundle)
    memories = files.memories
    loader = _Loader(bundle)
    workers = worker_count(len(memories), workers, busy_main=loader.sink is None)
    prepared = prepare_memories(
        bundle.root, memories, bundle.base_iri, bundle.limits, bundle.engine, workers, loader.output
    )
    for memory in progress_bar(prepared, len(memories), progress, "memories"):
        loader.accept(memory)
    check_projections(bundle, files.projections)
    for relpath in files.entities:
        loader.entity(relpath)
    loader.links()
    loader.flush()
    refresh_namespace_graphs(bundle)
