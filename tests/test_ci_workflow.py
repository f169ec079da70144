"""docs/ci.md (issue 38, item 3): the GitHub workflow is valid for GitHub (check-jsonschema with
GitHub's schema), the pre-commit hook is valid for pre-commit, and the workflow's own mif-rdf
commands, run in order on a scratch git repository with three commits, fail only on the new error."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO, memory_text, write_file

BIN = Path(sys.executable).parent
DOC = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
WORKFLOW, HOOKS = re.findall(r"^```yaml\n(.*?)^```", DOC, re.S | re.M)
IDS = [f"00000000-0000-4000-8000-00000000000{i}" for i in range(1, 4)]


def git(repo: Path, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_the_workflow_and_the_hook_are_valid_for_their_tools(tmp_path: Path) -> None:
    from pre_commit.clientlib import load_config

    (tmp_path / "ci.yml").write_text(WORKFLOW, encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(tmp_path / "ci.yml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / ".pre-commit-config.yaml").write_text(HOOKS, encoding="utf-8")
    hooks = [hook for repo in load_config(str(tmp_path / ".pre-commit-config.yaml"))["repos"] for hook in repo["hooks"]]
    assert [hook["entry"] for hook in hooks] == ["mif-rdf validate memories --baseline .mif-baseline.json"]


def test_the_workflow_commands_fail_only_on_the_new_error(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    bundle = repo / "memories"
    write_file(
        bundle,
        "a.md",
        memory_text(
            IDS[0],
            "relationships:\n  - type: relates-to\n    target: ./gone.md\n",
            body="A.\n\n## Relationships\n- relates-to [Gone](./gone.md)\n",
        ),
    )  # a known warning
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    write_file(bundle, "b.md", memory_text(IDS[1], "title: B\n"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two: main")
    git(repo, "checkout", "-qb", "feature")
    write_file(
        bundle, "c.md", memory_text(IDS[2], "relationships:\n  - type: relates-to\n    target: ./b.md\n")
    )  # no body mirror: an error
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "three: the pull request")
    steps = [
        step["run"]
        for step in yaml.safe_load(WORKFLOW)["jobs"]["validate"]["steps"]
        if "mif-rdf " in step.get("run", "")
    ]
    assert len(steps) == 3
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", GITHUB_BASE_REF="main")
    results = []
    for command in steps:  # a scratch repository has no remote: the base branch is local
        done = subprocess.run(
            ["bash", "-c", command.replace("origin/", "")],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "Traceback" not in done.stderr
        results.append(done)
    baseline, diff, gate = results
    assert baseline.returncode == 0 and diff.returncode == 0, baseline.stderr + diff.stderr
    assert gate.returncode == 1
    annotations = [line for line in gate.stdout.splitlines() if line.startswith("::")]
    assert (
        annotations
        and all("c.md" in line for line in annotations)
        and any(line.startswith("::error") for line in annotations)
    )
    markdown = (repo / "out" / "knowledge-diff.md").read_text(encoding="utf-8")
    assert "| `c.md` | added |" in markdown and "`main` → `HEAD`" in markdown
    git(repo, "checkout", "-q", "main")  # the base branch itself passes against its own baseline
    again = subprocess.run(["bash", "-c", steps[2]], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout
