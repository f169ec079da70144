"""The notebooks run from top to bottom on the example bundle, and are stored without outputs.

nbclient starts the ``python3`` kernel of ipykernel; jupyter_client runs a
kernel spec whose command is ``python`` with the interpreter running the
tests (``sys.executable``), so the kernel sees the same environment (the
project venv) and the same ``mif_rdf``.  A cell that raises fails the test.
"""
from __future__ import annotations

import nbformat
import pytest
from conftest import REPO
from nbclient import NotebookClient

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def test_there_is_an_exploration_notebook() -> None:
    assert REPO / "notebooks" / "explore.ipynb" in NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_saved_without_outputs(path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs before saving"


@pytest.fixture(scope="module")
def explored() -> nbformat.NotebookNode:
    notebook = nbformat.read(REPO / "notebooks" / "explore.ipynb", as_version=4)
    NotebookClient(notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(REPO / "notebooks")}}).execute()
    return notebook


def _outputs(notebook: nbformat.NotebookNode, mime: str) -> list[str]:
    return [o["data"][mime] for cell in notebook.cells for o in cell.get("outputs", []) if mime in o.get("data", {})]


def test_explore_runs_and_shows_the_bundle_tables_and_pictures(explored) -> None:
    errors = [o for cell in explored.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    html = _outputs(explored, "text/html")
    assert any("Bundle examples" in page and "17 (episodic 4, procedural 3, semantic 10)" in page for page in html)
    assert any("Idempotency Key Policy" in page and "<table" in page for page in html)
    assert any("checked at level 3: conforms" in page and "retired-rate-limit-policy" in page for page in html)  # validation
    assert len(_outputs(explored, "image/png")) == 2  # the freshness curves and the relationship graph
    printed = "".join(o.get("text", "") for cell in explored.cells for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    assert "nodes" in printed and "edges" in printed
