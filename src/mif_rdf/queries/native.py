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
  CSV and TSV Formats), terms in N-Triples syntax, and :func:`_columns` reads
  each cell into the value :func:`~mif_rdf.queries.results.python_value`
  gives for the rdflib term oxrdflib would have made: IRIs and blank nodes as
  text, strings as text, numbers, booleans, dates and timestamps through
  rdflib's own converters, every other literal through an rdflib
  ``Literal`` (the tests hold the two paths to the same values, types
  included);
* Python's cycle collector waits while the rows are built (:func:`no_cyclic_gc`).

Any other graph goes through :func:`run_query` and :meth:`.columns.Columns.from_result`.

The helpers (:mod:`.helpers`) hand their parameters to Oxigraph as a
``VALUES`` block opening the ``WHERE`` clause, as for a remote store, rather
than as substitutions: Oxigraph's optimizer sees the values of a ``VALUES``
block but not substituted ones, so with substitutions a FILTER on a
parameter waits until every other pattern has been matched (0.8 s instead of
0.15 s for ``memories_between`` at 100,000 memories).

A helper that visits every memory may also mark, with :data:`SPLIT_HERE`,
where its query can be cut into parts that Oxigraph runs side by side, one
thread each (Oxigraph lets go of the GIL while it evaluates): the mark
becomes a FILTER that keeps the solutions whose variable hashes into one
share of the hex digits, so the parts are disjoint and together hold every
solution.  On other stores the mark is a SPARQL comment and the query runs
whole.  Parts come back one after the other: a split query's rows are in no
particular order, and the helper sorts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.term import Node, XSDToPython

from mif_rdf.core.bounded_cache import bounded_cache
from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.oxigraph_sink import OxigraphSink, query_dataset
from mif_rdf.load.pipeline import usable_cores
from mif_rdf.load.stores import oxigraph_store
from mif_rdf.queries.columns import Columns, Shape
from mif_rdf.queries.oxigraph_calls import functions_named_in
from mif_rdf.queries.results import Table, python_value
from mif_rdf.queries.sparql import (
    INIT_NS,
    Bindings,
    check_query_safety,
    check_unicode,
    run_query,
    values_first,
)
from mif_rdf.queries.syntax import syntax_error

try:  # pyoxigraph comes with the optional oxigraph extra
    import pyoxigraph as ox
except ImportError:  # pragma: no cover - without it no graph lives in Oxigraph
    ox = None  # type: ignore[assignment]


def select(
    graph: Graph | LoadedBundle,
    query: str,
    bindings: Bindings | None = None,
    columns: Sequence[str] | None = None,
    *,
    allow_service: bool = False,
    as_: Shape = "table",
) -> Any:
    """The rows of a SELECT query as a :class:`Table`, on any rdflib graph (a bundle: its dataset).

    ``columns`` picks and orders the columns (default: the projected
    variables).  Checks, prefixes and ``bindings`` are those of
    :func:`run_query`; on a graph in Oxigraph the rows come from pyoxigraph
    without rdflib terms in between, with the same values.  ``as_`` is
    ``"dataframe"`` for a pandas DataFrame or ``"arrow"`` for a pyarrow
    Table, made from the columns without a dict per row (:mod:`.columns`).
    Raises :class:`MifRdfError` for a query that is not a SELECT.
    """
    if not isinstance(query, str) or not query.strip():
        raise MifRdfError("the query is empty")
    check_query_safety(query, allow_service=allow_service)
    with no_cyclic_gc():
        return select_columns(
            graph.dataset if isinstance(graph, LoadedBundle) else graph, query, bindings or {}, columns
        ).shaped(as_)


#: Marks where a query may be split on a variable (:func:`select_trusted`'s ``split_on``):
#: a comment to any other engine.
SPLIT_HERE = "# split here\n"
#: Most parts a split query is cut into (one thread each); fewer when fewer cores are ours.
MAX_PARTS = 4
_HEX = "0123456789abcdef"


