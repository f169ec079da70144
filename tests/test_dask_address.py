"""Issue 32: ``--dask ADDRESS`` where no Dask scheduler answers is a clear error, soon, naming the address.

Dask's own client waits with no end when an HTTP server holds the port, and reads
another protocol's answer as a frame length (a ``MemoryError`` for exabytes).
These tests put real servers on loopback ports (an HTTP server that waits for a
request line Dask never sends; a server that answers at once with an HTTP 400, as
a proxy does) and a closed port, with Dask's connect timeout made short.  A real
scheduler (and a worker's address) is in tests/test_distributed.py.
"""

from __future__ import annotations

import http.server
import os
import socket
import socketserver
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURE_BUNDLES
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from threaded_server import serving

dask = pytest.importorskip("dask")  # the [dask] extra; `make test` installs it (the dev extra)
pytest.importorskip("distributed")

from mif_rdf.distributed import export_nquads  # noqa: E402
from mif_rdf.distributed import validate as distributed_validate  # noqa: E402

#: Dask's connect timeout in these tests: the most the question to an address may take.
SECONDS = 1.5
#: What a refusal must come within (the probe, and the command around it).
PROMPT = SECONDS + 3
BUNDLE = str(FIXTURE_BUNDLES["core"])


@pytest.fixture(autouse=True)
def short_timeout() -> Iterator[None]:
    with dask.config.set({"distributed.comm.timeouts.connect": f"{SECONDS}s"}):
        yield


class _Answers400(socketserver.BaseRequestHandler):
    """Answers every connection at once with an HTTP error, before reading anything (as a proxy may)."""

    def handle(self) -> None:
        self.request.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class _HangsUp(socketserver.BaseRequestHandler):
    """Closes every connection at once, reading and writing nothing."""

    def handle(self) -> None:
        self.request.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002  -- the base class's name
        """No log line on standard error: the tests read the command's own."""


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """A plain HTTP server: it waits for a request line, which Dask's handshake does not hold."""
    with serving(http.server.ThreadingHTTPServer, _Quiet) as address:
        yield address


@pytest.fixture(scope="module")
def answering_server() -> Iterator[str]:
    with serving(socketserver.ThreadingTCPServer, _Answers400) as address:
        yield address


@pytest.fixture(scope="module")
def hanging_up_server() -> Iterator[str]:
    with serving(socketserver.ThreadingTCPServer, _HangsUp) as address:
        yield address


@pytest.fixture
def closed_port() -> str:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"127.0.0.1:{port}"


def _address(kind: str, request: pytest.FixtureRequest) -> str:
    return {
        "http": lambda: request.getfixturevalue("http_server"),
        "answers": lambda: request.getfixturevalue("answering_server"),
        "closed": lambda: request.getfixturevalue("closed_port"),
        "hangs up": lambda: request.getfixturevalue("hanging_up_server"),
    }[kind]()


#: On a loaded machine the TCP connection itself can take longer than the short bound these tests set, and then
#: the refusal is the connect timeout's own message, right for every kind too; the kind's own message is
#: asserted whenever the connection was made in time.
CONNECT_TIMEOUT = f"cannot connect within {SECONDS * 0.5:.2g} s ("


def said(kind: str, message: str) -> bool:
    """Whether ``message`` says what it should of an address of ``kind``."""
    return SAID[kind] in message or CONNECT_TIMEOUT in message


#: kind of address -> what the message says of it
SAID = {
    "http": f"no Dask scheduler answered within {SECONDS:g} s",
    "answers": "answered, but not in Dask's protocol",
    "closed": CONNECT_TIMEOUT,
    "hangs up": "closed the connection in Dask's handshake",
}


@pytest.mark.parametrize("kind", sorted(SAID))
@pytest.mark.parametrize("command", ["export", "validate"])
def test_the_command_says_no_scheduler_answers_there(
    kind: str, command: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 (the command cannot run), the address and what was expected on standard error, within the
    timeout; no output folder made."""
    address, out = _address(kind, request), tmp_path / "out"
    argv = ["export", "-o", str(out), "--dask", address, BUNDLE] if command == "export" else []
    argv = argv or ["validate", "--dask", address, "--level", "2", BUNDLE]
    start = time.monotonic()
    assert main(argv) == 2
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert err.startswith(f"mif-rdf: error: {address}") and said(kind, err), err
    assert "e.g. tcp://scheduler:8786" in err and "Traceback" not in err and "internal error" not in err
    assert took < PROMPT and not out.exists()


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("tcp://127.0.0.1", "missing port"),
        ("xyz://127.0.0.1:8786", "unknown address scheme 'xyz'"),
        ("127.0.0.1:port", "invalid literal"),
    ],
)
def test_a_malformed_address_is_refused_at_once(
    address: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", BUNDLE, "--dask", address, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{address!r} is not a scheduler address" in err and said in err and "e.g. tcp://" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", sorted(SAID))
def test_the_python_api_raises_the_projects_error(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    address = _address(kind, request)
    with pytest.raises(MifRdfError) as raised:
        export_nquads(BUNDLE, tmp_path / "out", address)
    assert address in str(raised.value) and said(kind, str(raised.value)) and not (tmp_path / "out").exists()
    with pytest.raises(MifRdfError) as raised:
        distributed_validate(BUNDLE, address, level=1)
    assert said(kind, str(raised.value))


def test_the_timeout_is_dasks_own_setting_in_a_users_shell(http_server: str, tmp_path: Path) -> None:
    """As a user runs it: ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT`` bounds the wait, nothing hangs."""
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    env.pop("MIF_RDF_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", "validate", BUNDLE, "--dask", http_server],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"mif-rdf: error: {http_server}: no Dask scheduler answered within 1 s (something other than a Dask "
        "scheduler may listen there, or it is stalled); give a Dask scheduler's address, e.g. tcp://scheduler:8786 "
        "(the port `dask scheduler` prints, not its dashboard), or a longer DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"
    ]
