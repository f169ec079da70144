"""Issue 37.2: one truth about a bundle, told once, in every report format.

Every finding (SHACL or not: broken links, ill-typed literals, bundle rules,
load problems) is in the SHACL report graph; repeated findings are summarised
per rule in the text report (``-v``: all); text and JSON carry ``path:line``.
"""

from __future__ import annotations

import json
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.namespace import RDF, SH

from conftest import EXAMPLES, memory_text, write_file
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF

#: A relationship whose target is in no file: one broken-link warning at the line of ``target:`` (line 7).
BROKEN = "relationships:\n  - type: relates-to\n    target: ./missing.md\n"


def _bundle(root: Path, broken: int) -> Path:
    for i in range(broken):
        write_file(
            root,
            f"m{i}.md",
            memory_text(
                f"0b1f8e2a-4c5d-4e6f-8a9b-0c1d2e3f4a{i:02x}",
                BROKEN,
                body="Body.\n\n## Relationships\n- relates-to [Missing](./missing.md)\n",
            ),
        )
    return root


def _validate(capsys, *argv: object) -> tuple[int, str]:
    code = main(["validate", *map(str, argv)])
    return code, capsys.readouterr().out


def test_text_summarises_a_repeated_rule_and_v_lists_every_finding(tmp_path: Path, capsys) -> None:
    bundle = _bundle(tmp_path, 5)
    code, text = _validate(capsys, bundle)
    assert code == 0
    assert "[link] 5 warnings, for example:" in text
    examples = [line for line in text.splitlines() if line.startswith("  m") and "missing.md" in line]
    assert len(examples) == 3 and all(
        line.startswith(f"  m{i}.md:7: relationships[0].target") for i, line in enumerate(examples)
    )
    assert "  ... and 2 more (-v lists every one)" in text
    assert text.rstrip().endswith("total: 5 findings (0 errors, 5 warnings, 0 notes)")
    code, every = _validate(capsys, bundle, "-v")
    assert sum("does not resolve" in line for line in every.splitlines()) == 5
    _, data = _validate(capsys, bundle, "--format", "json")
    results = json.loads(data)["results"]
    assert len(results) == 5 and {(r["rule"], r["line"]) for r in results} == {("link", 7)}


def test_singular_and_plural(tmp_path: Path, capsys) -> None:
    _, text = _validate(capsys, _bundle(tmp_path, 1))
    assert "1 memory checked at level 3: conforms (0 errors, 1 warning, 0 notes)" in text
    assert "[link] 1 warning:" in text and "total: 1 finding (" in text
    assert "1 warnings" not in text and "1 memories" not in text


def test_every_finding_is_a_validation_result_with_a_mif_component(capsys) -> None:
    """The shipped examples: the broken link and the spec's dates, absent from the report graph before, are in it."""
    _, data = _validate(capsys, EXAMPLES, "--format", "json")
    findings = json.loads(data)["results"]
    _, turtle = _validate(capsys, EXAMPLES, "--format", "turtle")
    graph = Graph().parse(data=turtle, format="turtle")
    results = list(graph.subjects(RDF.type, SH.ValidationResult))
    assert len(results) == len(findings) == 5
    components = sorted(str(graph.value(r, SH.sourceConstraintComponent)) for r in results)
    assert components == [str(MIF.BrokenLinkConstraintComponent)] + [str(MIF.IllTypedLiteralConstraintComponent)] * 4
    (link,) = [r for r in results if graph.value(r, SH.sourceConstraintComponent) == MIF.BrokenLinkConstraintComponent]
    assert graph.value(link, SH.focusNode) == Literal("semantic/retry-budget-policy.md")
    assert graph.value(link, SH.resultSeverity) == SH.Warning
    assert graph.value(link, SH.value) == Literal("/semantic/retired-rate-limit-policy.md")
    for result in results:  # the terms the graph uses are declared in the shipped vocabulary
        from mif_rdf.ontology import vocabulary

        assert (graph.value(result, SH.sourceConstraintComponent), RDF.type, None) in vocabulary()


def test_a_load_problem_is_in_the_report_graph_and_a_shacl_finding_once(tmp_path: Path, capsys) -> None:
    write_file(tmp_path, "broken.md", "---\nid: broken\ntype: [semantic\n---\nBroken.\n")
    write_file(tmp_path, "ok.md", memory_text("ok1", "tags: 'a, b'\n"))
    code, data = _validate(capsys, tmp_path, "--format", "json")
    findings = json.loads(data)["results"]
    _, turtle = _validate(capsys, tmp_path, "--format", "turtle")
    graph = Graph().parse(data=turtle, format="turtle")
    assert code == 1 and len(list(graph.subjects(RDF.type, SH.ValidationResult))) == len(findings) >= 2
    assert (None, SH.sourceConstraintComponent, MIF.LoadConstraintComponent) in graph
