"""A wheel carries context/, shapes/, ontologies/ and the py.typed marker, and works without the source tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("mif_rdf-*.whl")
    return found


def test_wheel_contains_the_data_folders(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for required in (
        "mif_rdf/data/context/mif-context.jsonld",
        "mif_rdf/data/context/mif-rdf-extension.jsonld",
        "mif_rdf/data/shapes/README.md",
        "mif_rdf/data/ontologies/README.md",
        "mif_rdf/cli/main.py",
        # PEP 561: a user's type checker reads the annotations of the installed package
        "mif_rdf/py.typed",
    ):
        assert required in names, required
    # the bundle generator is a tool of the tests and benchmarks (tests/synthetic.py), not of the library
    assert not [n for n in names if "synthetic" in n]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "mif-rdf = mif_rdf.cli.main:main" in text and "mif = mif_rdf.rdfplugin:MifParser" in text


def test_installed_wheel_loads_a_bundle_without_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    code = (
        "import mif_rdf, mif_rdf.core.resources as r, sys; "
        f"assert mif_rdf.__file__.startswith({str(target)!r}), mif_rdf.__file__; "
        f"assert str(r.data_dir('context')).startswith({str(target)!r}); "
        f"b = mif_rdf.load_bundle({str(EXAMPLES)!r}); print(b.counts()['memories'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "17"
