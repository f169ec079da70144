"""One validation run: compile the shapes, scan the data once per predicate, evaluate, write the report."""

from __future__ import annotations

from typing import Any

from rdflib import Graph, URIRef
from rdflib.namespace import RDF, RDFS, SH

from mif_rdf.validation.engine.compile import Compiler
from mif_rdf.validation.engine.compiled import Result, Targeted
from mif_rdf.validation.engine.data import Data
from mif_rdf.validation.engine.evaluate import Evaluator
from mif_rdf.validation.engine.report import _report

#: Severities that pyshacl's ``allow_warnings`` and ``allow_infos`` let a conforming report have.
_WARNINGS, _INFOS = (SH.Warning, SH.Info), (SH.Info,)


def validate_graph(
    data: Graph, shapes: Graph, *, allow_warnings: bool = False, allow_infos: bool = False, abort_on_first: bool = False
) -> Graph:
    """SHACL validation of ``data`` by ``shapes``: a standard validation report graph.

    ``data`` is read where it lives: an rdflib store through its triples, a
    graph in Oxigraph through Oxigraph's own queries (:class:`Data`).
    Raises :class:`Unsupported` when the shapes use features outside this
    engine, always before any shape is evaluated.  The report conforms when
    it has no result (SHACL 3.6.2).  ``allow_warnings`` (``sh:Warning`` and
    ``sh:Info``) and ``allow_infos`` (``sh:Info``) are pyshacl's readings: a
    shape of such a severity conforms whatever it and the shapes under it
    find, and a result of such a severity does not count.
    ``abort_on_first`` keeps the first result only.
    """
    source = Data(data)
    compiler = Compiler(shapes, source)
    targeted = compiler.compile()
    wanted = (
        compiler.paths
        | {p for n in targeted for t, p in n.targets if t in (SH.targetSubjectsOf, SH.targetObjectsOf)}
        | {RDF.type}
    )
    if compiler.classes:
        wanted.add(RDFS.subClassOf)
    index = source.index(sorted(wanted))
    source.bind(index)
    lenient = frozenset(_WARNINGS if allow_warnings else _INFOS if allow_infos else ())
    evaluator = Evaluator(index, source, lenient)
    found: list[Result] = []
    for node_shape in targeted:
        evaluator.top_results(node_shape.shape, _focus_nodes(node_shape, index, source), found)
        if abort_on_first and found:
            del found[1:]
            break
    excused = {i for start, end in evaluator.lenient_spans for i in range(start, end)}
    conforms = all(i in excused or shape.severity in lenient for i, (shape, *_) in enumerate(found))
    term = source.term
    return _report(
        [
            (
                shape,
                term(focus),
                None if value is None else term(value),
                component,
                None if path is None else term(path),
            )
            for shape, focus, value, component, path in found
        ],
        shapes,
        conforms,
    )


def _focus_nodes(node_shape: Targeted, index: dict[URIRef, dict[Any, list[Any]]], data: Data) -> set[Any]:
    nodes: set[Any] = set()
    native = data.native
    for kind, value in node_shape.targets:
        if kind == SH.targetSubjectsOf:
            nodes |= set(index.get(value, {}))
        elif kind == SH.targetObjectsOf:
            nodes |= {o for objects in index.get(value, {}).values() for o in objects}
        elif kind == SH.targetNode:
            nodes.add(native(value))
        else:
            classes = data.subclasses(native(value))
            nodes |= {s for s, types in index[RDF.type].items() if any(t in classes for t in types)}
    return nodes
