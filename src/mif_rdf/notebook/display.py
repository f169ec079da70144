"""The bundle summary Jupyter shows (``Bundle._repr_html_``), built on the tables of :mod:`mif_rdf.core.html`.

Plain, escaped HTML only: no scripts, no external styles, nothing a notebook trusts.
"""

from __future__ import annotations

from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from mif_rdf.core.errors import counted
from mif_rdf.core.html import problems_html, table_html
from mif_rdf.load.bundle import LoadedBundle


def bundle_html(bundle: LoadedBundle) -> str:
    """A bundle's summary: what was loaded, how big the graph is, and every problem."""
    counts = bundle.counts()
    graphs = sum(1 for g in bundle.dataset.graphs() if g.identifier != DATASET_DEFAULT_GRAPH_ID)
    problems = counts["problems"]
    summary = [
        ("folder", str(bundle.root)),
        ("base IRI", bundle.base_iri),
        ("memories", f"{counts['memories']} (" + ", ".join(f"{k} {v}" for k, v in counts["by_type"].items()) + ")"),
        ("entities", counts["entities"]),
        ("named graphs", graphs),
        ("triples", counts["triples"]),
        ("link triples", counts["links"]),
        (
            "problems",
            f"{counted(problems['error'], 'error')}, {counted(problems['warning'], 'warning')}, "
            f"{counted(problems['info'], 'note')}",
        ),
    ]
    title = f"Bundle {bundle.root.name}"
    worst_first = sorted(bundle.problems, key=lambda p: (-p.severity.rank, p.path, p.line or 0))
    return f"<div>{table_html(('', ''), summary, caption=title)}{problems_html(worst_first)}</div>"
