"""Query results as plain Python rows, DataFrames, and the CLI's text formats.

:class:`Table` is what the helpers return: a list of dicts of plain Python
values (IRIs as ``str``, numbers as ``int``/``float``, timestamps as aware
``datetime``), which prints, compares and serializes without rdflib, and
becomes a pandas DataFrame on request.

:func:`format_result` writes any query result in one of the CLI formats:
``csv``, ``tsv`` and ``json`` follow the W3C SPARQL 1.1 result formats for
SELECT (CSV, TSV, JSON) and ASK; ``table`` is aligned text for people.  A
CONSTRUCT or DESCRIBE graph is Turtle in ``table``, JSON-LD in ``json`` and
``subject, predicate, object`` rows in ``csv``/``tsv``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.query import Result, ResultRow
from rdflib.term import Node

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.names import RESULT_FORMATS
from mif_rdf.core.namespaces import PREFIXES, bind_prefixes
from mif_rdf.queries.sparql import sparql_term

if TYPE_CHECKING:
    import pandas

#: Longest cell the ``table`` format shows before cutting it short.
CELL_WIDTH = 60
_PYTHON_TYPES = (bool, int, float, Decimal, datetime, date)
_GRAPH_COLUMNS = ("subject", "predicate", "object")


class Table(list[dict[str, Any]]):
    """Rows of a query as dicts of plain Python values, with their column order."""

    def __init__(self, columns: Iterable[str], rows: Iterable[dict[str, Any]] = ()) -> None:
        super().__init__(rows)
        self.columns = tuple(columns)

    @classmethod
    def from_result(cls, result: Result, columns: Sequence[str] | None = None) -> Table:
        """The SELECT rows of ``result``, keeping only ``columns`` (default: all its variables)."""
        names = tuple(columns) if columns is not None else tuple(str(v) for v in result.vars or ())
        return cls(names, ({name: python_value(row.get(name)) for name in names} for row in _solutions(result)))

    def column(self, name: str) -> list[Any]:
        if name not in self.columns:
            raise MifRdfError(f"no column {name!r}; the columns are {', '.join(self.columns)}")
        return [row.get(name) for row in self]

    def to_dataframe(self) -> pandas.DataFrame:
        """The rows as a pandas DataFrame (needs pandas: ``pip install 'mif-rdf[notebook]'``)."""
        try:
            import pandas
        except ImportError:
            raise MifRdfError("DataFrames need pandas: pip install 'mif-rdf[notebook]'") from None
        return pandas.DataFrame(list(self), columns=list(self.columns))

    def _repr_html_(self) -> str:
        from mif_rdf.core.html import table_html

        return table_html(self.columns, ([row.get(c) for c in self.columns] for row in self))

    def __repr__(self) -> str:
        return f"Table(columns={self.columns!r}, rows={list.__repr__(self)})"

    def __str__(self) -> str:
        """The rows as a text table, as ``mif-rdf query --format table`` prints them."""
        return text_table(list(self.columns), [[_cell(row.get(c)) for c in self.columns] for row in self])


def _solutions(result: Result) -> Iterable[dict[str, Node]]:
    """Each solution of a SELECT as ``{variable name: term}`` (unbound variables left out)."""
    for row in result:
        assert isinstance(row, ResultRow)
        yield dict(row.asdict())


def python_value(term: Node | None) -> Any:
    """A plain Python value for a term: IRIs and blank nodes as text, literals by their value.

    Numbers, booleans, dates and timestamps become ``int``/``float``/``bool``/
    ``date``/``datetime`` (``xsd:decimal`` as ``float``); every other literal
    (strings, durations, JSON, ill-typed values) is its lexical text.
    """
    if term is None:
        return None
    if isinstance(term, BNode):
        return f"_:{term}"
    if not isinstance(term, Literal):
        return str(term)
    value = term.toPython() if term.datatype not in (XSD.duration, XSD.string) else None
    if isinstance(value, Decimal):
        return float(value)
    return value if isinstance(value, _PYTHON_TYPES) else str(term)


def format_result(result: Result, fmt: str) -> str:
    """``result`` as text in one of :data:`RESULT_FORMATS`."""
    if fmt not in RESULT_FORMATS:
        raise MifRdfError(f"unknown result format {fmt!r}: use one of {', '.join(RESULT_FORMATS)}")
    if result.type == "ASK":
        if fmt == "json":
            return json.dumps({"head": {}, "boolean": bool(result.askAnswer)}) + "\n"
        return ("true" if result.askAnswer else "false") + "\n"
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        graph = bind_prefixes(result.graph if result.graph is not None else Graph())
        if fmt == "table":
            return graph.serialize(format="turtle")
        if fmt == "json":
            return graph.serialize(format="json-ld", context={p: str(ns) for p, ns in PREFIXES.items()}) + "\n"
        rows = [dict(zip(_GRAPH_COLUMNS, triple)) for triple in sorted(graph)]
        return _WRITERS[fmt](list(_GRAPH_COLUMNS), rows)
    names = [str(v) for v in result.vars or ()]
    return _WRITERS[fmt](names, list(_solutions(result)))


def _csv(names: list[str], rows: list[dict[str, Node]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([_plain(row.get(n)) for n in names])
    return out.getvalue()


def _plain(term: Node | None) -> str:
    if term is None:
        return ""
    return f"_:{term}" if isinstance(term, BNode) else str(term)


def _tsv(names: list[str], rows: list[dict[str, Node]]) -> str:
    lines = ["\t".join("?" + n for n in names)]
    lines += ["\t".join("" if row.get(n) is None else sparql_term(row[n]) for n in names) for row in rows]
    return "\n".join(lines) + "\n"


def _json(names: list[str], rows: list[dict[str, Node]]) -> str:
    bindings = [{n: _json_term(row[n]) for n in names if row.get(n) is not None} for row in rows]
    return json.dumps({"head": {"vars": names}, "results": {"bindings": bindings}}, indent=2, ensure_ascii=False) + "\n"


def _json_term(term: Node) -> dict[str, str]:
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    assert isinstance(term, Literal)
    out = {"type": "literal", "value": str(term)}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype is not None and term.datatype != XSD.string:
        out["datatype"] = str(term.datatype)
    return out


def _table(names: list[str], rows: list[dict[str, Node]]) -> str:
    return text_table(names, [[_short(row.get(n)) for n in names] for row in rows])


def text_table(names: list[str], cells: list[list[str]]) -> str:
    """Aligned columns under a header, with a row count: for people reading a terminal."""
    widths = [max([len(n)] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()

    out = [line(names), line(["-" * w for w in widths])] + [line(r) for r in cells]
    out.append(f"({len(cells)} row{'s' if len(cells) != 1 else ''})")
    return "\n".join(out) + "\n"


def _cell(value: Any) -> str:
    """A Python value of a Table row as one short line: IRIs compacted, None empty."""
    if value is None:
        return ""
    return _one_line(compact_iri(value) if isinstance(value, str) else str(value))


def _short(term: Node | None) -> str:
    """A cell for people: prefixed names for known namespaces, literals without quotes, one line."""
    if term is None:
        return ""
    return _one_line(compact_iri(str(term)) if isinstance(term, URIRef) else _plain(term))


def _one_line(text: str) -> str:
    text = text.replace("\r", "").replace("\n", "\\n")
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


def compact_iri(iri: str) -> str:
    """``mif:Verified`` for a full IRI under one of the predeclared prefixes, else the IRI.

    The prefixes are the ones every query has declared (``mif dc prov schema
    ...``, :data:`~mif_rdf.queries.INIT_NS`), so a compacted name is one a
    reader can paste back into a query.  Tables, plots and the ``table`` result
    format use it to keep cells short; an IRI whose local part would need
    escaping (``/`` or ``#`` in it) stays whole.
    """
    for prefix, namespace in sorted(PREFIXES.items(), key=lambda item: -len(item[1])):
        local = iri[len(namespace) :]
        if iri.startswith(namespace) and local and "/" not in local and "#" not in local:
            return f"{prefix}:{local}"
    return iri


_WRITERS = {"csv": _csv, "tsv": _tsv, "json": _json, "table": _table}
