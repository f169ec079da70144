"""The loader's stage object: it adds prepared memories, entities and graphs to a bundle and says what it refused.

:class:`_Loader` is shared by the full load (:mod:`mif_rdf.load.loader`) and
the incremental updates (:mod:`mif_rdf.load.incremental`), so a file read
again lands exactly as a fresh load puts it; the streamed export
(:mod:`mif_rdf.output.stream_export`) uses its per-file steps
(:func:`read_entity`, :func:`entity_projection`, the duplicate problems).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

from rdflib import Literal, URIRef

from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import PATH, EntityRecord, LoadedBundle, MemoryRecord, target_keys
from mif_rdf.load.links import (
    broken_link,
    expects_bundle_target,
    link_predicate,
    place_nquads,
    place_triples,
    predicate_nquads,
)
from mif_rdf.load.pipeline import PreparedMemory, TriplesAs, complete, prepare_memory, triples
from mif_rdf.load.stores import sink_for
from mif_rdf.nsmodel.config import authority_of
from mif_rdf.nsmodel.graphs import namespace_uri
from mif_rdf.rdf.jsonld_source import Authored, is_jsonld_path, projection_problems
from mif_rdf.rdf.layout import layout_nquads, layout_triples
from mif_rdf.rdf.projection import Projection, project_entity
from mif_rdf.rdf.tordf import nt_string
from mif_rdf.source.identity import MEMORY_PREFIX, document_iri, memory_iri
from mif_rdf.source.parse import ParsedEntity, ParsedMemory, parse_entity

#: A memory's links, each resolved: (index in its relationships, type, target as written, target's IRI).
ResolvedLinks = list[tuple[int, str, str, str]]


#: What a worker sends for one memory of a fresh Oxigraph load (:class:`SharedLines`), in plain types:
#: (path, problems of reading it, frontmatter, body, document IRI, notes, projection document or None,
#: ill-typed warnings or None, its N-Quads text followed by its layout and place lines, its resolved links).
#: The text is UTF-8 bytes, ready for Oxigraph (a str only when it cannot be encoded: a lone surrogate, which the
#: store refuses by name).  The main process, which also parses every quad, takes one per memory: with the
#: two dataclasses of a prepared memory and the text as strings it spent 21-23 us a memory unpickling, joining and
#: encoding them, with this 11-12 us (docs/performance.md, session 16).
PackedMemory = tuple[
    str,
    list[Problem],
    dict[str, Any],
    str,
    str,
    list[Problem],
    dict[str, Any] | None,
    list[Problem] | None,
    bytes | str,
    ResolvedLinks,
]


def resolved_links(frontmatter: Mapping[str, Any], doc_iri: str, base: str) -> ResolvedLinks:
    """:func:`target_keys` of a memory, as the plain tuples a worker sends."""
    return [(index, rel["type"], rel["target"], key) for index, rel, key in target_keys(frontmatter, doc_iri, base)]


class _Loader:
    """Fills a :class:`~mif_rdf.load.bundle.LoadedBundle` stage by stage.

    ``fresh``: a whole load into an empty bundle, which ends with :meth:`links`.  On Oxigraph each memory's
    layout line and its place in the links graph then come as text with the memory's own (made by its worker:
    :class:`SharedLines`) and are stored with it or not at all, so that after the last memory only the edges
    are left: what runs after the last memory runs on one core.
    """

    def __init__(self, bundle: LoadedBundle, *, fresh: bool = False) -> None:
        self.bundle = bundle
        self.ds = bundle.dataset
        self.authority = authority_of(bundle.config)  # of namespace URIs (spec 10.6)
        self.sink = sink_for(bundle.dataset, self.refused)  # bulk loading on Oxigraph; call flush() when done
        #: Oxigraph takes memories as N-Quads text (parsed in Rust); other stores take rdflib triples.
        self.output: TriplesAs = "nquads" if self.sink is not None else "rdflib"
        self._locations: dict[str, str] | None = None
        #: the memories whose layout and place lines went with their text (a fresh load on Oxigraph)
        self.placed: set[str] | None = set() if fresh and self.sink is not None else None
        if self.placed is not None and self.sink is not None:
            self.sink.shared_graphs = (bundle.links_graph_iri, bundle.layout_graph_iri)
        #: each memory's links with their targets resolved, when its worker sent them (:data:`PackedMemory`)
        self.resolved: dict[str, ResolvedLinks] = {}

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

    def arrive(self, item: PreparedMemory | PackedMemory) -> None:
        """Add what :func:`~mif_rdf.load.pipeline.prepare_memories` gave for one memory file (its shape is
        :meth:`shape`'s)."""
        if isinstance(item, PreparedMemory):
            self.accept(item)
        else:
            self.take(item)

    def accept(self, prepared: PreparedMemory) -> None:
        """Add one prepared memory, unless its file cannot be loaded or its id or location is taken."""
        self.bundle.problems.extend(prepared.problems)
        parsed = prepared.parsed
        if parsed is None:
            return
        record = MemoryRecord(
            parsed.id,
            parsed.relpath,
            prepared.doc_iri,
            parsed.frontmatter,
            parsed.body,
            prepared.document,
            kept_ill_typed(prepared),
        )
        if not self.admitted(record, prepared.notes):
            return
        if prepared.nquads and self.sink is not None:
            if self.placed is None:
                self.sink.add_text(record.iri, prepared.nquads)
            else:
                self.sink.add_text(record.iri, prepared.nquads + self.shared_lines(record))
                self.placed.add(record.id)
        else:
            self.add_graph(record.iri, prepared.triples)

    def take(self, packed: PackedMemory) -> None:
        """Add one memory a worker packed (:class:`SharedLines`), as :meth:`accept` adds a prepared one."""
        relpath, problems, frontmatter, body, doc_iri, notes, document, ill_typed, text, links = packed
        self.bundle.problems.extend(problems)
        record = MemoryRecord(str(frontmatter["id"]), relpath, doc_iri, frontmatter, body, document, ill_typed)
        if not self.admitted(record, notes):
            return
        assert self.sink is not None and self.placed is not None  # a worker packs only for a fresh Oxigraph load
        self.sink.add_text(record.iri, text)
        self.placed.add(record.id)
        self.resolved[record.id] = links

    def admitted(self, record: MemoryRecord, notes: list[Problem]) -> bool:
        """Keep ``record`` (and its ``notes``) unless an earlier file has its id or location (then say so)."""
        clash = self.bundle.memories.get(record.id) or self.bundle.entities.get(record.iri)
        if clash is not None:
            self.bundle.problems.items.append(duplicate_id(record.relpath, record.id, clash.relpath))
            return False
        same_place = self.locations().get(record.doc_iri)
        if same_place is not None:
            self.bundle.problems.items.append(duplicate_location(record.relpath, record.doc_iri, same_place))
            return False
        self.bundle.problems.extend(notes)
        self.bundle.memories[record.id] = record
        self.locations()[record.doc_iri] = record.relpath
        return True

    def refused(self, graph: str, message: str) -> None:
        """A memory graph the store would not take: report its file and take back its record."""
        record = next((m for m in self.bundle.memories.values() if m.iri == graph), None)
        if record is None:  # pragma: no cover - the sink queues only memory graphs as text
            raise MifRdfError(f"the store refused the graph <{graph}> ({message})")
        del self.bundle.memories[record.id]
        self.bundle.problems.add(record.relpath, refusal(message), rule="store")

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
        if self.placed is None or self.sink is None:
            self.add_graph(self.bundle.links_graph_iri, self.link_triples())
            self.add_graph(self.bundle.layout_graph_iri, layout_triples(self.bundle.memories.values()))
            return
        self.sink.flush_text(wait=False)  # the last memories' text is parsed while their edges are made
        placed = self.placed
        while True:  # again only if the store refused one of those memories: the edges were made with it in
            broken: list[Problem] = []
            unplaced = (self.shared_lines(m) for m in self.bundle.memories.values() if m.id not in placed)
            # the pyld engine's memories came as triples, without their shared lines
            if self.sink.load_pieces(chain(unplaced, self.link_nquads(broken))):
                break
        self.bundle.problems.items.extend(broken)

    @functools.cached_property
    def shared(self) -> SharedLines:
        """What makes each memory's lines of the layout and links graphs (in a worker, :func:`prepare_memories`);
        made once, as the memories ask for it one by one."""
        bundle = self.bundle
        return SharedLines(self.authority, bundle.links_graph_iri, bundle.layout_graph_iri, bundle.base_iri)

    def shape(self) -> Callable[[PreparedMemory], PreparedMemory | PackedMemory]:
        """What a worker makes of each prepared memory for this loader (the ``shape`` of :func:`prepare_memories`):
        a fresh load on Oxigraph takes them packed with their shared lines (:class:`SharedLines`), others as they
        are."""
        return alone if self.placed is None else self.shared

    def shared_lines(self, record: MemoryRecord) -> str:
        """A memory's layout line and its place in the links graph, as N-Quads text."""
        return self.shared.lines(record.iri, record.relpath, record.doc_iri, record.frontmatter)

    def link_nquads(self, broken: list[Problem]) -> Iterator[str]:
        """The rest of :meth:`link_triples` once every memory's place is stored, as N-Quads text a piece at a time
        (the store parses one batch while the next is made): the entities' paths, then each memory's edges; the
        broken links go to ``broken``."""
        bundle = self.bundle
        tail = f" <{bundle.links_graph_iri}> .\n"
        yield "".join(
            f"<{entity.iri}> <{PATH}> {nt_string(entity.relpath)}{tail}" for entity in bundle.entities.values()
        )
        targets = bundle.targets()
        for record in bundle.memories.values():
            subject = f"<{record.iri}> "
            yield "".join(
                [f"{subject}{predicate_nquads(kind)} <{to}>{tail}" for kind, to in self.edges(record, targets, broken)]
            )

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
        source = URIRef(record.iri)
        for kind, target in self.edges(record, targets, self.bundle.problems.items):
            yield source, link_predicate(kind), URIRef(target)  # type: ignore[misc]  # edges() gives only IRI types

    def edges(
        self, record: MemoryRecord, targets: Mapping[str, str], broken: list[Problem]
    ) -> Iterator[tuple[str, str]]:
        """(relationship type, target IRI) of each of a memory's links that resolves, with a type that makes an IRI;
        a broken link is added to ``broken``."""
        links = self.resolved.get(record.id)
        if links is None:
            links = resolved_links(record.frontmatter, record.doc_iri, self.bundle.base_iri)  # links_of's
        for index, kind, target, key in links:
            resolved = targets.get(key)
            if resolved is not None:
                if link_predicate(kind) is not None:
                    yield kind, resolved
            elif expects_bundle_target(target):
                broken.append(broken_link(record.relpath, index, target))


@dataclass(frozen=True)
class SharedLines:
    """Makes a memory's layout line and its place in the links graph (:func:`layout_triples`, :func:`place_triples`)
    as N-Quads text.  A fresh Oxigraph load has its workers make them beside the memory's own text (as the shape of
    :func:`prepare_memories`), because the main process, which parses every quad, is the busiest of the three."""

    authority: str
    links: str
    layout: str
    base: str

    def __call__(self, prepared: PreparedMemory) -> PreparedMemory | PackedMemory:
        parsed = prepared.parsed
        if parsed is None or not prepared.nquads:
            return prepared
        iri = memory_iri(parsed.id)
        text = prepared.nquads + self.lines(iri, parsed.relpath, prepared.doc_iri, parsed.frontmatter)
        try:
            encoded: bytes | str = text.encode("utf-8")  # here, not in the main process, which parses every quad
        except UnicodeError:  # a lone surrogate: the store refuses this memory by name when it comes to it
            encoded = text
        return (
            parsed.relpath,
            prepared.problems,
            parsed.frontmatter,
            parsed.body,
            prepared.doc_iri,
            prepared.notes,
            prepared.document,
            kept_ill_typed(prepared),
            encoded,
            resolved_links(parsed.frontmatter, prepared.doc_iri, self.base),
        )

    def lines(self, iri: str, relpath: str, doc_iri: str, frontmatter: dict[str, Any]) -> str:
        uri = namespace_uri(self.authority, frontmatter.get("namespace"), iri[len(MEMORY_PREFIX) :])
        return layout_nquads(iri, frontmatter, self.layout) + place_nquads(iri, relpath, doc_iri, uri, self.links)


def kept_ill_typed(prepared: PreparedMemory) -> list[Problem] | None:
    """The ill-typed warnings a memory's record keeps (:attr:`MemoryRecord.ill_typed`): none for a ``.jsonld``
    memory, whose warnings name JSON pointers into its file rather than frontmatter keys."""
    return None if is_jsonld_path(prepared.relpath) else prepared.ill_typed


def alone(prepared: PreparedMemory) -> PreparedMemory:
    """What a worker sends for any other load: the prepared memory as it is."""
    return prepared


def refusal(message: str) -> str:
    """The problem's text for a memory the store will not hold (Oxigraph's words in ``message``)."""
    return f"the store refused this memory ({message}); this file is not loaded"


def read_entity(bundle: LoadedBundle, relpath: str, defined_by: Callable[[str], str | None]) -> ParsedEntity | None:
    """One entity file of ``.mif/entities``, unless it cannot be read or its IRI is taken
    (``defined_by`` names the file that has it)."""
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


def duplicate_id(relpath: str, memory_id: str, other: str) -> Problem:
    """The error for a memory whose id an earlier file (in path order) already has: the later file is not loaded."""
    return Problem(
        relpath,
        f"duplicate id {memory_id!r}: already used by {other} (the same graph <{memory_iri(memory_id)}>); this file "
        "is not loaded",
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


def check_projections(bundle: LoadedBundle, projections: list[str]) -> None:
    """A "stale projection" warning for each ``.jsonld`` beside a loaded ``.md`` that no longer projects it."""
    if not projections:
        return
    by_path = {m.relpath: Authored(m.frontmatter, m.body, m.doc_iri) for m in bundle.memories.values()}
    bundle.problems.extend(projection_problems(bundle.root, projections, by_path.get, bundle.limits))
