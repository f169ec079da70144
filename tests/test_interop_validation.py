"""Issue 17, item 5: validation catches what the upstream schema and rules catch, one rule per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import memory_text, write_file
from conftest import validate_but_spec_dates as validate
from mif_rdf import load_bundle
from test_validation_rules import _base, _bundle, _set

E, W = "error", "warning"
#: rule -> (change to the level-3 base memory, key path, severity, level)
CASES = {
    "tags-list": (_set("tags", "a, b"), "tags", E, 2),
    "relationship-keys": (_set("relationships.0.note", "why"), "relationships[0]", E, 2),
    "embedding-keys": (_set("embedding.provider", "openai"), "embedding", E, 3),
    "entity-name": (_set("entity", {"entity_type": "Person"}), "entity", W, 2),
    "ontology-id": (_set("ontology", {"version": "1.0.0"}), "ontology", E, 2),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_breaking_one_schema_rule_gives_exactly_that_result(tmp_path: Path, rule: str) -> None:
    change, key, severity, level = CASES[rule]
    frontmatter = _base()
    change(frontmatter)
    report = validate(_bundle(tmp_path, frontmatter), level=3)
    found = [(r.rule, r.key, r.severity.value, r.level) for r in report.results]
    assert found == [(rule, key, severity, level)], report.to_text()
    assert validate(_bundle(tmp_path, frontmatter), level=level - 1).results == [] if level > 1 else True


def test_the_mirror_check_normalizes_types_as_the_loader_does(tmp_path: Path) -> None:
    frontmatter = _base()
    frontmatter["relationships"][0]["type"] = "derivedFrom"  # the body mirror says derived-from
    assert [r.rule for r in validate(_bundle(tmp_path, frontmatter), level=3).results] == [
        "relationship-type-kebab"
    ]  # no mirror error
    frontmatter["relationships"][0]["type"] = "relates-to"  # another type: both sides are reported
    rules = [r.rule for r in validate(_bundle(tmp_path, frontmatter), level=3).results]
    assert rules == ["okf-relationship-mirror", "okf-relationship-mirror"]


@pytest.mark.parametrize("strict", [False, True])
def test_a_cites_target_created_after_its_source(tmp_path: Path, strict: bool) -> None:
    write_file(
        tmp_path, "later.md", memory_text("5f0e2a1c-0000-4000-8000-00000000000b", created="2026-02-01T00:00:00Z")
    )
    write_file(
        tmp_path,
        "source.md",
        memory_text(
            "5f0e2a1c-0000-4000-8000-00000000000a",
            "relationships:\n  - {type: cites, target: /later.md}\n",
            body="\nText.\n\n## Relationships\n\n- cites [Later](/later.md)\n",
            created="2026-01-15T10:30:00Z",
        ),
    )
    report = validate(load_bundle(tmp_path), level=2, strict_temporal=strict)
    found = [(r.path, r.rule, r.key, r.severity.value) for r in report.results]
    assert found == [("source.md", "temporal-derivation", "relationships[0].target", E if strict else W)]


def test_index_and_log_below_the_root_are_reported(tmp_path: Path) -> None:
    write_file(tmp_path, "index.md", "# bundle\n")
    write_file(tmp_path, "log.md", "# log\n")
    write_file(tmp_path, "a.md", memory_text("5f0e2a1c-0000-4000-8000-00000000000a"))
    write_file(tmp_path, "topic/index.md", memory_text("5f0e2a1c-0000-4000-8000-00000000000b"))
    write_file(tmp_path, "topic/deeper/log.md", "# log\n")
    write_file(tmp_path, ".hidden/index.md", "# not the bundle's\n")
    report = validate(load_bundle(tmp_path), level=1)
    found = [(r.path, r.rule, r.severity.value, r.level) for r in report.results]
    assert found == [("topic/index.md", "okf-reserved-name", E, 0), ("topic/deeper/log.md", "okf-reserved-name", E, 0)]


def test_the_turtle_report_lists_each_finding_once(tmp_path: Path) -> None:
    """A SHACL finding is in the report graph once; mif-rdf's own rules are added, each once."""
    from rdflib.namespace import SH

    from mif_rdf.validation.shapes import MIFSH

    frontmatter = _base()
    del frontmatter["type"]
    frontmatter["tags"] = "a, b"
    graph = validate(_bundle(tmp_path, frontmatter), level=3).report_graph()
    shapes = [shape for result in graph.objects(None, SH.result) for shape in graph.objects(result, SH.sourceShape)]
    assert shapes.count(MIFSH["okf-type-required"]) == 1
    assert shapes.count(MIFSH["tags-list"]) == 1
