"""Running SPARQL on a bundle's graph.

* The usual prefixes (``mif: dc: prov: schema: xsd: rdf: rdfs: owl: skos:
  mifp:``) are predeclared, so queries can use them without ``PREFIX`` lines.
* Parameters are RDF terms handed to the store as bindings, never spliced into
  query text by string formatting: rdflib binds them before evaluation,
  Oxigraph substitutes them (it requires them in the ``SELECT`` projection).
  The helpers give them to Oxigraph as a leading ``VALUES`` block instead
  (:func:`values_first`; see :mod:`.native`).
* Syntax errors from either engine become one :class:`QuerySyntaxError` that
  names the line and column of the token, shows it, and says what was probably
  meant (:mod:`.syntax`).

A remote SPARQL endpoint (rdflib's ``SPARQLStore``) has no parameter mechanism
at all: rdflib appends the bindings as a trailing ``VALUES`` clause, which
SPARQL joins only *after* the ``WHERE`` clause, so a ``FILTER`` in it never
sees them.  :func:`bind_for_store` moves such bindings to the front of the
``WHERE`` group instead, written by :func:`sparql_term`, which refuses
anything that is not a well-formed term.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping

from pyparsing import ParseBaseException
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query
from rdflib.query import Result
from rdflib.term import Identifier, Node

from mif_rdf.core.context import is_valid_iri
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.limits import MAX_QUERY_BYTES, MAX_QUERY_DEPTH
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.core.redaction import redacted
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.stores import rdflib_memory, remote_endpoint
from mif_rdf.queries.oxigraph_calls import run_with_functions
from mif_rdf.queries.syntax import GRAMMAR_LOCK, syntax_error
from mif_rdf.queries.syntax import QuerySyntaxError as QuerySyntaxError  # its home before it had a module

#: Prefixes every query may use without declaring them.
INIT_NS: dict[str, str] = {prefix: str(namespace) for prefix, namespace in PREFIXES.items()}
Bindings = Mapping[str, Identifier]

_UNKNOWN_PREFIX = re.compile(r"^Unknown namespace prefix : (\S*)$")
_WHERE = re.compile(r"\bWHERE\s*\{", re.I)


def run_query(
    graph: Graph | LoadedBundle, query: str, bindings: Bindings | None = None, *, allow_service: bool = False
) -> Result:
    """Run a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE) on a bundle or any rdflib graph.

    A Dataset loaded with ``store="Oxigraph"`` is queried by Oxigraph's own
    engine, a ``SPARQLStore`` graph by its endpoint, anything else by rdflib's
    (which keeps its parse of each query text: parsing costs rdflib more than
    evaluating most helper queries).  ``bindings`` maps variable names
    (without ``?``) to RDF terms; see :func:`bind_for_store` for remote
    stores.  Raises :class:`QuerySyntaxError` when the query does not parse,
    :class:`MifRdfError` for a SPARQL Update (use :func:`run_update`) and for
    ``SERVICE`` federation unless ``allow_service`` (it would make the query
    engine fetch from the network).
    """
    if isinstance(graph, LoadedBundle):
        graph = graph.dataset
    if not isinstance(query, str) or not query.strip():
        raise MifRdfError("the query is empty")
    check_query_safety(query, allow_service=allow_service)
    query, bindings = bind_for_store(graph, query, bindings or {})
    check_unicode(query, *map(str, bindings.values()))
    try:
        if rdflib_memory(graph):
            return graph.query(_parsed(query), initBindings=dict(bindings))
        if (found := run_with_functions(graph, query, bindings)) is not None:  # mif:validAt & co. on Oxigraph
            return found
        return graph.query(query, initNs=INIT_NS, initBindings=dict(bindings))
    except (ParseBaseException, SyntaxError) as exc:  # rdflib's parser; pyoxigraph's "error at LINE:COLUMN: ..."
        raise syntax_error(query, exc) from None
    except RuntimeError as exc:  # pyoxigraph: a function it does not know
        if "custom function" not in str(exc):
            raise
        raise MifRdfError(
            f"{exc}: besides SPARQL's own, the functions are mif:validAt, mif:freshness and mif:strengthAt"
        ) from None
    except Exception as exc:
        if not _undeclared_prefix(exc):
            raise
        raise syntax_error(query, exc) from None


def _undeclared_prefix(exc: Exception) -> bool:
    """Whether ``exc`` is rdflib's report of an undeclared prefix (a bare Exception, nothing to catch it by)."""
    return type(exc) is Exception and _UNKNOWN_PREFIX.match(str(exc)) is not None


