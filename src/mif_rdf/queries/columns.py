"""Query results column by column, and the three shapes a helper hands them out in.

A helper that visits every memory returns hundreds of thousands of rows at
scale; a :class:`~.results.Table` makes a dict of each, which costs more
than the query.  Helpers therefore work on :class:`Columns` (one list per
column, as :mod:`.native` reads them from Oxigraph's results) and only
build what the caller asks for (``as_``):

* ``"table"`` (default): a :class:`~.results.Table`, rows as dicts, for small
  results, printing and the notebook's HTML view;
* ``"dataframe"``: a pandas DataFrame made from the columns (needs pandas);
* ``"arrow"``: a pyarrow Table made from the columns (needs pyarrow).  Arrow
  columns hold one type: a column mixing kinds of values (an ill-typed date
  among timestamps, a number among strings) becomes text, and objects
  (``decay_profiles``' :class:`~mif_rdf.core.freshness.DecayProfile`) become their
  text (dates and timestamps in ISO 8601).

All three hold the same values in the same order (tests compare them on
every helper and both stores).
"""

from __future__ import annotations

import array
import itertools
from collections.abc import Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from rdflib.query import Result, ResultRow

from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries.results import Table, python_value

if TYPE_CHECKING:
    import pandas
    import pyarrow

Shape = Literal["table", "dataframe", "arrow"]
#: What a helper returns, by its ``as_``.
Shaped: TypeAlias = "Table | pandas.DataFrame | pyarrow.Table"
SHAPES = ("table", "dataframe", "arrow")


class Columns:
    """A query's rows as columns: ``values[i]`` holds column ``names[i]``, ``height`` values each."""

    def __init__(self, names: Sequence[str], values: Sequence[Sequence[Any]], height: int | None = None) -> None:
        self.names = tuple(names)
        self.values = (
            [column if isinstance(column, list) else list(column) for column in values]
            if values
            else [[] for _ in self.names]
        )
        self.height = height if height is not None else (len(self.values[0]) if self.values else 0)

    @classmethod
    def of_lists(cls, names: tuple[str, ...], values: list[list[Any]], height: int) -> Columns:
        """Columns made of lists that become theirs as they are (a query's own TSV read): nothing to check or copy,
        which is a share of a one-millisecond helper."""
        found = cls.__new__(cls)
        found.names, found.values, found.height = names, values, height
        return found

    @classmethod
    def from_result(cls, result: Result, names: Sequence[str] | None = None) -> Columns:
        """The SELECT rows of an rdflib result, column by column, as :func:`python_value` reads each term."""
        if result.type != "SELECT":
            raise MifRdfError(f"a table needs a SELECT query, not {result.type}")
        names = tuple(names) if names is not None else tuple(str(v) for v in result.vars or ())
        values: list[list[Any]] = [[] for _ in names]
        height = 0
        for row in result:
            assert isinstance(row, ResultRow)
            found = row.asdict()
            height += 1
            for name, column in zip(names, values):
                column.append(python_value(found.get(name)))
        return cls(names, values, height)

    @classmethod
    def from_rows(cls, names: Sequence[str], rows: Iterable[dict[str, Any]]) -> Columns:
        """Columns of a few rows built as dicts (the helpers whose results stay small)."""
        rows = list(rows)
        return cls(names, [[row.get(name) for row in rows] for name in names], len(rows))

    def __len__(self) -> int:
        return self.height

    def column(self, name: str) -> list[Any]:
        if name not in self.names:
            raise MifRdfError(f"no column {name!r}; the columns are {', '.join(self.names)}")
        return self.values[self.names.index(name)]

    def take(self, order: Sequence[int]) -> Columns:
        """The rows at the positions ``order`` (a selection, a new order), column by column."""
        return Columns(self.names, [[column[i] for i in order] for column in self.values], len(order))

    def rows(self) -> list[dict[str, Any]]:
        if not self.names:  # a SELECT of no variable: one empty row per solution
            return [{} for _ in range(self.height)]
        return [dict(zip(self.names, row)) for row in zip(*self.values)]

    def table(self) -> Table:
        return Table(self.names, self.rows())

    def dataframe(self) -> pandas.DataFrame:
        """A pandas DataFrame made column by column (needs pandas: ``pip install 'mif-rdf[columnar]'``)."""
        try:
            import pandas
        except ImportError:
            raise MifRdfError("DataFrames need pandas: pip install 'mif-rdf[columnar]'") from None
        return pandas.DataFrame(
            dict(zip(self.names, self.values)), columns=list(self.names), index=pandas.RangeIndex(self.height)
        )

    def arrow(self) -> pyarrow.Table:
        """A pyarrow Table made column by column (needs pyarrow: ``pip install 'mif-rdf[columnar]'``)."""
        try:
            import pyarrow
        except ImportError:
            raise MifRdfError("Arrow tables need pyarrow: pip install 'mif-rdf[columnar]'") from None
        arrays = [_arrow_array(pyarrow, column) for column in self.values]
        if len(set(self.names)) == len(self.names):  # what pyarrow.table does with a dict, less its Python
            return pyarrow.Table.from_arrays(arrays, names=list(self.names))
        return pyarrow.table(dict(zip(self.names, arrays)))  # a repeated name: one column of it, as a dict keeps

    def shaped(self, as_: Shape) -> Any:
        """The rows as ``as_`` asks: a :class:`Table`, a DataFrame or an Arrow table."""
        if as_ == "table":
            return self.table()
        if as_ == "dataframe":
            return self.dataframe()
        if as_ == "arrow":
            return self.arrow()
        raise MifRdfError(f"unknown result shape {as_!r}: use one of {', '.join(SHAPES)}")


