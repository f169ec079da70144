"""SPARQL syntax errors that point at the token: line, column, the line itself with a caret, and a "did you mean".

The engines' own messages are no help to a person: rdflib's parser says
``Expected SelectQuery, found 'FILTER'`` at the start of the clause that
failed, Oxigraph's gives the furthest place its grammar looked (often past
the end of the clause) with every token it could have read there.  So the
place is found here, the same way whichever store ran the query, and the
same query gets the same message on both:

1. an undeclared prefix is found where the query first uses it;
2. otherwise rdflib's grammar (pyparsing) is run on the text: where it
   stops is the token it could not read.  When that token opens a clause
   (``FILTER``, ``OPTIONAL``, ``BIND``, ``ORDER`` ...), the grammar of that
   clause alone is run from there, again and again, because the enclosing
   grammar gives up on a clause as a whole and reports its first word;
3. only when rdflib reads the text (Oxigraph knows syntax rdflib does not)
   is the engine's own position used.

A word that is no SPARQL keyword gets the nearest keyword
(:func:`mif_rdf.core.spelling.closest`: ``SELCT`` -> ``SELECT``); an
undeclared prefix the nearest prefix the query may use (its ``PREFIX``
lines, the predeclared ones, the well-known ones both engines read).
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass

from pyparsing import Literal, ParseBaseException, ParserElement, StringEnd, ZeroOrMore
from pyparsing import Optional as Maybe
from rdflib.plugins.sparql import parser as grammar

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.core.spelling import closest

#: Every word SPARQL 1.1 (and the SPARQL 1.2 that Oxigraph reads) knows, keywords and built-in functions.
KEYWORDS = frozenset(
    (
        "BASE PREFIX SELECT CONSTRUCT DESCRIBE ASK FROM NAMED WHERE ORDER BY GROUP HAVING ASC DESC LIMIT OFFSET "
        "VALUES LOAD SILENT INTO CLEAR DROP CREATE ADD MOVE COPY TO INSERT DELETE DATA WITH USING DEFAULT ALL GRAPH "
        "OPTIONAL SERVICE BIND UNDEF MINUS UNION FILTER AS DISTINCT REDUCED STR LANG LANGMATCHES DATATYPE BOUND IRI "
        "URI BNODE RAND ABS CEIL FLOOR ROUND CONCAT STRLEN UCASE LCASE ENCODE_FOR_URI CONTAINS STRSTARTS STRENDS "
        "STRBEFORE STRAFTER YEAR MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ NOW UUID STRUUID MD5 SHA1 SHA256 SHA384 "
        "SHA512 COALESCE IF STRLANG STRDT SAMETERM ISIRI ISURI ISBLANK ISLITERAL ISNUMERIC REGEX SUBSTR REPLACE "
        "EXISTS NOT IN COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT SEPARATOR A TRUE FALSE LATERAL VERSION TRIPLE "
        "SUBJECT PREDICATE OBJECT ISTRIPLE LANGDIR HASLANG HASLANGDIR STRLANGDIR ADJUST"
    ).split()
)
#: The words a clause starts with -> the name of rdflib's grammar element for that clause.
_CLAUSES = {
    "FILTER": "Filter",
    "OPTIONAL": "OptionalGraphPattern",
    "BIND": "Bind",
    "MINUS": "MinusGraphPattern",
    "GRAPH": "GraphGraphPattern",
    "SERVICE": "ServiceGraphPattern",
    "VALUES": "InlineData",
    "{": "GroupOrUnionGraphPattern",
    "ORDER": "OrderClause",
    "GROUP": "GroupClause",
    "HAVING": "HavingClause",
    "LIMIT": "LimitOffsetClauses",
    "OFFSET": "LimitOffsetClauses",
}
#: One token of SPARQL at a position (what the caret goes under); anything else is one character.
_TOKEN = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'(?:[^\\]|\\.)*?\'\'\'|"(?:[^"\\\n]|\\.)*"?|\'(?:[^\'\\\n]|\\.)*\'?'  # strings
    r"|<[^<>\"{}|^`\\\s]*>"  # an IRI
    r"|[?$]\w+"  # a variable
    r"|(?:[^\W\d][\w.-]*)?:[\w.:%-]*(?<!\.)"  # a prefixed name
    r"|[^\W\d]\w*"  # a word
    r"|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"  # a number
    r"|\^\^|&&|\|\||!=|<=|>=|\S"
)
_SKIPPED = re.compile(r"(?:\s+|#[^\n]*)*")  # what a parser passes over before a token
_WORD = re.compile(r"[^\W\d]\w*")
_WORD_BEFORE = re.compile(r"(?<![\w:?$@.\\-])([^\W\d]\w*)\s*$")  # a bare word (no name, variable or tag) at the end
_DECLARED = re.compile(r"\bprefix\s+([^\W\d][\w.-]*|):", re.I)
_WIDTH = 100  # characters of the query line shown around the caret
#: A sentence among the tokens Oxigraph lists as expected: its checks of the query as a whole say what is wrong.
_SENTENCE = re.compile(r"(?<![\w'\"\[])([A-Z][\w*?]*(?: [\w*?]+){3,})(?=,|$)")


class QuerySyntaxError(MifRdfError):
    """A query that does not parse; ``line`` and ``column`` count from 1 when known.

    The message is one line (where, what, a "did you mean"), then, when the
    query text is known, the query's line with a caret under the token.
    ``token`` is that token's text and ``suggestion`` what was probably meant.
    """

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        query: str | None = None,
        token: str = "",
        suggestion: str | None = None,
    ) -> None:
        where = f" at line {line}, column {column}" if line is not None else ""
        meant = f"; did you mean {suggestion}?" if suggestion else ""
        shown = pointer(query, line, column, len(token)) if query is not None and line and column else ""
        super().__init__(f"query syntax error{where}: {message}{meant}{shown}")
        self.line, self.column, self.token, self.suggestion, self.reason = line, column, token, suggestion, message


def pointer(query: str, line: int, column: int, length: int = 1) -> str:
    """Two lines: the query's ``line`` (cut to about 100 characters around ``column``), and carets under the token."""
    lines = query.splitlines() or [""]
    text = lines[min(line, len(lines)) - 1].replace("\t", " ")
    start = max(0, min(column - 1 - _WIDTH // 3, len(text) - _WIDTH))
    shown = text[start : start + _WIDTH]
    before = "…" if start else ""
    after = "…" if start + _WIDTH < len(text) else ""
    carets = "^" * max(1, min(length, len(shown) - (column - 1 - start)))
    return f"\n  {before}{shown}{after}\n  {' ' * (len(before) + column - 1 - start)}{carets}"


@dataclass(frozen=True)
class _Place:
    """A token of the query: where it starts (an index into the text) and its text ('' at the end)."""

    index: int
    token: str


def syntax_error(query: str, error: BaseException, *, update: bool = False) -> QuerySyntaxError:
    """The :class:`QuerySyntaxError` for ``query``, which an engine refused with ``error``.

    ``error``: rdflib's parse exception, its bare ``Exception`` for an
    undeclared prefix, or pyoxigraph's ``SyntaxError``; ``update``: the text
    is a SPARQL Update.
    """
    text = str(error)
    prefix = _undeclared_prefix(query, text)
    if prefix is not None:
        return _prefix_error(query, prefix)
    index = _grammar_failure(query, update)
    if index is not None:
        return _token_error(query, _token_at(query, index), update)
    if isinstance(error, ParseBaseException):  # the grammar could say no more (too deep, a bad escape): rdflib's words
        return QuerySyntaxError(_one_line(error.msg), error.lineno, error.col)
    engine = re.match(r"^error at (\d+):(\d+): (.*)$", text, re.S)  # pyoxigraph's position, characters from 1
    if engine is None:
        return QuerySyntaxError(_one_line(text))
    sentences = _SENTENCE.findall(engine.group(3))
    if sentences:  # a rule of the query as a whole (SELECT * with GROUP BY): no token to point at
        return QuerySyntaxError("; ".join(sentences))
    line, column = int(engine.group(1)), int(engine.group(2))
    place = _token_at(query, _index_of(query, line, column))
    return QuerySyntaxError(_one_line(engine.group(3)), line, column, query=query, token=place.token)


# -- where: rdflib's grammar --------------------------------------------------------------------

#: Held by every use of rdflib's SPARQL grammar in the package.  pyparsing finds the arity of a parse action on
#: its first call by trying argument counts, and two threads on that first call can both move the count on
#: ("<lambda>() missing 1 required positional argument" in serve's worker threads); pyparsing runs under the GIL
#: anyway, so one parse at a time costs nothing.
GRAMMAR_LOCK = threading.Lock()


@functools.cache
def _update_grammar() -> ParserElement:
    """rdflib's update grammar without its optional parts, so that it says where an operation fails.

    rdflib's own (``Prologue`` then an optional operation) reads a broken
    operation as none at all and reports "expected end of text" at the start.
    """
    operations = grammar.Prologue + grammar.Update1
    strict = operations + ZeroOrMore(Literal(";") + operations) + Maybe(Literal(";")) + StringEnd()
    strict.ignore(grammar.UpdateUnit.ignoreExprs[0])  # rdflib's own comment rule (the same object: nothing added)
    return strict


def _failure_at(element: ParserElement, text: str, start: int = 0, whole: bool = False) -> int | None:
    """Where ``element`` fails on ``text`` from ``start`` (an index of ``text``), or None when it reads it."""
    top = element.copy()
    top.parse_with_tabs()  # positions in the text as given (pyparsing expands tabs by default); the copy is ours
    try:
        with GRAMMAR_LOCK:
            top.parse_string(text[start:], parse_all=whole)
    except ParseBaseException as exc:
        return start + exc.loc
    except RecursionError:  # too deep for pyparsing: say no more than the engine did
        return None
    return None


def _grammar_failure(query: str, update: bool) -> int | None:
    """The index of the token rdflib's grammar cannot read, or None when it reads the whole text."""
    try:
        source = grammar.expandUnicodeEscapes(query)  # as rdflib reads it: \u escapes first
    except ValueError:  # an escape of no character
        return None
    index = _failure_at(_update_grammar() if update else grammar.Query, source, whole=True)
    while index is not None:  # down into the clause the grammar gave up on as a whole
        place = _token_at(source, index)
        name = _CLAUSES.get(place.token.upper())
        deeper = _failure_at(getattr(grammar, name), source, place.index) if name else None
        if deeper is None or deeper <= place.index:
            return _unescaped_index(query, place.index)
        index = deeper
    return None


def _unescaped_index(query: str, index: int) -> int:
    """The index in ``query`` of what is at ``index`` once its ``\\u`` escapes are read (each is one character)."""
    shift = 0
    for escape in grammar.expandUnicodeEscapes_re.finditer(query):
        if escape.start() - shift >= index:
            break
        shift += len(escape.group()) - 1
    return index + shift


def _token_at(query: str, index: int) -> _Place:
    """The token at ``index``, after the spaces and comments a parser passes over ('' at the end)."""
    skipped = _SKIPPED.match(query, index)
    start = skipped.end() if skipped else index
    found = _TOKEN.match(query, start)
    return _Place(start, found.group() if found else "")


def _index_of(query: str, line: int, column: int) -> int:
    starts = [0] + [m.end() for m in re.finditer(r"\n", query)]
    return min(starts[min(line, len(starts)) - 1] + column - 1, len(query))


def _line_column(query: str, index: int) -> tuple[int, int]:
    line = query.count("\n", 0, index) + 1
    return line, index - (query.rfind("\n", 0, index) + 1) + 1


# -- what: the token, and what was meant ---------------------------------------------------------------------


def _token_error(query: str, place: _Place, update: bool) -> QuerySyntaxError:
    if not place.token:  # the end of the text
        index = len(query.rstrip())
        line, column = _line_column(query, index)
        return QuerySyntaxError(_ends_early(query, update), line, column, query=query)
    unknown = _unknown_word_before(query, place.index)
    if unknown is not None:  # the grammar read it as something else and failed on the next token
        place = unknown
    line, column = _line_column(query, place.index)
    word = place.token
    if _WORD.fullmatch(word) and word.upper() not in KEYWORDS:
        meant = closest(word.upper(), KEYWORDS)
        return QuerySyntaxError(
            f"{word!r} is not a SPARQL keyword", line, column, query=query, token=word, suggestion=meant
        )
    return QuerySyntaxError(
        f"unexpected {_shown(word)}{_missing_dot(query, place)}", line, column, query=query, token=word
    )


def _unknown_word_before(query: str, index: int) -> _Place | None:
    """The bare word just before ``index`` when it is no SPARQL word (``REGX`` in ``REGX(?x)``), else None."""
    found = _WORD_BEFORE.search(query, 0, index)
    if found is None or found.group(1).upper() in KEYWORDS:
        return None
    if "#" in query[query.rfind("\n", 0, found.start()) + 1 : found.start()]:
        return None  # perhaps a word of a comment (or after an IRI with a fragment: no guess rather than a wrong one)
    return _Place(found.start(1), found.group(1))


def _shown(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:39] + "…")


def _missing_dot(query: str, place: _Place) -> str:
    """A hint when a term follows a complete triple with no ``.`` between them (the commonest slip)."""
    before = query[: place.index].rstrip()
    starts_term = place.token[:1] in "?$<_\"'" or ":" in place.token
    if starts_term and before and before[-1] not in ".;,{([" and not before.upper().endswith(("WHERE", "SELECT")):
        return " (is a '.' missing before it?)"
    return ""


def _ends_early(query: str, update: bool) -> str:
    """The message for a text that stops in the middle: which bracket is still open, when one is."""
    what = "update" if update else "query"
    clean = _TOKEN.findall(query)
    for opening, closing in (("{", "}"), ("(", ")"), ("[", "]")):
        if clean.count(opening) > clean.count(closing):
            return f"the {what} ends before it is complete: a closing {closing!r} is missing"
    return f"the {what} ends before it is complete"


# -- prefixes -------------------------------------------------------------------------------------------------


_OXIGRAPH_PREFIX_END = re.compile(r"([^\W\d][\w.-]*|):[\w.-]*$")


def _undeclared_prefix(query: str, text: str) -> str | None:
    """The prefix an engine said is not declared (rdflib: "Unknown namespace prefix : p"; Oxigraph: "Prefix not
    found" at the end of the name), or None."""
    found = re.match(r"^Unknown namespace prefix : (\S*)$", text)
    if found is not None:
        return "" if found.group(1) == "None" else found.group(1)  # rdflib names the empty prefix None
    engine = re.match(r"^error at (\d+):(\d+): .*Prefix not found", text, re.S)
    if engine is not None:
        index = _index_of(query, int(engine.group(1)), int(engine.group(2)))
        name = _OXIGRAPH_PREFIX_END.search(query[query.rfind("\n", 0, index) + 1 : index])
        if name is not None:
            return name.group(1)
    return None


@functools.cache
def _well_known() -> dict[str, str]:
    """Prefixes both engines read undeclared besides the predeclared ones (rdflib's list: foaf, dcat, sh ...)."""
    from rdflib import Graph

    return {prefix: str(namespace) for prefix, namespace in Graph(bind_namespaces="rdflib").namespaces() if prefix}


def _predeclared_for(prefix: str) -> str | None:
    """The predeclared prefix of the namespace a well-known, undeclared ``prefix`` names (``dc`` for ``dcterms``):
    rdflib binds a namespace to one prefix, so the well-known name of a predeclared namespace is not read."""
    if prefix in PREFIXES:
        return None
    namespace = _well_known().get(prefix)
    return next((name for name, known in PREFIXES.items() if str(known) == namespace), None)


def _prefix_error(query: str, prefix: str) -> QuerySyntaxError:
    """``prefix p: is not declared``, where the query first uses it, with the nearest prefix it may use.

    A well-known name of a predeclared namespace (``dcterms:`` for ``dc:``)
    gets that prefix, whatever the spelling distance.
    """
    found = re.search(rf"(?<![\w.:/<-]){re.escape(prefix)}:", query)
    line, column = _line_column(query, found.start()) if found else (None, None)
    token = found.group() if found else ""
    same = _predeclared_for(prefix)
    if same:
        suggestion: str | None = f"{same}: (the same namespace, declared for every query)"
    else:
        near = closest(prefix, {*PREFIXES, *_well_known(), *(m.group(1) for m in _DECLARED.finditer(query))})
        suggestion = f"{_predeclared_for(near) or near}:" if near is not None else None
    return QuerySyntaxError(
        f"prefix {prefix}: is not declared", line, column, query=query, token=token, suggestion=suggestion
    )


def _one_line(message: str, limit: int = 200) -> str:
    """Engine messages on one line, cut short: Oxigraph may list every token it expected."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