def check_unicode(*texts: str) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate,
    as from a file name that is not UTF-8): no engine can take it."""
    for text in texts:
        if text.isascii():  # a flag of the string: most queries and parameters
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise MifRdfError(
                f"the query or one of its parameters is not valid Unicode text: {text[exc.start]!r} at position "
                f"{exc.start}"
            ) from None


#: SPARQL's codepoint escapes, which a parser may apply before it reads keywords.
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_SERVICE_WORD = re.compile(r"service", re.I)
#: SERVICE as the keyword it is in a query: before an IRI, a variable or a prefixed name (SILENT between).
_SERVICE_CLAUSE = re.compile(r"(?<![\w:$?])service\s+(?:silent\s+)?(?:<|[?$]|[^\W\d][\w.-]*:|:)", re.I)
_BRACKETS = re.compile(r"[{}()\[\]]")


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code < 0x110000 else ""


def check_query_bounds(query: str, *, max_bytes: int = MAX_QUERY_BYTES, max_depth: int = MAX_QUERY_DEPTH) -> None:
    """Refuse a query too long or too deeply nested for the parsers, before any of them sees it.

    Depth counts every ``{``, ``(`` and ``[`` still open, wherever it is
    (strings and comments included: no parser's reading is trusted here), so
    it is never less than what an engine's recursive parser will meet.
    """
    size = len(query.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise MifRdfError(
            f"the query is {size:,} bytes long, over the limit of {max_bytes:,} bytes "
            "(mif_rdf.core.limits.MAX_QUERY_BYTES)"
        )
    depth = 0
    for match in _BRACKETS.finditer(query):
        if match.group() in "{([":
            depth += 1
            if depth > max_depth:
                raise MifRdfError(
                    f"the query nests brackets ({{ ( [) more than {max_depth} deep, over the limit "
                    f"(mif_rdf.core.limits.MAX_QUERY_DEPTH): deeper queries crash query parsers"
                )
        elif depth:
            depth -= 1


def check_query_text(query: str, *, allow_service: bool = False) -> None:
    """The checks of :func:`check_query_safety` that read the text only (no parser): Unicode, size and depth, and
    (unless SERVICE is allowed) no lone carriage return."""
    check_unicode(query)
    check_query_bounds(query)
    if not allow_service and "\r" in query.replace("\r\n", ""):
        raise MifRdfError(
            "the query has a carriage return that does not end a line (\\r without \\n): "
            "query engines disagree on where a comment ends there; use \\n or \\r\\n line ends"
        )


def mentions_service(query: str) -> bool:
    """Whether the letters ``service`` appear anywhere in the query, in any case, codepoint escapes decoded.

    Without them no engine can read a SERVICE clause in the text, whatever it
    makes of comments and strings: a server may then skip rdflib's parse
    (10-40 ms) and still refuse federation exactly as :func:`check_query_safety` does.
    """
    return bool(_SERVICE_WORD.search(_ESCAPE.sub(_unescape, query) if "\\" in query else query))


def check_query_safety(query: str, *, allow_service: bool = False) -> None:
    """Refuse oversized queries, updates and (unless allowed) SERVICE federation, before anything runs.

    pyoxigraph (0.5) has no switch that turns its SERVICE client off, so the
    check makes sure that what it finds holds for every engine: the text an
    engine runs is the text checked, a lone carriage return (Oxigraph ends a
    ``#`` comment there, rdflib does not) is refused, and a query whose text
    has a SERVICE clause that rdflib's parse does not show, or that rdflib
    cannot parse (a triple term, ``LATERAL``, ``ADJUST``) while the word
    SERVICE appears (codepoint escapes decoded), is refused: failing closed
    keeps it off the network.
    """
    check_query_text(query, allow_service=allow_service)
    try:
        parsed = _parsed(query)
    except RecursionError:
        raise MifRdfError(
            "the query is too deeply nested or has too many patterns in a row for rdflib's parser "
            "(it ran out of recursion); split it or run it on Oxigraph (--store oxigraph)"
        ) from None
    except Exception as exc:  # ParseBaseException, or an undeclared prefix as a bare Exception
        if isinstance(exc, ParseBaseException) and _is_update(query):
            raise MifRdfError(
                "this is a SPARQL Update; queries only read. A bundle's markdown files are its source of truth: "
                "change them, or call mif_rdf.queries.run_update on a loaded dataset and write it back"
            ) from None
        if not allow_service and mentions_service(query):
            raise MifRdfError(
                "this query mentions SERVICE and cannot be checked (rdflib cannot parse it), so it is not run: "
                "SERVICE would fetch from the network. Allow it explicitly (--allow-service, allow_service=True) if "
                "you trust it"
            ) from None
        return  # the engine reports the syntax error with its position
    if not allow_service:
        services = list(_service_iris(parsed.algebra))
        if services:
            raise MifRdfError(
                f"SERVICE federation is off: this query would fetch from {', '.join(map(redacted, services))}; "
                "allow it explicitly (--allow-service, allow_service=True) if you trust that endpoint"
            )
        if _SERVICE_CLAUSE.search(_ESCAPE.sub(_unescape, query)):
            raise MifRdfError(
                "this query has text that reads as a SERVICE clause (in a comment or string, as rdflib reads it, "
                "but another engine may read it otherwise), so it is not run: SERVICE would fetch from the network. "
                "Allow it explicitly (--allow-service, allow_service=True) if you trust it"
            )


def run_update(graph: Graph, update: str, *, allow_service: bool = False) -> None:
    """Run a SPARQL Update on a loaded graph (only ever when asked for by calling this)."""
    from rdflib.plugins.sparql import prepareUpdate

    try:
        with GRAMMAR_LOCK:
            prepared = prepareUpdate(update, initNs=INIT_NS)
    except Exception as exc:
        if not isinstance(exc, ParseBaseException) and not _undeclared_prefix(exc):
            raise
        raise syntax_error(update, exc, update=True) from None
    if not allow_service and list(_service_iris(prepared.algebra)):
        raise MifRdfError("SERVICE federation is off; pass allow_service=True to run this update")
    graph.update(prepared)


def _is_update(text: str) -> bool:
    from rdflib.plugins.sparql.parser import parseUpdate

    try:
        with GRAMMAR_LOCK:
            parseUpdate(text)
    except ParseBaseException:
        return False
    return True


def _service_iris(node: object) -> Iterator[str]:
    """IRIs of every SERVICE clause in a parsed query or update (its algebra tree)."""
    if isinstance(node, CompValue):
        if node.name == "ServiceGraphPattern":
            yield str(node.get("term"))
        for value in node.values():
            yield from _service_iris(value)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _service_iris(item)


@functools.lru_cache(maxsize=512)
def _parsed(query: str) -> Query:
    """rdflib's parse of a query, kept: parsing costs rdflib more than evaluating most helper queries."""
    with GRAMMAR_LOCK:
        return prepareQuery(query, initNs=INIT_NS)


def bind_for_store(graph: Graph, query: str, bindings: Bindings) -> tuple[str, Bindings]:
    """The query and bindings to hand to ``graph``'s store so the bindings apply from the start.

    Unchanged for stores that bind natively (rdflib's engine, Oxigraph).  For
    a remote endpoint the bindings become a ``VALUES`` block opening the first
    ``WHERE {`` group: the query's author guarantees that this is the outer
    group (no ``WHERE {`` in a comment or string before it).
    """
    if not bindings or not remote_endpoint(graph):
        return query, bindings
    return values_first(query, bindings), {}


def values_first(query: str, bindings: Bindings) -> str:
    """``query`` with ``bindings`` as a ``VALUES`` block opening its first ``WHERE {`` group.

    The query's author guarantees that this is the outer group.  Every term
    is written by :func:`sparql_term`, which refuses anything that is not a
    well-formed term; blank nodes are refused (SPARQL cannot bind those).
    """
    end = _where_end(query)
    if end is None:
        raise MifRdfError("parameters as VALUES (a remote store) need a query with a 'WHERE {' clause")
    variables, terms = [], []
    for name, term in bindings.items():
        if isinstance(term, BNode):
            raise MifRdfError(f"parameter ?{name} is a blank node; SPARQL cannot bind those")
        variables.append("?" + name)
        terms.append(sparql_term(term))
    return f"{query[:end]} VALUES ({' '.join(variables)}) {{ ({' '.join(terms)}) }}{query[end:]}"


@functools.lru_cache(maxsize=64)
def _where_end(query: str) -> int | None:
    """Where the first ``WHERE {`` of ``query`` ends; a helper sends the same text each time (1.3 us a search)."""
    match = _WHERE.search(query)
    return None if match is None else match.end()


def sparql_term(term: Node) -> str:
    """A term in SPARQL/N-Triples syntax; raises :class:`MifRdfError` for an IRI that is not one."""
    if isinstance(term, URIRef):
        if not is_valid_iri(str(term)):
            raise MifRdfError(f"{str(term)!r} is not a valid IRI")
        return f"<{term}>"
    if isinstance(term, Literal):
        text = '"' + "".join(_ESCAPES.get(c, c) for c in str(term)) + '"'
        if term.language:
            return f"{text}@{term.language}"
        return f"{text}^^{sparql_term(term.datatype)}" if term.datatype else text
    if isinstance(term, BNode):
        return f"_:{term}"
    raise MifRdfError(f"cannot write {term!r} as a SPARQL term")


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
