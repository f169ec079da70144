"""What ``mif-rdf serve`` answers: SPARQL 1.1 Protocol, Graph Store Protocol reads, service description, the page.

Routes (the same as the Oxigraph server's, so clients configured for one work
with the other):

* ``/query`` (also ``/sparql``): GET with ``query=``, POST as a form or as
  ``application/sparql-query``; ``default-graph-uri`` and ``named-graph-uri``
  as the protocol says; otherwise the default graph is the union of all
  graphs, as a set of triples.  GET without a query is the service description.
* ``/store``: GET and HEAD of ``?graph=IRI``, ``?default`` (the union, as
  queries see it) or nothing (the whole dataset, N-Quads/TriG/JSON-LD).
* ``/update`` and every write to ``/store``: refused, the server is read-only
  (the bundle's markdown files are its source of truth).
* ``/`` and ``/static/``: the page for people; ``/api/``: the JSON it reads
  (:mod:`.views`).

This module knows nothing of sockets: :func:`answer` runs in a worker thread
of :mod:`.http` with a :class:`Request` and writes the answer to an
:class:`Output`, streaming (pyoxigraph serializes straight into it).  Every
pyoxigraph result is made, written and freed in that one thread (pyoxigraph
results may not be freed by another); an error status is raised as
:class:`HttpError` before anything is written.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from typing import Any, Protocol
from urllib.parse import parse_qs

import pyoxigraph as ox
from rdflib.plugins.sparql import prepareQuery

from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries.oxigraph_calls import functions_named_in
from mif_rdf.queries.sparql import INIT_NS, check_query_safety, check_query_text, mentions_service
from mif_rdf.queries.syntax import GRAMMAR_LOCK, syntax_error
from mif_rdf.serve import negotiate, views
from mif_rdf.serve.served import ServedBundle
from mif_rdf.serve.snapshot import DEFAULT

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_NS = "http://www.w3.org/ns/formats/"
VOID = "http://rdfs.org/ns/void#"
_RESULT_FORMATS = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "N-Quads",
    "TriG",
    "N3",
    "RDF_XML",
    "JSON-LD",
)
_SERVICE = re.compile(r"\bSERVICE\b", re.I)
_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


class HttpError(Exception):
    """An answer other than 200: status and a one-line message (sent as text/plain)."""

    def __init__(self, status: HTTPStatus, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


@dataclass(frozen=True)
class Request:
    """One HTTP request as the handlers need it (the body already read, within its limits)."""

    method: str
    path: str
    params: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    endpoint: str  # this server's /query address as the client named it


class Output(Protocol):
    """Where an answer goes: a status line and headers once, then the body in pieces (a file-like for pyoxigraph)."""

    def start(self, status: HTTPStatus, content_type: str, headers: dict[str, str]) -> None: ...

    def write(self, data: bytes) -> int: ...

    def flush(self) -> None: ...


@dataclass(frozen=True)
class QueryOptions:
    """What the server lets queries do."""

    allow_service: bool = False


def answer(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    """Answer ``request`` into ``out``; raises :class:`HttpError` (before writing anything) for any status but 200."""
    route = _route(request.path)
    route(served, options, request, out)


def is_static(path: str) -> bool:
    """Whether ``path`` is one of the page's files (answered without a worker: nothing of the bundle is read)."""
    return path == "/" or path.startswith("/static/")


def static(method: str, path: str) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
    """One of the page's files, shipped in the package."""
    if method not in ("GET", "HEAD"):
        raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} on a page", {"Allow": "GET, HEAD"})
    name = "index.html" if path == "/" else path[len("/static/") :]
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    if "/" in name or name.startswith(".") or suffix not in _STATIC_TYPES:
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such file: {name}")
    item = resources.files(__package__).joinpath("static", name)
    if not item.is_file():
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such file: {name}")
    return HTTPStatus.OK, _STATIC_TYPES[suffix], item.read_bytes(), {"Cache-Control": "no-cache"}


Route = Callable[[ServedBundle, QueryOptions, Request, Output], None]


def _route(path: str) -> Route:
    if path in ("/query", "/sparql"):
        return _query
    if path == "/update":
        return _update
    if path == "/store":
        return _store
    if path.startswith("/api/"):
        return _api
    raise HttpError(HTTPStatus.NOT_FOUND, f"no such resource: {path}")


