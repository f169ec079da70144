"""RDF -> frontmatter and body: the reverse of projection + toRdf.

When the layout graph's template for the memory (:mod:`mif_rdf.rdf.layout`)
still projects to exactly the memory's graph, the frontmatter is that
template: the author's keys, order, ``null`` values and lexical forms.

Otherwise (no layout, or a graph changed since it was loaded) the memory's
named graph is read back with the same precompiled context (term IRIs,
coercions, containers) the forward path used.  That result equals the
original frontmatter up to what JSON-LD itself does not keep
(docs/decisions.md): the order of lists, ``null``, a single value versus a
one-element list, the provider names of ``extensions``, ``id``/``@id`` and
``type``/``@type`` spellings in nested objects, ``"x"`` versus ``{"@id": "x"}``
for IRI-valued keys, and different spellings of the same IRI.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD

from mif_rdf.core.context import MIF_NS, ActiveContext, Term, mif_context
from mif_rdf.core.errors import Problem, Severity
from mif_rdf.rdf.layout import template_fits
from mif_rdf.source.identity import id_from_memory_iri, relativize, target_spelling
from mif_rdf.source.yamlio import TIMESTAMP_RE, YamlTimestamp

_RDF_JSON = URIRef(str(RDF) + "JSON")
_MIF_CONCEPT = URIRef(MIF_NS + "Concept")
_CONTENT = URIRef(MIF_NS + "content")
_CONCEPT_TYPE = URIRef(MIF_NS + "conceptType")
#: Frontmatter key order the reverse path writes (spec Appendix A); other keys follow, sorted.
KEY_ORDER = (
    "id",
    "type",
    "created",
    "modified",
    "ontology",
    "namespace",
    "title",
    "tags",
    "aliases",
    "summary",
    "compressed_at",
    "entity",
    "entities",
    "relationships",
    "temporal",
    "provenance",
    "embedding",
    "citations",
    "documents",
    "properties",
    "extensions",
)
#: Keys whose node references are written ``{"@id": ...}`` rather than as a plain string.
_OBJECT_REFERENCES = frozenset({"entity", "wasGeneratedBy", "wasAttributedTo", "wasDerivedFrom", "wasAssociatedWith"})
#: Keys whose nested node id is spelled ``id`` (OntologyReference, DocumentReference).
_PLAIN_ID_PARENTS = frozenset({"ontology", "documents"})
_NUMERIC = {str(XSD.integer), str(XSD.decimal), str(XSD.double), str(XSD.float), str(XSD.int), str(XSD.long)}


@dataclass
class RecoveredMemory:
    frontmatter: dict[str, Any]
    body: str
    problems: list[Problem] = field(default_factory=list)


class GraphReader:
    """Reads nodes of one memory graph back into frontmatter values."""

    def __init__(self, graph: Graph, doc_iri: str, base: str, path: str) -> None:
        self.graph, self.doc_iri, self.base, self.path = graph, doc_iri, base, path
        self.problems: list[Problem] = []
        self.visiting: set[Any] = set()

    # -- nodes ------------------------------------------------------------------
    def properties(
        self, subject: Any, ctx: ActiveContext, parent_key: str | None, skip: frozenset[Any] = frozenset()
    ) -> dict[str, Any]:
        """The JSON object of one node: its ``@id`` (when named), ``@type`` and properties."""
        out: dict[str, Any] = {}
        if isinstance(subject, URIRef) and parent_key is not None:
            out["id" if parent_key in _PLAIN_ID_PARENTS else "@id"] = relativize(str(subject), self.doc_iri)
        grouped: dict[Any, list[Any]] = {}
        for predicate, obj in self.graph.predicate_objects(subject):
            if predicate not in skip:
                grouped.setdefault(predicate, []).append(obj)
        types = grouped.pop(RDF.type, [])
        if types:
            names = sorted(ctx.compact_iri(str(t)) for t in types)
            out["@type"] = names[0] if len(names) == 1 else names
        for predicate in sorted(grouped, key=str):
            key = ctx.compact_iri(str(predicate))
            _, term = ctx.expand_key(key)
            out[key] = self.key_value(key, term, ctx.child(term), grouped[predicate])
        return out

    def key_value(self, key: str, term: Term | None, ctx: ActiveContext, objects: list[Any]) -> Any:
        if term is not None and term.container == "@index":  # JSON-LD keeps an index map's values, not its keys
            self.problems.append(
                Problem(
                    self.path,
                    f"the graph does not hold the index keys of {key!r} (provider names); its values are written as "
                    "a list",
                    Severity.INFO,
                    key=key,
                    rule="layout",
                )
            )
            return sorted((self.value(o, key, term, ctx) for o in objects), key=_sort_key)
        if term is not None and term.container == "@set":
            return sorted((self.value(o, key, term, ctx) for o in objects), key=_sort_key)
        values = [self.value(o, key, term, ctx) for o in objects]
        if len(values) == 1:
            return values[0]
        return sorted(values, key=_sort_key)

    def value(self, obj: Any, key: str, term: Term | None, ctx: ActiveContext) -> Any:
        coerce = term.coerce if term else None
        if isinstance(obj, Literal):
            return literal_value(obj)
        if obj == RDF.nil:
            return []
        if (obj, RDF.first, None) in self.graph:
            return [self.value(item, key, term, ctx) for item in self.graph.items(obj)]
        if coerce == "@vocab" and isinstance(obj, URIRef) and not self.has_properties(obj):
            return ctx.compact_iri(str(obj))
        if isinstance(obj, URIRef) and not self.has_properties(obj):
            if key == "target":
                return target_spelling(str(obj), self.base)
            iri = relativize(str(obj), self.doc_iri)
            if coerce == "@id" and key not in _OBJECT_REFERENCES:
                return iri
            return {"id" if key in _PLAIN_ID_PARENTS else "@id": iri}
        if obj in self.visiting:
            self.problems.append(
                Problem(self.path, f"cycle through node {obj} under {key!r}; cut", Severity.WARNING, key=key)
            )
            return None
        self.visiting.add(obj)
        try:
            if key == "relationships":
                return self.relationship(obj, ctx)
            return self.properties(obj, ctx, key)
        finally:
            self.visiting.discard(obj)

    def has_properties(self, node: Any) -> bool:
        return (node, None, None) in self.graph

    # -- MIF shapes -----------------------------------------------------------------
    def relationship(self, node: Any, ctx: ActiveContext) -> dict[str, Any]:
        return _ordered(self.properties(node, ctx, "relationships"), ("type", "target", "strength", "metadata"))


def literal_value(lit: Literal) -> Any:
    """The YAML value an RDF literal came from."""
    lexical, datatype = str(lit), str(lit.datatype) if lit.datatype else None
    if datatype == str(_RDF_JSON):
        return json.loads(lexical)
    if datatype == str(XSD.boolean):
        return lexical.strip() in ("true", "1")
    if datatype in _NUMERIC:
        try:
            if datatype == str(XSD.double) or datatype == str(XSD.float):
                if lexical in ("INF", "-INF", "NaN"):
                    return {"INF": math.inf, "-INF": -math.inf, "NaN": math.nan}[lexical]
                return float(lexical)
            if datatype == str(XSD.decimal) and any(c in lexical for c in ".eE"):
                return float(lexical)
            return int(lexical)
        except ValueError:
            return lexical
    if datatype in (str(XSD.dateTime), str(XSD.date)) and TIMESTAMP_RE.match(lexical):
        return YamlTimestamp(lexical)
    return lexical


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _ordered(data: dict[str, Any], first: tuple[str, ...]) -> dict[str, Any]:
    head = {k: data[k] for k in first if k in data}
    head.update({k: v for k, v in data.items() if k not in head})
    return head


def drop_mirrors(frontmatter: dict[str, Any]) -> dict[str, Any]:
    """Remove the projection's ``timestamp``/``description`` mirrors (spec 15.1) where they equal what they mirror."""
    if "timestamp" in frontmatter and frontmatter["timestamp"] == (
        frontmatter.get("modified") or frontmatter.get("created")
    ):
        del frontmatter["timestamp"]
    if "description" in frontmatter and frontmatter["description"] == frontmatter.get("summary"):
        del frontmatter["description"]
    return frontmatter


