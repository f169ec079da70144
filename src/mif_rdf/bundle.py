"""Loading a bundle: files -> projection -> triples -> an rdflib Dataset.

One named graph per memory (named by the memory IRI) and per entity file
(named by the entity IRI), plus a *links* graph (``<base>#links``) with direct
typed edges between memories (and entities) whose relationship targets
resolve, and each memory's bundle path, and a *layout* graph
(``<base>#layout``, :mod:`mif_rdf.rdf.layout`) with what the round trip needs
beyond the JSON-LD graph; when the bundle declares a namespace model (spec
10.4-10.7), the ``<base>#namespaces`` and ``<base>#inherited`` graphs
(:mod:`mif_rdf.nsmodel`).  Queries see the union by default.
"""
from __future__ import annotations

import contextlib
import gc
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, TypeVar

from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.query import Result
from rdflib.store import Store
from rdflib.term import Identifier

from mif_rdf.core.context import MIF_NS, is_absolute_iri, is_valid_iri
from mif_rdf.core.errors import MifRdfError, Problem, ProblemLog, Severity, counted
from mif_rdf.source.integrity import with_hash
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.names import STORES
from mif_rdf.core.namespaces import bind_prefixes
from mif_rdf.source.identity import (
    BUNDLE_ID_KEY,
    bundle_id_problem,
    canonical_relationship_name,
    ENTITY_PREFIX,
    GRAPH_LAYOUT,
    GRAPH_LINKS,
    MEMORY_PREFIX,
    default_base_iri,
    document_iri,
    graph_iri,
    memory_iri,
    normalize_base_iri,
    relationship_iri,
    resolve_target,
)
from mif_rdf.rdf.jsonld_source import Authored, is_jsonld_path, is_projection, json_pointer, pair_twins, projection_problems
from mif_rdf.rdf.layout import layout_triples
from mif_rdf.nsmodel.graphs import namespace_uri
from mif_rdf.nsmodel.model import authority_of
from mif_rdf.load.oxigraph_sink import sink_for
from mif_rdf.source.parse import BundleFiles, ParsedEntity, ParsedMemory, discover, is_entity_path, loadable, parse_config, parse_entity
from mif_rdf.load.pipeline import Engine, Output, PreparedMemory, complete, prepare_memories, prepare_memory, triples, worker_count
from mif_rdf.rdf.projection import Projection, project_entity
from mif_rdf.rdf.tordf import Triple

if TYPE_CHECKING:
    from mif_rdf.load.cache import CacheReport
    from mif_rdf.output.export_api import Target
    from mif_rdf.nsmodel.audience import Audience
    from mif_rdf.output.policy import ExportPolicy
    from mif_rdf.output.update import UpdateResult

T = TypeVar("T")
PATH = URIRef(MIF_NS + "path")
LOCATION = URIRef(MIF_NS + "location")
NAMESPACE_URI = URIRef(MIF_NS + "namespaceUri")
#: Above this many files a progress bar is shown (on a terminal only).
PROGRESS_THRESHOLD = 200


@dataclass
class MemoryRecord:
    """One loaded memory: where it came from and what it projected to."""

    id: str
    relpath: str
    doc_iri: str
    frontmatter: dict[str, Any]
    body: str
    document: dict[str, Any]

    @property
    def iri(self) -> str:
        return memory_iri(self.id)


@dataclass
class EntityRecord:
    iri: str
    relpath: str
    doc_iri: str
    data: dict[str, Any]
    document: dict[str, Any]


@dataclass(frozen=True)
class Link:
    """One frontmatter relationship and what its target resolves to in the bundle."""

    source: MemoryRecord
    index: int  # position in the source's relationships list
    type: str
    target: str
    resolved: str | None  # IRI of the memory or entity it points at, None when broken or external


RecordMaps = tuple[dict[str, MemoryRecord], dict[str, EntityRecord]]


