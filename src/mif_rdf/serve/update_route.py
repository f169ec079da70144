"""``serve --writable``: SPARQL 1.1 Update on ``/update``, written back to the bundle's markdown files.

An update goes through the same path as ``mif-rdf update``
(:mod:`mif_rdf.output.update`): planned on the working bundle (which is then
put back as it was), refused as a whole when the markdown cannot hold it or
when it adds a validation error, else written file by file, atomically.  The
written files are then reloaded like any edit (:meth:`ServedBundle.apply`)
before the answer goes out, so the client's next query sees its change.  The
watcher sees the same files change and reloads them again; that reload
finds the graphs it already has and publishes nothing new (the served data
equals a fresh load of the files either way).

Who may write (besides the ``Host``/``Origin`` checks every request gets):

* a client that sends the token printed at start-up, as ``Authorization:
  Bearer TOKEN`` or ``X-MIF-RDF-Token: TOKEN``; a browser page of another
  origin cannot send either header without a CORS preflight, and the
  preflight never allows them;
* only from the server's own origin: a request with an ``Origin`` other than
  the server's is refused even when ``--cors`` lets that origin read.

Protocol (SPARQL 1.1 Protocol, 2.2): ``POST`` with ``application/sparql-update``
or a form with one ``update=`` field; ``using-graph-uri`` and
``using-named-graph-uri`` are refused (each memory is its own graph: name it
in ``GRAPH``).  200 with the summary (the files changed), 400 with every
refusal, 401 without the token.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from http import HTTPStatus
from urllib.parse import parse_qs

from mif_rdf.core.errors import MifRdfError
from mif_rdf.output.update import apply_plan, check_update_safety, plan_update
from mif_rdf.serve.protocol import HttpError, Request
from mif_rdf.serve.served import ServedBundle

#: The header a client may send the token in (besides ``Authorization: Bearer``).
TOKEN_HEADER = "x-mif-rdf-token"


class Writer:
    """The ``/update`` route of a writable server: its token, and one update at a time."""

    def __init__(self, served: ServedBundle, *, allow_service: bool = False, token: str | None = None) -> None:
        self.served = served
        self.allow_service = allow_service
        self.token = token or secrets.token_urlsafe(24)
        self._one_at_a_time = threading.Lock()

    def update(self, request: Request) -> str:
        """Apply the request's update to the files; the summary, or :class:`HttpError`."""
        if request.method != "POST":
            raise HttpError(
                HTTPStatus.METHOD_NOT_ALLOWED, "POST a SPARQL Update to /update", {"Allow": "POST, OPTIONS"}
            )
        self._check_token(request.headers)
        self._check_origin(request.headers)
        text = _update_text(request)
        try:
            check_update_safety(text)
        except MifRdfError as exc:
            raise HttpError(HTTPStatus.BAD_REQUEST, str(exc)) from None
        served = self.served
        with self._one_at_a_time:
            with served.writing:  # the working bundle is read and put back under the reload lock
                try:
                    result = plan_update(served.bundle, text, allow_service=self.allow_service, keep=False)
                except MifRdfError as exc:
                    raise HttpError(HTTPStatus.BAD_REQUEST, str(exc)) from None
                result = apply_plan(served.bundle, result)
            if result.refusals:
                lines = [str(problem) for problem in result.refusals] + [result.summary()]
                raise HttpError(HTTPStatus.BAD_REQUEST, "\n".join(lines))
            served.apply(result.changed)  # read your writes: the answer goes out once they are served
        return result.summary()

    def _check_token(self, headers: dict[str, str]) -> None:
        given = headers.get(TOKEN_HEADER)
        authorization = headers.get("authorization", "")
        if given is None and authorization[:7].lower() == "bearer ":
            given = authorization[7:].strip()
        if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            raise HttpError(
                HTTPStatus.UNAUTHORIZED,
                "updates need the token serve printed at start-up: send it as 'Authorization: Bearer TOKEN' or "
                "'X-MIF-RDF-Token: TOKEN'",
                {"WWW-Authenticate": 'Bearer realm="mif-rdf serve"'},
            )

    @staticmethod
    def _check_origin(headers: dict[str, str]) -> None:
        origin, host = headers.get("origin"), headers.get("host", "")
        if origin is not None and origin.lower() not in (f"http://{host.lower()}", f"https://{host.lower()}"):
            raise HttpError(HTTPStatus.FORBIDDEN, f"updates from another origin ({origin!r}) are refused")


def _update_text(request: Request) -> str:
    """The update of a SPARQL 1.1 Protocol update request (2.2.1 form, 2.2.2 direct POST)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        body = request.body.decode("utf-8")
    except UnicodeDecodeError:
        raise HttpError(HTTPStatus.BAD_REQUEST, "the request body is not UTF-8") from None
    params = dict(request.params)
    if ctype == "application/x-www-form-urlencoded":
        params = {**params, **parse_qs(body, keep_blank_values=True)}
        updates = params.get("update", [])
        if len(updates) != 1:
            raise HttpError(HTTPStatus.BAD_REQUEST, "the form needs exactly one 'update' field")
        body = updates[0]
    elif ctype != "application/sparql-update":
        raise HttpError(
            HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
            "POST an update as application/sparql-update or application/x-www-form-urlencoded, not "
            + (ctype or "nothing"),
        )
    if "using-graph-uri" in params or "using-named-graph-uri" in params:
        raise HttpError(
            HTTPStatus.BAD_REQUEST,
            "using-graph-uri and using-named-graph-uri are not supported: name each memory's graph in GRAPH <...>",
        )
    return body
