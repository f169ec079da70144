"""Shapes graph -> the compiled, targeted shapes, or :class:`Unsupported` before anything is evaluated.

The feature check lives here: every shape of the graph is compiled, and any
SHACL word the engine does not implement refuses the whole graph.
"""

from __future__ import annotations

import re
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD

from mif_rdf.validation.engine.checks import (
    _FLAGS,
    _NODE_KINDS,
    _RANGES,
    _class_check,
    _datatype_check,
    _in_range,
    _language_in,
    _pattern_check,
    _rdf11,
)
from mif_rdf.validation.engine.compiled import Constraint, PathExpr, Qualified, Shape, Targeted, Unsupported
from mif_rdf.validation.engine.data import Data

_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode)
#: SHACL words on a shape that say nothing to check (or are read with the constraint they belong to).
_NOT_CONSTRAINTS = {
    SH.message,
    SH.severity,
    SH.name,
    SH.description,
    SH.order,
    SH.group,
    SH.deactivated,
    SH.defaultValue,
    SH.path,
    SH.flags,
    SH.ignoredProperties,
    SH.qualifiedMinCount,
    SH.qualifiedMaxCount,
    SH.qualifiedValueShapesDisjoint,
    *_TARGETS,
}
_PAIRS = {
    SH.equals: SH.EqualsConstraintComponent,
    SH.disjoint: SH.DisjointConstraintComponent,
    SH.lessThan: SH.LessThanConstraintComponent,
    SH.lessThanOrEquals: SH.LessThanOrEqualsConstraintComponent,
}
_LOGICAL = {  # list-taking shape parameters: how many members a value must conform to
    SH["or"]: (SH.OrConstraintComponent, lambda good, total: good > 0),
    SH["and"]: (SH.AndConstraintComponent, lambda good, total: good == total),
    SH.xone: (SH.XoneConstraintComponent, lambda good, total: good == 1),
}
_SHAPE_VALUED = (SH.property, SH.node, SH["not"], SH.qualifiedValueShape)
_PATH_KINDS = {
    SH.inversePath: "inverse",
    SH.zeroOrMorePath: "zeroOrMore",
    SH.oneOrMorePath: "oneOrMore",
    SH.zeroOrOnePath: "zeroOrOne",
}
_RDFS_CLASS, _OWL_CLASS = RDFS.Class, URIRef("http://www.w3.org/2002/07/owl#Class")
_SHAPE_CLASSES = (SH.NodeShape, SH.PropertyShape, SH.Shape)