class Records:
    """A bundle's memory and entity records, possibly still to be read.

    A warm load from the cache hands out the dataset at once and reads the
    records (tens of megabytes of parsed frontmatter at 10,000 memories) only
    when something asks for them: most SPARQL work never does.
    """

    def __init__(self, read: Callable[[], RecordMaps] | None = None, maps: RecordMaps | None = None) -> None:
        self._read = read
        self._maps: RecordMaps = maps or ({}, {})

    def maps(self) -> RecordMaps:
        if self._read is not None:
            self._maps, self._read = self._read(), None
        return self._maps


@dataclass
class Bundle:
    """A loaded bundle: the Dataset plus everything needed to explain and reverse it."""

    root: Path
    base_iri: str
    #: Everything loaded, ``_local`` memories included (spec 10.2: they never leave the machine):
    #: write files with :meth:`export`, not ``dataset.serialize``.
    dataset: Dataset
    engine: Engine = "fast"
    config: dict[str, Any] = field(default_factory=dict)
    problems: ProblemLog = field(default_factory=ProblemLog)
    limits: Limits = DEFAULT_LIMITS
    cache: CacheReport | None = None  # what the cache did, when loaded with one
    records: Records = field(default_factory=Records, repr=False)

    @property
    def memories(self) -> dict[str, MemoryRecord]:
        """Every loaded memory by id, in path order."""
        return self.records.maps()[0]

    @property
    def entities(self) -> dict[str, EntityRecord]:
        """Every loaded entity file by entity IRI."""
        return self.records.maps()[1]

    @property
    def links_graph_iri(self) -> str:
        return graph_iri(self.base_iri, GRAPH_LINKS)

    @property
    def layout_graph_iri(self) -> str:
        return graph_iri(self.base_iri, GRAPH_LAYOUT)

    @property
    def links(self) -> Graph:
        return self.dataset.graph(URIRef(self.links_graph_iri))

    def graph(self, memory_id: str) -> Graph:
        """The named graph of one memory."""
        if memory_id not in self.memories:
            raise MifRdfError(f"no memory with id {memory_id!r} in {self.root}")
        return self.dataset.graph(URIRef(memory_iri(memory_id)))

    def relationships(self, types: Collection[str] | None = None) -> Iterator[Link]:
        """Every well-formed frontmatter relationship, with its target resolved.

        Targets resolve to memories (by path, absolute or document-relative, or
        by ``urn:mif:<id>``) and to entities of ``.mif/entities``; a fragment
        (``x.md#section``) still points at ``x.md``.  ``types`` (canonical,
        kebab-case names) keeps only relationships of those types, before any
        target is resolved.
        """
        targets = self._targets()
        for record in self.memories.values():
            yield from self._links_of(record, targets, types)

    def _targets(self) -> dict[str, str]:
        """What a resolved target IRI points at: document IRIs and memory IRIs to memories, entity IRIs to entities."""
        targets: dict[str, str] = {entity.iri: entity.iri for entity in self.entities.values()}
        for record in self.memories.values():
            targets[record.doc_iri] = targets[record.iri] = record.iri
        return targets

    def _links_of(self, record: MemoryRecord, targets: Mapping[str, str], types: Collection[str] | None = None) -> Iterator[Link]:
        for index, rel, key in target_keys(record.frontmatter, record.doc_iri, self.base_iri, types):
            yield Link(record, index, rel["type"], rel["target"], targets.get(key))

    def memory_by_path(self, relpath: str) -> MemoryRecord | None:
        return next((m for m in self.memories.values() if m.relpath == relpath), None)

    def __len__(self) -> int:
        return len(self.dataset)

    def __repr__(self) -> str:
        """One line: where it is and what it holds (the Dataset and config are too big to print)."""
        problems = Counter(p.severity.value for p in self.problems)
        found = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in problems.items()) or "no problems"
        return f"<Bundle {str(self.root)!r}: {counted(len(self.memories), 'memory', 'memories')}, {counted(len(self.dataset), 'triple')}, {found}>"

    def query(self, query: str, bindings: Mapping[str, Identifier] | None = None, *, allow_service: bool = False) -> Result:
        """Run SPARQL over the union of the bundle's graphs, with the project's prefixes declared.

        The same as :func:`mif_rdf.queries.run_query` on ``self.dataset``: updates
        and (unless allowed) ``SERVICE`` are refused, syntax errors name the line.
        """
        from mif_rdf.queries.sparql import run_query

        return run_query(self.dataset, query, bindings, allow_service=allow_service)

    def export(self, target: Target, format: str | None = None, *, include_local: bool = False,
               audience: str | Audience | None = None, include_system: bool = False) -> ExportPolicy:
        """Write what may leave the machine, as ``mif-rdf export`` does: never ``_local`` unless ``include_local``.

        ``format`` defaults to the one the file's extension names; ``audience``
        (a party of the bundle) writes only what it may read.  The same as
        :func:`mif_rdf.output.export_api.export`; returns the policy applied.
        """
        from mif_rdf.output.export_api import export  # export_api builds on this module

        return export(self, target, format, include_local=include_local, audience=audience, include_system=include_system)

    def update(self, update: str, *, dry_run: bool = False, allow_service: bool = False, force: bool = False, allow_delete: bool = False) -> UpdateResult:
        """Run a SPARQL Update and write each changed memory back to its file (:func:`mif_rdf.output.update.update_bundle`)."""
        from mif_rdf.output.update import update_bundle

        return update_bundle(self, update, dry_run=dry_run, allow_service=allow_service, force=force, allow_delete=allow_delete)

    def _repr_html_(self) -> str:
        """The summary Jupyter shows for a bundle: counts, graphs and problems."""
        from mif_rdf.notebook.display import bundle_html

        return bundle_html(self)

    def counts(self) -> dict[str, Any]:
        """Figures for summaries: memories by type, triples, graphs, problems by severity."""
        kinds = Counter(str(m.frontmatter.get("type", "?")) for m in self.memories.values())
        severities = Counter(p.severity.value for p in self.problems)
        return {
            "memories": len(self.memories),
            "by_type": dict(sorted(kinds.items())),
            "entities": len(self.entities),
            "links": len(self.links),
            "triples": len(self.dataset),
            "problems": {s.value: severities.get(s.value, 0) for s in Severity},
        }

    # -- incremental ---------------------------------------------------------------
    def reload(self, *relpaths: str) -> set[str]:
        """Re-read changed, new or deleted memory and entity files; only their graphs are replaced.

        The links and layout graphs change only where the files touch them
        (:meth:`relink`); returns the links-graph subjects whose triples were
        written again.
        """
        relpaths = tuple(dict.fromkeys([*relpaths, *pair_twins(self.root, relpaths)]))  # which of a .md/.jsonld pair loads depends on both
        changed = set(relpaths)
        old_keys, old_subjects = self._keys_of(changed)
        for relpath in relpaths:
            self.forget(relpath)
        loader = _Loader(self)
        projections = []
        for relpath in relpaths:
            if loadable(self.root, relpath):  # the rules of a fresh load: no symlink, a regular file
                if is_entity_path(relpath):
                    loader.entity(relpath)
                elif is_projection(self.root, relpath):
                    projections.append(relpath)
                else:
                    loader.memory(relpath)
        loader.flush()
        check_projections(self, projections)
        new_keys, new_subjects = self._keys_of(changed)
        subjects = self.relink(changed, old_keys | new_keys, old_subjects | new_subjects)
        self.refresh_namespace_graphs()
        return subjects

    def _keys_of(self, relpaths: set[str]) -> tuple[set[str], set[str]]:
        """The target IRIs the files at ``relpaths`` answer to (document, memory, entity IRIs) and their links-graph subjects."""
        keys: set[str] = set()
        subjects: set[str] = set()
        for m in self.memories.values():
            if m.relpath in relpaths:
                keys |= {m.doc_iri, m.iri}
                subjects.add(m.iri)
        for e in self.entities.values():
            if e.relpath in relpaths:
                keys.add(e.iri)
                subjects.add(e.iri)
        return keys, subjects

    def relink(self, relpaths: set[str], keys: set[str], subjects: set[str]) -> set[str]:
        """Bring the links graph up to date after the files at ``relpaths`` changed, touching only what they touch.

        Every links-graph triple has its source as subject, so the edges of the
        changed files (``subjects``, before and after) and of every memory with
        a relationship whose target resolves to one of ``keys`` (the changed
        files' IRIs, before and after) are removed and written again; nothing
        else can have changed.  The result equals :meth:`rebuild_links`, at a
        cost that grows with the change, not with the bundle.  Returns the
        subjects whose triples were written again.  The layout graph's triples
        of the changed files (``subjects``) are written again too.
        """
        layout = self.dataset.graph(URIRef(self.layout_graph_iri))
        for subject in subjects:
            layout.remove((URIRef(subject), None, None))
        sources = [m for m in self.memories.values()
                   if m.relpath in relpaths or any(key in keys for _, _, key in target_keys(m.frontmatter, m.doc_iri, self.base_iri))]
        resolved_again = {m.relpath for m in sources}
        self.problems.items = [p for p in self.problems if not (p.rule == "link" and p.path in resolved_again)]
        graph = self.links
        subjects = subjects | {m.iri for m in sources}
        for subject in subjects:
            graph.remove((URIRef(subject), None, None))
        loader = _Loader(self)
        targets = self._targets()
        triples = [t for m in sources for t in loader.source_triples(m, targets)]
        triples += [(URIRef(e.iri), PATH, Literal(e.relpath)) for e in self.entities.values() if e.relpath in relpaths]
        loader.add_graph(self.links_graph_iri, triples)
        loader.add_graph(self.layout_graph_iri, layout_triples(m for m in self.memories.values() if m.relpath in relpaths))
        loader.flush()
        return subjects

    def forget(self, relpath: str) -> None:
        """Drop what one file contributed: its graph, its record and its problems (not its links)."""
        if is_entity_path(relpath):
            entity = next((e for e in self.entities.values() if e.relpath == relpath), None)
            if entity is not None:
                self.dataset.remove_graph(URIRef(entity.iri))
                del self.entities[entity.iri]
        else:
            old = self.memory_by_path(relpath)
            if old is not None:
                self.dataset.remove_graph(URIRef(old.iri))
                del self.memories[old.id]
        self.problems.drop_path(relpath)

    def add_content_hashes(self) -> None:
        """Give every memory ``extensions.mif-rdf.hash`` (spec 18.2) in the dataset; files are untouched."""
        self.problems.items = [p for p in self.problems if p.rule != "integrity"]  # checked again below
        records = list(self.memories.values())
        for record in records:  # all of them first: a memory still listed would hold its own location
            self.dataset.remove_graph(URIRef(record.iri))
            del self.memories[record.id]
        loader = _Loader(self)
        for record in records:
            loader.add_memory(ParsedMemory(record.relpath, with_hash(record.frontmatter, record.body), record.body))
        loader.flush()
        self.rebuild_links()  # the layout graph holds the frontmatter, which now has the hash

    def refresh_namespace_graphs(self) -> None:
        """Read the namespace model again (:mod:`mif_rdf.nsmodel`) and replace the ``#namespaces`` and ``#inherited`` graphs.

        Its problems replace the ones an earlier read gave.  A bundle without
        agreements, namespace files or reserved prefixes costs a look at
        ``.mif`` and two empty graphs; the records are not read then.
        """
        from mif_rdf.nsmodel import model_graphs, read_namespace_model
        from mif_rdf.nsmodel.graphs import is_model_problem

        model = read_namespace_model(self.root, self.config, self.limits)
        self.problems.items = [p for p in self.problems if not is_model_problem(p, model.config_path)] + model.problems
        names = set(model_graphs(model, self.base_iri, ()))
        # one index lookup per graph (listing every graph costs a term per memory; dataset.graph() would create them)
        present = [URIRef(name) for name in sorted(names) if next(iter(self.dataset.quads((None, None, None, URIRef(name)))), None) is not None]
        if not model and not present:
            return
        for name in present:
            self.dataset.remove_graph(name)
        loader = _Loader(self)
        for name, content in model_graphs(model, self.base_iri, ((m.id, m.frontmatter) for m in self.memories.values())).items():
            loader.add_graph(name, content)
        loader.flush()

    def rebuild_links(self) -> None:
        """Bring the links and layout graphs up to date with the memories: only triples that differ are removed or added.

        A changed file changes a few links; removing the whole graph and adding
        it again cost seconds on a large bundle (2 s for the removal alone in an
        on-disk Oxigraph database at 10,000 memories).
        """
        self.problems.items = [p for p in self.problems if p.rule != "link"]  # found again below
        loader = _Loader(self)
        for name, wanted in ((self.links_graph_iri, set(loader.link_triples())), (self.layout_graph_iri, set(layout_triples(self.memories.values())))):
            graph = self.dataset.graph(URIRef(name))
            stored = {_plain_strings(triple): triple for triple in graph}  # Oxigraph hands back xsd:string, the loader wrote plain
            for key, triple in stored.items():
                if key not in wanted:
                    graph.remove(triple)
            loader.add_graph(name, [triple for triple in wanted if _plain_strings(triple) not in stored])
        loader.flush()


