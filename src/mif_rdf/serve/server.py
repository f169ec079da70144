"""The server of ``mif-rdf serve``: the ASGI application (:mod:`.http`) on uvicorn, in a thread of its own.

Why uvicorn (measured in docs/decisions.md): its event loop holds any
number of idle or slow connections without a thread each.  Its HTTP/1.1
protocol on httptools (a C parser) here also gets a size bound and a
deadline on the request head (:class:`_HeadDeadline`): a request line and
headers of at most ``max_head`` bytes, arriving within ``head_timeout``
seconds of the connection (or of the previous answer on a kept-alive one),
so a client trickling a byte a second is dropped; and a response's head
goes out in one write with its body (:class:`_JoinedWrites`).  uvicorn's own
messages are one line each on standard error, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
import time
from typing import Any, cast

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from mif_rdf.serve.access import Access
from mif_rdf.serve.http import App, ServerLimits
from mif_rdf.serve.protocol import QueryOptions
from mif_rdf.serve.served import ServedBundle


class _HeadDeadline(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol on httptools, plus a deadline and a size bound on the request head.

    uvicorn times out idle kept-alive connections but restarts nothing while
    bytes keep arriving; here the request line and headers must be complete
    within ``head_timeout`` seconds of the connection or of the previous answer,
    in at most ``max_head`` bytes (httptools' parser has no bound of its own).
    httptools (llhttp, in C) rather than uvicorn's pure-Python h11: h11 took
    about 40% of the server's time on a small query (docs/decisions.md).
    """

    head_timeout = 10.0
    max_head = 64 * 1024
    _head_timer: asyncio.TimerHandle | None = None
    _head_bytes = 0

    def connection_made(self, transport: Any) -> None:
        self._joined = _JoinedWrites(transport)
        super().connection_made(cast(asyncio.Transport, self._joined))  # the transport's interface, by delegation
        sock = transport.get_extra_info("socket")
        # asyncio sets it only on sockets made with proto=IPPROTO_TCP; without it,
        # Nagle and delayed ACKs add 40 ms per answer
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._arm()

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._drop)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _drop(self) -> None:
        self._head_timer = None
        if self.cycle is None or self.cycle.response_complete:  # still waiting for a head
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting:
            self._arm()
            self._head_bytes += len(data)
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a new request's head is complete
            self._disarm()
            self._head_bytes = 0
        elif waiting and self._head_bytes > self.max_head and not self.transport.is_closing():
            self.send_400_response(f"the request line and headers are larger than {self.max_head} bytes")

    def on_response_complete(self) -> None:
        self._joined.flush()  # a HEAD answer writes no body
        super().on_response_complete()
        self._disarm()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class _JoinedWrites:
    """The connection's transport, but a response's status line and headers wait for its first body piece.

    uvicorn writes the head of a response and its body in two writes: with
    ``TCP_NODELAY`` two system calls and two packets, about a quarter of the
    server's time on a small query.  The head is held (never a ``1xx``:
    ``100 Continue`` must go at once) and goes out with the next write, at the
    end of the response, or when the connection closes.
    """

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self._held = b""

    def write(self, data: bytes) -> None:
        if not self._held and data.startswith(b"HTTP/1.1 ") and not data.startswith(b"HTTP/1.1 1"):
            self._held = bytes(data)
            return
        if self._held:
            data, self._held = self._held + data, b""
        self._transport.write(data)

    def flush(self) -> None:
        if self._held:
            self._transport.write(self._held)
            self._held = b""

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's own
        return getattr(self._transport, name)


class _OneLine(logging.Handler):
    """uvicorn's own messages as one line each on standard error, never a traceback."""

    def __init__(self, quiet: bool) -> None:
        super().__init__()
        self.quiet = quiet

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage().splitlines()[0] if record.getMessage() else ""
        expected = "without completing response" in message or "Invalid HTTP request" in message
        if record.levelno >= logging.ERROR and not expected or not self.quiet:
            print(f"mif-rdf serve: {message}", file=sys.stderr, flush=True)


class BundleServer:
    """``mif-rdf serve``'s server: a listening socket, uvicorn in a thread of its own, :meth:`shutdown` to stop."""

    def __init__(
        self,
        address: tuple[str, int],
        served: ServedBundle,
        *,
        options: QueryOptions = QueryOptions(),
        limits: ServerLimits = ServerLimits(),
        access: Access | None = None,
        quiet: bool = True,
    ) -> None:
        host, port = address
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            self.socket = socket.create_server((host.strip("[]"), port), family=family, backlog=256)
        except OSError as exc:
            from mif_rdf.core.errors import MifRdfError

            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise MifRdfError(f"cannot listen on {host}:{port}: {reason}") from None
        self.served = served
        self.server_address = self.socket.getsockname()[:2]
        access = access or Access(bind=host)
        protocol = type(
            "HeadDeadline", (_HeadDeadline,), {"head_timeout": limits.head_timeout, "max_head": limits.max_head}
        )
        self.app = App(served, options, limits, access, lambda: self.url, quiet)
        config = uvicorn.Config(
            self.app,
            http=protocol,
            lifespan="off",
            log_config=None,
            access_log=False,
            proxy_headers=False,  # nothing here reads X-Forwarded-*: the middleware would cost every request a layer
            server_header=False,
            timeout_keep_alive=limits.keep_alive,  # type: ignore[arg-type]  # uvicorn takes seconds as floats too
            timeout_graceful_shutdown=limits.shutdown_grace + 5,  # type: ignore[arg-type]
        )
        handler = _OneLine(quiet)
        for name in ("uvicorn", "uvicorn.error"):
            logger = logging.getLogger(name)
            logger.handlers = [handler]
            logger.propagate = False
            logger.setLevel(logging.INFO)
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [self.socket]}, name="mif-rdf-serve", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.server_address
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}/"

    def serve_in_background(self) -> BundleServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._uvicorn.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def shutdown(self) -> None:
        """Stop accepting, give requests in flight ``shutdown_grace`` seconds,
        then stop them (their answers are cut); release the port."""
        self._uvicorn.should_exit = True
        deadline = time.monotonic() + self.app.limits.shutdown_grace
        while self.app.jobs and time.monotonic() < deadline:
            time.sleep(0.05)
        for job in list(self.app.jobs):
            job.stop()
        if self._thread.is_alive():
            self._thread.join(timeout=self.app.limits.shutdown_grace + 10)
        self.app.stop_workers()
        self.socket.close()
