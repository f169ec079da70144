"""The engine's results written as a standard SHACL validation report graph."""

from __future__ import annotations

from typing import Any

from rdflib import BNode, Graph, Literal
from rdflib.namespace import RDF, SH

from mif_rdf.validation.engine.compiled import Result


def _report(found: list[Result], shapes: Graph, conforms: bool) -> Graph:
    report = Graph()
    report.bind("sh", SH)
    root = BNode()
    add = report.add
    add((root, RDF.type, SH.ValidationReport))
    add((root, SH.conforms, Literal(conforms)))
    copied: set[Any] = set()
    # the vocabulary's terms once (SH.x is a lookup in rdflib's namespace class: thousands of results, nine each)
    result_of, kind, result_type, focus_of, severity_of, shape_of, component_of, path_of, value_of, message_of = (
        SH.result,
        RDF.type,
        SH.ValidationResult,
        SH.focusNode,
        SH.resultSeverity,
        SH.sourceShape,
        SH.sourceConstraintComponent,
        SH.resultPath,
        SH.value,
        SH.resultMessage,
    )
    for shape, focus, value, component, path in found:
        result = BNode()
        add((root, result_of, result))
        add((result, kind, result_type))
        add((result, focus_of, focus))
        add((result, severity_of, shape.severity))
        add((result, shape_of, shape.iri))
        add((result, component_of, component))
        if path is None and shape.path_node is not None:
            path = shape.path_node
            if isinstance(path, BNode) and path not in copied:
                copied.add(path)
                copy_structure(shapes, path, report)
        if path is not None:
            add((result, path_of, path))
        if value is not None:
            add((result, value_of, value))
        for message in shape.messages:
            add((result, message_of, message))
    return report


def copy_structure(source: Graph, node: BNode, target: Graph) -> None:
    """The triples of a blank-node structure (a complex path, an RDF list) from ``source`` into ``target``."""
    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for predicate, value in source.predicate_objects(current):
            target.add((current, predicate, value))
            if isinstance(value, BNode):
                todo.append(value)