class _Loader:
    """Fills a :class:`Bundle` stage by stage."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.ds = bundle.dataset
        self.authority = authority_of(bundle.config)  # of namespace URIs (spec 10.6)
        self.sink = sink_for(bundle.dataset, self.refused)  # bulk loading on Oxigraph; call flush() when done
        #: Oxigraph takes memories as N-Quads text (parsed in Rust); other stores take rdflib triples.
        self.output: Output = "nquads" if self.sink is not None else "rdflib"
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
        record = MemoryRecord(parsed.id, parsed.relpath, prepared.doc_iri, parsed.frontmatter, parsed.body, prepared.document)
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
        self.bundle.problems.add(record.relpath, f"the store refused this memory ({message}); this file is not loaded", rule="store")

    def add_memory(self, parsed: ParsedMemory) -> None:
        self.accept(complete(parsed, self.bundle.base_iri, self.bundle.engine, output=self.output))

    def entity(self, relpath: str) -> None:
        bundle = self.bundle
        parsed = read_entity(bundle, relpath, lambda iri: getattr(bundle.entities.get(iri) or bundle.memories.get(iri[len(MEMORY_PREFIX):]), "relpath", None))
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
        targets = bundle._targets()
        for record in bundle.memories.values():
            yield from self.source_triples(record, targets)

    def source_triples(self, record: MemoryRecord, targets: Mapping[str, str]) -> Iterator[Triple]:
        """One memory's links-graph triples (its path, location and resolved edges); a broken link is reported."""
        yield from place_triples(record.iri, record.relpath, record.doc_iri, namespace_uri(self.authority, record.frontmatter.get("namespace"), record.id))
        for link in self.bundle._links_of(record, targets):
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


