"""The validation report: one list of findings, for people (text), pipelines
(JSON), RDF tools (the SHACL report graph) and CI systems (SARIF for code
scanning, JUnit XML for test reports, GitHub workflow-command annotations)."""

from __future__ import annotations

import json
import posixpath
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH, XSD

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import Problem, Severity, counted
from mif_rdf.core.namespaces import MIF
from mif_rdf.validation.shapes import MIFSH

_SH_SEVERITY = {Severity.ERROR: SH.Violation, Severity.WARNING: SH.Warning, Severity.INFO: SH.Info}
_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
#: The rule id of a finding that names none (a load problem such as unreadable YAML).
LOAD_RULE = "load"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: How many findings of one rule the default text report shows (``validate -v``: all).
_EXAMPLES = 3
#: The ``sh:sourceConstraintComponent`` of a finding no SHACL shape made (declared in ontologies/mif-vocabulary.ttl).
_COMPONENTS = {
    "link": MIF.BrokenLinkConstraintComponent,
    "ill-typed-literal": MIF.IllTypedLiteralConstraintComponent,
    LOAD_RULE: MIF.LoadConstraintComponent,
}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class ValidationReport:
    """Findings of one validation run.  ``conforms`` is False when any finding is an error."""

    level: int
    results: list[Problem]
    memories: int
    shacl_graph: Graph = field(default_factory=Graph, repr=False)
    #: Where findings (by :func:`finding_identity`) came from: ``"shacl"`` (already in ``shacl_graph``) or ``"load"``
    #: (a load problem); any other finding is one of mif-rdf's own rules.  All but SHACL's join the report graph.
    origins: dict[tuple[Any, ...], str] = field(default_factory=dict, repr=False)

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

    def to_text(self, every: bool = False) -> str:
        """The report for people: by default one block per rule (its count and up to three examples), then the total.

        A rule that fires thousands of times (an ill-typed date on every
        memory of a generated bundle) would bury the one finding that
        matters; ``every`` (``validate -v``) lists each finding, file by file.
        """
        if every:
            return self._every_text()
        lines = [self._verdict()]
        groups: dict[tuple[Severity, str], list[Problem]] = {}
        for result in self.sorted_results():
            groups.setdefault((result.severity, result.rule or LOAD_RULE), []).append(result)
        for (severity, rule), found in sorted(
            groups.items(), key=lambda item: (_ORDER[item[0][0]], -len(item[1]), item[0][1])
        ):
            level = _level_label(next((r.level for r in found if r.level is not None), None))
            lines.append(
                f"\n[{rule}{level}] {counted(len(found), severity_noun(severity))}"
                + (", for example:" if len(found) > _EXAMPLES else ":")
            )
            lines += [f"  {_located(r)}: {_describe(r)}" for r in found[:_EXAMPLES]]
            if len(found) > _EXAMPLES:
                lines.append(f"  ... and {len(found) - _EXAMPLES} more (-v lists every one)")
        if self.results:
            lines.append(f"\ntotal: {counted(len(self.results), 'finding')} ({self._counted()})")
        return "\n".join(lines)

    def _every_text(self) -> str:
        lines = [self._verdict()]
        current = None
        for result in self.sorted_results():
            if result.path != current:
                current = result.path
                lines.append(f"\n{current}")
            where = f"line {result.line} " if result.line else ""
            rule = f"  [{result.rule}{_level_label(result.level)}]" if result.rule else ""
            lines.append(f"  {result.severity.value:<7} {where}{_describe(result)}{rule}")
        return "\n".join(lines)

    def _counted(self) -> str:
        counts = self.counts()
        return (
            f"{counted(counts['error'], 'error')}, {counted(counts['warning'], 'warning')}, "
            f"{counted(counts['info'], 'note')}"
        )

    def _verdict(self) -> str:
        verdict = "conforms" if self.conforms else "does NOT conform"
        return (
            f"{counted(self.memories, 'memory', 'memories')} checked {_scope(self.level)}: {verdict} "
            f"({self._counted()})"
        )

    def _repr_html_(self) -> str:
        """What Jupyter shows: the verdict, then every finding as a table."""
        from mif_rdf.core.html import problems_html

        verdict = "conforms" if self.conforms else "does <strong>not</strong> conform"
        head = (
            f"<p>{counted(self.memories, 'memory', 'memories')} checked {_scope(self.level)}: {verdict} "
            f"({self._counted()})</p>"
        )
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
            origin = self.origins.get(finding_identity(result))
            if origin != "shacl":  # a finding of mif-rdf's own rules, loader or ontology checks
                self._add_result(graph, report, result, origin == "load")
        return graph

    @staticmethod
    def _add_result(graph: Graph, report: URIRef, result: Problem, loaded: bool) -> None:
        """One ``sh:ValidationResult`` for a finding no SHACL shape made, with its ``mif:`` constraint component."""
        rule = result.rule or LOAD_RULE
        node = BNode()
        graph.add((report, SH.result, node))
        graph.add((node, RDF.type, SH.ValidationResult))
        graph.add((node, SH.resultSeverity, _SH_SEVERITY[result.severity]))
        graph.add((node, SH.resultMessage, Literal(_describe(result))))
        graph.add((node, SH.sourceShape, MIFSH[quote(rule, safe="-_.")]))
        component = _COMPONENTS.get(rule, MIF.LoadConstraintComponent if loaded else MIF.BundleRuleConstraintComponent)
        graph.add((node, SH.sourceConstraintComponent, component))
        graph.add((node, SH.focusNode, Literal(result.path)))
        if result.value is not None:
            graph.add(
                (
                    node,
                    SH.value,
                    Literal(
                        result.value
                        if isinstance(result.value, (str, int, float, bool))
                        else json.dumps(result.value, default=str)
                    ),
                )
            )
        if result.key:
            graph.add((node, MIFSH.key, Literal(result.key)))
        if result.line:
            graph.add((node, MIFSH.line, Literal(result.line, datatype=XSD.integer)))

    # -- CI formats ----------------------------------------------------------------
    # ``root`` is the bundle folder as the CI system should see it: relative to the
    # repository root (GitHub resolves SARIF and annotation paths against the
    # checkout), so each finding lands on its file.

    def to_sarif(self, root: str = ".", version: str = "") -> str:
        """SARIF 2.1.0 (OASIS), the format GitHub code scanning uploads: one result per finding, at its file and line.

        A finding without a line points at line 1, where the frontmatter starts:
        code scanning places a result only on a region.
        """
        results = self.sorted_results()
        rule_ids = sorted({r.rule or LOAD_RULE for r in results})
        rules = [
            {
                "id": rule,
                "name": rule,
                "shortDescription": {"text": _rule_text(rule, results)},
                "properties": _rule_properties(rule, results),
            }
            for rule in rule_ids
        ]
        index = {rule: i for i, rule in enumerate(rule_ids)}
        driver: dict[str, Any] = {"name": "mif-rdf", "rules": rules}
        if version:
            driver["version"] = version
        sarif_results = []
        for result in results:
            rule = result.rule or LOAD_RULE
            properties = {
                k: v
                for k, v in (("key", result.key), ("value", result.value), ("conformanceLevel", result.level))
                if v is not None
            }
            item: dict[str, Any] = {
                "ruleId": rule,
                "ruleIndex": index[rule],
                "level": _SARIF_LEVEL[result.severity],
                "message": {"text": _describe(result)},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(_joined(root, result.path))},
                            "region": {"startLine": result.line or 1},
                        }
                    }
                ],
            }
            if properties:
                item["properties"] = properties
            sarif_results.append(item)
        run = {
            "tool": {"driver": driver},
            "invocations": [
                {
                    "executionSuccessful": True,
                    "properties": {
                        "conforms": self.conforms,
                        "conformanceLevel": self.level,
                        "memories": self.memories,
                    },
                }
            ],
            "results": sarif_results,
        }
        document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
        return json.dumps(document, indent=2, default=str, ensure_ascii=False) + "\n"

    def to_junit(self, root: str = ".", files: Iterable[str] = ()) -> str:
        """JUnit XML for CI test reports: one test case per file (``files`` plus any file with findings).

        A file with errors is a failed test case (every error in the failure
        text); warnings and notes go to the case's ``system-out``, which CI
        test-report views show beside it.
        """
        by_path: dict[str, list[Problem]] = {path: [] for path in files}
        for result in self.sorted_results():
            by_path.setdefault(result.path, []).append(result)
        failed = sum(1 for found in by_path.values() if any(r.severity == Severity.ERROR for r in found))
        name = f"mif-rdf validate {root} ({f'level {self.level}' if self.level else 'given shapes only'})"
        counts = {"tests": str(len(by_path)), "failures": str(failed), "errors": "0", "skipped": "0"}
        suites = ET.Element("testsuites", {"name": name, **counts})
        suite = ET.SubElement(suites, "testsuite", {"name": name, **counts})
        for path in sorted(by_path):
            found = by_path[path]
            case = ET.SubElement(suite, "testcase", {"classname": root, "name": path, "file": _joined(root, path)})
            errors = [r for r in found if r.severity == Severity.ERROR]
            if errors:
                failure = ET.SubElement(
                    case,
                    "failure",
                    {
                        "type": errors[0].rule or LOAD_RULE,
                        "message": _xml_text(
                            f"{len(errors)} error{'s' if len(errors) != 1 else ''}: {_describe(errors[0])}"
                        ),
                    },
                )
                failure.text = _xml_text("\n".join(_finding_line(r) for r in errors))
            others = [r for r in found if r.severity != Severity.ERROR]
            if others:
                ET.SubElement(case, "system-out").text = _xml_text("\n".join(_finding_line(r) for r in others))
        ET.indent(suites)
        return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"

    def to_github(self, root: str = ".") -> str:
        """GitHub Actions workflow commands: each finding an ``::error``/``::warning``/``::notice`` annotation at its
        file and line."""
        lines = [self._verdict()]
        for result in self.sorted_results():
            properties = {"file": _joined(root, result.path)}
            if result.line:
                properties["line"] = str(result.line)
            properties["title"] = f"mif-rdf {result.rule or LOAD_RULE}{_level_label(result.level)}"
            listed = ",".join(f"{k}={_github_escape(v, property=True)}" for k, v in properties.items())
            lines.append(f"::{_GITHUB_COMMAND[result.severity]} {listed}::{_github_escape(_describe(result))}")
        return "\n".join(lines) + "\n"


