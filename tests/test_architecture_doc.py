"""docs/architecture.md and CONTRIBUTING.md stay true to the tree (issue 30, item 6).

The map names every package of ``src/mif_rdf``, repeats the import contract
of ``pyproject.toml`` exactly, and its Python runs; any repository path the
README, CONTRIBUTING.md or docs/ name in a code span exists.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import REPO

ARCHITECTURE = REPO / "docs" / "architecture.md"
CONTRIBUTING = REPO / "CONTRIBUTING.md"
PACKAGE = REPO / "src" / "mif_rdf"
TOP_FOLDERS = ("src", "tests", "shapes", "benchmarks", "docs", "notebooks", "ontologies", "context", "examples")


def blocks(path: Path, fence: str) -> list[str]:
    return re.findall(rf"^```{fence}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_the_map_names_every_package_and_public_module() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(packages) >= 13 and "rdfplugin.py" in modules
    assert [p for p in packages if f"{p}/" not in text] == []
    assert [m for m in modules if m not in text] == []


def test_the_map_repeats_the_import_contract() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in contracts["contracts"] if c["type"] == "layers"]
    assert layers[0] == "cli" and layers[-1] == "core"
    assert [block.split() == " ".join(layers).split() for block in blocks(ARCHITECTURE, "text")].count(True) == 1, (
        "docs/architecture.md must hold the layers of pyproject.toml, one per line, in a text block"
    )
    assert {c["type"] for c in contracts["contracts"]} == {"layers", "acyclic_siblings", "forbidden"}
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "acyclic_siblings" in text and "`forbidden` contract" in text


@pytest.mark.parametrize("path", [ARCHITECTURE, CONTRIBUTING], ids=lambda p: p.name)
def test_python_examples_run_from_the_repository_root(path: Path) -> None:
    for code in blocks(path, "python"):
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{path.name}:\n{code}\n{done.stderr[-2000:]}"


def repository_paths(path: Path) -> set[str]:
    """The paths of this repository a document names in code spans (``src/mif_rdf/...``, ``tests/...``)."""
    spans = re.findall(r"`([^`\s]+)`", path.read_text(encoding="utf-8"))
    return {s.split("::")[0] for s in spans if s.split("/")[0] in TOP_FOLDERS and "/" in s and "*" not in s}


DOCUMENTS = [REPO / "README.md", CONTRIBUTING, *sorted((REPO / "docs").glob("*.md"))]
NAMED = sorted({(d.relative_to(REPO).as_posix(), p) for d in DOCUMENTS for p in repository_paths(d)})


def test_the_docs_name_repository_paths() -> None:
    assert len(NAMED) > 40
    assert ("docs/architecture.md", "src/mif_rdf/core/formats.py") in NAMED


@pytest.mark.parametrize(("doc", "named"), NAMED, ids=[f"{d}:{p}" for d, p in NAMED])
def test_a_path_the_docs_name_exists(doc: str, named: str) -> None:
    """A file moved or split takes the docs with it (the flat layout's ``src/mif_rdf/fastyaml.py`` is gone)."""
    assert (REPO / named).exists(), f"{doc} names {named}, which does not exist"