def read_entity(bundle: Bundle, relpath: str, defined_by: Callable[[str], str | None]) -> ParsedEntity | None:
    """One entity file of ``.mif/entities``, unless it cannot be read or its IRI is taken (``defined_by`` names the file that has it)."""
    parsed, problems = parse_entity(bundle.root, relpath, bundle.limits)
    bundle.problems.extend(problems)
    if parsed is None:
        return None
    other = defined_by(parsed.iri)
    if other is not None:
        bundle.problems.add(relpath, f"duplicate entity {parsed.iri}: already defined by {other}; not loaded", key="id", rule="duplicate-id")
        return None
    return parsed


def entity_projection(parsed: ParsedEntity, base: str) -> tuple[EntityRecord, Projection]:
    """An entity file's record and its JSON-LD projection (whose notes are the file's problems)."""
    doc_iri = document_iri(base, parsed.relpath)
    projection = project_entity(parsed.data, iri=parsed.iri, path=parsed.relpath, doc_iri=doc_iri)
    return EntityRecord(parsed.iri, parsed.relpath, doc_iri, parsed.data, projection.document), projection


def target_keys(frontmatter: Mapping[str, Any], doc_iri: str, base: str, types: Collection[str] | None = None) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each well-formed relationship of a memory (of ``types``, canonical names, when given) with the IRI its target resolves to (without fragment)."""
    relationships = frontmatter.get("relationships")
    if not isinstance(relationships, list):
        return
    for index, rel in enumerate(relationships):
        if isinstance(rel, dict) and isinstance(rel.get("target"), str) and isinstance(rel.get("type"), str):
            if types is None or canonical_relationship_name(rel["type"]) in types:
                yield index, rel, resolve_target(rel["target"], doc_iri, base).split("#", 1)[0]


def link_predicate(relationship_type: str) -> URIRef | None:
    """The links graph's predicate for a relationship type; None when it makes no IRI (the projection noted that type on its memory and field)."""
    predicate = relationship_iri(relationship_type)
    return URIRef(predicate) if is_valid_iri(predicate) else None


