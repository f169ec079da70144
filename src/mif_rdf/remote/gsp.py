"""Talking to a triple store: SPARQL 1.1 Graph Store Protocol and SPARQL 1.1 Update.

Standard library only (``urllib``), so pushing needs no extra dependency.

* Every request has a timeout, a deadline for the whole answer (a store that
  trickles a byte a second cannot stretch it), and a bounded answer size (a
  body that never ends is cut off).  A timeout is reported at once, not retried:
  a retry would multiply the wait, and a store that is merely slow wants a
  larger ``--timeout``.
* Transient faults -- connection refused or reset, 429, 502, 503, 504 -- are
  retried a bounded number of times with exponential backoff (a server's
  ``Retry-After`` is honoured up to the same cap).  Every request we make is
  idempotent (PUT, DELETE, ``DROP SILENT`` + ``INSERT {} WHERE {}`` of a whole graph,
  manifest updates that delete before they insert), so a retry after a lost
  answer cannot duplicate data.
* Every other fault becomes one :class:`StoreError` subclass with a one-line
  message and the exit code the CLI returns (see docs/export.md).
* Redirects are not followed: a redirect could carry the credentials to
  another host.  The message names the new location instead.
"""

from __future__ import annotations

import base64
import http.client
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.redaction import redacted

TRANSIENT_STATUS = frozenset({429, 502, 503, 504})
_IRI_FORBIDDEN = set('<>"{}|^`\\ \t\r\n')


class StoreError(MifRdfError):
    """A triple store could not be used; ``exit_code`` is what ``mif-rdf push`` returns."""

    exit_code = 7


class StoreUnreachable(StoreError):
    """No connection (refused, reset, unknown host), after the retries."""

    exit_code = 3


class StoreTimeout(StoreError):
    """The store did not answer within the timeout."""

    exit_code = 4


class StoreAuthError(StoreError):
    """401 or 403: missing or refused credentials."""

    exit_code = 5


class StoreRejected(StoreError):
    """Any other 4xx (and redirects): the request itself was refused."""

    exit_code = 6


class StoreFailed(StoreError):
    """5xx, or 429/502/503/504 still there after the retries."""

    exit_code = 7


@dataclass(frozen=True)
class Credentials:
    """The ``Authorization`` header to send; ``label`` names it in messages without revealing it."""

    header: str = field(repr=False)
    label: str

    @classmethod
    def basic(cls, user: str, password: str) -> Credentials:
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        return cls(f"Basic {token}", f"user {user!r}")

    @classmethod
    def bearer(cls, token: str, source: str) -> Credentials:
        return cls(f"Bearer {token}", f"the token in {source}")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently transient faults are retried (bounded in count and time)."""

    retries: int = 3
    backoff: float = 0.5
    max_delay: float = 8.0
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, retry_after: str | None) -> float:
        """Seconds to wait before retry number ``attempt + 1``: doubling, or the server's Retry-After; capped."""
        wait = self.backoff * 2**attempt
        if retry_after and retry_after.strip().isdigit():
            wait = float(retry_after.strip())
        return min(wait, self.max_delay)


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str


