"""Every shell example in the README, CONTRIBUTING.md and docs/ runs as written, from the repository root.

Blocks fenced as ``sh`` are run line by line (``\\`` continues a line) in a
copy of the repository (its tracked files), with the project's console
script on PATH and a real Oxigraph server where a line names the local store
address.  A line ends with ``# exit N`` when N is the exit code it documents
(validation finding errors, say); otherwise it must exit 0.  ``make`` lines
are CI's own commands (``.ci/run`` runs them) and are not run again here.
Output examples are fenced as ``text``; other tools' commands that need
servers this suite cannot start (Jena, GraphDB, Virtuoso) as ``console``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from oxigraph_server import OxigraphServer
from serve_process import ServeProcess

DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
STORE_ADDRESS = re.compile(r"(?:localhost|127\.0\.0\.1):7878")
#: where the docs show ``mif-rdf serve examples`` listening
SERVE_ADDRESS = re.compile(r"(?:localhost|127\.0\.0\.1):7879")
EXPECTED_EXIT = re.compile(r"#\s*exit (\d+)\s*$")


def shell_lines(path: Path) -> list[str]:
    """The commands of every ``sh`` block of a markdown file, continuation lines joined."""
    commands: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M):
        pending = ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            command = (pending + line).strip()
            pending = ""
            if command and not command.startswith("#") and not command.startswith("make "):
                commands.append(command)
    return commands


CASES = [
    pytest.param(path, command, id=f"{path.name}:{command[:60]}") for path in DOCS for command in shell_lines(path)
]


def test_the_docs_have_shell_examples() -> None:
    assert len(CASES) > 40
    assert {path.name for path, _ in (case.values for case in CASES)} >= {
        "README.md",
        "cli.md",
        "queries.md",
        "export.md",
    }


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files, as a user's clone has them (so outputs land in a scratch copy)."""
    root = tmp_path_factory.mktemp("clone")
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    )
    for name in filter(None, listed):
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_file():
            shutil.copy2(REPO / name, target)
    return root


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    server = OxigraphServer(tmp_path_factory.mktemp("store") / "data")
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize(("path", "command"), CASES)
def test_shell_example_runs(path: Path, command: str, checkout: Path, store: OxigraphServer) -> None:
    expected = int(EXPECTED_EXIT.search(command).group(1)) if EXPECTED_EXIT.search(command) else 0
    command = STORE_ADDRESS.sub(f"127.0.0.1:{store.port}", command)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1")
    done = subprocess.run(["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == expected, (
        f"{path.name}: {command}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    )
    assert "Traceback" not in done.stderr


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """Every ``python`` block of a markdown file, with the line it starts on."""
    text = path.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


PYTHON_CASES = [
    pytest.param(path, code, id=f"{path.name}:{line}") for path in DOCS for line, code in python_blocks(path)
]


def test_the_docs_have_python_examples() -> None:
    assert len(PYTHON_CASES) >= 20
    assert {path.name for path, _ in (case.values for case in PYTHON_CASES)} >= {"README.md", "queries.md", "export.md"}


@pytest.fixture(scope="module")
def served(checkout: Path):
    """``mif-rdf serve examples``, for the examples that query the endpoint the docs show on port 7879."""
    with ServeProcess(checkout / "examples") as server:
        yield server


@pytest.mark.parametrize(("path", "code"), PYTHON_CASES)
def test_python_example_runs(
    path: Path, code: str, checkout: Path, store: OxigraphServer, request: pytest.FixtureRequest
) -> None:
    """Each block runs alone in a fresh interpreter, from the root of a clone, against real servers it names."""
    code = STORE_ADDRESS.sub(f"127.0.0.1:{store.port}", code)
    if SERVE_ADDRESS.search(code):
        served: ServeProcess = request.getfixturevalue("served")
        code = SERVE_ADDRESS.sub(served.url.split("//", 1)[1].rstrip("/"), code)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{path.name}:\n{code}\nexit {done.returncode}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
