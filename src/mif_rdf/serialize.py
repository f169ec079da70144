"""Serializers: Turtle, N-Triples, N-Quads, TriG and JSON-LD.

Turtle and N-Triples hold one graph, so they get the union of all graphs;
N-Quads and TriG keep every named graph.  JSON-LD is written compacted with
the MIF context so that it reads like MIF: each memory's named graph holds
its projection document as the reverse path recovers it from the graph
(``{"@id": <graph>, "@graph": [...]}``), entity graphs their documents, and
every other graph (links, layout, ontology, inferences) is written as plain
node objects.
"""
from __future__ import annotations

import json
from typing import IO, Any, Iterable

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from .bundle import Bundle
from .context import projection_context
from .errors import MifRdfError
from .namespaces import bind_prefixes
from .projection import project_memory
from .layout import authored_frontmatter
from .reverse import recover_memory

#: CLI format names -> rdflib serializer names.
FORMATS = {"turtle": "turtle", "nt": "nt", "nquads": "nquads", "trig": "trig", "json-ld": "json-ld"}
EXTENSIONS = {"turtle": ".ttl", "nt": ".nt", "nquads": ".nq", "trig": ".trig", "json-ld": ".jsonld"}
QUAD_FORMATS = frozenset({"nquads", "trig", "json-ld"})


def serialize_bundle(bundle: Bundle, fmt: str, out: IO[bytes]) -> None:
    """Write the bundle's dataset to a binary stream in one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise MifRdfError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json-ld":
        out.write(json.dumps(bundle_jsonld(bundle), indent=2, ensure_ascii=False).encode("utf-8"))
        out.write(b"\n")
        return
    if fmt == "nquads":
        write_nquads(bundle.dataset, out)
        return
    if fmt in QUAD_FORMATS:
        bind_prefixes(bundle.dataset)
        bundle.dataset.serialize(out, format=FORMATS[fmt], encoding="utf-8")
        return
    union = Graph()
    bind_prefixes(union)
    for triple in bundle.dataset.triples((None, None, None)):
        union.add(triple)
    union.serialize(out, format=FORMATS[fmt], encoding="utf-8")


def write_nquads(dataset: Dataset, out: IO[bytes]) -> None:
    """Stream N-Quads quad by quad: no second copy of the dataset is built."""
    write_quads(dataset.quads((None, None, None, None)), out)


def write_quads(quads: Iterable[tuple[Any, Any, Any, Any]], out: IO[bytes]) -> None:
    """Stream any quads (a filtered view of a dataset, say) as N-Quads, one line at a time."""
    for s, p, o, g in quads:
        out.write(nquad_line(s, p, o, g).encode("utf-8"))


def nquad_line(s: Any, p: Any, o: Any, graph: Any = None) -> str:
    """One N-Quads line; without a graph (or for the default graph) an N-Triples line."""
    graph = getattr(graph, "identifier", graph)
    parts = [s.n3(), p.n3(), nt_term(o)]
    if graph is not None and graph != DATASET_DEFAULT_GRAPH_ID:
        parts.append(graph.n3())
    return " ".join(parts) + " .\n"


_NT_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def nt_term(term: Any) -> str:
    """N-Triples form of a term (rdflib's ``n3()`` may use Turtle's long strings)."""
    if not isinstance(term, Literal):
        return term.n3()
    text = '"' + str(term).translate(_NT_ESCAPES) + '"'
    if term.language:
        return f"{text}@{term.language}"
    return f"{text}^^<{term.datatype}>" if term.datatype else text


def bundle_jsonld(bundle: Bundle) -> dict[str, Any]:
    """The whole bundle as one JSON-LD document, compact and MIF-shaped."""
    graphs: list[dict[str, Any]] = []
    base = bundle.base_iri
    layout = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        recovered = recover_memory(bundle.graph(record.id), record.iri, doc_iri=record.doc_iri, base=base, path=record.relpath,
                                   template=authored_frontmatter(layout, record.iri))
        document = project_memory(recovered.frontmatter, recovered.body, path=record.relpath, doc_iri=record.doc_iri).document
        graphs.append({"@id": record.iri, "@graph": [_embed(document, record.doc_iri)]})
    for entity in sorted(bundle.entities.values(), key=lambda e: e.relpath):
        graphs.append({"@id": entity.iri, "@graph": [_embed(entity.document, entity.doc_iri)]})
    documents = {record.iri for record in bundle.memories.values()} | set(bundle.entities)
    others = sorted(str(g.identifier) for g in bundle.dataset.graphs() if len(g) and str(g.identifier) not in documents)
    for name in others:
        if URIRef(name) == DATASET_DEFAULT_GRAPH_ID:
            graphs.extend(node_objects(bundle.dataset.graph(DATASET_DEFAULT_GRAPH_ID)))
        else:
            graphs.append({"@id": name, "@graph": node_objects(bundle.dataset.graph(URIRef(name)))})
    return {"@context": projection_context(), "@graph": graphs}


def _embed(document: dict[str, Any], doc_iri: str) -> dict[str, Any]:
    """A projection document nested in a larger one: its own base, the shared context."""
    body = {k: v for k, v in document.items() if k != "@context"}
    return {"@context": {"@base": doc_iri}, **body}


def node_objects(graph: Iterable[tuple[Any, Any, Any]]) -> list[dict[str, Any]]:
    """Expanded JSON-LD node objects for arbitrary triples (full IRIs, typed values)."""
    nodes: dict[Any, dict[str, Any]] = {}
    for s, p, o in sorted(graph, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
        node = nodes.setdefault(s, {"@id": _node_id(s)})
        node.setdefault(str(p), []).append(_expanded_object(o))
    return list(nodes.values())


def _node_id(term: Any) -> str:
    return f"_:{term}" if isinstance(term, BNode) else str(term)


def _expanded_object(term: Any) -> dict[str, Any]:
    if isinstance(term, Literal):
        value: dict[str, Any] = {"@value": str(term)}
        if term.language:
            value["@language"] = term.language
        elif term.datatype:
            value["@type"] = str(term.datatype)
        return value
    return {"@id": _node_id(term)}
