"""SELECT straight into a :class:`Table`, by Oxigraph's own engine when the graph lives in Oxigraph.

An rdflib Dataset loaded with ``store="Oxigraph"`` keeps its quads in a
pyoxigraph ``Store`` behind oxrdflib's ``OxigraphStore``.  Asked through
rdflib, every term of every row becomes an rdflib term (oxrdflib), then part
of a ``ResultRow``, then a Python value (:meth:`Table.from_result`): on large
results that took longer than the query.  :func:`select` skips rdflib there:

* it runs the query with pyoxigraph's ``Store.query``, with the prefixes,
  default graph (the union of the bundle's graphs) and parameters oxrdflib
  would pass;
* Oxigraph writes the rows as SPARQL TSV (W3C SPARQL 1.1 Query Results
  CSV and TSV Formats), terms in N-Triples syntax, and :func:`_rows` reads
  each cell into the value :func:`~mif_rdf.queries.results.python_value`
  gives for the rdflib term oxrdflib would have made: IRIs and blank nodes as
  text, strings as text, numbers, booleans, dates and timestamps through
  rdflib's own converters, every other literal through an rdflib
  ``Literal`` (the tests hold the two paths to the same values, types
  included);
* Python's cycle collector waits while the rows are built (:func:`no_cyclic_gc`).

Any other graph goes through :func:`run_query` and :meth:`Table.from_result`.

The helpers (:mod:`.helpers`) hand their parameters to Oxigraph as a
``VALUES`` block opening the ``WHERE`` clause, as for a remote store, rather
than as substitutions: Oxigraph's optimizer sees the values of a ``VALUES``
block but not substituted ones, so with substitutions a FILTER on a
parameter waits until every other pattern has been matched (0.8 s instead of
0.15 s for ``memories_between`` at 100,000 memories).
"""
from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from itertools import repeat
from typing import Any, Callable, Sequence

from rdflib import BNode, ConjunctiveGraph, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.namespace import XSD
from rdflib.term import Node, XSDToPython

from ..bundle import Bundle, no_cyclic_gc
from ..oxigraph_sink import OxigraphSink, oxigraph_store
from ..errors import MifRdfError
from .results import Table, python_value
from .sparql import INIT_NS, Bindings, _oxigraph_syntax_error, check_query_safety, run_query, values_first

try:  # pyoxigraph comes with the optional oxigraph extra
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - without it no graph lives in Oxigraph
    ox = None  # type: ignore[assignment]


def select(graph: Graph | Bundle, query: str, bindings: Bindings | None = None, columns: Sequence[str] | None = None, *, allow_service: bool = False) -> Table:
    """The rows of a SELECT query as a :class:`Table`, on any rdflib graph (a bundle: its dataset).

    ``columns`` picks and orders the columns (default: the projected
    variables).  Checks, prefixes and ``bindings`` are those of
    :func:`run_query`; on a graph in Oxigraph the rows come from pyoxigraph
    without rdflib terms in between, with the same values.  Raises
    :class:`MifRdfError` for a query that is not a SELECT.
    """
    if not isinstance(query, str) or not query.strip():
        raise MifRdfError("the query is empty")
    check_query_safety(query, allow_service=allow_service)
    return select_trusted(graph.dataset if isinstance(graph, Bundle) else graph, query, bindings or {}, columns)


def select_trusted(graph: Graph, query: str, bindings: Bindings, columns: Sequence[str] | None = None, *, as_values: bool = False) -> Table:
    """:func:`select` for query text written by this package: no update or SERVICE check.

    With ``as_values`` the author of ``query`` guarantees that its first
    ``WHERE {`` opens the outer group and that its parameters mean the same
    joined there as bound (the rules of :mod:`.helpers`): Oxigraph then gets
    them as a ``VALUES`` block there, written by
    :func:`~mif_rdf.queries.sparql.sparql_term` (blank nodes stay
    substitutions).
    """
    store = oxigraph_store(graph)
    if store is None:
        result = run_query(graph, query, bindings)
        if result.type != "SELECT":
            raise MifRdfError(f"a table needs a SELECT query, not {result.type}")
        return Table.from_result(result, columns)
    if as_values and bindings and not any(isinstance(term, BNode) for term in bindings.values()):
        query, bindings = values_first(query, bindings), {}
    try:
        solutions = store.query(query, prefixes=_prefixes(graph), substitutions={ox.Variable(k): _to_ox(v) for k, v in bindings.items()}, **_dataset_of(graph))
    except SyntaxError as exc:  # "error at LINE:COLUMN: message"
        raise _oxigraph_syntax_error(query, str(exc)) from None
    if not isinstance(solutions, ox.QuerySolutions):
        raise MifRdfError(f"a table needs a SELECT query, not {'ASK' if isinstance(solutions, ox.QueryBoolean) else 'CONSTRUCT'}")
    names = tuple(columns) if columns is not None else tuple(v.value for v in solutions.variables)
    text = solutions.serialize(format=ox.QueryResultsFormat.TSV).decode("utf-8")
    try:
        with no_cyclic_gc():
            return Table(names, _rows(text, names))
    except _TripleTerm:  # RDF 1.2 triple terms: as rdflib makes them
        return Table.from_result(run_query(graph, query, bindings), names)


