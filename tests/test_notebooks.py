"""The notebooks run from top to bottom on the example bundle, and read well; they are stored without outputs.

nbclient starts the ``python3`` kernel of ipykernel; jupyter_client runs a
kernel spec whose command is ``python`` with the interpreter running the
tests (``sys.executable``), so the kernel sees the same environment (the
project venv) and the same ``mif_rdf``.  A cell that raises fails the test.
The reader's checks work on the executed notebook: every table or picture
sits under a heading of its own that names its columns, and the
relationship picture (built by the public :func:`relationship_figure`) has
its legends, full titles and boxes that do not overlap.
"""

from __future__ import annotations

import ast
import html
import importlib
import re
import sys
import tomllib
from collections import Counter
from html.parser import HTMLParser
from importlib.metadata import version
from itertools import combinations

import nbformat
import pytest
from nbclient import NotebookClient
from rdflib import Graph

from conftest import EXAMPLES, REPO
from mif_rdf import MifRdfError, load_bundle
from mif_rdf.notebook.graph_figure import WRAP, relationship_figure
from mif_rdf.queries import TRUST_LEVELS, compact_iri, relationship_edges

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
#: The heading of each figure of explore.ipynb, in order.
FIGURES = (
    "Memories by base type and by namespace, as bars",
    "Validity timeline",
    "Trust levels and confidence",
    "Freshness over time",
    "The relationship graph",
)
_SHOWN = ("display_data", "execute_result", "stream")


