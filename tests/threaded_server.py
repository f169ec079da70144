"""A throwaway server on a loopback port, served from a daemon thread, for tests that need a peer.

Tests of hostile stores and of addresses where no Dask scheduler answers both need a real socket that
answers (or fails) in a chosen way; this keeps the start and the clean stop in one place.
"""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def serving(server_type: type[socketserver.TCPServer], handler: type[socketserver.BaseRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` with ``server_type`` (a threading server) on a free loopback port.

    Yields ``127.0.0.1:PORT``; the server is shut down and closed after.

    Request threads are daemons, so a handler a test leaves waiting never holds the test run open.
    """
    server = server_type(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
