"""The compiled form of a shapes graph the evaluator runs, and :class:`Unsupported`, which the compiler and
the checks raise for what the engine does not implement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rdflib import URIRef

Check = Callable[[Any], bool]


class Unsupported(Exception):
    """The shapes graph uses a SHACL feature this engine does not implement."""


#: A compiled property path: an IRI, or (kind, part) for inverse/zero-or-more/one-or-more/zero-or-one,
#: or ("sequence" | "alternative", tuple of paths).
PathExpr = Any
Result = tuple[
    "Shape", Any, Any, URIRef, Any
]  # (shape, focus node, value node or None, component, result path or None)


@dataclass
class Constraint:
    """A constraint on each value node alone (the data being fixed): a check,
    or shapes the value must (not) conform to."""

    component: URIRef
    check: Check | None = None  # value node (the data's own term) -> conforms? (None when shapes decide)
    shapes: list[Shape] = field(default_factory=list)  # sh:or / sh:and / sh:xone members, sh:not / sh:node shape
    needs: Callable[[int, int], bool] | None = None  # (conforming shapes, all shapes) -> the value passes


@dataclass
class Shape:
    iri: Any
    path: PathExpr | None  # None: a node shape, whose value node is the focus node
    path_node: Any  # the sh:path object as written (an IRI or the blank-node structure), for the report
    severity: Any
    messages: list[Any]
    deactivated: bool = False
    constraints: list[Constraint] = field(default_factory=list)
    min_count: int | None = None
    max_count: int | None = None
    has_values: list[Any] = field(default_factory=list)
    properties: list[Shape] = field(default_factory=list)
    pairs: list[tuple[URIRef, URIRef]] = field(
        default_factory=list
    )  # (component, other predicate): equals, disjoint, lessThan...
    unique_lang: bool = False
    closed: frozenset[Any] | None = None  # sh:closed: the predicates allowed (node shapes only)
    qualified: Qualified | None = None


@dataclass
class Qualified:
    """``sh:qualifiedValueShape`` with its counts, and the sibling shapes a value must not conform to when disjoint."""

    shape: Shape
    least: int | None
    most: int | None
    siblings: list[Shape] = field(default_factory=list)


@dataclass
class Targeted:
    """A shape with its targets: the only shapes that produce results by themselves."""

    shape: Shape
    targets: list[tuple[Any, Any]]  # (target predicate, object); implicit class targets as (sh:targetClass, shape)