def test_there_is_an_exploration_notebook() -> None:
    assert REPO / "notebooks" / "explore.ipynb" in NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_saved_without_outputs(path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs before saving"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_uses_only_the_public_api(path) -> None:
    """Every name a notebook imports from mif_rdf is in its module's ``__all__``."""
    notebook = nbformat.read(path, as_version=4)
    imports = [
        node
        for cell in notebook.cells
        if cell.cell_type == "code"
        for node in ast.walk(ast.parse(cell.source))
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    modules = [
        (node.module, [alias.name for alias in node.names]) for node in imports if isinstance(node, ast.ImportFrom)
    ]
    modules += [(alias.name, []) for node in imports if isinstance(node, ast.Import) for alias in node.names]
    ours = [(module, names) for module, names in modules if module and module.split(".")[0] == "mif_rdf"]
    assert ours
    for module, names in ours:
        public = getattr(importlib.import_module(module), "__all__", None)
        assert public is not None, f"{path.name} imports from {module}, which declares no public API (__all__)"
        assert set(names) <= set(public), f"{path.name}: {sorted(set(names) - set(public))} are not public in {module}"


def test_the_notebook_extra_installs_what_opens_and_runs_a_notebook() -> None:
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["notebook"]
    names = {re.split(r"[<>=\[ ]", requirement)[0] for requirement in extra}
    assert (
        names & {"jupyterlab", "notebook"} and {"nbconvert", "ipykernel", "pandas", "matplotlib", "networkx"} <= names
    )
    for name in names:  # installed here too (the dev extra holds the notebook extra)
        assert version(name)


@pytest.fixture(scope="module")
def explored() -> nbformat.NotebookNode:
    notebook = nbformat.read(REPO / "notebooks" / "explore.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(REPO / "notebooks")}}
    ).execute()
    return notebook


def _outputs(notebook: nbformat.NotebookNode, mime: str) -> list[str]:
    return [o["data"][mime] for cell in notebook.cells for o in cell.get("outputs", []) if mime in o.get("data", {})]


def test_explore_runs_and_shows_the_bundle_tables_and_pictures(explored) -> None:
    errors = [o for cell in explored.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    html = _outputs(explored, "text/html")
    assert any("Bundle examples" in page and "17 (episodic 4, procedural 3, semantic 10)" in page for page in html)
    assert any("Idempotency Key Policy" in page and "<table" in page for page in html)
    assert any(
        "checked at level 3: conforms" in page and "retired-rate-limit-policy" in page for page in html
    )  # validation
    assert any("Publish Ledger Events Through a Transactional Outbox" in page for page in html)  # titles in full
    assert len(_outputs(explored, "image/png")) == len(FIGURES)


def _headed_outputs(notebook: nbformat.NotebookNode) -> list[tuple[str, nbformat.NotebookNode]]:
    """Each code cell that shows something, with the markdown cell right above it (or "" if none)."""
    headed, above = [], ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            above = cell.source
        elif cell.cell_type == "code":
            if any(o["output_type"] in _SHOWN for o in cell.outputs):
                headed.append((above, cell))
            above = ""
    return headed


def _last_heading(markdown: str) -> str | None:
    headings = [line.lstrip("#").strip() for line in markdown.splitlines() if re.match(r"#{1,6} ", line)]
    return headings[-1] if headings else None


def test_every_output_has_a_heading_of_its_own(explored) -> None:
    headed = _headed_outputs(explored)
    assert len(headed) >= 10  # not vacuous
    for markdown, cell in headed:
        assert _last_heading(markdown), f"no heading right above the output of:\n{cell.source}"
        assert sum(o["output_type"] in _SHOWN for o in cell.outputs) == 1, (
            f"several outputs under one heading:\n{cell.source}"
        )
    headings = [_last_heading(markdown) for markdown, _ in headed]
    assert len(set(headings)) == len(headings), headings  # two tables are never told apart by position alone
    by_call = {
        call: _last_heading(markdown)
        for markdown, cell in headed
        for call in ("supersession_chain(", "current_version(", "conflicts(")
        if call in cell.source
    }
    assert by_call == {
        "supersession_chain(": "Supersession chain of the retired policy",
        "current_version(": "Current version of the retired policy",
        "conflicts(": "Conflicting memories",
    }


class _HeaderCells(HTMLParser):
    """The text of every ``<th>`` in a table's ``<thead>``: its column names (and index names)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self._in_head = self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._in_head |= tag == "thead"
        if self._in_head and tag == "th":
            self._in_cell = True
            self.names.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_head &= tag != "thead"
        self._in_cell &= tag != "th"

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.names[-1] += data.strip()


def test_the_statistics_tables_explain_their_columns(explored) -> None:
    statistics = False
    explained = 0
    for markdown, cell in _headed_outputs(explored):
        statistics = markdown.startswith("## Statistics") or (statistics and not markdown.startswith("## "))
        if not statistics or _figure(cell):
            continue
        parser = _HeaderCells()
        parser.feed(next(o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})))
        columns = [name for name in parser.names if name]
        assert columns, cell.source
        assert [c for c in columns if f"`{c}`" not in markdown] == [], f"columns not explained above:\n{cell.source}"
        explained += 1
    assert explained == 4


@pytest.fixture(scope="module")
def figure():
    return relationship_figure(load_bundle(EXAMPLES))


def test_relationship_figure_has_legends_for_memory_and_relationship_types(figure) -> None:
    legends = {
        legend.get_title().get_text(): [text.get_text() for text in legend.get_texts()] for legend in figure.legends
    }
    relationships = sorted(
        {compact_iri(edge["relationship"]).removeprefix("mif:") for edge in relationship_edges(load_bundle(EXAMPLES))}
    )
    assert legends == {
        "memory type": ["semantic memory", "episodic memory", "procedural memory", "entity"],
        "relationship": relationships,
    }
    assert "team:reinforces" in relationships  # a relationship type of the bundle's own ontology keeps its prefix


def test_relationship_figure_shows_full_titles_in_boxes_that_do_not_overlap(figure) -> None:
    bundle = load_bundle(EXAMPLES)
    edges = relationship_edges(bundle)
    titles = {row["source"]: row["source_label"] for row in edges} | {
        row["target"]: row["target_label"] for row in edges
    }
    (axes,) = figure.axes
    boxes = {text.get_gid(): text for text in axes.texts}
    assert {gid: " ".join(text.get_text().split("\n")) for gid, text in boxes.items()} == titles
    assert (
        max(len(line) for text in boxes.values() for line in text.get_text().split("\n"))
        <= WRAP
        < max(map(len, titles.values()))
    )
    assert len(axes.patches) == len(edges)  # one arrow per relationship
    figure.draw_without_rendering()  # places the boxes
    extents = {gid: text.get_bbox_patch().get_window_extent() for gid, text in boxes.items()}
    overlapping = [(a, b) for a, b in combinations(extents, 2) if extents[a].overlaps(extents[b])]
    assert overlapping == []


def test_relationship_figure_of_a_graph_without_relationships_says_so() -> None:
    with pytest.raises(MifRdfError, match="no relationships"):
        relationship_figure(Graph())


def test_relationship_figure_without_matplotlib_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # what an install without the extra has
    with pytest.raises(MifRdfError, match=r"needs matplotlib and networkx: pip install 'mif-rdf\[notebook\]'"):
        relationship_figure(load_bundle(EXAMPLES))


@pytest.mark.slow
def test_nbconvert_writes_the_executed_notebook_as_an_html_page(explored) -> None:
    """nbconvert's HTML exporter (what ``jupyter nbconvert --to html`` writes) on the notebook executed once above.

    The README's command (``jupyter nbconvert --execute --to html ...`` from the
    repository root) runs as written in tests/test_docs_run.py; executing the
    notebook a second time here would show nothing new.
    """
    from nbconvert import HTMLExporter

    page, _ = HTMLExporter().from_notebook_node(explored)
    assert page.count("<img") == len(FIGURES)
    assert "No description has been provided" not in page  # what nbconvert writes for an image without alt text
    assert all(
        f">{heading}<" in page
        for heading in ("The relationship graph", "Supersession chain of the retired policy", "Memories per base type")
    )


def _figure(cell: nbformat.NotebookNode) -> dict | None:
    """The picture a cell shows (its output's data and metadata), or None."""
    return next(
        (
            {**o["data"], "alt": o.get("metadata", {}).get("image/png", {}).get("alt")}
            for o in cell.get("outputs", [])
            if "image/png" in o.get("data", {})
        ),
        None,
    )


class _Tables(HTMLParser):
    """The tables of an HTML output: each as its header names and its rows of cell texts,
    and whether its index is shown."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self.index_shown = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        classes = (dict(attrs).get("class") or "").split()
        self.index_shown |= "row_heading" in classes or "index_name" in classes  # pandas' index cells
        if tag == "table":
            self.tables.append(([], []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("th", "td") and self.tables:
            self._cell = self.tables[-1][1][-1]
            self._cell.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[-1] += data.strip()


def _table(cell: nbformat.NotebookNode) -> list[dict[str, str]]:
    """The one table a cell shows, as rows keyed by column name."""
    parser = _Tables()
    parser.feed(next(o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})))
    ((_, (header, *rows)),) = parser.tables
    return [dict(zip(header, row)) for row in rows]


def _by_heading(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {_last_heading(markdown): cell for markdown, cell in _headed_outputs(notebook)}


def _numbers(alt: str, names) -> dict[str, int]:
    """``name n`` pairs of an alt text, for the names asked."""
    return {name: int(n) for name in names for n in re.findall(rf"(?<![\w/]){re.escape(name)} (\d+)(?!\d|\.\d)", alt)}


def test_every_count_in_the_notebook_is_the_bundles(explored) -> None:
    """Tables and figures agree with ``bundle.counts()`` (and with the files, for what it does not count)."""
    bundle = load_bundle(EXAMPLES)
    counts, cells = bundle.counts(), _by_heading(explored)
    memories = list(bundle.memories.values())
    assert {row["base type"]: int(row["memories"]) for row in _table(cells["Memories per base type"])} == counts[
        "by_type"
    ]
    assert (
        sum(int(row["memories"]) for row in _table(cells["Memories per concept type and namespace"]))
        == counts["memories"]
    )
    kinds = {row["kind"]: row for row in _table(cells["Named graphs by kind"])}
    assert {kind: int(row["graphs"]) for kind, row in kinds.items()} == {
        "memory": counts["memories"],
        "entity": counts["entities"],
        "links": 1,
        "layout": 1,
        "dataset (union)": sum(1 for g in bundle.dataset.graphs() if len(g)),
    }
    assert (
        int(kinds["links"]["triples"]) == counts["links"]
        and int(kinds["dataset (union)"]["triples"]) == counts["triples"]
    )

    alts = {heading: _figure(cells[heading])["alt"] for heading in FIGURES}
    by_type = alts["Memories by base type and by namespace, as bars"]
    assert f"{counts['memories']} memories" in by_type and _numbers(by_type, counts["by_type"]) == counts["by_type"]
    namespaces = Counter(m.frontmatter.get("namespace", "(none)") for m in memories)
    assert _numbers(by_type, namespaces) == namespaces and sum(namespaces.values()) == counts["memories"]
    valid = [m for m in memories if (m.frontmatter.get("temporal") or {}).get("validFrom")]
    ended = [m for m in valid if m.frontmatter["temporal"].get("validUntil")]
    assert f"facts of {len(valid)} memories" in alts["Validity timeline"] and len(valid) == counts["memories"]
    assert f"{len(valid) - len(ended)} have no end and still hold; {len(ended)} ended: " in alts["Validity timeline"]
    assert all(m.frontmatter["title"] in alts["Validity timeline"] for m in ended)
    trust = Counter(m.frontmatter["provenance"]["trustLevel"] for m in memories)
    assert _numbers(alts["Trust levels and confidence"], TRUST_LEVELS) == {
        level: trust.get(level, 0) for level in TRUST_LEVELS
    }
    assert f"trust levels of {counts['memories']} memories" in alts["Trust levels and confidence"]
    high = sum(m.frontmatter["provenance"]["confidence"] >= 0.9 for m in memories)
    assert f"{high} of {counts['memories']} at 0.9 or more" in alts["Trust levels and confidence"]
    assert alts["Freshness over time"].startswith(f"{counts['memories']} line charts, one per memory")
    edges = relationship_edges(bundle)
    nodes = {row["source"] for row in edges} | {row["target"] for row in edges}
    assert f"{len(nodes)} memories and entities joined by {len(edges)} relationships" in alts["The relationship graph"]


def test_every_figure_has_alt_text_in_the_notebook_and_in_its_html(explored) -> None:
    figures = [figure for cell in explored.cells if (figure := _figure(cell))]
    assert len(figures) == len(FIGURES)
    for figure in figures:
        assert len(figure["alt"]) > 80, figure["alt"]  # says what the picture shows, not just "figure"
        img = re.fullmatch(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)">', figure["text/html"])
        assert img and img[1] == figure["image/png"] and html.unescape(img[2]) == figure["alt"]


def test_tables_are_left_aligned_without_the_index_column(explored) -> None:
    tables = 0
    for _, cell in _headed_outputs(explored):
        page = next((o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})), "")
        if "<table" not in page:
            continue
        parser = _Tables()
        parser.feed(page)
        assert not parser.index_shown, cell.source
        # pandas' Styler (DataFrames) and mif_rdf.notebook.display (the bundle, the report) both say so for th and td
        assert re.search(r"th[^{]*\{\s*text-align: left;", page) and re.search(
            r"td[^{]*\{\s*text-align: left;", page
        ), cell.source
        tables += 1
    assert tables >= 17