class Compiler:
    """Shapes graph -> the targeted shapes (raises :class:`Unsupported` before anything is evaluated).

    Every shape of the graph is compiled, targeted or not -- anything typed
    ``sh:NodeShape``/``sh:PropertyShape``, with a target or a constraint
    parameter, or reached through ``sh:property``, ``sh:node`` and the
    logical constraints -- so a feature the engine does not know anywhere in
    the graph refuses the whole graph: nothing is skipped in silence.
    The checks are compiled for one :class:`Data`: they take its terms as they are.
    """

    def __init__(self, shapes: Graph, data: Data) -> None:
        self.g = shapes
        self.data = data
        self.paths: set[URIRef] = set()  # the predicates any path or pair constraint reads
        self.classes = False  # whether rdfs:subClassOf must be read (class targets, sh:class)
        self._compiled: dict[Any, Shape] = {}
        self._compiling: set[Any] = set()

    def compile(self) -> list[Targeted]:
        g = self.g
        for word in (SH.target, SH.sparql, SH.rule, SH.parameter, SH.shapesGraph, SH.entailment):
            if any(g.triples((None, word, None))):
                raise Unsupported(f"{word} (SHACL-SPARQL, advanced features or entailment)")
        if any(g.triples((None, RDF.type, SH.ConstraintComponent))) or any(
            (None, RDFS.subClassOf, c) in g for c in _SHAPE_CLASSES
        ):
            raise Unsupported("custom constraint components or subclasses of SHACL's shape classes")
        targeted = []
        for node in sorted(self._shape_nodes(), key=lambda n: (isinstance(n, BNode), str(n))):
            shape = self.shape(node)
            targets = [(p, o) for p in _TARGETS for o in g.objects(node, p)]
            if (node, RDF.type, _RDFS_CLASS) in g and any((node, RDF.type, c) in g for c in _SHAPE_CLASSES[:2]):
                targets.append((SH.targetClass, node))  # an implicit class target
            elif (node, RDF.type, _OWL_CLASS) in g:
                raise Unsupported(
                    f"{node} is an owl:Class and a shape (an implicit class target only if owl:Class is an rdfs:Class)"
                )
            if any(kind == SH.targetClass for kind, _ in targets):
                self.classes = True
            if targets:
                targeted.append(Targeted(shape, targets))
        return targeted

    def _shape_nodes(self) -> set[Any]:
        """Every node SHACL calls a shape in this graph (section 2.1), the ones reached through others included."""
        g = self.g
        nodes: set[Any] = set()
        for kind in _SHAPE_CLASSES[:2]:
            nodes |= set(g.subjects(RDF.type, kind))
        for predicate in (*_TARGETS, *_PARAMETERS):
            nodes |= set(g.subjects(predicate, None))
        for predicate in _SHAPE_VALUED:
            nodes |= set(g.objects(None, predicate))
        for predicate in _LOGICAL:
            for head in g.objects(None, predicate):
                nodes |= set(_members(g, head))
        return {node for node in nodes if not isinstance(node, Literal)}

    def shape(self, node: Any) -> Shape:
        known = self._compiled.get(node)
        if known is not None:
            return known
        if node in self._compiling:
            raise Unsupported(f"recursive shape {node}")
        if isinstance(node, Literal):
            raise Unsupported(f"a literal {node!r} where a shape belongs")
        self._compiling.add(node)
        try:
            shape = self._shape(node)
        except (ValueError, TypeError, KeyError, re.error) as error:  # an ill-formed shape: pyshacl says what
            raise Unsupported(f"{node}: {error}") from error
        finally:
            self._compiling.discard(node)
        self._compiled[node] = shape
        return shape

    def _shape(self, node: Any) -> Shape:
        g = self.g
        paths = list(g.objects(node, SH.path))
        if len(paths) > 1:
            raise Unsupported(f"{node} has {len(paths)} sh:path values")
        path_node = paths[0] if paths else None
        severities = list(g.objects(node, SH.severity))
        if len(severities) > 1:
            raise Unsupported(f"{node} has {len(severities)} sh:severity values")
        shape = Shape(
            node,
            None if path_node is None else self.path(path_node),
            path_node,
            severities[0] if severities else SH.Violation,
            sorted(g.objects(node, SH.message)),
        )
        if any(_is_true(value) for value in g.objects(node, SH.deactivated)):
            shape.deactivated = True  # conforms, produces nothing: what it says is never read
            return shape
        for predicate, value in g.predicate_objects(node):
            if predicate in _NOT_CONSTRAINTS or not isinstance(predicate, URIRef) or not predicate.startswith(_SH):
                continue  # rdf:type, labels, the project's own annotations: not SHACL constraints
            self._parameter(shape, node, predicate, value)
        return shape

    def _parameter(self, shape: Shape, node: Any, predicate: URIRef, value: Any) -> None:
        if predicate == SH.property:
            prop = self.shape(value)
            if prop.path is None and not prop.deactivated:
                raise Unsupported(f"sh:property {value} of {node} has no sh:path")
            shape.properties.append(prop)
        elif predicate in (SH.minCount, SH.maxCount):
            if shape.path is None or getattr(shape, _COUNTS[predicate]) is not None:
                raise Unsupported(f"{predicate} on {node}")
            setattr(shape, _COUNTS[predicate], _integer(value))
        elif predicate == SH.hasValue:
            shape.has_values.append(_rdf11(value))
        elif predicate in _PAIRS:
            if not isinstance(value, URIRef) or (
                shape.path is None and predicate in (SH.lessThan, SH.lessThanOrEquals)
            ):
                raise Unsupported(f"{predicate} {value} on {node}")
            self.paths.add(value)
            shape.pairs.append((_PAIRS[predicate], value))
        elif predicate == SH.uniqueLang:
            if shape.path is None:
                raise Unsupported(f"sh:uniqueLang on the node shape {node}")
            shape.unique_lang = shape.unique_lang or _is_true(value)
        elif predicate == SH.qualifiedValueShape:
            if shape.path is None or shape.qualified is not None:
                raise Unsupported(f"sh:qualifiedValueShape on {node} (a node shape, or twice)")
            shape.qualified = self._qualified(node, value)
        elif predicate == SH.closed:
            if _is_true(value):
                if shape.path is not None:
                    raise Unsupported(f"sh:closed on the property shape {node}")
                shape.closed = self._closed(node)
        else:
            shape.constraints.append(self.constraint(node, predicate, value))

    def _qualified(self, node: Any, value: Any) -> Qualified:
        """SHACL 4.7.3: the counts, and with ``sh:qualifiedValueShapesDisjoint true`` the siblings -- the
        qualified value shapes of the other property shapes of every shape that has ``node`` as a property."""
        g = self.g
        counts = [[_integer(v) for v in g.objects(node, p)] for p in (SH.qualifiedMinCount, SH.qualifiedMaxCount)]
        if any(len(c) > 1 for c in counts):
            raise Unsupported(f"{node}: more than one qualified count of a kind")
        least, most = (c[0] if c else None for c in counts)
        qualified = Qualified(self.shape(value), least, most)
        if any(_is_true(v) for v in g.objects(node, SH.qualifiedValueShapesDisjoint)):
            siblings = {
                sibling
                for parent in g.subjects(SH.property, node)
                for prop in g.objects(parent, SH.property)
                for sibling in g.objects(prop, SH.qualifiedValueShape)
            } - {value}
            qualified.siblings = [self.shape(sibling) for sibling in sorted(siblings, key=str)]
        return qualified

    def _closed(self, node: Any) -> frozenset[Any]:
        allowed = set()
        for prop in self.g.objects(node, SH.property):
            path = self.g.value(prop, SH.path)
            if isinstance(path, URIRef):
                allowed.add(path)
        for head in self.g.objects(node, SH.ignoredProperties):
            allowed |= set(_members(self.g, head))
        return frozenset(self.data.native(p) for p in allowed if isinstance(p, URIRef))

    def path(self, node: Any) -> PathExpr:
        """A SHACL property path (section 2.3.1) compiled; its predicates join the scans."""
        g = self.g
        if isinstance(node, URIRef):
            self.paths.add(node)
            return node
        if not isinstance(node, BNode):
            raise Unsupported(f"path {node!r}")
        if (node, RDF.first, None) in g:
            steps = tuple(self.path(step) for step in _members(g, node))
            if len(steps) < 2:
                raise Unsupported("a sequence path of fewer than two steps")
            return ("sequence", steps)
        described = [(p, o) for p, o in g.predicate_objects(node)]
        if len(described) != 1:
            raise Unsupported(f"path {node} with {len(described)} descriptions")
        ((predicate, value),) = described
        if predicate == SH.alternativePath:
            choices = tuple(self.path(step) for step in _members(g, value))
            if len(choices) < 2:
                raise Unsupported("an alternative path of fewer than two paths")
            return ("alternative", choices)
        if isinstance(predicate, URIRef) and predicate in _PATH_KINDS:
            return (_PATH_KINDS[predicate], self.path(value))
        raise Unsupported(f"path {node}: {predicate}")

    def constraint(self, node: Any, predicate: Any, value: Any) -> Constraint:
        data = self.data
        kind, text, term = data.kind, data.text, data.term
        if predicate in _LOGICAL:
            component, needs = _LOGICAL[predicate]
            return Constraint(component, shapes=[self.shape(m) for m in _members(self.g, value)], needs=needs)
        if predicate == SH["not"]:
            return Constraint(
                SH.NotConstraintComponent, shapes=[self.shape(value)], needs=lambda good, total: good == 0
            )
        if predicate == SH.node:
            return Constraint(
                SH.NodeConstraintComponent, shapes=[self.shape(value)], needs=lambda good, total: good == 1
            )
        if predicate == SH["class"]:
            self.classes = True
            return Constraint(SH.ClassConstraintComponent, _class_check(data, value))
        if predicate == SH.pattern:
            flags = [str(f) for f in self.g.objects(node, SH.flags)]
            if len(flags) > 1 or any(letter not in _FLAGS for letter in "".join(flags)):
                raise Unsupported(f"sh:flags {flags} on {node}")
            return Constraint(SH.PatternConstraintComponent, _pattern_check(str(value), "".join(flags), kind, text))
        if predicate == SH.languageIn:
            ranges = [str(r).lower() for r in _members(self.g, value)]
            return Constraint(SH.LanguageInConstraintComponent, lambda v: _language_in(term(v), ranges))
        if predicate == SH["in"]:
            allowed = frozenset(_rdf11(member) for member in _members(self.g, value))
            return Constraint(SH.InConstraintComponent, lambda v: _rdf11(term(v)) in allowed)
        if predicate in _RANGES:
            component, accept = _RANGES[predicate]
            if not isinstance(value, Literal):
                raise Unsupported(f"{predicate} {value} on {node}")
            return Constraint(component, lambda v: _in_range(term(v), value, accept))
        if predicate == SH.datatype:
            return Constraint(SH.DatatypeConstraintComponent, _datatype_check(data, value))
        if predicate == SH.nodeKind:
            kinds = _NODE_KINDS[value]
            return Constraint(SH.NodeKindConstraintComponent, lambda v: kind(v) in kinds)
        if predicate == SH.minLength:
            least = _integer(value)
            return Constraint(
                SH.MinLengthConstraintComponent,
                lambda v: least == 0 or (kind(v) is not BNode and len(text(v)) >= least),
            )
        if predicate == SH.maxLength:
            most = _integer(value)
            return Constraint(SH.MaxLengthConstraintComponent, lambda v: kind(v) is not BNode and len(text(v)) <= most)
        raise Unsupported(f"{predicate} on {node}")


