"""Suggestions (spec 10.8.4): what a discovery pattern proposes for a memory, as a report, as text, JSON and RDF.

:func:`mif_rdf.ontology.suggester.suggest` makes the report;
:func:`add_suggestions` puts it into the bundle's ``<base>#suggestions`` graph.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from rdflib import Graph, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.namespace import RDF, XSD

from mif_rdf.core.errors import Problem
from mif_rdf.core.namespaces import MIF, bind_prefixes
from mif_rdf.ontology.discovery import Kind
from mif_rdf.ontology.iris import MIFO
from mif_rdf.source.identity import memory_iri

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle
    from mif_rdf.nsmodel.audience import Audience

GRAPH_SUGGESTIONS = "suggestions"


@dataclass(frozen=True)
class Suggestion:
    """A pattern matched a memory and names an entity type and/or namespaces the memory lacks.

    ``line``/``column`` (1-based, in characters) locate ``match`` in the memory
    file for a content pattern and in the path for a file pattern (``line`` is
    then None).
    """

    memory: str  # bundle-relative path
    memory_id: str
    ontology: str
    ontology_file: str
    pattern: str
    pattern_key: str
    kind: Kind
    entity_type: str | None
    namespaces: tuple[str, ...]
    context: str | None
    confidence: float
    match: str
    line: int | None
    column: int | None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["namespaces"] = list(self.namespaces)
        return data


@dataclass
class SuggestionReport:
    """What :func:`suggest` found: suggestions in memory order, and the problems met on the way."""

    suggestions: list[Suggestion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ontologies: list[str] = field(default_factory=list)  # the ids whose discovery ran
    patterns: int = 0
    memories: int = 0

    def by_memory(self) -> dict[str, list[Suggestion]]:
        grouped: dict[str, list[Suggestion]] = {}
        for item in self.suggestions:
            grouped.setdefault(item.memory, []).append(item)
        return grouped

    def to_json(self) -> str:
        return json.dumps(
            {
                "memories": self.memories,
                "ontologies": self.ontologies,
                "patterns": self.patterns,
                "suggested": len(self.by_memory()),
                "suggestions": [s.to_dict() for s in self.suggestions],
                "problems": [p.to_dict() for p in self.problems],
            },
            indent=2,
            default=str,
        )

    def to_text(self) -> str:
        lines = []
        for relpath, items in self.by_memory().items():
            lines.append(relpath)
            for item in items:
                what = ", ".join(
                    ([f"entity type {item.entity_type}"] if item.entity_type else [])
                    + [f"namespace {n}" for n in item.namespaces]
                )
                where = (
                    f"line {item.line}, column {item.column}"
                    if item.line is not None
                    else f"path column {item.column}"
                    if item.column is not None
                    else "position unknown"
                )
                hint = f" [{item.context}]" if item.context else ""
                lines.append(
                    f"  {what}: {item.match!r} at {where}; {item.kind} pattern {item.pattern!r} of "
                    f"{item.ontology}{hint}"
                )
        lines.append(
            f"{len(self.suggestions)} suggestions for {len(self.by_memory())} of {self.memories} memories "
            f"({self.patterns} patterns of {len(self.ontologies)} "
            f"{'ontology' if len(self.ontologies) == 1 else 'ontologies'}: {', '.join(self.ontologies) or 'none'})"
        )
        return "\n".join(lines)

    def graph(self, base_iri: str) -> Graph:
        """The suggestions as RDF, for ``<base>#suggestions`` (terms in docs/mapping.md).

        The pattern and what it suggests use the terms the ontology compiler
        writes for the ontology's own discovery section (``mif:contentPattern``,
        ``mif:suggestsNamespace`` ...), so a suggestion joins its pattern there.
        """
        graph = bind_prefixes(Graph())
        for item in self.suggestions:
            node = URIRef(f"{base_iri}#suggestion-{_digest(item)}")
            graph.add((node, RDF.type, MIF.Suggestion))
            graph.add((node, MIF.suggestionFor, URIRef(memory_iri(item.memory_id))))
            graph.add((node, MIF.sourceOntology, RdfLiteral(item.ontology)))
            graph.add(
                (node, MIF.contentPattern if item.kind == "content" else MIF.filePattern, RdfLiteral(item.pattern))
            )
            graph.add((node, MIF.matchedText, RdfLiteral(item.match)))
            graph.add(
                (
                    node,
                    MIF.confidence,
                    RdfLiteral(format(item.confidence, "f").rstrip("0").rstrip(".") or "0", datatype=XSD.decimal),
                )
            )
            if item.entity_type:
                graph.add((node, MIF.suggestsEntityType, RdfLiteral(item.entity_type)))
            for namespace in item.namespaces:
                graph.add((node, MIF.suggestsNamespace, RdfLiteral(namespace)))
            if item.context:
                graph.add((node, MIFO.context, RdfLiteral(item.context)))
            if item.line is not None:
                graph.add((node, MIF.matchLine, RdfLiteral(item.line, datatype=XSD.integer)))
            if item.column is not None:
                graph.add((node, MIF.matchColumn, RdfLiteral(item.column, datatype=XSD.integer)))
        return graph


def _digest(item: Suggestion) -> str:
    key = "\0".join((item.memory, item.ontology_file, item.pattern_key))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def suggestions_graph_iri(base_iri: str) -> str:
    return f"{base_iri}#{GRAPH_SUGGESTIONS}"


def add_suggestions(bundle: LoadedBundle, report: SuggestionReport, audience: Audience | None = None) -> URIRef:
    """Put ``report`` into the bundle's ``<base>#suggestions`` graph (replacing what was there).

    The graph travels with export and push, and a suggestion carries text of
    its memory's body: suggestions of memories that must stay on this machine
    (``_local`` namespaces, spec 10.2), or that ``audience`` may not read, are
    never put into it (the export policy drops only triples naming a withheld
    memory, and a suggestion's text names none).
    """
    from mif_rdf.nsmodel.access import withheld_reason

    local = {r.relpath for r in bundle.memories.values() if withheld_reason(r.frontmatter.get("namespace"), audience)}
    shared = SuggestionReport([s for s in report.suggestions if s.memory not in local])
    name = URIRef(suggestions_graph_iri(bundle.base_iri))
    target = bundle.dataset.graph(name)
    target.remove((None, None, None))
    target.addN((s, p, o, target) for s, p, o in shared.graph(bundle.base_iri))
    return name