class _Transient(Exception):
    """A fault worth retrying; ``final`` is the error to raise when the retries are used up."""

    def __init__(self, final: StoreError, retry_after: str | None = None) -> None:
        super().__init__(str(final))
        self.final = final
        self.retry_after = retry_after


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class HttpClient:
    """HTTP requests with credentials, a timeout, bounded retries and one-line errors."""

    def __init__(
        self, credentials: Credentials | None = None, timeout: float = 30.0, retry: RetryPolicy | None = None
    ) -> None:
        if timeout <= 0:
            raise MifRdfError(f"timeout must be positive, got {timeout:g}")
        self.credentials = credentials
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._opener = urllib.request.build_opener(_NoRedirect)

    def request(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        accept: frozenset[int] = frozenset(),
        what: str = "",
    ) -> Response:
        """Send one request; 2xx and the statuses in ``accept`` are answers, everything else raises."""
        what = what or f"{method} {redacted(url)}"
        attempt = 0
        while True:
            try:
                return self._once(method, url, body, dict(headers or {}), accept, what)
            except _Transient as fault:
                if attempt >= self.retry.retries:
                    raise fault.final from None
                self.retry.sleep(self.retry.delay(attempt, fault.retry_after))
                attempt += 1

    def _once(
        self, method: str, url: str, body: bytes | None, headers: dict[str, str], accept: frozenset[int], what: str
    ) -> Response:
        if self.credentials is not None:
            headers["Authorization"] = self.credentials.header
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        attempts = self.retry.retries + 1
        tries = f"({attempts} attempt{'s' if attempts > 1 else ''})"
        deadline = time.monotonic() + self.timeout
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return Response(
                    answer.status,
                    _body(answer, deadline, MAX_ANSWER_BYTES, what),
                    answer.headers.get("Content-Type", ""),
                )
        except urllib.error.HTTPError as error:
            payload = _read(error, deadline)
            if error.code in accept:
                return Response(error.code, payload, error.headers.get("Content-Type", ""))
            raise self._status_error(error, _first_line(payload), what, tries) from None
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, TimeoutError):
                raise self._timeout(url, what) from None
            if isinstance(reason, ConnectionError):
                raise _Transient(
                    StoreUnreachable(f"cannot reach the store at {_origin(url)}: {_why(reason)} {tries}")
                ) from None
            raise StoreUnreachable(f"cannot reach the store at {_origin(url)}: {_why(reason)}") from None
        except TimeoutError:
            raise self._timeout(url, what) from None
        except ConnectionError as error:  # reset or closed mid-answer
            raise _Transient(
                StoreUnreachable(
                    f"the store at {_origin(url)} dropped the connection during {what}: {_why(error)} {tries}"
                )
            ) from None
        except http.client.HTTPException as error:
            raise StoreFailed(
                f"the store at {_origin(url)} sent a broken answer to {what}: {type(error).__name__}"
            ) from None

    def _timeout(self, url: str, what: str) -> StoreTimeout:
        return StoreTimeout(
            f"the store at {_origin(url)} did not answer {what} within {self.timeout:g} s; raise --timeout if it is "
            "only slow"
        )

    def _status_error(self, error: urllib.error.HTTPError, detail: str, what: str, tries: str) -> Exception:
        status = f"{error.code} {error.reason}" + (f": {detail}" if detail else "")
        if error.code in (401, 403):
            hint = (
                f"check {self.credentials.label}"
                if self.credentials
                else "it needs credentials: --user (with MIF_RDF_PASSWORD) or --token-env"
            )
            return StoreAuthError(f"the store refused {what} ({status}); {hint}")
        if error.code in TRANSIENT_STATUS:
            return _Transient(
                StoreFailed(f"the store kept failing {what}: {status} {tries}"), error.headers.get("Retry-After")
            )
        if 300 <= error.code < 400:
            location = error.headers.get("Location", "?")
            return StoreRejected(
                f"the store redirected {what} to {location}; use that URL (redirects are not followed, so "
                "credentials never go elsewhere)"
            )
        if error.code < 500:
            return StoreRejected(f"the store rejected {what}: {status}")
        return StoreFailed(f"the store failed {what}: {status}")


#: Largest answer read: a manifest of a million graphs is about 150 MB.
MAX_ANSWER_BYTES = 512 * 2**20
#: An error answer is read only for its first line.
MAX_ERROR_BYTES = 64 * 2**10


def _body(answer: Any, deadline: float, limit: int, what: str) -> bytes:
    """The answer's body, read chunk by chunk within the request's deadline and ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = answer.read1(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise StoreFailed(f"the store's answer to {what} is over {limit // 2**20 or 1} MB; it is not read further")
        chunks.append(chunk)


def _read(error: urllib.error.HTTPError, deadline: float) -> bytes:
    """The start of an error answer (enough for its first line), never waiting past the deadline."""
    try:
        return _body(error, deadline, MAX_ERROR_BYTES, "")
    except (OSError, AttributeError, http.client.HTTPException, StoreFailed):  # AttributeError: no body at all
        return b""


def _first_line(payload: bytes) -> str:
    """The first line of an error body, short: enough to act on, never a page of HTML."""
    text = payload.decode("utf-8", "replace").strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 200 else line[:197] + "..."


def _why(error: object) -> str:
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _origin(url: str) -> str:
    parts = urlsplit(redacted(url))
    return f"{parts.scheme}://{parts.netloc}"


def check_endpoint(url: str, option: str = "--endpoint") -> str:
    """An http(s) URL with a host and no userinfo, or a one-line error naming the option (never the secret)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:  # its message may quote the secret (a password where the port goes)
        raise MifRdfError(f"{option} {redacted(url)}: not a URL (a bad port or host)") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MifRdfError(f"{option} must be an http:// or https:// URL, got {redacted(url)!r}")
    if "@" in parts.netloc:
        raise MifRdfError(
            f"{option} {redacted(url)}: a user name or password in the URL would be printed and logged; "
            "give --user NAME and the password in $MIF_RDF_PASSWORD (in Python: Credentials.basic)"
        )
    return url


def with_params(url: str, params: Mapping[str, str]) -> str:
    """``url`` with query parameters added (the endpoint may already carry some)."""
    if not params:
        return url
    return url + ("&" if urlsplit(url).query else "?") + urlencode(params)


def iri_ref(iri: str) -> str:
    """``<iri>`` for SPARQL text; refuses an IRI that could break out of the brackets."""
    if not iri or _IRI_FORBIDDEN & set(iri):
        raise MifRdfError(f"{iri!r} is not an IRI that can be written in SPARQL")
    return f"<{iri}>"


