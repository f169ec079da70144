"""Where a SHACL focus node sits: which file, and which frontmatter key path.

pyshacl speaks in nodes (``_:b7 mif:model "cubic"``); people fix files
(``semantic/x.md  temporal.decay.model``).  The focus node is found in the
named graph of its memory, and the path from the memory node to it is spelled
with the same context the projection used, with list positions counted in the
frontmatter (``relationships[2].target``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF

from mif_rdf.core.context import ActiveContext, mif_context
from mif_rdf.load.bundle import LoadedBundle, MemoryRecord
from mif_rdf.load.stores import memory_copy
from mif_rdf.rdf.reverse import GraphReader, literal_value
from mif_rdf.rdf.roundtrip import canonical_frontmatter
from mif_rdf.source.identity import relativize, target_spelling


def owner(bundle: LoadedBundle, focus: Any) -> MemoryRecord | None:
    """The memory whose graph holds ``focus``."""
    if isinstance(focus, URIRef):
        record = bundle.memories.get(str(focus)[len("urn:mif:") :]) if str(focus).startswith("urn:mif:") else None
        if record is not None:
            return record
    for _, _, _, graph in bundle.dataset.quads((focus, None, None, None)):
        name = str(getattr(graph, "identifier", graph))
        if name.startswith("urn:mif:") and name[len("urn:mif:") :] in bundle.memories:
            return bundle.memories[name[len("urn:mif:") :]]
    return None


def key_path(bundle: LoadedBundle, record: MemoryRecord, focus: Any, predicate: Any) -> str:
    """``temporal.decay.model``-style path of ``predicate`` on ``focus`` in ``record``."""
    graph = bundle.graph(record.id)
    steps = _steps_to(graph, URIRef(record.iri), focus)
    ctx: ActiveContext = mif_context()
    parts: list[str] = []
    frontmatter: Any = record.frontmatter
    for pred, node in steps:
        key = ctx.compact_iri(str(pred))
        _, term = ctx.expand_key(key)
        child_ctx = ctx.child(term)
        value = frontmatter.get(key) if isinstance(frontmatter, dict) else None
        if isinstance(value, list) and term is not None and term.container == "@set":
            index = _index_of(bundle, record, graph, key, value, node, child_ctx) if not parts else None
            parts.append(f"{key}[{'' if index is None else index}]")
            frontmatter = value[index] if index is not None else None
        else:
            parts.append(key)
            frontmatter = value
        ctx = child_ctx
    if predicate is not None:
        if predicate == RDF.type:
            parts.append("@type")
        elif not parts and predicate == URIRef("https://mif-spec.dev/ns/conceptType"):
            parts.append("type")
        else:
            parts.append(ctx.compact_iri(str(predicate)))
    return ".".join(parts).replace(".[", "[")


def _steps_to(graph: Graph, start: URIRef, focus: Any) -> list[tuple[Any, Any]]:
    """The (predicate, node) hops from the memory node to ``focus`` (breadth first)."""
    if focus == start:
        return []
    parent: dict[Any, tuple[Any, Any]] = {}
    queue: deque[Any] = deque([start])
    seen: set[Any] = {start}
    while queue:
        node = queue.popleft()
        for pred, obj in graph.predicate_objects(node):
            if isinstance(obj, Literal) or obj in seen:
                continue
            seen.add(obj)
            parent[obj] = (node, pred)
            if obj == focus:
                steps = []
                while obj != start:
                    prev, via = parent[obj]
                    steps.append((via, obj))
                    obj = prev
                return [s for s in reversed(steps) if s[0] not in (RDF.first, RDF.rest)]
            if isinstance(obj, BNode):
                queue.append(obj)
    return []


def _index_of(
    bundle: LoadedBundle, record: MemoryRecord, graph: Graph, key: str, items: list[Any], node: Any, ctx: ActiveContext
) -> int | None:
    """Position in the frontmatter list of the item that became ``node``.

    The item is read back from the graph and compared with each one written:
    on Oxigraph from a copy with the literals as stored (oxrdflib's terms are
    normalized, and ``2026-03-09`` read back as ``2026-03-09T00:00:00`` would
    match no item).
    """
    reader = GraphReader(memory_copy(graph) or graph, record.doc_iri, bundle.base_iri, record.relpath)
    recovered = reader.relationship(node, ctx) if key == "relationships" else reader.properties(node, ctx, key)
    wanted = canonical_frontmatter({key: [recovered]}, doc_iri=record.doc_iri)
    for index, item in enumerate(items):
        if canonical_frontmatter({key: [item]}, doc_iri=record.doc_iri) == wanted:
            return index
    return None


def shown_value(bundle: LoadedBundle, record: MemoryRecord | None, value: Any, key: str) -> Any:
    """A result value as the author wrote it (``RelatesTo``, ``/x.md``, ``1.5``)."""
    if value is None:
        return None
    if isinstance(value, Literal):
        return literal_value(value)
    if isinstance(value, URIRef):
        if key.endswith("target"):
            return target_spelling(str(value), bundle.base_iri)
        compact = mif_context().compact_iri(str(value))
        if compact != str(value):
            return compact
        return relativize(str(value), record.doc_iri) if record else str(value)
    return str(value)
