"""Compiled shapes evaluated on all their focus nodes at once, column by column: node and path evaluation."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import SH

from mif_rdf.validation.engine.checks import _rdf11
from mif_rdf.validation.engine.compiled import Constraint, PathExpr, Qualified, Result, Shape
from mif_rdf.validation.engine.data import _NONE, Data, _by_subject
from mif_rdf.validation.order import compare


class Evaluator:
    """Evaluates compiled shapes against an index: path -> subject -> values (scanned once per path).

    A shape is evaluated on all its focus nodes at once, column by column,
    not focus by focus: a node shape has several focus-shape pairs per
    memory, and a generator per pair was most of the engine's own time at
    scale (docs/performance.md).  Whether a value meets a constraint depends on the value alone
    (and, for ``sh:or``/``sh:not``/``sh:node`` with nested shapes, on the fixed data),
    so each shape checks each distinct value once and keeps the failures:
    most values repeat (trust levels, types, decay models, tags).
    """

    def __init__(
        self, index: dict[URIRef, dict[Any, list[Any]]], data: Data, lenient: frozenset[Any] = frozenset()
    ) -> None:
        self.index = index
        self.data = data
        self.lenient = lenient  # severities whose shapes conform whatever they find (pyshacl's allow_warnings/infos)
        self.lenient_spans: list[tuple[int, int]] = []  # (start, end) of the top-level results such shapes made
        self._top: list[Result] | None = None
        self._checked: dict[
            int, tuple[set[Any], list[set[Any]]]
        ] = {}  # id(shape) -> (values checked, failing values per constraint)
        self._matches: dict[tuple[int, int], dict[Any, bool]] = {}  # (id(shape), which) -> value -> is that sh:hasValue
        self._inverse: dict[URIRef, dict[Any, list[Any]]] = {}

    def results(self, shape: Shape, foci: Iterable[Any]) -> list[Result]:
        """Every failure of ``shape`` on each of ``foci`` (a node that occurs twice is evaluated twice)."""
        found: list[Result] = []
        self._collect(shape, list(foci), found)
        return found

    def top_results(self, shape: Shape, foci: Iterable[Any], found: list[Result]) -> None:
        """:meth:`results` of a targeted shape, appended to ``found``, noting the spans of lenient shapes."""
        self._top = found
        self._collect(shape, list(foci), found)
        self._top = None

    def _collect(self, shape: Shape, foci: list[Any], found: list[Result]) -> None:
        if shape.deactivated:
            return
        if shape.severity in self.lenient and found is self._top:
            start = len(found)
            self._evaluate(shape, foci, found)
            self.lenient_spans.append((start, len(found)))
        else:
            self._evaluate(shape, foci, found)

    def _evaluate(self, shape: Shape, foci: list[Any], found: list[Result]) -> None:
        if shape.path is None:
            for which, wanted in enumerate(shape.has_values):
                found.extend(
                    (shape, focus, focus, SH.HasValueConstraintComponent, None)
                    for focus in foci
                    if not self._is_value(shape, which, wanted, focus)
                )
            rows: list[tuple[Any, Any]] = [(focus, (focus,)) for focus in foci]
            values = foci
        else:
            rows = self._rows(shape.path, foci)
            values = [value for _, focus_values in rows for value in focus_values]
            low, high = shape.min_count, shape.max_count
            if low is not None:
                found.extend(
                    (shape, focus, None, SH.MinCountConstraintComponent, None)
                    for focus, vals in rows
                    if len(vals) < low
                )
            if high is not None:
                found.extend(
                    (shape, focus, None, SH.MaxCountConstraintComponent, None)
                    for focus, vals in rows
                    if len(vals) > high
                )
            for which, wanted in enumerate(shape.has_values):
                found.extend(
                    (shape, focus, None, SH.HasValueConstraintComponent, None)
                    for focus, vals in rows
                    if not any(self._is_value(shape, which, wanted, value) for value in vals)
                )
        self._constraint_failures(shape, values, rows, found)
        if shape.pairs or shape.unique_lang or shape.closed is not None:
            self._focus_failures(shape, rows, found)
        if shape.qualified is not None:
            self._qualified_failures(shape, shape.qualified, rows, values, found)
        for prop in shape.properties:
            self._collect(prop, values, found)

    def _rows(self, path: PathExpr, foci: list[Any]) -> list[tuple[Any, Any]]:
        """Each focus node with its value nodes along ``path`` (one column lookup for a predicate path)."""
        if isinstance(path, URIRef):
            column = self.index.get(path, {})
            return [(focus, column.get(focus, _NONE)) for focus in foci]
        return [(focus, self._walk(path, focus)) for focus in foci]

    def _walk(self, path: PathExpr, node: Any) -> list[Any]:
        """The distinct nodes reached from ``node`` along a path that is not a single predicate."""
        if isinstance(path, URIRef):
            return self.index.get(path, {}).get(node, [])
        kind, part = path
        if kind == "inverse":
            if not isinstance(part, URIRef):
                return self._inverse_walk(part, node)
            inverse = self._inverse.get(part)
            if inverse is None:
                inverse = self._inverse[part] = _by_subject(
                    (o, s) for s, objects in self.index.get(part, {}).items() for o in objects
                )
            return inverse.get(node, [])
        if kind == "sequence":
            reached = [node]
            for step in part:
                reached = list(dict.fromkeys(v for r in reached for v in self._walk(step, r)))
            return reached
        if kind == "alternative":
            return list(dict.fromkeys(v for step in part for v in self._walk(step, node)))
        if kind == "zeroOrOne":
            return list(dict.fromkeys([node, *self._walk(part, node)]))
        seen: dict[Any, None] = {node: None} if kind == "zeroOrMore" else {}
        frontier = [node]
        while frontier:
            frontier = [v for r in frontier for v in self._walk(part, r) if v not in seen]
            for v in frontier:
                seen[v] = None
        return list(seen)

    def _inverse_walk(self, path: PathExpr, node: Any) -> list[Any]:
        """``^path`` for a path that is not a predicate: the nodes from which ``path`` reaches ``node``."""
        subjects = {s for column in self.index.values() for s in column} | {node}
        return [s for s in subjects if node in self._walk(path, s)]

    def _focus_failures(self, shape: Shape, rows: list[tuple[Any, Any]], found: list[Result]) -> None:
        """Constraints on a focus node's values as a set: property pairs, sh:uniqueLang, sh:closed."""
        term = self.data.term
        for component, predicate in shape.pairs:
            column = self.index.get(predicate, {})
            for focus, values in rows:
                others = column.get(focus, _NONE)
                if component == SH.EqualsConstraintComponent:
                    bad = [v for v in values if v not in others] + [o for o in others if o not in values]
                elif component == SH.DisjointConstraintComponent:
                    bad = [v for v in values if v in others]
                else:
                    strict = component == SH.LessThanConstraintComponent
                    bad = [
                        v
                        for v in values
                        for o in others
                        if compare(term(v), term(o)) not in ((-1,) if strict else (-1, 0))
                    ]
                found.extend((shape, focus, value, component, None) for value in bad)
        if shape.unique_lang:
            for focus, values in rows:
                languages = [
                    term(v).language.lower() for v in values if isinstance(term(v), Literal) and term(v).language
                ]
                repeated = sorted({tag for tag in languages if languages.count(tag) > 1})
                found.extend((shape, focus, None, SH.UniqueLangConstraintComponent, None) for _ in repeated)
        if shape.closed is not None:
            for focus, _ in rows:
                found.extend(
                    (shape, focus, value, SH.ClosedConstraintComponent, predicate)
                    for predicate, value in self.data.outgoing(focus)
                    if predicate not in shape.closed
                )

    def _qualified_failures(
        self, shape: Shape, qualified: Qualified, rows: list[tuple[Any, Any]], values: list[Any], found: list[Result]
    ) -> None:
        """``sh:qualifiedMinCount``/``sh:qualifiedMaxCount``: how many of a focus node's values conform to the
        qualified shape (and, when disjoint, to none of its siblings)."""
        distinct = list(dict.fromkeys(values))
        counted = self._conforming(qualified.shape, distinct)
        for sibling in qualified.siblings:
            counted -= self._conforming(sibling, [value for value in distinct if value in counted])
        for focus, focus_values in rows:
            count = sum(1 for value in focus_values if value in counted)
            if qualified.least is not None and count < qualified.least:
                found.append((shape, focus, None, SH.QualifiedMinCountConstraintComponent, None))
            if qualified.most is not None and count > qualified.most:
                found.append((shape, focus, None, SH.QualifiedMaxCountConstraintComponent, None))

    def _constraint_failures(
        self, shape: Shape, values: list[Any], rows: list[tuple[Any, Any]], found: list[Result]
    ) -> None:
        """The results of ``shape``'s value constraints: ``rows`` pairs each focus node with its value nodes."""
        if not shape.constraints:
            return
        failing = self._failing(shape, values)
        if not any(failing):
            return
        for focus, focus_values in rows:
            for value in focus_values:
                for constraint, bad in zip(shape.constraints, failing):
                    if value in bad:
                        found.append((shape, focus, value, constraint.component, None))

    def _failing(self, shape: Shape, values: list[Any]) -> list[set[Any]]:
        """For each constraint of ``shape``, the values seen so far (``values`` included) that fail it."""
        checked = self._checked.get(id(shape))
        if checked is None:
            checked = self._checked[id(shape)] = (set(), [set() for _ in shape.constraints])
        seen, failing = checked
        new = [value for value in dict.fromkeys(values) if value not in seen]
        if new:
            seen.update(new)
            for constraint, bad in zip(shape.constraints, failing):
                bad.update(self._failures(constraint, new))
        return failing

    def _is_value(self, shape: Shape, which: int, wanted: Any, value: Any) -> bool:
        """Whether ``value`` is ``shape``'s ``sh:hasValue`` (decided once per value: an entity's type repeats)."""
        known = self._matches.setdefault((id(shape), which), {})
        same = known.get(value)
        if same is None:
            same = known[value] = _rdf11(self.data.term(value)) == wanted
        return same

    def _failures(self, constraint: Constraint, values: list[Any]) -> list[Any]:
        """The ``values`` (distinct) that fail ``constraint``; shape-based constraints evaluate their shapes on
        all of them at once, as focus nodes, like any other shape."""
        if constraint.check is not None:
            check = constraint.check
            return [value for value in values if not check(value)]
        if constraint.component == SH.OrConstraintComponent:  # the common case: stop at the first shape a value meets
            passing: set[Any] = set()
            for alternative in constraint.shapes:
                passing |= self._conforming(alternative, [value for value in values if value not in passing])
            return [value for value in values if value not in passing]
        good: defaultdict[Any, int] = defaultdict(int)
        for member in constraint.shapes:
            for value in self._conforming(member, values):
                good[value] += 1
        needs, total = constraint.needs, len(constraint.shapes)
        return [value for value in values if not needs(good[value], total)]  # type: ignore[misc]

    def _conforming(self, shape: Shape, foci: list[Any]) -> set[Any]:
        """Those of ``foci`` (distinct) that conform to ``shape``."""
        failed = {focus for _, focus, _, _, _ in self.results(shape, foci)}
        return {focus for focus in foci if focus not in failed}