def finding_identity(result: Problem) -> tuple[Any, ...]:
    """What tells one finding from another whatever line is found for it later."""
    return (result.path, result.key, result.rule, result.message, result.severity)


def severity_noun(severity: Severity) -> str:
    return {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}[severity]


def _located(result: Problem) -> str:
    return result.path + (f":{result.line}" if result.line else "")


def _describe(result: Problem) -> str:
    """A finding in words: key path, message and the value as the author wrote it."""
    key = f"{result.key}: " if result.key else ""
    value = f" (value: {json.dumps(result.value, default=str, ensure_ascii=False)})" if result.value is not None else ""
    return f"{key}{result.message}{value}"


def _finding_line(result: Problem) -> str:
    where = f"line {result.line}: " if result.line else ""
    rule = f" [{result.rule}{_level_label(result.level)}]" if result.rule else ""
    return f"{result.severity.value}: {where}{_describe(result)}{rule}"


def _scope(level: int) -> str:
    """What a report checked: a conformance level, or (level 0) only the user's shapes."""
    return f"at level {level}" if level else "against the given shapes only (level 0)"


def _level_label(level: int | None) -> str:
    return {None: "", 0: ", OKF"}.get(level, f", level {level}")


def _rule_text(rule: str, results: list[Problem]) -> str:
    level = next((r.level for r in results if (r.rule or LOAD_RULE) == rule and r.level is not None), None)
    if rule == LOAD_RULE:
        return "a memory file that could not be read or loaded as written"
    return f"MIF rule {rule}" + ("" if level is None else " (OKF)" if level == 0 else f" (conformance level {level})")


