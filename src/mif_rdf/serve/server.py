"""The server of ``mif-rdf serve``: the ASGI application (:mod:`.http`) on uvicorn, in a thread of its own.

Why uvicorn (measured in docs/decisions.md): its event loop holds any
number of idle or slow connections without a thread each, and h11 parses
requests within a size bound.  Here uvicorn's HTTP/1.1 protocol also gets a
deadline on the request head (:class:`_HeadDeadline`): a request line and
headers of at most ``max_head`` bytes, arriving within ``head_timeout``
seconds of the connection (or of the previous answer on a kept-alive one),
so a client trickling a byte a second is dropped.  uvicorn's own messages are one
line each on standard error, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from mif_rdf.serve.access import Access
from mif_rdf.serve.http import App, ServerLimits
from mif_rdf.serve.protocol import QueryOptions
from mif_rdf.serve.served import ServedBundle


class _HeadDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, plus a deadline on the request head: a client that trickles is dropped.

    uvicorn times out idle kept-alive connections but restarts nothing while
    bytes keep arriving; here the request line and headers must be complete
    within ``head_timeout`` seconds of the connection or of the previous answer,
    in at most ``max_head`` bytes (h11 bounds only a head that arrives in pieces).
    """

    head_timeout = 10.0
    max_head = 64 * 1024
    _head_timer: asyncio.TimerHandle | None = None
    _head_bytes = 0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
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
        super().on_response_complete()
        self._disarm()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


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
            server_header=False,
            timeout_keep_alive=limits.keep_alive,  # type: ignore[arg-type]  # uvicorn takes seconds as floats too
            h11_max_incomplete_event_size=limits.max_head,
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
