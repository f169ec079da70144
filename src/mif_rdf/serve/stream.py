"""An answer on its way from a worker thread to the event loop that sends it.

pyoxigraph serializes a result into a file-like object; :class:`Job` is that
object.  It hands the bytes to the event loop in :data:`CHUNK` pieces, at most
four ahead of what the client has taken (so a slow reader holds its worker,
never memory), and raises :class:`Stopped` from ``write`` once the request is
cancelled -- its client left, its time ran out, the server is stopping -- which
is how a query is stopped at the engine's next result.
"""

from __future__ import annotations

import asyncio
import threading
from http import HTTPStatus
from typing import Any

CHUNK = 64 * 1024


class Stopped(Exception):
    """The worker is told to stop: its client left, its time ran out, or its answer grew too large."""


class Job:
    """One request's worker: the :class:`~.protocol.Output` the answer streams into, and its way back to the event loop.

    Pieces go to the loop at most ``credits`` ahead of what the client took,
    so a slow reader holds the worker, never memory.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, max_bytes: int) -> None:
        self.loop = loop
        self.events: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()  # read by the loop without a timeout of its own
        self.cancelled = threading.Event()
        self.credits: threading.Semaphore | None = None  # made with the first streamed piece (most answers are one)
        self.started = False
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._written = 0
        self._head: tuple[Any, ...] | None = None  # the status and headers, until they go with the first piece
        self._claim = [True]  # emptied by :meth:`claim`

    def post(self, event: tuple[Any, ...]) -> None:
        try:
            self.loop.call_soon_threadsafe(self.events.put_nowait, event)
        except RuntimeError:  # the loop is gone (the server stopped): nobody is listening
            self.cancelled.set()

    def claim(self) -> bool:
        """Take the job, once: by the worker that will run it, or by the loop giving up on it (no worker took it in
        time).  ``list.pop`` is one atomic step, so exactly one of them gets it, without a lock."""
        try:
            self._claim.pop()
        except IndexError:
            return False
        return True

    def stop(self) -> None:
        """Tell the worker to stop (at the engine's next result) and end the answer now."""
        if not self.cancelled.is_set():
            self.cancelled.set()
            self.post(("stopped",))

    def start(self, status: HTTPStatus, content_type: str, headers: dict[str, str]) -> None:
        """Keep the status and headers: they go to the loop with the first piece, or with the whole answer."""
        self.started = True
        self._head = ("start", int(status), content_type, headers)

    def write(self, data: bytes) -> int:
        if self.cancelled.is_set():
            raise Stopped()
        self._buffer += data
        self._written += len(data)
        if self._written > self.max_bytes:
            self.post(("too-large",))
            raise Stopped()
        if len(self._buffer) >= CHUNK:
            self._send()
        return len(data)

    def flush(self) -> None:
        """pyoxigraph flushes at the end; pieces go out as they fill."""

    def _send(self) -> None:
        if self.credits is None:
            self.credits = threading.Semaphore(4)
        while not self.credits.acquire(timeout=0.2):
            if self.cancelled.is_set():
                raise Stopped()
        if self._head is not None:
            self.post(self._head)
            self._head = None
        self.post(("data", bytes(self._buffer)))
        self._buffer.clear()

    def finish(self) -> tuple[Any, ...]:
        """The end of the answer, as the last event to post: an answer that fits one piece is that one event."""
        if self._head is not None:
            event = ("whole", *self._head[1:], bytes(self._buffer))
            self._head = None
            self._buffer.clear()
            return event
        if self._buffer:
            self._send()
        return ("end",)
