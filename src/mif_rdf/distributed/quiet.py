"""A worker plugin that keeps one of Dask's own shutdown races from printing a traceback.

A worker sends the scheduler a heartbeat every half second. When a cluster
closes while one is in flight (the scheduler has dropped the connection, the
worker has not yet been told to stop), Dask logs "Failed to communicate with
scheduler during heartbeat." with the whole ``OSError`` traceback from the
worker process, whose standard error is the user's terminal. Nothing is lost
(the run has ended; a failed task reaches the client as its exception), but a
traceback on closing reads as a crash. The plugin keeps Dask's line and drops
the traceback under it, for that one message only: every other log record of
the workers is untouched.
"""

from __future__ import annotations

import logging
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

#: The record Dask's ``Worker.heartbeat`` logs with ``logger.exception`` when the scheduler is gone.
HEARTBEAT_FAILED = "Failed to communicate with scheduler during heartbeat."
#: The name the plugin is registered under: registering it again replaces it (one filter per worker).
NAME = "mif-rdf-quiet-heartbeat"


class HeartbeatTraceback(logging.Filter):
    """Passes every record; the heartbeat failure passes without its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == HEARTBEAT_FAILED:
            record.exc_info = record.exc_text = None
        return True


class QuietHeartbeat(WorkerPlugin):
    """Installs :class:`HeartbeatTraceback` on the worker's logger, on every worker present and to come."""

    idempotent = True

    def setup(self, worker: Any) -> None:
        logger = logging.getLogger("distributed.worker")
        if not any(isinstance(each, HeartbeatTraceback) for each in logger.filters):
            logger.addFilter(HeartbeatTraceback())