#: Typed literals Virtuoso 7 cannot take as constants in an update ("No column P730DD",
#: "Unsupported case in CONVERT"): the request binds them with STRDT in the WHERE clause instead.
_BOUND_LITERAL = re.compile(
    rb'("(?:[^"\\]|\\.)*")\^\^<(http://www\.w3\.org/2001/XMLSchema#(?:duration|dayTimeDuration|yearMonthDuration))>(?= '
    rb"\.$)",
    re.M,
)


def insert_triples(iri: str, ntriples: bytes) -> bytes:
    """A SPARQL 1.1 Update operation adding N-Triples to a graph: ``INSERT { GRAPH <g> { ... } } WHERE { ... }``.

    Not ``INSERT DATA``: Virtuoso 7 refuses blank nodes there ("SP031: Blank
    node ... is not allowed in a constant clause"), and every memory graph has
    some.  In an ``INSERT`` template each blank node label makes one new blank
    node per solution, and the ``WHERE`` clause has exactly one: the same
    triples.  Duration literals are bound there (``BIND(STRDT(...))``), the
    one form of them Virtuoso 7 accepts in an update; every store reads it as
    the same literal.
    """
    binds: list[bytes] = []

    def bound(match: re.Match[bytes]) -> bytes:
        name = b"?v%d" % len(binds)
        binds.append(b"BIND(STRDT(%s, <%s>) AS %s) " % (match.group(1), match.group(2), name))
        return name

    template = _BOUND_LITERAL.sub(bound, ntriples)
    return f"INSERT {{ GRAPH {iri_ref(iri)} {{\n".encode() + template + b"} } WHERE { " + b"".join(binds) + b"}\n"


class GraphStore:
    """One store: a Graph Store Protocol endpoint, optionally a SPARQL Update endpoint.

    Reads always use the Graph Store Protocol (``GET ?graph=``).  Writes use
    ``PUT``/``DELETE ?graph=`` unless an update endpoint is given; then each
    graph is replaced by one ``DROP SILENT GRAPH`` + ``INSERT { } WHERE { }``
    request (atomic on stores that run an update request as one transaction).
    """

    def __init__(self, endpoint: str, *, update_endpoint: str | None = None, client: HttpClient | None = None) -> None:
        self.endpoint = check_endpoint(endpoint)
        self.update_endpoint = check_endpoint(update_endpoint, "--update-endpoint") if update_endpoint else None
        self.client = client or HttpClient()

    @property
    def protocol(self) -> str:
        return "SPARQL 1.1 Update" if self.update_endpoint else "SPARQL 1.1 Graph Store Protocol"

    def _graph_url(self, iri: str) -> str:
        return with_params(self.endpoint, {"graph": iri})

    def get_graph(self, iri: str) -> Response | None:
        """The graph as the store serializes it (N-Triples asked for), or None when it does not exist."""
        response = self.client.request(
            "GET",
            self._graph_url(iri),
            headers={"Accept": "application/n-triples, text/turtle;q=0.9"},
            accept=frozenset({404}),
            what=f"GET graph <{iri}>",
        )
        return None if response.status == 404 else response

    def get_dataset(self) -> Response:
        """Every graph the store holds, as quads: ``GET`` of the endpoint itself (Oxigraph's ``/store``,
        Fuseki's dataset URL answer it with the whole dataset)."""
        return self.client.request(
            "GET",
            self.endpoint,
            headers={"Accept": "application/n-quads, application/trig;q=0.9"},
            what="GET of the whole dataset",
        )

    def put_graph(self, iri: str, ntriples: bytes) -> None:
        """Replace the graph's content with these N-Triples."""
        if self.update_endpoint:
            name = iri_ref(iri)
            self.update(
                f"DROP SILENT GRAPH {name} ;\n".encode() + insert_triples(iri, ntriples), f"replace graph {name}"
            )
            return
        # N-Triples is a subset of Turtle, and text/turtle is the type every Graph Store accepts.
        self.client.request(
            "PUT",
            self._graph_url(iri),
            ntriples,
            {"Content-Type": "text/turtle; charset=utf-8"},
            what=f"PUT graph <{iri}>",
        )

    def delete_graph(self, iri: str) -> None:
        """Remove the graph; one that is already gone is fine."""
        if self.update_endpoint:
            self.update(f"DROP SILENT GRAPH {iri_ref(iri)}".encode(), f"drop graph <{iri}>")
            return
        self.client.request("DELETE", self._graph_url(iri), accept=frozenset({404}), what=f"DELETE graph <{iri}>")

    def update(self, sparql: bytes, what: str) -> None:
        if not self.update_endpoint:
            raise MifRdfError("this needs a SPARQL Update endpoint (--update-endpoint)")
        self.client.request(
            "POST",
            self.update_endpoint,
            sparql,
            {"Content-Type": "application/sparql-update; charset=utf-8"},
            what=what,
        )