_SH = str(SH)
_COUNTS = {SH.minCount: "min_count", SH.maxCount: "max_count"}
#: The parameters of SHACL Core's constraint components: a node with one of them is a shape (SHACL 2.1), whose
#: every ``sh:`` word is then compiled or refused.  Other ``sh:`` words on other nodes (data that uses SHACL's
#: vocabulary, such as W3C test ``property/qualifiedValueShape-001``'s ``sh:nodeShape``) make no shape.
_PARAMETERS = (
    SH["class"],
    SH.datatype,
    SH.nodeKind,
    SH.minCount,
    SH.maxCount,
    SH.minExclusive,
    SH.minInclusive,
    SH.maxExclusive,
    SH.maxInclusive,
    SH.minLength,
    SH.maxLength,
    SH.pattern,
    SH.languageIn,
    SH.uniqueLang,
    SH.equals,
    SH.disjoint,
    SH.lessThan,
    SH.lessThanOrEquals,
    SH["not"],
    SH["and"],
    SH["or"],
    SH.xone,
    SH.node,
    SH.property,
    SH.qualifiedValueShape,
    SH.closed,
    SH.hasValue,
    SH["in"],
    SH.sparql,
)


def _members(g: Graph, head: Any) -> list[Any]:
    """The members of an RDF list (a malformed list is an ill-formed shape: refused)."""
    members, seen = [], set()
    while head != RDF.nil:
        if head in seen or isinstance(head, Literal):
            raise Unsupported(f"malformed RDF list at {head}")
        seen.add(head)
        firsts, rests = list(g.objects(head, RDF.first)), list(g.objects(head, RDF.rest))
        if len(firsts) != 1 or len(rests) != 1:
            raise Unsupported(f"malformed RDF list at {head}")
        members.append(firsts[0])
        head = rests[0]
    return members


def _is_true(value: Any) -> bool:
    """SHACL's boolean parameters are on only for the literal ``true`` (``"1"^^xsd:boolean`` is another term,
    W3C test ``property/uniqueLang-002``; rdflib turns it into ``true`` unless
    a graph is parsed without normalizing)."""
    return isinstance(value, Literal) and value.datatype == XSD.boolean and str(value) == "true"


def _integer(value: Any) -> int:
    if (
        not isinstance(value, Literal)
        or not isinstance(value.value, int)
        or isinstance(value.value, bool)
        or value.value < 0
    ):
        raise ValueError(f"{value!r} is not a non-negative integer")
    return value.value