# -- SPARQL 1.1 Protocol ---------------------------------------------------------------------
def _query(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    params = request.params
    query: str | None
    if request.method == "POST":
        query, params = _posted_query(request)
    elif request.method in ("GET", "HEAD"):
        query = _one(params, "query")
        if query is None:
            if "update" in params:
                raise _read_only()
            _service_description(served, options, request, out)
            return
    else:
        raise HttpError(
            HTTPStatus.METHOD_NOT_ALLOWED,
            f"{request.method} is not a SPARQL query operation",
            {"Allow": "GET, HEAD, POST"},
        )
    if "update" in params:
        raise _read_only()
    dataset: dict[str, Any] = {
        "default_graph": DEFAULT
    }  # the served store's default graph: the set of all served triples
    default_graphs, named_graphs = params.get("default-graph-uri", []), params.get("named-graph-uri", [])
    if default_graphs or named_graphs:
        dataset = {
            "default_graph": [_graph_name(g) for g in default_graphs],
            "named_graphs": [_graph_name(g) for g in named_graphs],
        }
    _, result = served.read(lambda snap: start_query(snap.store, query, dataset, options))
    offers = negotiate.GRAPH if isinstance(result, ox.QueryTriples) else negotiate.RESULTS
    offer = negotiate.negotiate(request.headers.get("accept"), offers)
    if offer is None:
        del result  # freed here, in its own thread, before the error leaves it
        raise _not_acceptable(offers)
    try:
        out.start(HTTPStatus.OK, negotiate.content_type(offer), {"Vary": "Accept"})
        if request.method != "HEAD":
            result.serialize(out, format=offer[1])
    finally:
        del result  # also when the client left mid-answer: freed in this thread


def start_query(store: Any, query: str, dataset: dict[str, Any], options: QueryOptions) -> Any:
    """Check ``query`` and start it on ``store`` (the one place serve checks and runs a query).

    Returns pyoxigraph's lazy result (the engine works as it is read), or
    raises :class:`HttpError` for a refused or malformed query.
    """
    check_safety(query, options.allow_service)
    try:
        return store.query(query, prefixes=INIT_NS, custom_functions=functions_named_in(store, query), **dataset)
    except SyntaxError as exc:
        check_parsed(query, options.allow_service)  # an update, say, gets its own answer
        raise HttpError(HTTPStatus.BAD_REQUEST, str(syntax_error(query, exc))) from None  # the token, shown
    except OSError as exc:  # a SERVICE call that failed (only with --allow-service)
        raise HttpError(HTTPStatus.BAD_GATEWAY, f"the query could not be evaluated: {exc}") from None


def _posted_query(request: Request) -> tuple[str, dict[str, list[str]]]:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "application/x-www-form-urlencoded":
        form = parse_qs(request.body.decode("utf-8", errors="replace"), keep_blank_values=True)
        if "update" in form:
            raise _read_only()
        merged = {**request.params, **form}
        query = _one(merged, "query")
        if query is None:
            raise HttpError(HTTPStatus.BAD_REQUEST, "the form has no 'query' field")
        return query, merged
    if ctype == "application/sparql-query":
        return request.body.decode("utf-8", errors="replace"), request.params
    if ctype == "application/sparql-update":
        raise _read_only()
    raise HttpError(
        HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
        f"POST a query as application/sparql-query or application/x-www-form-urlencoded, not {ctype or 'nothing'}",
    )


def _service_description(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    offer = negotiate.negotiate(request.headers.get("accept"), negotiate.GRAPH)
    if offer is None:
        raise _not_acceptable(negotiate.GRAPH)
    snapshot = served.current()
    triples = service_description(request.endpoint, snapshot.triples, options.allow_service)
    out.start(HTTPStatus.OK, negotiate.content_type(offer), {"Vary": "Accept"})
    out.write(ox.serialize(triples, format=offer[1]) or b"")


def _update(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    raise _read_only()


# -- Graph Store Protocol (reads) ---------------------------------------------------------------
def _store(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    if request.method not in ("GET", "HEAD"):
        raise HttpError(
            HTTPStatus.METHOD_NOT_ALLOWED,
            "the store is read-only: change the bundle's markdown files instead",
            {"Allow": "GET, HEAD"},
        )
    accept = request.headers.get("accept")
    graph = _one(request.params, "graph")
    offers = negotiate.DATASET if graph is None and "default" not in request.params else negotiate.GRAPH
    offer = negotiate.negotiate(accept, offers)
    if offer is None:
        raise _not_acceptable(offers)
    if (
        graph is None and "default" not in request.params
    ):  # the whole dataset: the named graphs (the default graph is their union)
        snapshot, quads = served.read(lambda snap: snap.store.quads_for_pattern(None, None, None, None))
        try:
            out.start(HTTPStatus.OK, negotiate.content_type(offer), {"Vary": "Accept"})
            if request.method != "HEAD":
                ox.serialize((q for q in quads if q.graph_name != DEFAULT), out, format=offer[1])  # type: ignore[arg-type]
        finally:
            del quads
        return
    snapshot = served.current()
    name = DEFAULT if graph is None else _graph_name(graph)
    if graph is not None and not snapshot.store.contains_named_graph(name):
        raise HttpError(HTTPStatus.NOT_FOUND, f"no graph {graph} in this bundle")
    out.start(HTTPStatus.OK, negotiate.content_type(offer), {"Vary": "Accept"})
    if request.method != "HEAD":
        snapshot.store.dump(out, format=offer[1], from_graph=name)


# -- the page's JSON ------------------------------------------------------------------------------
def _api(served: ServedBundle, options: QueryOptions, request: Request, out: Output) -> None:
    name = request.path[len("/api/") :]
    if request.method not in ("GET", "HEAD"):
        raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{request.method} on /api/{name}", {"Allow": "GET, HEAD"})
    try:
        data = views.view(served, name, {k: v[0] for k, v in request.params.items() if v})
    except LookupError as exc:
        raise HttpError(HTTPStatus.NOT_FOUND, str(exc).strip("'\"")) from None
    out.start(HTTPStatus.OK, "application/json; charset=utf-8", {"Cache-Control": "no-cache"})
    out.write(json.dumps(data, default=str, ensure_ascii=False).encode("utf-8"))


def check_safety(query: str, allow_service: bool) -> None:
    """Refuse what :func:`check_query_safety` refuses, reading the query with rdflib's parser only where it must.

    rdflib's parser takes 10-40 ms, Oxigraph's well under one; the parse only
    finds SERVICE clauses and updates.  So a query whose text does not
    contain the letters ``service`` (codepoint escapes decoded: then no engine
    can read a SERVICE clause in it) gets the text checks alone (size, depth,
    Unicode, lone carriage returns) and goes to Oxigraph, which cannot run an
    update as a query: its syntax error then goes through the whole check
    (:func:`check_parsed`), so an update still gets the read-only answer.
    A query that mentions SERVICE is parsed first, and refused unless allowed
    (a query only Oxigraph understands that contains the word is refused too:
    fail closed).
    """
    try:
        check_query_text(query, allow_service=allow_service)
    except MifRdfError as exc:
        raise HttpError(HTTPStatus.BAD_REQUEST, str(exc)) from None
    if not allow_service and mentions_service(query):
        check_parsed(query, allow_service)


def check_parsed(query: str, allow_service: bool) -> None:
    """The whole :func:`check_query_safety`, rdflib's parse included.

    A verdict is a function of the text alone, so it is remembered for the
    last queries seen: the page and clients repeat their queries.
    """
    refusal = _refusal(query, allow_service)
    if refusal is not None:
        raise HttpError(*refusal)


@functools.lru_cache(maxsize=512)
def _refusal(query: str, allow_service: bool) -> tuple[HTTPStatus, str] | None:
    try:
        _check(query, allow_service)
    except HttpError as exc:
        return exc.status, exc.message
    return None


def _check(query: str, allow_service: bool) -> None:
    try:
        check_query_safety(query, allow_service=allow_service)
    except MifRdfError as exc:
        status = HTTPStatus.FORBIDDEN if "Update" in str(exc) else HTTPStatus.BAD_REQUEST
        raise HttpError(status, str(exc)) from None
    if not allow_service and _SERVICE.search(query):
        try:
            with GRAMMAR_LOCK:
                prepareQuery(query, initNs=INIT_NS)
        except Exception:
            raise HttpError(
                HTTPStatus.BAD_REQUEST, "SERVICE federation is off (the server was started without --allow-service)"
            ) from None


def service_description(endpoint: str, triples: int, allow_service: bool) -> list[Any]:
    """The SPARQL 1.1 Service Description of the endpoint, as pyoxigraph triples."""
    service, dataset, default = ox.NamedNode(endpoint), ox.BlankNode(), ox.BlankNode()
    a = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")

    def sd(name: str) -> Any:
        return ox.NamedNode(SD + name)

    out = [
        ox.Triple(service, a, sd("Service")),
        ox.Triple(service, sd("endpoint"), service),
        ox.Triple(service, sd("supportedLanguage"), sd("SPARQL11Query")),
        ox.Triple(service, sd("feature"), sd("UnionDefaultGraph")),
        ox.Triple(service, sd("defaultDataset"), dataset),
        ox.Triple(dataset, a, sd("Dataset")),
        ox.Triple(dataset, sd("defaultGraph"), default),
        ox.Triple(default, a, sd("Graph")),
        ox.Triple(
            default,
            ox.NamedNode(VOID + "triples"),
            ox.Literal(str(triples), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
        ),
    ]
    out += [ox.Triple(service, sd("resultFormat"), ox.NamedNode(FORMATS_NS + name)) for name in _RESULT_FORMATS]
    if allow_service:
        out.append(ox.Triple(service, sd("feature"), sd("BasicFederatedQuery")))
    return out


def _one(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise HttpError(HTTPStatus.BAD_REQUEST, f"more than one '{name}' parameter")
    return values[0]


def _graph_name(iri: str) -> Any:
    try:
        return ox.NamedNode(iri)
    except ValueError as exc:
        raise HttpError(HTTPStatus.BAD_REQUEST, f"{iri!r} is not an IRI: {exc}") from None


def _read_only() -> HttpError:
    return HttpError(
        HTTPStatus.FORBIDDEN,
        "this endpoint is read-only: no SPARQL Update; change the bundle's markdown files instead (or start serve "
        "with --writable)",
    )


def _not_acceptable(offers: negotiate.Offers) -> HttpError:
    return HttpError(
        HTTPStatus.NOT_ACCEPTABLE, "acceptable formats: " + ", ".join(dict.fromkeys(media for media, _ in offers))
    )
