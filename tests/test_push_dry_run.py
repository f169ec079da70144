"""`push --dry-run` with no store running still shows the plan,
and says the store was not checked (issue 20, section 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES
from oxigraph_server import free_port

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")


def test_dry_run_without_a_store_shows_every_graph_as_new() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/store"
    done = subprocess.run(
        [MIF_RDF, "push", str(EXAMPLES), "--endpoint", endpoint, "--dry-run", "--retries", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    sends = [line for line in done.stdout.splitlines() if line.strip().startswith("send ")]
    assert len(sends) > 20 and all(line.rstrip().endswith(": new") for line in sends)
    summary = done.stdout.splitlines()[-1]
    assert "the store was not checked" in summary and "cannot reach the store" in summary
    assert f"would send {len(sends)}, delete 0" in summary
    assert "Traceback" not in done.stderr


def test_a_real_push_to_no_store_still_fails() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/store"
    done = subprocess.run(
        [MIF_RDF, "push", str(EXAMPLES), "--endpoint", endpoint, "--retries", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3 and "cannot reach the store" in done.stderr


def test_a_dry_run_tries_a_missing_store_once() -> None:
    """Issue 37.7: no retries with backoff by default for a plan (``--retries N`` still asks for them)."""
    endpoint = f"http://127.0.0.1:{free_port()}/store"
    done = subprocess.run(
        [MIF_RDF, "push", str(EXAMPLES), "--endpoint", endpoint, "--dry-run", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "(1 attempt)" in done.stdout.splitlines()[-1]
    retried = subprocess.run(
        [MIF_RDF, "push", str(EXAMPLES), "--endpoint", endpoint, "--dry-run", "--no-cache", "--retries", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert retried.returncode == 0 and "(2 attempts)" in retried.stdout.splitlines()[-1]
