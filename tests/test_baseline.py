"""A validation baseline for CI (issue 38, item 3): known findings do not fail the run, new ones do.

The oracle is the plain JSON report of each state of the bundle, compared by the
test itself as a multiset of (rule, file, key, value): what is new and what is
fixed must be exactly that difference, whatever lines moved in between."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from conftest import memory_text, write_file
from mif_rdf import Problem, Severity
from mif_rdf.validation import ValidationReport
from mif_rdf.validation.baseline import SARIF_FINGERPRINT, compare, fingerprint, known
from test_validation_formats import sarif_schema

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MIF_RDF, "validate", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def findings(cwd: Path) -> Counter:
    """The bundle's findings by the plain JSON report, as a multiset of (rule, path, key, value)."""
    done = run(cwd, "memories", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    return Counter(
        (r.get("rule") or "load", r["path"], r.get("key"), json.dumps(r.get("value")))
        for r in json.loads(done.stdout)["results"]
    )


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    bundle = tmp_path / "memories"
    write_file(bundle, "good.md", memory_text("0b1f8e2a-4c5d-4e6f-8a9b-0c1d2e3f4a5b"))
    write_file(bundle, "broken.md", "---\nid: broken\ntype: [semantic\ncreated: 2026-01-15T10:30:00Z\n---\nBroken.\n")
    write_file(
        bundle,
        "odd.md",
        memory_text("odd-one", "relationships:\n  - type: relates-to\n    target: ./missing.md\n    strength: 7\n"),
    )
    return tmp_path


def problem(**changes) -> Problem:
    fields = {
        "path": "a.md",
        "message": "bad",
        "severity": Severity.ERROR,
        "key": "relationships[0].strength",
        "line": 7,
        "rule": "strength-range",
        "value": 7,
    }
    return Problem(**{**fields, **changes})


def test_fingerprint_ignores_line_and_wording_but_not_rule_file_key_or_value() -> None:
    base = fingerprint(problem())
    assert fingerprint(problem(line=12, message="reworded", severity=Severity.WARNING)) == base
    for change in (
        {"rule": "other"},
        {"path": "b.md"},
        {"key": "relationships[1].strength"},
        {"value": 8},
        {"value": "7"},
    ):
        assert fingerprint(problem(**change)) != base, change


def test_equal_fingerprints_match_as_a_multiset() -> None:
    twice = ValidationReport(
        level=3,
        results=[
            problem(rule=None, key=None, value=None, message="one"),
            problem(rule=None, key=None, value=None, message="two"),
        ],
        memories=1,
    )
    gone = problem(path="gone.md")
    compared = compare(twice, [known(twice.results[0]), known(gone)])
    assert (len(compared.new), len(compared.unchanged)) == (1, 1)
    assert [k.path for k in compared.absent] == ["gone.md"]


def test_cli_baseline_reports_only_new_findings_and_fails_only_on_new_errors(workspace: Path) -> None:
    before = findings(workspace)
    assert sum(before.values()) >= 3  # a YAML error, a broken link, an out-of-range strength
    base = workspace / "ci" / "baseline.json"
    written = run(workspace, "--write-baseline", "ci/baseline.json", "memories")
    assert written.returncode == 0, written.stdout + written.stderr  # a first baseline accepts what is there
    assert f"0 new, 0 fixed, {sum(before.values())} unchanged" in written.stdout
    assert len(json.loads(base.read_text())["findings"]) == sum(before.values())
    again = run(workspace, "memories", "--baseline", "ci/baseline.json")
    assert again.returncode == 0 and "broken.md" not in again.stdout

    # unrelated edits move every line; one new error, one finding fixed
    odd = workspace / "memories" / "odd.md"
    odd.write_text(odd.read_text().replace("created:", "title: Odd\ntags: [x]\ncreated:"), encoding="utf-8")
    write_file(workspace / "memories", "broken.md", memory_text("7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"))
    write_file(
        workspace / "memories",
        "new.md",
        memory_text("new-one", "relationships:\n  - type: relates-to\n    target: ./nowhere.md\n    strength: 9\n"),
    )
    after = findings(workspace)
    new, fixed = after - before, before - after
    assert new and fixed and set(after & before)
    compared = run(workspace, "memories", "--baseline", "ci/baseline.json")
    assert compared.returncode == 1, compared.stdout + compared.stderr
    assert (
        f"baseline: {sum(new.values())} new, {sum(fixed.values())} fixed, {sum((after & before).values())} unchanged"
        in compared.stdout
    )
    assert "new.md" in compared.stdout and "odd.md" not in compared.stdout and "broken.md" not in compared.stdout

    as_json = json.loads(run(workspace, "--format", "json", "memories", "--baseline", str(base)).stdout)
    assert (
        Counter(
            (r.get("rule") or "load", r["path"], r.get("key"), json.dumps(r.get("value"))) for r in as_json["results"]
        )
        == new
    )
    assert as_json["baseline"]["fixed"] == sum(fixed.values())
    assert {k["path"] for k in as_json["baseline"]["fixed_findings"]} == {path for _, path, _, _ in fixed}

    github = run(workspace, "memories", "--format", "github", "--baseline", str(base))
    annotations = [line for line in github.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == sum(new.values()) and all("new.md" in line for line in annotations)


def test_sarif_carries_baseline_state_and_fingerprints_and_reads_back_as_a_baseline(workspace: Path) -> None:
    before = findings(workspace)
    assert run(workspace, "memories", "--write-baseline", "base.json").returncode == 0
    write_file(workspace / "memories", "broken.md", memory_text("7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"))
    write_file(
        workspace / "memories",
        "new.md",
        memory_text(
            "new-one",
            "relationships:\n  - type: relates-to\n    target: ./nowhere.md\n",
            body="New.\n\n## Relationships\n- relates-to [Nowhere](./nowhere.md)\n",
        ),
    )
    after = findings(workspace)
    done = run(workspace, "memories", "--format", "sarif", "--baseline", "base.json", "-o", "out.sarif")
    assert done.returncode == 0, done.stderr  # the new finding is a warning (a broken link): no new error
    document = json.loads((workspace / "out.sarif").read_text())
    jsonschema.validate(document, sarif_schema())
    states = Counter(r["baselineState"] for r in document["runs"][0]["results"])
    assert states == Counter(
        {
            "new": sum((after - before).values()),
            "unchanged": sum((after & before).values()),
            "absent": sum((before - after).values()),
        }
    )
    assert all(SARIF_FINGERPRINT in r["partialFingerprints"] for r in document["runs"][0]["results"])
    absent = [r for r in document["runs"][0]["results"] if r["baselineState"] == "absent"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in absent} == {
        f"memories/{path}" for _, path, _, _ in before - after
    }

    # the SARIF report is itself a baseline: against it, nothing is new and nothing fixed
    reread = run(workspace, "memories", "--baseline", "out.sarif")
    assert reread.returncode == 0 and f"0 new, 0 fixed, {sum(after.values())} unchanged" in reread.stdout


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"something": "else"}',
        '{"mif-rdf-baseline": 99, "findings": []}',
        '{"runs": [{"results": [{"ruleId": "x"}]}]}',
    ],
)
def test_a_bad_baseline_is_a_clear_error_naming_the_file(workspace: Path, content: str) -> None:
    (workspace / "bad.json").write_text(content, encoding="utf-8")
    done = run(workspace, "memories", "--baseline", "bad.json")
    assert done.returncode == 2 and "bad.json" in done.stderr and "Traceback" not in done.stderr