def broken_link(relpath: str, index: int, target: str) -> Problem:
    """The warning for a relationship target that should resolve inside the bundle (a path, a memory URN) and does not."""
    key = f"relationships[{index}].target"
    return Problem(relpath, f"relationship target {target!r} does not resolve to a memory of the bundle (broken link)",
                   Severity.WARNING, key=json_pointer(key) if is_jsonld_path(relpath) else key, value=target, rule="link")


def duplicate_id(relpath: str, memory_id: str, other: str) -> Problem:
    """The error for a memory whose id an earlier file (in path order) already has: the later file is not loaded."""
    return Problem(relpath, f"duplicate id {memory_id!r}: already used by {other} (the same graph <{memory_iri(memory_id)}>); this file is not loaded",
                   key="id", value=memory_id, rule="duplicate-id")


def duplicate_location(relpath: str, doc_iri: str, other: str) -> Problem:
    """The error for two paths with one document IRI ('a b.md' and 'a%20b.md'): links could not tell them apart."""
    return Problem(relpath, f"path has the same location <{doc_iri}> as {other}; this file is not loaded", value=relpath, rule="duplicate-path")


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


def progress_bar(items: Iterable[T], total: int, enabled: bool | None, label: str) -> Iterable[T]:
    if enabled is None:
        enabled = total >= PROGRESS_THRESHOLD and sys.stderr.isatty()
    if not enabled:
        return items
    try:
        from tqdm import tqdm
    except ImportError:  # progress is a nicety, never a requirement
        return items
    return tqdm(items, total=total, desc=label, unit="file", file=sys.stderr, leave=False)