def select_trusted(
    graph: Graph,
    query: str,
    bindings: Bindings,
    columns: Sequence[str] | None = None,
    *,
    as_values: bool = False,
    split_on: str | None = None,
) -> Table:
    """:func:`select` for query text written by this package: no update or SERVICE check.

    With ``as_values`` the author of ``query`` guarantees that its first
    ``WHERE {`` opens the outer group and that its parameters mean the same
    joined there as bound (the rules of :mod:`.helpers`): Oxigraph then gets
    them as a ``VALUES`` block there, written by
    :func:`~mif_rdf.queries.sparql.sparql_term` (blank nodes stay
    substitutions).

    With ``split_on`` (a variable bound in every solution, by a pattern
    before the query's :data:`SPLIT_HERE` mark in the outer group), Oxigraph
    runs the query in parts on several cores (see the module notes).
    """
    with no_cyclic_gc():
        return select_columns(graph, query, bindings, columns, as_values=as_values, split_on=split_on).table()


def select_columns(
    graph: Graph,
    query: str,
    bindings: Bindings,
    columns: Sequence[str] | None = None,
    *,
    as_values: bool = False,
    split_on: str | None = None,
    own_prefixes: bool = False,
) -> Columns:
    """:func:`select_trusted`'s rows column by column (:class:`~.columns.Columns`), for helpers that read whole columns.

    On Oxigraph the rows are never built: 100,000 dicts cost more than the
    column lists they would be made from.  With ``own_prefixes`` the query
    uses only the package's predeclared prefixes (``INIT_NS``, which win over
    the graph's anyway), so Oxigraph gets those and the graph's bindings are
    not read: reading them was a tenth of a one-millisecond helper.
    """
    found = _in_oxigraph(graph, query, bindings, columns, as_values, split_on, own_prefixes)
    if found is not None:
        return found
    result = run_query(graph, query, bindings)
    return Columns.from_result(result, columns)


def _in_oxigraph(
    graph: Graph,
    query: str,
    bindings: Bindings,
    columns: Sequence[str] | None,
    as_values: bool,
    split_on: str | None,
    own_prefixes: bool = False,
) -> Columns | None:
    """The columns of a SELECT run by Oxigraph (split when asked), None when ``graph`` is not in Oxigraph."""
    if split_on is not None and SPLIT_HERE not in query:  # on any store: each part would hold every solution
        raise ValueError(f"a query split on ?{split_on} needs the mark {SPLIT_HERE!r}")
    store = oxigraph_store(graph)
    if store is None:
        return None
    check_unicode(query, *map(str, bindings.values()))
    functions = functions_named_in(store, query)  # mif:validAt & co., named by the query, not by its parameters
    if as_values and bindings and all(isinstance(term, (URIRef, Literal)) for term in bindings.values()):
        query, bindings = values_first(query, bindings), {}
    options = {"prefixes": INIT_NS if own_prefixes else _prefixes(graph), **query_dataset(graph)}
    if bindings:
        options["substitutions"] = {ox.Variable(k): _to_ox(v) for k, v in bindings.items()}
    if functions:
        options["custom_functions"] = functions

    def tsv(text: str) -> str:
        """The solutions as SPARQL TSV: a header of ``?variables``, then a line each."""
        try:
            solutions = store.query(text, **options)
        except SyntaxError as exc:  # "error at LINE:COLUMN: message"
            raise syntax_error(text, exc) from None
        if not isinstance(solutions, ox.QuerySolutions):
            raise MifRdfError(
                f"a table needs a SELECT query, not {'ASK' if isinstance(solutions, ox.QueryBoolean) else 'CONSTRUCT'}"
            )
        table = solutions.serialize(format=ox.QueryResultsFormat.TSV)
        assert table is not None  # without an output, serialize returns the bytes
        return table.decode("utf-8")

    parts = _parts(query, split_on, _part_count()) if split_on else [query]
    if len(parts) == 1:
        text = tsv(parts[0])
    else:
        with ThreadPoolExecutor(len(parts)) as pool:
            outputs = list(pool.map(tsv, parts))
        text = outputs[0] + "".join(out[out.index("\n") + 1 :] for out in outputs[1:])  # one header
    names = tuple(columns) if columns is not None else None
    try:
        if len(text) <= _SMALL_RESULT:  # a few rows make no collection
            names, height, values = _columns(text, names)
        else:
            with no_cyclic_gc():
                names, height, values = _columns(text, names)
    except _TripleTerm:  # RDF 1.2 triple terms: as rdflib makes them
        return Columns.from_result(run_query(graph, query, bindings), names)
    return Columns.of_lists(names, values, height)


