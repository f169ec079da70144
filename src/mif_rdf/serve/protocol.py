"""The HTTP side of ``mif-rdf serve``: SPARQL 1.1 Protocol, Graph Store Protocol reads, service description.

Routes (the same as the Oxigraph server's, so clients configured for one work
with the other):

* ``/query`` (also ``/sparql``): GET with ``query=``, POST as a form or as
  ``application/sparql-query``; ``default-graph-uri`` and ``named-graph-uri``
  as the protocol says; otherwise the default graph is the union of all
  graphs.  GET without a query is the service description.
* ``/store``: GET and HEAD of ``?graph=IRI``, ``?default`` (the union, as
  queries see it) or nothing (the whole dataset, N-Quads/TriG/JSON-LD).
* ``/update`` and every write to ``/store``: refused, the server is read-only
  (the bundle's markdown files are its source of truth).
* ``/`` and ``/static/``: the page for people; ``/api/``: the JSON it reads
  (:mod:`.views`).

Answers are written while the query holds the served bundle's read lock, so
a reload never lands in the middle of one.
"""
from __future__ import annotations

import json
import re
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox
from rdflib.plugins.sparql import prepareQuery

from ..errors import MifRdfError
from ..queries.sparql import INIT_NS, check_query_safety
from . import negotiate, views
from .served import ServedBundle

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
VOID = "http://rdfs.org/ns/void#"
_RESULT_FORMATS = ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
                   "Turtle", "N-Triples", "N-Quads", "TriG", "N3", "RDF_XML", "JSON-LD")
_SERVICE = re.compile(r"\bSERVICE\b", re.I)
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?")
_STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
                 ".svg": "image/svg+xml"}
MAX_BODY = 8 * 2**20  # a query or form larger than this is refused (413)