def new_dataset(store: str | Store = "memory") -> Dataset:
    """An empty Dataset whose queries see the union of all graphs.

    ``store`` is ``"memory"``, ``"oxigraph"`` (needs oxrdflib), any rdflib
    store plugin name, or a store instance.  The project's prefixes are bound,
    ``dc:`` to DCMI terms as the loader writes them (rdflib's own default binds
    ``dc:`` to the older elements namespace, which would make
    ``dataset.query("... dc:title ...")`` silently find nothing).
    """
    dataset = Dataset(store=STORES.get(store.lower(), store) if isinstance(store, str) else store, default_union=True)
    bind_prefixes(dataset)
    return dataset


def load_bundle(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: Engine = "fast",
    store: str | Store = "memory",
    progress: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
    cache: bool | str | Path | None = None,
    workers: int | None = None,
) -> Bundle:
    """Load a MIF bundle folder into an rdflib Dataset.

    ``engine="fast"`` walks the precompiled context; ``engine="pyld"`` runs
    pyld's JSON-LD toRdf on every memory (the reference, about 3x slower).
    ``store`` is ``"memory"`` (default) or ``"oxigraph"`` (with oxrdflib
    installed), as on the command line, or any rdflib store name or instance.
    ``limits`` bounds file size, YAML expansion and depth, and the number of
    memories (:class:`~mif_rdf.core.limits.Limits`).  ``cache`` keeps the load for the next one (:mod:`mif_rdf.load.cache`): ``True`` in the
    user cache folder, or a folder; only changed files are read again.
    ``workers`` is the number of worker processes that prepare memories (0:
    none; default: as many as there are idle cores, for 1,000 files or more);
    they change the speed of a load, never its result.
    Problems with single files never raise: they are in ``bundle.problems``.
    Raises :class:`MifRdfError` only when the folder itself cannot be read.
    """
    if cache is not None and cache is not False:
        from mif_rdf.load.cache import default_cache_dir, load_cached  # the cache is built on this module

        folder = default_cache_dir() if cache is True else Path(cache)  # type: ignore[arg-type]
        root, base = _located(root, base_iri, engine)
        bundle = load_cached(root, base, engine=engine, store=store, limits=limits, cache_dir=folder, progress=progress, workers=workers)
        bundle.refresh_namespace_graphs()  # the cache does not watch .mif/shared-agreements and .mif/namespaces
        return bundle
    return fill(open_bundle(root, base_iri=base_iri, engine=engine, store=store, limits=limits), progress, workers)


