"""``mif-rdf serve`` as users run it: the console script in a subprocess, on a free port.

The server prints its address on standard error once it listens (``--port 0``
lets it pick a free port); :class:`ServeProcess` reads it from there, polls
until the endpoint answers (bounded in count and time), and stops the process
and waits for it on exit, so no server outlives its test.
"""
from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
READY_DEADLINE_S = 60.0
URL = re.compile(r" at (http://\S+/) ")


class ServeProcess:
    """``mif-rdf serve BUNDLE --port 0 ...``; ``url`` is its base address once started."""

    def __init__(self, bundle: Path, *options: str) -> None:
        self.command = [MIF_RDF, "serve", str(bundle), "--port", "0", "--no-progress", *options]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.stderr: list[str] = []

    def __enter__(self) -> "ServeProcess":
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        found = threading.Event()

        def read() -> None:
            assert self.process is not None and self.process.stderr is not None
            for line in self.process.stderr:
                self.stderr.append(line)
                match = URL.search(line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(READY_DEADLINE_S) or not self.url:
            self.stop()
            raise RuntimeError(f"mif-rdf serve did not start: {''.join(self.stderr)}")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the address is printed once the socket listens; one request proves it
            try:
                urllib.request.urlopen(self.url + "api/status", timeout=5).read()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mif-rdf serve at {self.url} does not answer")

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    @property
    def query_url(self) -> str:
        return self.url + "query"
