"""``suggest`` on the discovery sections of the published ontologies (spec 10.8.4).

For every pattern of every published ontology with a discovery section (the
corpus and the ai-memory profile) a memory is written whose body (content
pattern) or path (file pattern) holds a text built from the pattern itself;
Python's ``re`` confirms the text matches (the oracle), and ``suggest`` must
report the pattern's entity type and namespaces for that memory at the
position ``re`` finds.  A twin memory that already has what the pattern
suggests gets nothing from it; the disabled ontology suggests nothing.  The
main suite proves the same machinery on the project's own ontologies
(tests/test_discovery.py).
"""

from __future__ import annotations

import re
import re._parser as sre_parse  # the pattern's own syntax tree: a text it matches, without guessing
from pathlib import Path
from typing import Any

import pytest
import yaml
from upstream import AI_MEMORY_ONTOLOGY, CORPUS

from conftest import write_file
from mif_rdf import suggest
from mif_rdf.core.patterns import compile_pattern
from mif_rdf.ontology.discovery import DEFAULT_THRESHOLD, glob_regex

ONTOLOGY_FILES = sorted(
    p for p in CORPUS.glob("*.ontology.yaml") if "discovery" in yaml.safe_load(p.read_text(encoding="utf-8"))
) + [AI_MEMORY_ONTOLOGY]