def _arrow_array(pyarrow: Any, column: list[Any]) -> Any:
    """One Arrow array of a column: its values' own type, else text (see the module notes).

    A short column of text or of whole numbers (and None) is handed over as
    the buffers of its Arrow array (:func:`_short_text`, :func:`_short_integers`).
    """
    if len(column) < _SHORT_COLUMN:
        kinds = {type(value) for value in column}
        if kinds in _TEXT_TYPES:
            try:
                return _short_text(pyarrow, column)
            except UnicodeEncodeError:  # a lone surrogate: pyarrow says what is wrong
                return pyarrow.array(column, pyarrow.string())
        if kinds in _INTEGER_TYPES and all(-_INT64 <= value < _INT64 for value in column if value is not None):
            return _short_integers(pyarrow, column)
    try:
        return pyarrow.array(column)
    except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError, OverflowError):  # OverflowError: an int past 64 bits
        return pyarrow.array(
            [None if value is None else value if isinstance(value, str) else _text(value) for value in column],
            pyarrow.string(),
        )


def _short_text(pyarrow: Any, column: list[Any]) -> Any:
    """The Arrow string array of a short column of ``str`` and None, made from its three buffers.

    Converting a list (``pyarrow.array(column, pyarrow.string())``) cost about
    a tenth of a one-millisecond helper beside its query (it is a few
    microseconds in a loop of its own, but pyarrow's converter runs cold
    after Oxigraph's query: docs/performance.md); the buffers are the UTF-8
    text joined, the offsets where each value ends (32-bit, as Arrow's
    ``string`` type has them) and the validity bits, and the tests compare
    the arrays with pyarrow's own.
    """
    encoded = [b"" if value is None else value.encode("utf-8") for value in column]
    offsets = array.array("i", itertools.accumulate(map(len, encoded), initial=0))
    buffers = [_validity(pyarrow, column), pyarrow.py_buffer(offsets), pyarrow.py_buffer(b"".join(encoded))]
    return pyarrow.Array.from_buffers(pyarrow.string(), len(column), buffers)


def _short_integers(pyarrow: Any, column: list[Any]) -> Any:
    """The Arrow int64 array of a short column of ``int`` (within 64 bits) and None, made from its buffers
    (as :func:`_short_text`; a None's slot holds 0, as pyarrow leaves it)."""
    values = array.array("q", [0 if value is None else value for value in column])
    return pyarrow.Array.from_buffers(
        pyarrow.int64(), len(column), [_validity(pyarrow, column), pyarrow.py_buffer(values)]
    )


def _validity(pyarrow: Any, column: list[Any]) -> Any:
    """Arrow's validity bitmap of ``column`` (bit i set when value i is not None, least significant first);
    None when no value is None, as pyarrow leaves it."""
    if None not in column:
        return None
    bits = sum(1 << i for i, value in enumerate(column) if value is not None)
    return pyarrow.py_buffer(bits.to_bytes((len(column) + 7) // 8, "little"))


_SHORT_COLUMN = 64
_TEXT_TYPES = ({str}, {str, type(None)})
_INTEGER_TYPES = ({int}, {int, type(None)})
_INT64 = 2**63


def _text(value: Any) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)
