"""Incremental updates: keep a loaded bundle equal to a fresh load of its files after some of them changed.

:func:`reload` re-reads changed, new or deleted files (the load cache and
``serve`` call it), :func:`relink` and :func:`rebuild_links` bring the links
and layout graphs up to date touching only what changed, :func:`forget`
drops one file's contribution, :func:`add_content_hashes` and
:func:`refresh_namespace_graphs` redo one kind of content for the whole bundle.
"""

from __future__ import annotations

from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import PATH, EntityRecord, LoadedBundle, MemoryRecord, target_keys
from mif_rdf.load.link_index import LinkIndex
from mif_rdf.load.stages import _Loader, check_projections
from mif_rdf.nsmodel import model_graphs, read_namespace_model
from mif_rdf.nsmodel.graphs import is_model_problem
from mif_rdf.rdf.jsonld_source import is_projection, pair_twins
from mif_rdf.rdf.layout import layout_triples
from mif_rdf.source.bundle_files import is_entity_path, loadable
from mif_rdf.source.integrity import with_hash
from mif_rdf.source.parse import ParsedMemory


def reload(bundle: LoadedBundle, *relpaths: str, index: LinkIndex | None = None) -> set[str]:
    """Re-read changed, new or deleted memory and entity files; only their graphs are replaced.

    The links and layout graphs change only where the files touch them
    (:func:`relink`, with ``index`` when the caller keeps one across edits);
    returns the links-graph subjects whose triples were written again.
    """
    relpaths = tuple(
        dict.fromkeys([*relpaths, *pair_twins(bundle.root, relpaths)])
    )  # which of a .md/.jsonld pair loads depends on both
    changed = set(relpaths)
    old_keys, old_subjects = _keys_of(bundle, changed)
    records: list[MemoryRecord | EntityRecord] = [*bundle.memories.values(), *bundle.entities.values()]
    by_path = {r.relpath: r for r in records if r.relpath in changed}  # one pass over the records, not one per file
    for relpath in relpaths:
        forget(bundle, relpath, by_path.get(relpath))
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
    subjects = relink(bundle, changed, old_keys | new_keys, old_subjects | new_subjects, index)
    refresh_namespace_graphs(bundle)
    return subjects


def _keys_of(bundle: LoadedBundle, relpaths: set[str]) -> tuple[set[str], set[str]]:
    """The target IRIs the files at ``relpaths`` answer to (document, memory,
    entity IRIs) and their links-graph subjects."""
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


def relink(
    bundle: LoadedBundle, relpaths: set[str], keys: set[str], subjects: set[str], index: LinkIndex | None = None
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

    The memories linking to ``keys`` come from ``index`` (a
    :class:`~mif_rdf.load.link_index.LinkIndex` the caller keeps across edits,
    so an edit reads only the relationships of the records that changed);
    without one, every memory's relationships are read.
    """
    layout = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
    for subject in subjects:
        layout.remove((URIRef(subject), None, None))
    index = index or LinkIndex()
    linking = index.sources(bundle, keys)
    sources = [m for m in bundle.memories.values() if m.relpath in relpaths or m.id in linking]
    resolved_again = {m.relpath for m in sources}
    bundle.problems.items = [p for p in bundle.problems if not (p.rule == "link" and p.path in resolved_again)]
    graph = bundle.links
    subjects = subjects | {m.iri for m in sources}
    for subject in subjects:
        graph.remove((URIRef(subject), None, None))
    loader = _Loader(bundle)
    targets = index.targets(
        bundle, {key for m in sources for _, _, key in target_keys(m.frontmatter, m.doc_iri, bundle.base_iri)}
    )
    triples = [t for m in sources for t in loader.source_triples(m, targets)]
    triples += [(URIRef(e.iri), PATH, Literal(e.relpath)) for e in bundle.entities.values() if e.relpath in relpaths]
    loader.add_graph(bundle.links_graph_iri, triples)
    loader.add_graph(
        bundle.layout_graph_iri, layout_triples(m for m in bundle.memories.values() if m.relpath in relpaths)
    )
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
