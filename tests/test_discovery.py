"""Discovery patterns (spec 10.8.4) and ``mif-rdf suggest``, on the fixture bundle tests/fixtures/discovery/bundle.

Its ontologies (in the bundle's .mif/ontologies) hold both forms of a
discovery section, a disabled one, a pattern under the threshold, one that does
not compile, one RE2 cannot run and one that suggests nothing; its memories
name them, name an ontology that exists nowhere, or are ``_local``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from rdflib import Dataset, Literal, URIRef
from rdflib.namespace import RDF

from conftest import FIXTURES, write_file
from mif_rdf import load_bundle, suggest
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology.discovery import glob_regex
from mif_rdf.ontology.suggestions import add_suggestions, suggestions_graph_iri
from mif_rdf.ontology.vocabulary import vocabulary_terms

BUNDLE = FIXTURES / "discovery" / "bundle"
STACK = BUNDLE / ".mif" / "ontologies" / "stack.ontology.yaml"


def expected() -> set[tuple[str, str | None, tuple[str, ...], str, int | None, int | None]]:
    """(memory, entity type, namespaces, matched text, line, column), worked out by hand from the files."""
    return {
        ("semantic/database-choice.md", "technology", ("_semantic/entities",), "PostgreSQL", 13, 34),
        (
            "semantic/database-choice.md",
            None,
            ("_procedural/migrations",),
            "database",
            None,
            10,
        ),  # already in _semantic/decisions/...
        ("ops/runbooks/db/failover.md", "runbook", ("_procedural/runbooks",), "ops/runbooks/db/failover.md", None, 1),
        ("ops/runbooks/db/failover.md", None, ("_semantic/decisions", "_procedural/migrations"), "db", None, 14),
        (
            "ops/runbooks/db/failover.md",
            None,
            ("_procedural/rotations",),
            "rotation",
            10,
            18,
        ),  # the lookbehind: fallback engine
        ("episodic/scratch.md", "technology", ("_semantic/entities",), "MySQL", 10, 14),
    }


def test_suggestions_of_the_fixture_bundle() -> None:
    report = suggest(BUNDLE)
    got = {(s.memory, s.entity_type, s.namespaces, s.match, s.line, s.column) for s in report.suggestions}
    assert got == expected()
    # tech-radar has PostgreSQL as an entity (entityType 'Technology') and lives below _semantic/entities:
    # nothing to say; its 'maybe' pattern (confidence 0.5 under the threshold 0.7) never runs
    assert "semantic/tech-radar.md" not in report.by_memory()
    assert (report.memories, report.patterns, sorted(report.ontologies)) == (5, 5, ["stack", "stack-base"])
    for item in report.suggestions:  # positions point at the matched text in the file as it is on disk
        if item.line is not None:
            line = (BUNDLE / item.memory).read_text(encoding="utf-8").split("\n")[item.line - 1]
            assert line[item.column - 1 :].startswith(item.match)
        else:
            assert item.memory[item.column - 1 :].startswith(item.match)
    origin = next(s for s in report.suggestions if s.match == "rotation")
    assert (origin.ontology, origin.ontology_file, origin.pattern_key) == (
        "stack",
        str(STACK),
        "discovery.patterns[4].content_pattern",
    )


def test_problems_name_the_file_and_the_pattern() -> None:
    problems = {(p.path, p.severity.value, p.key): p.message for p in suggest(BUNDLE).problems}
    assert "'(unclosed'" in problems[(str(STACK), "warning", "discovery.patterns[3].content_pattern")]
    assert "suggests nothing" in problems[(str(STACK), "warning", "discovery.patterns[5]")]
    quiet = problems[(str(BUNDLE / ".mif/ontologies/quiet.ontology.yaml"), "info", "discovery.enabled")]
    assert "1 pattern does not run: enabled: false" in quiet
    unresolved = [m for (path, _, key), m in problems.items() if key == "ontology.id"]
    assert len(unresolved) == 1  # one warning per id, naming the memories that use it
    assert "ontology 'no-such-ontology' is not found" in unresolved[0]
    assert "named by 2 memories: episodic/scratch.md, episodic/standup.md" in unresolved[0]
    assert len(problems) == 4


def test_a_loaded_bundle_gives_the_same_suggestions(tmp_path: Path) -> None:
    folder, loaded = suggest(BUNDLE), suggest(load_bundle(BUNDLE, progress=False))
    assert loaded.suggestions == folder.suggestions and loaded.problems == folder.problems


def test_a_hostile_pattern_is_stopped_per_memory_and_the_rest_still_run(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(BUNDLE, bundle)
    text = STACK.read_text(encoding="utf-8").replace(
        '    - content_pattern: "nothing to suggest"\n',
        '    - content_pattern: "^(a|aa)+(?=.)$"\n      suggest_entity: hostile\n',
    )
    (bundle / ".mif/ontologies/stack.ontology.yaml").write_text(text, encoding="utf-8")
    write_file(
        bundle,
        "semantic/aaa.md",
        "---\nid: 0b7c9a52-3f0e-4f0a-9a57-1d3a5b1c0009\ntype: semantic\ncreated: 2026-01-15T09:00:00Z\n"
        "ontology: {id: stack}\n---\n" + "a" * 40 + "!\nMySQL\n",
    )
    report = suggest(bundle, time_limit=0.2)
    stopped = [p for p in report.problems if p.rule == "discovery" and "time limit" in p.message]
    assert [p.path for p in stopped] == ["semantic/aaa.md"]  # only the hostile text; other memories are quick
    assert "'^(a|aa)+(?=.)$'" in stopped[0].message and "stack.ontology.yaml" in stopped[0].message
    assert ("semantic/aaa.md", "MySQL") in {(s.memory, s.match) for s in report.suggestions}
    assert {(s.memory, s.match) for s in report.suggestions} >= {(e[0], e[3]) for e in expected()}


@pytest.mark.parametrize(
    "glob, path, matches",
    [
        ("**/runbooks/**/*.md", "runbooks/a.md", True),
        ("**/runbooks/**/*.md", "x/runbooks/y/z/a.md", True),
        ("**/runbooks/**/*.md", "x/runbook/a.md", False),
        ("*.md", "a/b.md", False),  # * stays inside one folder: the glob matches the whole path
        ("*.md", "b.md", True),
        ("[!a]?.md", "bc.md", True),
        ("[!a]?.md", "ac.md", False),
        ("docs/procedures/**", "docs/procedures/x/y.md", True),
        ("a+b(c).md", "a+b(c).md", True),
    ],
)
def test_file_pattern_globs(glob: str, path: str, matches: bool) -> None:
    assert bool(re.match(glob_regex(glob), path)) is matches


def test_cli_text_json_and_rdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suggest", "--format", "json", str(BUNDLE)]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert {(s["memory"], s["match"], s["line"]) for s in data["suggestions"]} == {
        (e[0], e[3], e[4]) for e in expected()
    }
    assert "(unclosed" in err and "Traceback" not in err
    assert (
        main(["suggest", "-q", "--time-limit", "0.5", str(BUNDLE), "--max-memories", "100"]) == 0
    )  # options anywhere; -q: no warnings
    out, err = capsys.readouterr()
    assert (
        "  entity type runbook, namespace _procedural/runbooks: 'ops/runbooks/db/failover.md' at path column 1; file "
        "pattern" in out
    )
    assert err == ""
    assert out.rstrip().endswith("6 suggestions for 3 of 5 memories (5 patterns of 2 ontologies: stack-base, stack)")
    target = tmp_path / "s.trig"
    assert main(["suggest", str(BUNDLE), "--format", "trig", "--base", "mif://disc/", "-o", str(target), "-q"]) == 0
    dataset = Dataset()
    dataset.parse(target, format="trig")
    graph = dataset.graph(URIRef("mif://disc/#suggestions"))
    assert len(set(graph.subjects(RDF.type, MIF.Suggestion))) == 6
    used = {p for _, p, _ in graph} | set(graph.objects(None, RDF.type))
    assert used <= vocabulary_terms() | {RDF.type}  # every term is declared in the shipped vocabulary
    node = next(graph.subjects(MIF.matchedText, Literal("rotation")))
    assert graph.value(node, MIF.suggestionFor) == URIRef("urn:mif:0b7c9a52-3f0e-4f0a-9a57-1d3a5b1c0003")
    assert (graph.value(node, MIF.matchLine).toPython(), graph.value(node, MIF.matchColumn).toPython()) == (10, 18)
    assert graph.value(node, MIF.contentPattern) == Literal("(?<=on-call )rotation")
    assert main(["suggest", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_with_suggestions_adds_the_graph_but_never_a_local_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.nq"
    assert main(["load", str(BUNDLE), "--with-suggestions", "-o", str(target), "--base", "mif://disc/", "-q"]) == 0
    dataset = Dataset()
    dataset.parse(target, format="nquads")
    graph = dataset.graph(URIRef(suggestions_graph_iri("mif://disc/")))
    memories = set(graph.objects(None, MIF.suggestionFor))
    assert (
        len(memories) == 2 and URIRef("urn:mif:0b7c9a52-3f0e-4f0a-9a57-1d3a5b1c0004") not in memories
    )  # the _local one
    assert Literal("MySQL") not in set(graph.objects(None, MIF.matchedText))  # its text stays here too
    assert main(["export", str(BUNDLE), "--stream", "--with-suggestions", "-o", str(tmp_path / "x.nq")]) == 2
    assert "--with-suggestions" in capsys.readouterr().err
    bundle = load_bundle(BUNDLE, progress=False)
    for _ in range(2):  # adding again replaces the graph
        name = add_suggestions(bundle, suggest(bundle))
        assert len(bundle.dataset.graph(name)) == len(graph)


def test_the_documented_text_and_python_example_are_true(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = (FIXTURES.parent.parent / "docs" / "ontology.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Discovery patterns and `mif-rdf suggest`") : doc.index("## Reasoning")]
    monkeypatch.chdir(FIXTURES.parent.parent)
    assert main(["suggest", "tests/fixtures/discovery/bundle", "-q"]) == 0
    out = capsys.readouterr().out
    shown = re.search(r"```text\n(.*?)\.\.\.\n```", section, re.S).group(1)
    memories = re.split(r"(?m)^(?=\S)", shown)
    assert all(block in out for block in memories if block), shown  # each shown memory block, as printed
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/ontology.md", "exec"), {})  # noqa: S102 - running the documentation is the point
    assert "ops/runbooks/db/failover.md runbook ('_procedural/runbooks',)" in capsys.readouterr().out


def test_generated_bundles_with_discovery_differ_only_by_the_ontology(tmp_path: Path) -> None:
    from synthetic import generate_bundle

    generate_bundle(tmp_path / "plain", 40, seed=3)
    generate_bundle(tmp_path / "disc", 40, seed=3, discovery=True)
    files = {
        p.relative_to(tmp_path / "disc").as_posix(): p.read_bytes()
        for p in (tmp_path / "disc").rglob("*")
        if p.is_file()
    }
    plain = {
        p.relative_to(tmp_path / "plain").as_posix(): p.read_bytes()
        for p in (tmp_path / "plain").rglob("*")
        if p.is_file()
    }
    assert set(files) - set(plain) == {".mif/ontologies/ai-memory.ontology.yaml"}
    assert all(files[name] == data for name, data in plain.items())
    report = suggest(tmp_path / "disc")
    assert report.problems == [] and sorted(report.ontologies) == ["ai-memory", "mif-base"]
    assert {s.ontology for s in report.suggestions} == {"ai-memory", "mif-base"}


@pytest.mark.parametrize(
    "section, rule",
    [
        (
            "  enabled: yes-please\n  patterns: [{content_pattern: x, suggest_entity: t}]",
            "discovery.enabled: must be true or false, not 'yes-please'",
        ),
        ("  enabled: true\n  patterns: 3", "discovery.patterns: must be a list of patterns, not int"),
        (
            "  enabled: true\n  confidence_threshold: 7\n  patterns: [{content_pattern: x, suggest_entity: t}]",
            "discovery.confidence_threshold: must be a number from 0 to 1, not 7; 0.8 is used",
        ),
        (
            "  enabled: true\n  patterns: [{content_pattern: x, file_pattern: y, suggest_entity: t}]",
            "discovery.patterns[0]: needs exactly one of content_pattern and file_pattern",
        ),
        (
            "  enabled: true\n  patterns: [{content_pattern: x, suggest_entity: t, confidence: high}]",
            "discovery.patterns[0].confidence: must be a number from 0 to 1, not 'high'",
        ),
        (
            "  enabled: true\n  content_patterns: [{pattern: 12, namespace: _semantic/x}]",
            "discovery.content_patterns[0].pattern: must be a non-empty string, not 12",
        ),
        (
            "  enabled: true\n  file_patterns: [{pattern: x, namespaces: [1, 2]}]",
            "discovery.file_patterns[0]: suggest_entity and the namespaces must be strings",
        ),
        (
            "  patterns: [{content_pattern: x, suggest_entity: t}]",
            "1 pattern does not run: 'enabled' is not set (the schema's default is false)",
        ),
    ],
)
def test_a_malformed_discovery_section_is_a_warning_naming_the_entry(tmp_path: Path, section: str, rule: str) -> None:
    from mif_rdf.ontology.discovery import discovery_patterns
    from mif_rdf.ontology.loader import read_ontology

    path = write_file(tmp_path, "odd.ontology.yaml", f"ontology: {{id: odd}}\ndiscovery:\n{section}\n")
    patterns, problems = discovery_patterns(read_ontology(path))
    assert [p.path for p in problems] == [str(path)] and rule in problems[0].message, problems
    threshold_only = "confidence_threshold" in section
    assert len(patterns) == (
        1 if threshold_only else 0
    )  # a bad threshold falls back to the default; the rest run nothing