def open_bundle(
    root: str | Path, *, base_iri: str | None = None, engine: Engine = "fast", store: str | Store = "memory", limits: Limits = DEFAULT_LIMITS,
) -> Bundle:
    """An empty :class:`Bundle` for the folder ``root``, its arguments checked: what :func:`fill` reads the files into.

    The streaming export (:mod:`mif_rdf.output.stream_export`) starts from it too, so
    both read the same folder under the same base IRI and report the same
    problems for the same arguments.
    """
    root, base = _located(root, base_iri, engine)
    return Bundle(root=root, base_iri=base, dataset=new_dataset(store), engine=engine, limits=limits)


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
    return root, normalize_base_iri(base_iri) if base_iri else default_base_iri(root)


def fill(bundle: Bundle, progress: bool | None = None, workers: int | None = None) -> Bundle:
    """Read every file of ``bundle.root`` into the (empty) bundle and return it."""
    with no_cyclic_gc():
        _fill(bundle, progress, workers)
    return bundle


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk load (or while query rows are built).

    A load allocates millions of long-lived objects (terms, index entries) and
    creates no garbage cycles; with the collector on, each full collection
    walks all of them again, which made loads of 10,000 memories 1.5-2x slower.
    Rows of a large query result make no cycles either, but a hundred
    thousand of them set off full collections over the whole loaded bundle.

    On the way out, what the work made goes straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()`` moves every object
    there without looking at it), where it would end up anyway after two
    collections; otherwise the first young-generation collection walks all of
    it: about a second after a 10,000-memory load.  Skipped when the program
    keeps frozen objects of its own, which ``unfreeze`` would release.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def memory_files(bundle: Bundle) -> BundleFiles:
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
            bundle.problems.add(files.config, why, Severity.WARNING, key=BUNDLE_ID_KEY, value=bundle.config[BUNDLE_ID_KEY], rule="config")
    memories = files.memories
    if not memories:
        bundle.problems.add(".", "no memory files found: a memory is a .md file with YAML frontmatter, or its .jsonld form (index and log are reserved names)",
                            Severity.WARNING, rule="empty")
    if len(memories) > bundle.limits.max_memories:
        bundle.problems.add(
            ".", f"{len(memories):,} memory files, over the limit of {bundle.limits.max_memories:,} (--max-memories); "
            f"files after {memories[bundle.limits.max_memories - 1]} (in path order) are not loaded", rule="limit")
        files.memories = memories[: bundle.limits.max_memories]
    return files


def check_projections(bundle: Bundle, projections: list[str]) -> None:
    """A "stale projection" warning for each ``.jsonld`` beside a loaded ``.md`` that no longer projects it."""
    if not projections:
        return
    by_path = {m.relpath: Authored(m.frontmatter, m.body, m.doc_iri) for m in bundle.memories.values()}
    bundle.problems.extend(projection_problems(bundle.root, projections, by_path.get, bundle.limits))


def _fill(bundle: Bundle, progress: bool | None, workers: int | None) -> None:
    files = memory_files(bundle)
    memories = files.memories
    loader = _Loader(bundle)
    workers = worker_count(len(memories), workers, busy_main=loader.sink is None)
    prepared = prepare_memories(bundle.root, memories, bundle.base_iri, bundle.limits, bundle.engine, workers, loader.output)
    for memory in progress_bar(prepared, len(memories), progress, "memories"):
        loader.accept(memory)
    check_projections(bundle, files.projections)
    for relpath in files.entities:
        loader.entity(relpath)
    loader.links()
    loader.flush()
    bundle.refresh_namespace_graphs()