def _parts(query: str, variable: str, count: int) -> list[str]:
    """``query`` cut at its :data:`SPLIT_HERE` mark into ``count`` disjoint parts, by the MD5 of ``?variable``.

    Each part keeps a range of first hex digits: one or two comparisons per
    row (an ``IN`` list costs Oxigraph a comparison per item, several times
    more).  A value that has no MD5 (a blank node) counts as digit 0, so none
    is lost.  The FILTER takes the mark's line: error positions keep their
    line numbers.
    """
    if count < 2:
        return [query]
    hashed = f'COALESCE(SUBSTR(MD5(STR(?{variable})), 1, 1), "0")'
    starts = [_HEX[i * len(_HEX) // count] for i in range(count)]
    parts = []
    for i, start in enumerate(starts):
        bounds = ([f'{hashed} >= "{start}"'] if i else []) + (
            [f'{hashed} < "{starts[i + 1]}"'] if i + 1 < count else []
        )
        parts.append(query.replace(SPLIT_HERE, f"FILTER({' && '.join(bounds)})\n", 1))
    return parts


def _part_count() -> int:
    """Threads for a split query: the cores this process may run on, at most :data:`MAX_PARTS`."""
    return min(MAX_PARTS, usable_cores())


def _prefixes(graph: Graph) -> dict[str, str]:
    """The graph's bound prefixes, then the predeclared ones (as rdflib hands them to oxrdflib)."""
    return {**{prefix: str(namespace) for prefix, namespace in graph.store.namespaces()}, **INIT_NS}


def _to_ox(term: Node) -> Any:
    try:
        return OxigraphSink.term(term)
    except TypeError:
        raise MifRdfError(f"cannot use {term!r} as a query parameter") from None


#: Datatypes whose values need no rdflib Literal: rdflib's own converter gives the value, or the text when it fails.
_CONVERTERS: dict[str, Callable[[str], Any]] = {
    str(dt): convert
    for dt in (
        XSD.dateTime,
        XSD.date,
        XSD.boolean,
        XSD.decimal,
        XSD.double,
        XSD.float,
        XSD.integer,
        XSD.int,
        XSD.long,
        XSD.short,
        XSD.byte,
        XSD.nonNegativeInteger,
        XSD.positiveInteger,
        XSD.nonPositiveInteger,
        XSD.negativeInteger,
        XSD.unsignedLong,
        XSD.unsignedInt,
        XSD.unsignedShort,
        XSD.unsignedByte,
    )
    if (convert := XSDToPython[dt]) is not None  # (rdflib has one for each)
}
_VALUE_TYPES = (bool, int, float, Decimal, datetime, date)
_XSD_STRING = str(XSD.string)
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_ESCAPED = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


class _TripleTerm(Exception):
    """An RDF 1.2 triple term in the results: left to rdflib (oxrdflib makes a tuple of it)."""


def _variables(header: str) -> tuple[str, ...]:
    """The variables of SPARQL TSV results, from their header line (``?a<TAB>?b``; none: an empty line)."""
    return tuple(header[1:].split("\t?")) if header else ()  # no name holds a tab


def _columns(tsv: str, names: tuple[str, ...] | None) -> tuple[tuple[str, ...], int, list[list[Any]]]:
    """The columns' names, the number of rows of SPARQL TSV results (a header of ``?variables``, then one line per
    solution) and the values of the columns ``names`` (None: the results' variables; a column the results lack is
    all None).

    Every cell of the text is cut out at once (a column is every ``width``-th
    cell).  A few rows are read cell by cell in one pass (:func:`_cell_value`):
    counting characters (:func:`_column`) pays off from a few dozen cells, and
    a one-millisecond helper's Python is a third of its time.
    """
    header, _, body = tsv.partition("\n")
    variables = _variables(header)
    if names is None:
        names = variables
    if not variables:  # no variable: one empty line per solution
        height = body.count("\n")
        return names, height, [[None] * height for _ in names]
    cells = (
        body[:-1].replace("\n", "\t").split("\t") if body else []
    )  # no cell holds a tab or a newline (TSV escapes them)
    width, height = len(variables), len(cells) // len(variables)
    if height < _SHORT_COLUMN:
        read = list(map(_cell_value, cells))
        return (
            names,
            height,
            [read[variables.index(name) :: width] if name in variables else [None] * height for name in names],
        )
    where = {name: i for i, name in enumerate(variables)}
    return names, height, [_column(cells[where[name] :: width]) if name in where else [None] * height for name in names]


def _column(cells: list[str]) -> list[Any]:
    """The values of a long column's cells: what :func:`_cell_value` gives each, without a call per cell for the
    common columns.

    In a column of IRIs, plain strings with no escape and unbound cells
    (:func:`_simple_values`), a value is the text between the first and last
    character, and an empty cell is None, as :func:`_cell_value` gives them.
    A column of ``xsd:dateTime`` literals (:func:`_all_timestamps`) is read
    with the converter :func:`_cell_value` uses, unless one of them cannot be
    read.  Any other column (numbers, durations, blank nodes) goes cell by cell.
    """
    simple = _simple_values(cells)
    if simple is not None:
        return simple
    if _all_timestamps(cells):
        try:
            return [_TO_DATETIME(cell[1:_DATETIME_CUT]) if cell else None for cell in cells]
        except ValueError:  # an ill-typed timestamp keeps its text: _cell_value knows how
            pass
    return list(map(_cell_value, cells))


def _simple_values(cells: list[str]) -> list[Any] | None:
    """The values of a column of IRIs, plain strings without escapes and empty cells, told by counting
    characters; None for any other column.

    Each cell is one term as Oxigraph writes it, with no tab or newline: a
    cell that starts with ``<`` is an IRI (``<<`` opens a triple term), and
    one that ends with ``"`` is a plain string (typed and language-tagged
    literals end otherwise, numbers are bare).  With no backslash anywhere
    no cell holds an escape.  So when the IRIs, the plain strings and the
    empty cells add up to every cell, the column is simple.  Counting runs
    in C over the joined text: a regular expression over it cost 0.09 s per
    220,000 cells.  The first cell with a term settles most columns of
    other terms before any text is joined.

    A value is the text between a cell's first and last character.  When
    every cell is an IRI (or every one a string), the joined text is cut
    at ``>``, newline, ``<`` (or ``"``, newline, ``"``), which no such cell
    holds inside: one split in C instead of a slice per cell.
    """
    first = next(filter(None, cells), '""')
    if first[0] + first[-1] not in ("<>", '""'):
        return None
    text = "\n".join(cells)
    if "\\" in text or "\n<<" in text or text.startswith("<<"):
        return None
    iris = text.count("\n<") + text.startswith("<")
    strings = _ending_with(text, '"')
    if iris + strings + cells.count("") != len(cells):
        return None
    if iris == len(cells):
        return text[1:-1].split(">\n<")
    if strings == len(cells):
        return text[1:-1].split('"\n"')
    return [cell[1:-1] if cell else None for cell in cells]


def _all_timestamps(cells: list[str]) -> bool:
    """True when every cell is an ``xsd:dateTime`` literal without escapes,
    or empty (counted as in :func:`_simple_values`)."""
    first = next(filter(None, cells), "")
    if not first.endswith(_DATETIME_END):
        return False
    text = "\n".join(cells)
    return "\\" not in text and _ending_with(text, _DATETIME_END) + cells.count("") == len(cells)


def _ending_with(text: str, end: str) -> int:
    """How many of the cells joined by newlines in ``text`` end with ``end`` (no cell holds a newline)."""
    return text.count(end + "\n") + text.endswith(end)


_STRING_END = '"'
_SHORT_COLUMN = 32
#: Results shorter than this (characters of TSV) are read with the cyclic collector left on: pausing it costs
#: more than the collection a few rows could set off.
_SMALL_RESULT = 16384
_DATETIME_END = f'"^^<{XSD.dateTime}>'
_DATETIME_CUT = -len(_DATETIME_END)  # cell[1:_DATETIME_CUT] is a timestamp cell's lexical form
_TO_DATETIME = _CONVERTERS[str(XSD.dateTime)]


def _cell_value(cell: str) -> Any:
    """TSV cell -> the value :func:`python_value` gives for the rdflib term oxrdflib would make.

    Cells are terms in N-Triples syntax, numbers and booleans written bare
    (Turtle's short forms).  IRIs, blank nodes, strings and timestamps are
    read here; other literals go through :func:`_literal`, memoized.
    """
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
                return _TO_DATETIME(cell[1:_DATETIME_CUT])
            except Exception:  # rdflib: an ill-typed literal keeps its text
                return cell[1:_DATETIME_CUT]
    return _literal(cell)


@bounded_cache(4 << 20)  # numbers, booleans and typed literals repeat across rows and queries; values are immutable
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
        text = _ESCAPE.sub(
            lambda m: _ESCAPED[m.group(3)] if m.group(3) is not None else chr(int(m.group(1) or m.group(2), 16)), text
        )
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
