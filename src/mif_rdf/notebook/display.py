"""Rich HTML for Jupyter: the bundle summary, problem lists and result tables.

Notebooks show an object through its ``_repr_html_``; these functions write
that HTML for :class:`~mif_rdf.bundle.Bundle`, for query tables and for any
list of :class:`~mif_rdf.core.errors.Problem` records (the loader's, or a
validation report's), so every view of a bundle looks the same.  Plain,
escaped HTML only: no scripts, no external styles, nothing a notebook trusts.
"""
from __future__ import annotations

import html
import json
from datetime import date, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from mif_rdf.core.errors import Problem, Severity, counted

if TYPE_CHECKING:
    from mif_rdf.bundle import Bundle

#: Rows shown before a table says how many more there are.
MAX_ROWS = 100
#: Text reads from the left: JupyterLab right-aligns every table cell (for numbers), by a selector
#: (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``) that only the class named twice outweighs.
_LEFT = "<style>table.mif-rdf.mif-rdf th, table.mif-rdf.mif-rdf td { text-align: left; vertical-align: top; }</style>"
_SEVERITY_COLOURS = {Severity.ERROR: "#b00020", Severity.WARNING: "#8a6d00", Severity.INFO: "#555555"}


def table_html(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str | None = None, limit: int = MAX_ROWS) -> str:
    """An HTML table of ``rows`` (sequences in ``columns`` order), cut after ``limit`` rows with a note."""
    rows = iter(rows)
    shown = list(islice(rows, limit))
    hidden = sum(1 for _ in rows)
    head = "".join(f"<th>{_cell(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in shown)
    title = f"<caption>{_cell(caption)}</caption>" if caption else ""
    more = f"<p><em>... and {hidden} more row{'s' if hidden != 1 else ''}</em></p>" if hidden else ""
    return f'{_LEFT}<table class="mif-rdf">{title}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'


def problems_html(problems: Iterable[Problem], *, caption: str | None = "Problems", limit: int = MAX_ROWS) -> str:
    """The problems in the order given: severity, file, line, key path, value, rule, its level, message."""
    problems = list(problems)
    if not problems:
        return "<p>No problems.</p>"
    rows = (
        (_Raw(_severity(p.severity)), p.path, p.line, p.key, _value(p.value), p.rule, _level(p.level), p.message)
        for p in problems
    )
    return table_html(("severity", "file", "line", "key", "value", "rule", "level", "message"), rows, caption=caption, limit=limit)


def bundle_html(bundle: Bundle) -> str:
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
        ("problems", f"{counted(problems['error'], 'error')}, {counted(problems['warning'], 'warning')}, {counted(problems['info'], 'note')}"),
    ]
    title = f"Bundle {bundle.root.name}"
    worst_first = sorted(bundle.problems, key=lambda p: (-p.severity.rank, p.path, p.line or 0))
    return f"<div>{table_html(('', ''), summary, caption=title)}{problems_html(worst_first)}</div>"


class _Raw(str):
    """Markup this module wrote itself, so it is not escaped again."""


def _severity(severity: Severity) -> str:
    return f'<span style="color:{_SEVERITY_COLOURS[severity]};font-weight:bold">{severity.value}</span>'


def _value(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def _level(level: int | None) -> str | None:
    return {None: None, 0: "OKF"}.get(level, f"level {level}")


def _cell(value: Any) -> str:
    if isinstance(value, _Raw):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return html.escape(str(value))
