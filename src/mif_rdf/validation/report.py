"""The validation report: one list of findings, for people (text), pipelines
(JSON) and RDF tools (the SHACL report graph)."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH, XSD

from ..errors import Problem, Severity
from .shapes import MIFSH

_SH_SEVERITY = {Severity.ERROR: SH.Violation, Severity.WARNING: SH.Warning, Severity.INFO: SH.Info}
_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass
class ValidationReport:
    """Findings of one validation run.  ``conforms`` is False when any finding is an error."""

    level: int
    results: list[Problem]
    memories: int
    shacl_graph: Graph = field(default_factory=Graph, repr=False)

    @property
    def conforms(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> list[Problem]:
        return [r for r in self.results if r.severity == Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [r for r in self.results if r.severity == Severity.WARNING]

    def counts(self) -> dict[str, int]:
        found = Counter(r.severity.value for r in self.results)
        return {s.value: found.get(s.value, 0) for s in Severity}

    def sorted_results(self) -> list[Problem]:
        return sorted(self.results, key=lambda r: (r.path, _ORDER[r.severity], r.line or 0, r.key or ""))

    def to_text(self) -> str:
        counts = self.counts()
        verdict = "conforms" if self.conforms else "does NOT conform"
        lines = [
            f"{self.memories} memories checked at level {self.level}: {verdict} "
            f"({counts['error']} errors, {counts['warning']} warnings, {counts['info']} notes)"
        ]
        current = None
        for result in self.sorted_results():
            if result.path != current:
                current = result.path
                lines.append(f"\n{current}")
            where = f"line {result.line} " if result.line else ""
            key = f"{result.key}: " if result.key else ""
            value = f" (value: {json.dumps(result.value, default=str, ensure_ascii=False)})" if result.value is not None else ""
            level = {None: "", 0: ", OKF"}.get(result.level, f", level {result.level}")
            rule = f"  [{result.rule}{level}]" if result.rule else ""
            lines.append(f"  {result.severity.value:<7} {where}{key}{result.message}{value}{rule}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """What Jupyter shows: the verdict, then every finding as a table."""
        from ..display import problems_html

        counts = self.counts()
        verdict = "conforms" if self.conforms else "does <strong>not</strong> conform"
        head = (f"<p>{self.memories} memories checked at level {self.level}: {verdict} "
                f"({counts['error']} errors, {counts['warning']} warnings, {counts['info']} notes)</p>")
        return head + problems_html(self.sorted_results(), caption="Validation findings")

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data: ``conforms``, ``level``, ``memories``, ``counts`` and ``results``."""
        return {
            "conforms": self.conforms,
            "level": self.level,
            "memories": self.memories,
            "counts": self.counts(),
            "results": [r.to_dict() for r in self.sorted_results()],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text, as ``mif-rdf validate --format json`` prints it."""
        return json.dumps(self.to_dict(), indent=2, default=str, ensure_ascii=False) + "\n"

    def report_graph(self) -> Graph:
        """The SHACL validation report as RDF: pyshacl's results plus mif-rdf's own rules."""
        graph = Graph()
        graph.bind("sh", SH)
        graph.bind("mifsh", MIFSH)
        report = URIRef("urn:mif-rdf:validation-report")
        for triple in self.shacl_graph:
            graph.add(triple)
        for node in list(graph.subjects(RDF.type, SH.ValidationReport)):
            for triple in list(graph.triples((node, None, None))):
                graph.remove(triple)
                graph.add((report, triple[1], triple[2]))
        graph.set((report, RDF.type, SH.ValidationReport))
        graph.set((report, SH.conforms, Literal(self.conforms)))
        for result in self.results:
            if result.rule and result.rule.startswith(("okf-", "temporal-")):
                node = BNode()
                graph.add((report, SH.result, node))
                graph.add((node, RDF.type, SH.ValidationResult))
                graph.add((node, SH.resultSeverity, _SH_SEVERITY[result.severity]))
                graph.add((node, SH.resultMessage, Literal(result.message)))
                graph.add((node, SH.sourceShape, MIFSH[result.rule]))
                graph.add((node, SH.focusNode, Literal(result.path)))
                if result.line:
                    graph.add((node, MIFSH.line, Literal(result.line, datatype=XSD.integer)))
        return graph