def sample(pattern: str) -> str:
    """A short text ``pattern`` matches, built from its syntax tree (first branch, fewest repeats)."""

    def build(items: Any) -> str:
        out = []
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(arg))
            elif name == "BRANCH":
                out.append(build(arg[1][0]))
            elif name == "SUBPATTERN":
                out.append(build(arg[-1]))
            elif name in ("MAX_REPEAT", "MIN_REPEAT"):
                out.append(build(arg[2]) * max(arg[0], 1))
            elif name == "IN":
                kind, value = arg[0]
                out.append(
                    {
                        "LITERAL": lambda: chr(value),
                        "RANGE": lambda: chr(value[0]),
                        "CATEGORY": lambda: {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(value), "a"),
                    }[str(kind)]()
                )
            elif name == "CATEGORY":
                out.append({"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(arg), "a"))
            elif name == "ANY":
                out.append(" ")
            elif name != "AT":
                raise AssertionError(f"no sample for {name} in {pattern!r}")
        return "".join(out)

    return build(sre_parse.parse(pattern))


def published_patterns() -> list[tuple[Path, str, int, dict[str, Any]]]:
    found = []
    for path in ONTOLOGY_FILES:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        section = data["discovery"]
        for key in ("patterns", "content_patterns", "file_patterns"):
            for index, entry in enumerate(section.get(key) or []):
                found.append((path, data["ontology"]["id"], key, index, entry, section))
    return found


PATTERNS = published_patterns()


def test_the_corpus_has_discovery_sections_in_both_forms() -> None:
    assert len(ONTOLOGY_FILES) == 9 and len(PATTERNS) > 60
    assert {key for _, _, key, *_ in PATTERNS} == {"patterns", "content_patterns", "file_patterns"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[Any, ...]]]:
    """One memory per published pattern (and a twin that already has its suggestion), naming its ontology."""
    root = tmp_path_factory.mktemp("discovery")
    cases: dict[str, tuple[Any, ...]] = {}
    for n, (path, onto, key, _index, entry, section) in enumerate(PATTERNS):
        content = key == "content_patterns" or (key == "patterns" and "content_pattern" in entry)
        source = entry.get("content_pattern") or entry.get("file_pattern") or entry["pattern"]
        entity = entry.get("suggest_entity")
        namespaces = (
            [entry["suggest_namespace"]]
            if "suggest_namespace" in entry
            else [entry["namespace"]]
            if "namespace" in entry
            else entry.get("namespaces", [])
        )
        if content:
            text = sample(source)
            relpath = f"notes/case-{n}.md"
        else:
            text = "Nothing to see here."
            probe = sample(source) if key == "file_patterns" else None
            relpath = (
                f"x/runbooks/y/case-{n}.md"
                if "runbooks" in source
                else f"x/docs/procedures/case-{n}.md"
                if "procedures" in source
                else f"z/{probe}/case-{n}.md"
            )
        oracle = re.search(
            source if content or key == "file_patterns" else glob_regex(source), f" {text} " if content else relpath
        )
        assert oracle is not None, (source, text, relpath)
        body = f"# Case {n}\n\nFirst line.\n {text} \n"
        for twin, (namespace, entities) in enumerate(
            (
                ("_semantic/elsewhere", []),
                (namespaces[0] if namespaces else "_semantic/elsewhere", [entity] if entity else []),
            )
        ):
            twin_path = relpath if not twin else relpath.replace(".md", "-has.md")
            frontmatter = {
                "id": f"00000000-0000-4000-8000-{n:06d}{twin:06d}",
                "type": "semantic",
                "created": "2026-01-01T00:00:00Z",
                "ontology": {"id": onto},
                "namespace": namespace,
            }
            if entities:
                frontmatter["entities"] = [{"name": "x", "entityType": entities[0]}]
            write_file(root, twin_path, "---\n" + yaml.safe_dump(frontmatter, sort_keys=False) + "---\n" + body)
            cases[twin_path] = (path, onto, source, entity, namespaces, section, content, twin, oracle)
    return root, cases


@pytest.fixture(scope="module")
def report(bundle: tuple[Path, dict[str, tuple[Any, ...]]]) -> Any:
    return suggest(bundle[0], ontologies=[AI_MEMORY_ONTOLOGY], search_path=[CORPUS])


def test_every_published_pattern_compiles_and_runs_on_re2(report: Any) -> None:
    assert [p for p in report.problems if p.severity.value != "info"] == []
    notes = [p for p in report.problems if p.severity.value == "info"]
    assert [Path(p.path).name for p in notes] == ["research.ontology.yaml"]  # the one with enabled: false
    for _, _, _key, _, entry, _ in PATTERNS:  # linear time for all of them: none needs the time-limited fallback
        source = entry.get("content_pattern") or entry.get("pattern") or glob_regex(entry["file_pattern"])
        assert compile_pattern(source).engine == "re2", source


def test_each_pattern_suggests_what_it_says_where_re_finds_it(
    bundle: tuple[Path, dict[str, tuple[Any, ...]]], report: Any
) -> None:
    root, cases = bundle
    grouped = report.by_memory()
    checked = []
    for relpath, (path, onto, source, entity, namespaces, section, content, twin, oracle) in cases.items():
        mine = [s for s in grouped.get(relpath, []) if s.ontology_file == str(path) and s.pattern == source]
        runs = section.get("enabled") is True and section.get("confidence_threshold", DEFAULT_THRESHOLD) <= 1
        if not runs:
            assert mine == [], relpath
            continue
        wanted_ns = tuple(n for n in dict.fromkeys(namespaces) if not (twin and n == namespaces[0]))
        wanted_entity = None if twin else entity
        if twin and not wanted_ns and not wanted_entity:
            assert mine == [], relpath  # the memory has it already: nothing to say
            continue
        assert len(mine) == 1, (relpath, source, grouped.get(relpath))
        got = mine[0]
        assert (got.entity_type, got.namespaces, got.ontology) == (wanted_entity, wanted_ns, onto)
        assert got.match == oracle.group()
        if content:  # the oracle searched " text " on the fourth body line, which is file line 4 + the frontmatter's
            line = (root / relpath).read_text(encoding="utf-8").split("\n")[got.line - 1]
            assert line == f" {sample(source)} " and got.column == oracle.start() + 1
        else:
            assert got.line is None and relpath[got.column - 1 :].startswith(got.match)
        checked.append(twin)
    enabled = [case for case in PATTERNS if case[5].get("enabled") is True]
    assert checked.count(0) == len(enabled) > 60  # every pattern that runs was seen to suggest, at the place re finds
    assert checked.count(1) > 0  # a twin keeps what it lacks (mif-base's second namespace, an entity type)
