"""Entity payloads against their entity types' schemas: the ontology compiler's SHACL, run cheaply.

The compiled shapes (:mod:`mif_rdf.ontology.shapes`) select their memories
with SPARQL targets (SHACL-AF) and walk ``mif:entity / mif:<field>`` from the
memory.  Run as written, pyshacl needs its advanced mode over the whole
dataset.  Validation needs the same results at a fraction of the cost, so:

1. only the graphs of the memories whose payload names a compiled entity type
   are read (no other memory can be a focus node);
2. each target's own query runs once on them, which gives the focus nodes;
3. when every rule is a plain ``(mif:entity <field>)`` path and each memory
   has one payload node, the rules are restated on the payload node
   (``sh:targetClass`` of a marker class, path ``<field>``) and mif-rdf's own
   engine runs them; its results are written back as the compiled shapes'
   results (the memory as focus node, the shape's own path), so reports read
   the same;
4. otherwise pyshacl runs the shapes with the focus nodes of step 2 as
   ``sh:targetNode``.

The test suite compares both paths with pyshacl's SHACL-AF run of the
compiled shapes over the whole dataset.
"""

from __future__ import annotations

from collections.abc import Collection

import pyshacl
from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection as RdfList
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from mif_rdf.core.namespaces import MIF
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.stores import memory_copy
from mif_rdf.ontology.binding import BoundOntologies
from mif_rdf.validation.engine import Unsupported, copy_structure, validate_graph
from mif_rdf.validation.pyshacl_patterns import bound

#: Marker classes the restated rules target (never leave this module's private data graph).
_MARKER = "urn:mif-rdf:entity-schema:"
#: Annotations of the compiled shapes the engine need not read (it refuses predicates it does not know).
_ANNOTATIONS = (RDFS.isDefinedBy, MIF.sourceOntology, MIF.sourceFile, MIF.sourceElement)


def payload_graph(bundle: LoadedBundle, entity_types: Collection[str]) -> Graph:
    """The graphs of the memories whose ``entity:`` payload names one of
    ``entity_types`` (on Oxigraph: one read a graph)."""
    data = Graph()
    for record in bundle.memories.values():
        payload = record.frontmatter.get("entity")
        if isinstance(payload, dict) and any(
            str(payload.get(k)) in entity_types for k in ("entity_type", "entityType")
        ):
            graph = bundle.dataset.graph(URIRef(record.iri))
            copy = memory_copy(graph)
            data.addN((s, p, o, data) for s, p, o in (copy if copy is not None else graph))
    return data


def entity_schema_report(bound: BoundOntologies, bundle: LoadedBundle) -> tuple[Graph, Graph]:
    """The SHACL report of the entity schemas of ``bound`` over the bundle's payloads, and the shapes it reports on."""
    assert bound.compilation is not None
    shapes = bound.compilation.shapes
    names = {name for composer in bound.compilation.composers for name in composer.view.entity_types}
    data = payload_graph(bundle, names)
    focus = {
        shape: [row[0] for row in data.query(str(shapes.value(target, SH.select)))]  # type: ignore[index]
        for shape, target in shapes.subject_objects(SH.target)
        if shapes.value(target, SH.select) is not None
    }
    report = _on_payload_nodes(shapes, data, focus)
    return (report if report is not None else _with_target_nodes(shapes, data, focus)), shapes


def _with_target_nodes(shapes: Graph, data: Graph, focus: dict[Node, list[Node]]) -> Graph:
    """pyshacl on the shapes with their SPARQL targets replaced by the nodes those found."""
    targeted = Graph()
    targeted += shapes
    for shape, nodes in focus.items():
        targeted.remove((shape, SH.target, None))
        for node in nodes:
            targeted.add((shape, SH.targetNode, node))
    advanced = any(targeted.triples((None, SH.target, None))) or any(targeted.triples((None, SH.rule, None)))
    bound()  # sh:pattern with a time limit per value (docs/security.md)
    _, report, _ = pyshacl.validate(
        data,
        shacl_graph=targeted,
        inference="none",
        advanced=advanced,
        allow_warnings=True,
        allow_infos=True,
        abort_on_first=False,
    )
    return report


def _on_payload_nodes(shapes: Graph, data: Graph, focus: dict[Node, list[Node]]) -> Graph | None:
    """The engine's report of the rules restated on the payload nodes,
    or None when they cannot be (see the module docstring)."""
    owners: dict[Node, Node] = {}
    payload_of: dict[Node, Node] = {}
    for memory in {
        m for nodes in focus.values() for m in nodes
    }:  # (entity references use mif:entity too, from their own nodes)
        for node in data.objects(memory, MIF.entity):
            if node in owners or memory in payload_of:
                # a payload node of two memories, or two payload nodes of one memory: the paths would not match
                return None
            owners[node], payload_of[memory] = memory, node
    restated = Graph()
    marks: list[tuple[Node, Node, Node]] = []  # added to the private payload graph for the run, removed after
    paths: dict[Node, Node] = {}  # property shape -> its own (compiled) path
    for index, shape in enumerate(sorted(set(shapes.subjects(RDF.type, SH.NodeShape)), key=str)):
        if set(shapes.predicates(shape)) - {RDF.type, RDFS.label, SH.property, SH.target, *_ANNOTATIONS}:
            return None
        if shape not in focus:
            return None  # a target other than the SPARQL one: not restated
        marker = URIRef(f"{_MARKER}{index}")
        restated.add((shape, RDF.type, SH.NodeShape))
        restated.add((shape, SH.targetClass, marker))
        marks += [(payload_of[memory], RDF.type, marker) for memory in focus[shape] if memory in payload_of]
        for prop in shapes.objects(shape, SH.property):
            path = shapes.value(prop, SH.path)
            if not isinstance(path, BNode):
                return None
            steps = list(RdfList(shapes, path))
            if len(steps) != 2 or steps[0] != MIF.entity or not isinstance(steps[1], URIRef):
                return None
            paths[prop] = path
            restated.add((shape, SH.property, prop))
            for p, o in shapes.predicate_objects(prop):
                if p == SH.path:
                    restated.add((prop, p, steps[1]))
                elif p not in _ANNOTATIONS:
                    restated.add((prop, p, o))
                    restated += _closure(shapes, o)
    for mark in marks:
        data.add(mark)
    try:
        found = validate_graph(data, restated)
    except Unsupported:
        return None
    finally:
        for mark in marks:
            data.remove(mark)
    for result in set(found.objects(None, SH.result)):
        focus_node = found.value(result, SH.focusNode)
        if focus_node is not None:  # (every result has one)
            found.set((result, SH.focusNode, owners.get(focus_node, focus_node)))
        source_shape = found.value(result, SH.sourceShape)
        if source_shape in paths:
            found.set((result, SH.resultPath, paths[source_shape]))
    return found


def _closure(shapes: Graph, value: Node) -> Graph:
    """The triples of the blank nodes a rule's value leads to (the RDF list of ``sh:in``, ``sh:or`` members ...)."""
    out = Graph()
    if isinstance(value, BNode):
        copy_structure(shapes, value, out)
    return out