def recover_memory(
    graph: Graph, memory: str, *, doc_iri: str, base: str, path: str = "", template: dict[str, Any] | None = None
) -> RecoveredMemory:
    """Frontmatter and body of the memory ``memory`` (its IRI) from its graph.

    ``template`` is the authored frontmatter the layout graph kept
    (:func:`mif_rdf.rdf.layout.authored_frontmatter`): it is the answer when it
    still gives exactly this graph, and lends its key order otherwise.
    """
    content = graph.value(URIRef(memory), _CONTENT)
    body = "" if content is None else str(content)
    if template is not None and template_fits(template, body, graph, doc_iri=doc_iri):
        return RecoveredMemory(template, body)
    recovered = _read_graph(graph, memory, doc_iri=doc_iri, base=base, path=path)
    if template is not None:
        recovered.frontmatter = _ordered(recovered.frontmatter, tuple(template))
        recovered.problems.append(
            Problem(
                path or memory,
                "the graph differs from the loaded file: frontmatter read from RDF, without the author's list order, "
                "nulls and spellings",
                Severity.INFO,
                rule="layout",
            )
        )
    return recovered


def _read_graph(graph: Graph, memory: str, *, doc_iri: str, base: str, path: str) -> RecoveredMemory:
    """The frontmatter the graph itself says, in the spec's key order."""
    ctx = mif_context()
    reader = GraphReader(graph, doc_iri, base, path or memory)
    node = URIRef(memory)
    data = reader.properties(node, ctx, None, skip=frozenset({_CONTENT, _CONCEPT_TYPE}))
    types = data.pop("@type", None)
    if types is not None:
        extra = [t for t in (types if isinstance(types, list) else [types]) if t != "Concept"]
        if extra:
            data["@type"] = extra[0] if len(extra) == 1 else extra
    frontmatter: dict[str, Any] = {"id": id_from_memory_iri(memory)}
    concept_type = graph.value(node, _CONCEPT_TYPE)
    if concept_type is not None:
        frontmatter["type"] = (
            ctx.compact_iri(str(concept_type)) if isinstance(concept_type, URIRef) else str(concept_type)
        )
    frontmatter.update(data)
    drop_mirrors(frontmatter)
    content = graph.value(node, _CONTENT)
    if content is None:
        reader.problems.append(
            Problem(reader.path, "memory has no content literal; the body is empty", Severity.WARNING, key="content")
        )
    return RecoveredMemory(_ordered(frontmatter, KEY_ORDER), "" if content is None else str(content), reader.problems)