def _dataset_of(graph: Graph) -> dict[str, Any]:
    """The default graph rdflib would ask for (its ``query_graph``): the union, the default context, or the graph itself."""
    if graph.default_union:
        return {"use_default_graph_as_union": True}
    identifier = graph.default_context.identifier if isinstance(graph, ConjunctiveGraph) else graph.identifier
    return {"default_graph": _to_ox(identifier)}


def _prefixes(graph: Graph) -> dict[str, str]:
    """The graph's bound prefixes, then the predeclared ones (as rdflib hands them to oxrdflib)."""
    return {**{prefix: str(namespace) for prefix, namespace in graph.store.namespaces()}, **INIT_NS}


def _to_ox(term: Node) -> Any:
    if term == DATASET_DEFAULT_GRAPH_ID:
        return ox.DefaultGraph()
    try:
        return OxigraphSink.term(term)
    except TypeError:
        raise MifRdfError(f"cannot use {term!r} as a query parameter") from None


#: Datatypes whose values need no rdflib Literal: rdflib's own converter gives the value, or the text when it fails.
_CONVERTERS: dict[str, Callable[[str], Any]] = {
    str(dt): XSDToPython[dt]
    for dt in (
        XSD.dateTime, XSD.date, XSD.boolean, XSD.decimal, XSD.double, XSD.float,
        XSD.integer, XSD.int, XSD.long, XSD.short, XSD.byte, XSD.nonNegativeInteger, XSD.positiveInteger,
        XSD.nonPositiveInteger, XSD.negativeInteger, XSD.unsignedLong, XSD.unsignedInt, XSD.unsignedShort, XSD.unsignedByte,
    )
}
_VALUE_TYPES = (bool, int, float, Decimal, datetime, date)
_XSD_STRING = str(XSD.string)
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_ESCAPED = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


class _TripleTerm(Exception):
    """An RDF 1.2 triple term in the results: left to rdflib (oxrdflib makes a tuple of it)."""


def _rows(tsv: str, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rows of SPARQL TSV results (a header of ``?variables``, then one line per solution).

    Column by column: each wanted column's cells go through :func:`_converter`
    with ``map``, then the columns are zipped back into rows.
    """
    lines = tsv.split("\n")
    variables = [name[1:] for name in lines[0].split("\t")] if lines[0] else []
    del lines[0], lines[-1]  # the header, and the empty text after the last newline
    where = {name: i for i, name in enumerate(variables)}
    if not lines:
        return []
    convert = _converter()
    if len(variables) == 1:
        cells: list[Any] = [lines]
    else:
        cells = list(zip(*map(str.split, lines, repeat("\t"))))
    columns = [map(convert, cells[where[name]]) if name in where else repeat(None, len(lines)) for name in names]
    return [dict(zip(names, row)) for row in zip(*columns)] if names else [{} for _ in lines]


_STRING_END = '"'
_DATETIME_END = f'"^^<{XSD.dateTime}>'


def _converter() -> Callable[[str], Any]:
    """TSV cell -> the value :func:`python_value` gives for the rdflib term oxrdflib would make.

    Cells are terms in N-Triples syntax, numbers and booleans written bare
    (Turtle's short forms).  IRIs, blank nodes, strings and timestamps are
    read here; other literals go through :func:`_literal` once per distinct
    cell.
    """
    seen: dict[str, Any] = {}
    datetime_end = -len(_DATETIME_END)
    to_datetime = _CONVERTERS[str(XSD.dateTime)]

    def convert(cell: str) -> Any:
        if not cell:
            return None
        first = cell[0]
        if first == "<":
            if cell[1] == "<":
                raise _TripleTerm
            return cell[1:-1]
        if first == "_":  # a blank node, written as python_value writes it
            return cell
        if "\\" not in cell:
            if cell[-1] == _STRING_END:  # a plain string
                return cell[1:-1]
            if cell.endswith(_DATETIME_END):  # as _literal does it, without the memo: timestamps rarely repeat
                try:
                    return to_datetime(cell[1:datetime_end])
                except Exception:  # rdflib: an ill-typed literal keeps its text
                    return cell[1:datetime_end]
        try:
            return seen[cell]
        except KeyError:
            value = seen[cell] = _literal(cell)
            return value

    return convert


def _literal(cell: str) -> Any:
    if cell[0] != '"':  # Turtle's short forms: booleans, integers, decimals, doubles
        if cell in ("true", "false"):
            return cell == "true"
        if "e" in cell or "E" in cell:
            return float(cell)
        return float(Decimal(cell)) if "." in cell else int(cell)
    end = cell.rindex('"')
    text = cell[1:end]
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: _ESCAPED[m.group(3)] if m.group(3) is not None else chr(int(m.group(1) or m.group(2), 16)), text)
    suffix = cell[end + 1 :]
    if not suffix or suffix[0] == "@":  # a plain or language-tagged string: its text
        return text
    datatype = suffix[3:-1]  # ^^<datatype>
    if datatype == _XSD_STRING:
        return text
    convert = _CONVERTERS.get(datatype)
    if convert is None:
        return python_value(Literal(text, datatype=URIRef(datatype)))
    try:
        value = convert(text)
    except Exception:  # rdflib: an ill-typed literal keeps its text
        return text
    if isinstance(value, Decimal):
        return float(value)
    return value if isinstance(value, _VALUE_TYPES) else python_value(Literal(text, datatype=URIRef(datatype)))
