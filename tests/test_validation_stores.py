"""Validation gives the same report whichever store holds the bundle, but for what Oxigraph rewrites."""
from __future__ import annotations

from pathlib import Path

import pytest

from mif_rdf import load_bundle
from mif_rdf.synthetic import generate_bundle
from mif_rdf.validation.run import validate

from conftest import FIXTURE_BUNDLES


def _findings(root: Path, store: str) -> set[str]:
    return {str(problem) for problem in validate(load_bundle(root, store=store), 3).results}


@pytest.mark.parametrize("name", ["generated", "temporal-bad", "examples"])
def test_oxigraph_finds_what_the_memory_store_finds(name: str, tmp_path: Path) -> None:
    """The one difference: ``accessed: 2023-12-23`` is coerced to xsd:dateTime by the context, and
    Oxigraph stores that ill-typed literal as ``2023-12-23T00:00:00``, which the date pattern flags."""
    root = FIXTURE_BUNDLES.get(name) or generate_bundle(tmp_path / "b", 30, seed=5) and tmp_path / "b"
    memory, oxigraph = _findings(root, "default"), _findings(root, "Oxigraph")  # type: ignore[arg-type]
    assert memory and memory <= oxigraph
    assert all("[citations[].accessed]" in finding for finding in oxigraph - memory)
