"""Findings placed on the line of their key path: the C YAML composer gives the lines the pure-Python one gave."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mif_rdf import load_bundle
from mif_rdf.validation.report import with_lines
from mif_rdf.validation.run import validate
from synthetic import generate_bundle


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> tuple[Path, list]:
    root = tmp_path_factory.mktemp("lines") / "bundle"
    generate_bundle(root, 40, seed=3)
    return root, validate(load_bundle(root), 3).results


def test_key_lines_are_those_of_the_pure_python_composer(findings, monkeypatch) -> None:
    root, results = findings
    assert hasattr(yaml, "CSafeLoader")  # the platform's PyYAML has libyaml: the fast path is the one tested
    fast = with_lines(results, root)
    monkeypatch.delattr(yaml, "CSafeLoader")
    slow = with_lines(results, root)
    assert [r.line for r in fast] == [r.line for r in slow]
    placed = [(r, before) for r, before in zip(fast, results) if before.line is None and r.line is not None]
    assert len(placed) >= 5
    for result, _ in placed:  # the line holds the key path's last key (or the list item it names)
        last = result.key.split(".")[-1].split("[")[0]
        text = (root / result.path).read_text(encoding="utf-8").splitlines()
        assert last in text[result.line - 1] or text[result.line - 1].lstrip().startswith("-"), (
            result.key,
            result.line,
        )