class HttpError(Exception):
    """An answer other than 200: status and a one-line message (sent as text/plain)."""

    def __init__(self, status: HTTPStatus, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


class BundleServer(ThreadingHTTPServer):
    """A threading HTTP server over one :class:`ServedBundle`."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], served: ServedBundle, *, allow_service: bool = False, quiet: bool = True) -> None:
        super().__init__(address, Handler)
        self.served = served
        self.allow_service = allow_service
        self.quiet = quiet

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}/"


class Handler(BaseHTTPRequestHandler):
    server: BundleServer
    protocol_version = "HTTP/1.1"
    server_version = "mif-rdf"

    # -- dispatch ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._handle(self.command)

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_GET  # each answers by route and method (self.command)

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        params = parse_qs(url.query, keep_blank_values=True)
        try:
            route = self._route(url.path)
            status, ctype, body, headers = route(method, params)
        except HttpError as exc:
            status, ctype, body, headers = exc.status, "text/plain; charset=utf-8", (exc.message + "\n").encode("utf-8"), exc.headers
        except Exception as exc:  # a fault of the server, never of the request: one line, and the server goes on
            print(f"mif-rdf serve: {self.command} {self.path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            status, ctype, body, headers = HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", f"internal error: {exc}\n".encode(), {}
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(body)

    def _route(self, path: str) -> Callable[[str, dict[str, list[str]]], tuple[HTTPStatus, str, bytes, dict[str, str]]]:
        if path in ("/query", "/sparql"):
            return self._query
        if path == "/update":
            return self._update
        if path == "/store":
            return self._store
        if path == "/" or path.startswith("/static/"):
            return lambda method, params: self._static(method, "index.html" if path == "/" else path[len("/static/"):])
        if path.startswith("/api/"):
            return lambda method, params: self._api(method, path[len("/api/"):], params)
        raise HttpError(HTTPStatus.NOT_FOUND, f"no such resource: {path}")

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    # -- SPARQL 1.1 Protocol ---------------------------------------------------------------------
    def _query(self, method: str, params: dict[str, list[str]]) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        if method == "POST":
            query, params = self._posted_query(params)
        elif method in ("GET", "HEAD"):
            query = _one(params, "query")
            if query is None:
                if "update" in params:
                    raise _read_only()
                return self._service_description()
        else:
            raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} is not a SPARQL query operation", {"Allow": "GET, HEAD, POST"})
        if "update" in params:
            raise _read_only()
        return self._answer(query, params.get("default-graph-uri", []), params.get("named-graph-uri", []))

    def _posted_query(self, params: dict[str, list[str]]) -> tuple[str, dict[str, list[str]]]:
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        body = self._body()
        if ctype == "application/x-www-form-urlencoded":
            form = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
            if "update" in form:
                raise _read_only()
            merged = {**params, **form}
            query = _one(merged, "query")
            if query is None:
                raise HttpError(HTTPStatus.BAD_REQUEST, "the form has no 'query' field")
            return query, merged
        if ctype == "application/sparql-query":
            return body.decode("utf-8", errors="replace"), params
        if ctype == "application/sparql-update":
            raise _read_only()
        raise HttpError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"POST a query as application/sparql-query or application/x-www-form-urlencoded, not {ctype or 'nothing'}")

    def _body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise HttpError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
        if length > MAX_BODY:
            raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request body is larger than {MAX_BODY} bytes")
        return self.rfile.read(length) if length > 0 else b""

    def _answer(self, query: str, default_graphs: list[str], named_graphs: list[str]) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        check_safety(query, self.server.allow_service)
        options: dict[str, Any] = {"prefixes": INIT_NS, "use_default_graph_as_union": not default_graphs and not named_graphs}
        if default_graphs or named_graphs:
            options["default_graph"] = [_graph_name(g) for g in default_graphs]
            options["named_graphs"] = [_graph_name(g) for g in named_graphs]
        accept = self.headers.get("Accept")
        served = self.server.served
        with served.lock.reading():
            try:
                result = served.store.query(query, **options)
            except SyntaxError as exc:
                raise HttpError(HTTPStatus.BAD_REQUEST, f"query syntax error: {' '.join(str(exc).split())[:300]}") from None
            except OSError as exc:  # a SERVICE call that failed (only with --allow-service)
                raise HttpError(HTTPStatus.BAD_GATEWAY, f"the query could not be evaluated: {exc}") from None
            offers = negotiate.GRAPH if isinstance(result, ox.QueryTriples) else negotiate.RESULTS
            offer = negotiate.negotiate(accept, offers)
            if offer is None:
                raise _not_acceptable(offers)
            body = result.serialize(format=offer[1])
            del result  # pyoxigraph results belong to their thread: never leave one for another to free
        return HTTPStatus.OK, negotiate.content_type(offer), body or b"", {"Vary": "Accept"}

    def _service_description(self) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        offer = negotiate.negotiate(self.headers.get("Accept"), negotiate.GRAPH)
        if offer is None:
            raise _not_acceptable(negotiate.GRAPH)
        endpoint = self.server.url + "query"
        host = self.headers.get("Host")
        if host and _HOST.fullmatch(host):  # the address the client used, when it is a plain host[:port]
            endpoint = f"http://{host}/query"
        with self.server.served.lock.reading():
            triples = service_description(endpoint, len(self.server.served.store), self.server.allow_service)
        return HTTPStatus.OK, negotiate.content_type(offer), ox.serialize(triples, format=offer[1]) or b"", {"Vary": "Accept"}

    def _update(self, method: str, params: dict[str, list[str]]) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        raise _read_only()

    # -- Graph Store Protocol (reads) ---------------------------------------------------------------
    def _store(self, method: str, params: dict[str, list[str]]) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        if method not in ("GET", "HEAD"):
            raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, "the store is read-only: change the bundle's markdown files instead", {"Allow": "GET, HEAD"})
        accept = self.headers.get("Accept")
        served = self.server.served
        graph = _one(params, "graph")
        with served.lock.reading():
            if graph is None and "default" not in params:
                offer = negotiate.negotiate(accept, negotiate.DATASET)
                if offer is None:
                    raise _not_acceptable(negotiate.DATASET)
                body = served.store.dump(format=offer[1])
            elif graph is None:  # ?default: the union, as queries see it
                offer = negotiate.negotiate(accept, negotiate.GRAPH)
                if offer is None:
                    raise _not_acceptable(negotiate.GRAPH)
                body = served.store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", use_default_graph_as_union=True).serialize(format=offer[1])
            else:
                name = _graph_name(graph)
                if not served.store.contains_named_graph(name):
                    raise HttpError(HTTPStatus.NOT_FOUND, f"no graph {graph} in this bundle")
                offer = negotiate.negotiate(accept, negotiate.GRAPH)
                if offer is None:
                    raise _not_acceptable(negotiate.GRAPH)
                body = served.store.dump(format=offer[1], from_graph=name)
        return HTTPStatus.OK, negotiate.content_type(offer), body or b"", {"Vary": "Accept"}

    # -- the page ------------------------------------------------------------------------------------
    def _static(self, method: str, name: str) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        if method not in ("GET", "HEAD"):
            raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} on a page", {"Allow": "GET, HEAD"})
        suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        if "/" in name or name.startswith(".") or suffix not in _STATIC_TYPES:
            raise HttpError(HTTPStatus.NOT_FOUND, f"no such file: {name}")
        item = resources.files(__package__).joinpath("static", name)
        if not item.is_file():
            raise HttpError(HTTPStatus.NOT_FOUND, f"no such file: {name}")
        return HTTPStatus.OK, _STATIC_TYPES[suffix], item.read_bytes(), {"Cache-Control": "no-cache"}

    def _api(self, method: str, name: str, params: dict[str, list[str]]) -> tuple[HTTPStatus, str, bytes, dict[str, str]]:
        if method not in ("GET", "HEAD"):
            raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} on /api/{name}", {"Allow": "GET, HEAD"})
        served = self.server.served
        with served.lock.reading():
            try:
                data = views.view(served, name, {k: v[0] for k, v in params.items() if v})
            except LookupError as exc:
                raise HttpError(HTTPStatus.NOT_FOUND, str(exc).strip("'\"")) from None
        return HTTPStatus.OK, "application/json; charset=utf-8", json.dumps(data, default=str, ensure_ascii=False).encode("utf-8"), {"Cache-Control": "no-cache"}


def check_safety(query: str, allow_service: bool) -> None:
    """Refuse updates and (unless allowed) SERVICE, as ``mif-rdf query`` does.

    :func:`check_query_safety` reads the query with rdflib's parser; a query
    only Oxigraph understands could hide a ``SERVICE`` from it, so such a
    query that contains the keyword at all is refused too (fail closed).
    """
    try:
        check_query_safety(query, allow_service=allow_service)
    except MifRdfError as exc:
        status = HTTPStatus.FORBIDDEN if "Update" in str(exc) else HTTPStatus.BAD_REQUEST
        raise HttpError(status, str(exc)) from None
    if not allow_service and _SERVICE.search(query):
        try:
            prepareQuery(query, initNs=INIT_NS)
        except Exception:
            raise HttpError(HTTPStatus.BAD_REQUEST, "SERVICE federation is off (the server was started without --allow-service)") from None


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
        ox.Triple(default, ox.NamedNode(VOID + "triples"), ox.Literal(str(triples), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))),
    ]
    out += [ox.Triple(service, sd("resultFormat"), ox.NamedNode(FORMATS + name)) for name in _RESULT_FORMATS]
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
    return HttpError(HTTPStatus.FORBIDDEN, "this endpoint is read-only: no SPARQL Update; change the bundle's markdown files instead")


def _not_acceptable(offers: list[negotiate.Offer]) -> HttpError:
    return HttpError(HTTPStatus.NOT_ACCEPTABLE, "acceptable formats: " + ", ".join(dict.fromkeys(media for media, _ in offers)))
