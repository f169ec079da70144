"""The ASGI application of ``mif-rdf serve``: access checks, the limits a long-running server needs, and the
workers that read the bundle (:mod:`.server` runs it on uvicorn).

The work that reads the bundle runs in at most ``max_concurrent`` worker
threads (pyoxigraph evaluates queries without the GIL, so they really run
side by side).

What the server enforces (:class:`ServerLimits`, documented in docs/serve.md):

* a request line and headers of at most ``max_head`` bytes, arriving within
  ``head_timeout`` seconds of the connection (or of the previous answer on a
  kept-alive one; :mod:`.server` drops a client that trickles);
  a body of at most ``max_body`` bytes within ``body_timeout``;
* at most ``max_concurrent`` requests reading the bundle at once (as many
  worker threads, started with the server); a request
  waits up to ``queue_wait`` seconds for a free worker, then gets 503 with
  ``Retry-After``;
* ``query_timeout`` per request: an answer not started by then is a 503 with
  the reason; one that is being written is cut (the connection closes before
  the end, which HTTP clients report).  Either way the worker is told to
  stop, and stops at the engine's next result -- an engine busy in one step
  (a ``COUNT`` over a huge join) cannot be interrupted, so its worker stays
  busy (and counted) until the engine returns;
* answers are streamed in 64 KiB pieces, at most ``max_result_bytes`` of
  them; a client that hangs up stops its query at the engine's next result;
* ``Host`` and ``Origin`` are checked first (:mod:`.access`): 403 for a
  foreign one;
* on shutdown, requests in flight get ``shutdown_grace`` seconds to finish and
  are then cancelled.
"""

from __future__ import annotations

import asyncio
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs

from mif_rdf.serve.access import HOST, Access
from mif_rdf.serve.protocol import HttpError, QueryOptions, Request, answer, is_static, static
from mif_rdf.serve.served import ServedBundle
from mif_rdf.serve.stream import Job, Stopped
from mif_rdf.serve.update_route import Writer

_TEXT = "text/plain; charset=utf-8"
#: Seconds after which a request still at work gets a task that notices its client hang up (and stops its work).
_WATCH_AFTER = 0.02


@dataclass(frozen=True)
class ServerLimits:
    """The bounds of one server (defaults as docs/serve.md states them)."""

    max_concurrent: int = field(default_factory=lambda: os.cpu_count() or 2)
    query_timeout: float = 30.0
    max_result_bytes: int = 256 * 2**20
    max_body: int = 8 * 2**20
    max_head: int = 64 * 1024
    head_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: float = 5.0
    queue_wait: float = 2.0
    max_waiting: int = 128
    shutdown_grace: float = 5.0