def _rule_properties(rule: str, results: list[Problem]) -> dict[str, Any]:
    levels = sorted({r.level for r in results if (r.rule or LOAD_RULE) == rule and r.level is not None})
    return {"conformanceLevel": levels[0]} if levels else {}


def _joined(root: str, path: str) -> str:
    """The finding's file as the CI system sees it: the bundle folder joined with the bundle-relative path."""
    return posixpath.normpath(posixpath.join(PurePosixPath(root).as_posix(), path))


def _uri(path: str) -> str:
    """A SARIF artifact URI: relative references stay relative (resolved against the checkout),
    absolute paths become file: URIs."""
    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(path)


def _xml_text(text: str) -> str:
    """Characters XML 1.0 cannot hold (control characters from a hostile file) become U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _github_escape(text: str, property: bool = False) -> str:
    """Escape a workflow-command message or property value as the Actions runner reads it back."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property else text


_KEY_STEP = re.compile(r"([^.\[\]]+)|\[(\d*)\]")


def with_key_lines(report: ValidationReport, root: Path) -> ValidationReport:
    """The report with a line for each finding that names a key path but no line (:func:`with_lines`)."""
    return replace(report, results=with_lines(report.results, root))


def with_lines(problems: Iterable[Problem], root: Path) -> list[Problem]:
    """The problems with a line for each one that names a key path but no line: the line of that key in its file.

    Every report places a finding on a line (``path:line`` in text and JSON,
    CI annotations, code scanning); SHACL findings know the key path
    (``relationships[2].strength``), so the frontmatter's YAML nodes
    (composed, not loaded: aliases stay unexpanded) give its line.
    ``citations[].accessed`` (any item) points at the first item's key.
    Files that cannot be read or parsed keep their findings as they are.
    The cyclic collector waits meanwhile: the node trees are many small
    objects, and with a loaded bundle beside them each full collection
    walked the bundle again (5x the time at 2,000 memories).
    """
    lines: dict[str, Any] = {}
    results = []
    with no_cyclic_gc():
        for result in problems:
            if result.line is None and result.key and result.path != ".":
                if result.path not in lines:
                    lines[result.path] = _frontmatter_nodes(root / result.path)
                line = _key_line(lines[result.path], result.key)
                if line is not None:
                    result = replace(result, line=line)
            results.append(result)
    return results


def _frontmatter_nodes(path: Path) -> Any:
    """The composed YAML node tree of a memory file's frontmatter, or None.

    Composed by the C parser when the platform has it, as the loader read
    the file: the pure-Python one took most of a ``validate`` run with many
    findings (docs/performance.md); only lines are read, which both count alike.
    """
    import yaml

    from mif_rdf.source.markdown import FrontmatterError, split_frontmatter

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(split_frontmatter(path.read_text(encoding="utf-8")).frontmatter, Loader=loader)
    except (OSError, UnicodeError, FrontmatterError, yaml.YAMLError, RecursionError):
        return None
    return node


def _key_line(node: Any, key: str) -> int | None:
    """The file line (1-based, the opening ``---`` is line 1) of the deepest node of ``key`` found."""
    import yaml

    found = None
    for name, index in _KEY_STEP.findall(key):
        if node is None:
            break
        if name and isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == name), None)
            if pair is None:
                break
            found, node = pair[0], pair[1]
        elif not name and isinstance(node, yaml.SequenceNode) and node.value:
            position = int(index) if index else 0
            if position >= len(node.value):
                break
            found = node = node.value[position]
        else:
            break
    return None if found is None else found.start_mark.line + 2
