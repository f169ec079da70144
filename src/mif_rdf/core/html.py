"""HTML tables for Jupyter: problem lists and result tables.

Notebooks show an object through its ``_repr_html_``; these functions write
that HTML for query tables and for any list of
:class:`~mif_rdf.core.errors.Problem` records (the loader's, or a validation
report's), and :mod:`mif_rdf.notebook.display` builds the bundle summary on
them, so every view of a bundle looks the same.  Plain,
escaped HTML only: no scripts, no external styles, nothing a notebook trusts.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from itertools import islice
from typing import Any

from mif_rdf.core.errors import Problem, Severity

#: Rows shown before a table says how many more there are.
MAX_ROWS = 100
#: Text reads from the left: JupyterLab right-aligns every table cell (for numbers), by a selector
#: (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``) that only the class named twice outweighs.
_LEFT = "<style>table.mif-rdf.mif-rdf th, table.mif-rdf.mif-rdf td { text-align: left; vertical-align: top; }</style>"
_SEVERITY_COLOURS = {Severity.ERROR: "#b00020", Severity.WARNING: "#8a6d00", Severity.INFO: "#555555"}


def table_html(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str | None = None, limit: int = MAX_ROWS
) -> str:
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
    return table_html(
        ("severity", "file", "line", "key", "value", "rule", "level", "message"), rows, caption=caption, limit=limit
    )


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