class App:
    """The ASGI application: access checks, limits, and the workers that run :func:`~.protocol.answer`."""

    def __init__(
        self,
        served: ServedBundle,
        options: QueryOptions,
        limits: ServerLimits,
        access: Access,
        url: Callable[[], str],
        quiet: bool,
    ) -> None:
        self.served, self.options, self.limits, self.access, self.url, self.quiet = (
            served,
            options,
            limits,
            access,
            url,
            quiet,
        )
        self.writer: Writer | None = None  # serve --writable: /update writes the files (.update_route)
        self.jobs: set[Job] = set()  # workers at work (read by shutdown from another thread)
        # requests waiting for a worker: the queue itself bounds the work (max_concurrent threads take from it),
        # so a worker goes from one job to the next without a turn of the event loop between them
        self._workers: queue.SimpleQueue[tuple[Job, Request] | None] = queue.SimpleQueue()
        for n in range(limits.max_concurrent):
            threading.Thread(target=self._serve_jobs, name=f"mif-rdf-worker-{n}", daemon=True).start()

    def _serve_jobs(self) -> None:
        """A worker thread (daemon: one stuck in an engine step never holds the process at exit); None ends it.

        A job the loop gave up on (503: no worker took it in time) is skipped, as is one whose client left.
        """
        while (work := self._workers.get()) is not None:
            job, request = work
            if job.claim() and not job.cancelled.is_set():
                self._run(job, request)

    def stop_workers(self) -> None:
        for _ in range(self.limits.max_concurrent):
            self._workers.put(None)

    async def __call__(
        self, scope: dict[str, Any], receive: Callable[[], Any], send: Callable[[dict[str, Any]], Any]
    ) -> None:
        if scope["type"] != "http":
            return
        headers: dict[str, str] = {}
        head = len(scope["raw_path"]) + len(scope["query_string"])
        for name, value in scope["headers"]:
            head += len(name) + len(value) + 4
            key = name.decode("latin-1").lower()
            headers[key] = headers[key] + ", " + value.decode("latin-1") if key in headers else value.decode("latin-1")
        method, path = scope["method"], scope["path"]
        status = 0
        cors: dict[str, str] = {}
        try:
            if head > self.limits.max_head:  # .server bounds a head that arrives in pieces; this one came whole
                raise HttpError(
                    HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    f"the request line and headers are larger than {self.limits.max_head} bytes",
                    {"Connection": "close"},
                )
            cors = self.access.check(headers.get("host"), headers.get("origin"))
            if method == "OPTIONS":
                status = await self._preflight(send, headers, cors)
                return
            body = await self._body(receive, headers)
            if is_static(path):
                status, ctype, data, extra = static(method, path)
                await _send_whole(
                    send, status, ctype, data if method != "HEAD" else b"", _merged(extra, cors), len(data)
                )
                return
            params = parse_qs(scope["query_string"].decode("latin-1"), keep_blank_values=True)
            host = headers.get("host", "")
            endpoint = f"http://{host}/query" if HOST.fullmatch(host) else self.url() + "query"
            request = Request(method, path, params, headers, body, endpoint)
            if path == "/update" and self.writer is not None:
                data = (await asyncio.to_thread(self.writer.update, request) + "\n").encode("utf-8")
                status = 200
                await _send_whole(send, status, _TEXT, data, cors, len(data))
                return
            status = await self._work(request, receive, send, cors)
        except HttpError as exc:
            status = int(exc.status)
            data = (exc.message + "\n").encode("utf-8")
            await _send_whole(send, status, _TEXT, data, _merged(exc.headers, cors), len(data))
        finally:
            if not self.quiet:
                client = scope.get("client") or ("-", 0)
                query = "?" + scope["query_string"].decode("latin-1") if scope["query_string"] else ""
                print(f'{client[0]} - "{method} {path}{query[:200]}" {status or "-"}', file=sys.stderr, flush=True)

    async def _preflight(
        self, send: Callable[[dict[str, Any]], Any], headers: dict[str, str], cors: dict[str, str]
    ) -> int:
        if not cors:
            raise HttpError(HTTPStatus.FORBIDDEN, "no cross-origin requests are allowed here without --cors ORIGIN")
        extra = {
            **cors,
            "Access-Control-Allow-Methods": "GET, HEAD, POST",
            "Access-Control-Allow-Headers": "Accept, Content-Type",
            "Access-Control-Max-Age": "600",
        }
        await _send_whole(send, 204, _TEXT, b"", extra, 0)
        return 204

    # -- the request body --------------------------------------------------------------------------
    async def _body(self, receive: Callable[[], Any], headers: dict[str, str]) -> bytes:
        try:
            length = int(headers.get("content-length") or 0)
        except ValueError:
            raise HttpError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number") from None
        if length > self.limits.max_body:
            raise HttpError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request body is larger than {self.limits.max_body} bytes"
            )
        if "content-length" not in headers and "transfer-encoding" not in headers:
            return b""
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + self.limits.body_timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise HttpError(
                    HTTPStatus.REQUEST_TIMEOUT,
                    f"the request body did not arrive within {self.limits.body_timeout:g} s",
                    {"Connection": "close"},
                ) from None
            if message["type"] == "http.disconnect":
                raise HttpError(HTTPStatus.BAD_REQUEST, "the client left")
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limits.max_body:
                raise HttpError(
                    HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                    f"the request body is larger than {self.limits.max_body} bytes",
                    {"Connection": "close"},
                )
            if not message.get("more_body", False):
                return b"".join(chunks)

    # -- the workers --------------------------------------------------------------------------------
    async def _work(
        self, request: Request, receive: Callable[[], Any], send: Callable[[dict[str, Any]], Any], cors: dict[str, str]
    ) -> int:
        """Run the request in a worker thread and stream its answer; the status sent.

        The request waits in the workers' queue (at most ``max_waiting`` of them) until a worker takes it; one
        not taken within ``queue_wait`` seconds, or by its time limit, gets 503 with ``Retry-After`` (and keeps
        its place in the queue until a worker passes it by).  The time limit counts from here.
        """
        limits = self.limits
        if self._workers.qsize() >= limits.max_waiting:
            raise self._busy()
        loop = asyncio.get_running_loop()
        job = Job(loop, limits.max_result_bytes)
        self._workers.put((job, request))
        # the waiting limit, the time limit and a watcher of the client for answers that take a while: one timer,
        # not tasks, so a quick answer costs no extra turns of the event loop; an answer still at work after
        # _WATCH_AFTER gets the watcher and the timers of the rest of its time
        first = min(_WATCH_AFTER, limits.queue_wait, limits.query_timeout)
        timers: list[asyncio.TimerHandle] = []
        watchers: list[asyncio.Future[None]] = []

        def give_up(reason: tuple[str, ...]) -> None:
            """A job no worker took in time is busy (503, Retry-After); a running one is told ``reason``."""
            if job.claim():
                job.events.put_nowait(("busy",))
            elif reason:
                job.events.put_nowait(reason)

        def still_at_work() -> None:
            watchers.append(asyncio.ensure_future(_until_disconnect(receive, job)))
            timers.append(loop.call_later(min(limits.queue_wait, limits.query_timeout) - first, give_up, ()))
            timers.append(loop.call_later(limits.query_timeout - first, give_up, ("timeout",)))

        timers.append(loop.call_later(first, still_at_work))
        try:
            return await self._stream(job, send, cors, request.method == "HEAD")
        except (
            asyncio.CancelledError
        ):  # cancelled past the shutdown grace: the worker stops at the engine's next result
            job.stop()
            return 0
        finally:
            for timer in timers:
                timer.cancel()
            for watcher in watchers:
                watcher.cancel()

    def _busy(self) -> HttpError:
        return HttpError(
            HTTPStatus.SERVICE_UNAVAILABLE,
            f"the server is busy ({self.limits.max_concurrent} requests at work): try again",
            {"Retry-After": "1"},
        )

    def _run(self, job: Job, request: Request) -> None:
        """The worker thread: everything pyoxigraph makes is made, written and freed here."""
        self.jobs.add(job)
        last: tuple[Any, ...] = ("abort",)
        try:
            answer(self.served, self.options, request, job)
            last = job.finish()
        except Stopped as exc:
            traceback.clear_frames(exc.__traceback__)  # the frames hold pyoxigraph results: freed here, in their thread
            last = ("stopped",)
        except HttpError as exc:
            traceback.clear_frames(exc.__traceback__)
            last = ("error", int(exc.status), exc.message, exc.headers) if not job.started else ("abort",)
        except Exception as exc:  # a fault of the server, never of the request: one line, and the server goes on
            traceback.clear_frames(exc.__traceback__)
            if not job.cancelled.is_set():
                print(
                    f"mif-rdf serve: {request.method} {request.path}: {type(exc).__name__}: {exc}",
                    file=sys.stderr,
                    flush=True,
                )
            last = ("error", 500, f"internal error: {type(exc).__name__}", {}) if not job.started else ("abort",)
        finally:
            self.jobs.discard(job)
            job.post(last)

    async def _stream(
        self, job: Job, send: Callable[[dict[str, Any]], Any], cors: dict[str, str], head_only: bool
    ) -> int:
        """Send the worker's answer: its status once the first piece (or the end) is there, then the pieces."""
        head: tuple[Any, ...] | None = None
        sent_head = False
        while True:
            event = await job.events.get()
            if event[0] == "timeout":
                job.stop()
                if sent_head:
                    return 200  # cut: returning without the last piece closes the connection
                raise HttpError(
                    HTTPStatus.SERVICE_UNAVAILABLE,
                    f"the query took longer than {self.limits.query_timeout:g} s (--query-timeout) and was stopped",
                ) from None
            kind = event[0]
            if kind == "busy":
                raise self._busy()
            if kind == "stopped":  # its client left, or the server is stopping
                if sent_head:
                    return head[1] if head else 200  # cut: returning without the last piece closes the connection
                raise HttpError(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping")
            if kind == "error":
                raise HttpError(HTTPStatus(event[1]), event[2], event[3])
            if kind in ("too-large", "abort"):
                job.cancelled.set()
                if sent_head:
                    return 200
                message = (
                    f"the answer is larger than {self.limits.max_result_bytes} bytes"
                    if kind == "too-large"
                    else "internal error"
                )
                raise HttpError(
                    HTTPStatus.INTERNAL_SERVER_ERROR if kind == "abort" else HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                    message,
                )
            if kind == "start":
                head = event
                continue
            if kind == "whole":  # the answer in one piece: sent with its length (a HEAD's is not known)
                _, status, ctype, extra, body = event
                extra = _merged(extra, cors)
                if not head_only:
                    extra["Content-Length"] = str(len(body))
                await send({"type": "http.response.start", "status": status, "headers": _headers(ctype, extra)})
                await send({"type": "http.response.body", "body": body, "more_body": False})
                return int(status)
            assert head is not None
            if not sent_head:
                extra = _merged(head[3], cors)
                await send({"type": "http.response.start", "status": head[1], "headers": _headers(head[2], extra)})
                sent_head = True
            if kind == "data":
                await send({"type": "http.response.body", "body": event[1], "more_body": True})
                assert job.credits is not None  # made before the first piece was posted
                job.credits.release()
            else:  # end
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return head[1]


async def _until_disconnect(receive: Callable[[], Any], job: Job) -> None:
    """Stop the worker when the client hangs up."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            job.stop()
            return


async def _send_whole(
    send: Callable[[dict[str, Any]], Any], status: int, ctype: str, body: bytes, headers: dict[str, str], length: int
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": int(status),
            "headers": _headers(ctype, {**headers, "Content-Length": str(length)}),
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _headers(ctype: str, extra: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", ctype.encode("latin-1"))] + [
        (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()
    ]


def _merged(answer: dict[str, str], cors: dict[str, str]) -> dict[str, str]:
    """The answer's headers plus the CORS ones (``Vary`` values joined, not replaced)."""
    merged = {**answer, **cors}
    if "Vary" in answer and "Vary" in cors:
        merged["Vary"] = f"{answer['Vary']}, {cors['Vary']}"
    return merged
