"""The one-millisecond helpers run on the package's own thread when called from the main thread on Oxigraph
(mif_rdf.queries.own_thread): the same results, errors raised in the caller, Ctrl-C at once, other threads,
other stores and a forked child left as they were."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from conftest import EXAMPLES, REPO
from mif_rdf import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries import current_version, supersession_chain
from mif_rdf.queries import native as native_module
from mif_rdf.queries.own_thread import on_own_thread

OWN_THREAD = "mif-rdf helpers"


@pytest.fixture(scope="module")
def stores() -> dict[str, Any]:
    return {"memory": load_bundle(EXAMPLES), "oxigraph": load_bundle(EXAMPLES, store="Oxigraph")}


def _superseded(bundle: Any) -> str:
    return next(m.iri for m in bundle.memories.values() if m.relpath.endswith("idempotency-policy-v1.md"))


@on_own_thread
def _where(graph: Any, wait: threading.Event | None = None, done: list[str] | None = None) -> str:
    """The thread a call runs on (after ``wait`` is set, when given; then noted in ``done``)."""
    if wait is not None:
        wait.wait(30)
    name = threading.current_thread().name
    if done is not None:
        done.append(name)
    return name


def _queried_on(monkeypatch: pytest.MonkeyPatch, call: Any) -> tuple[Any, set[str]]:
    """What ``call()`` returns, and the threads its queries reached Oxigraph on."""
    threads: set[str] = set()
    real = native_module.oxigraph_store

    def noting(graph: Any) -> Any:
        threads.add(threading.current_thread().name)
        return real(graph)

    monkeypatch.setattr(native_module, "oxigraph_store", noting)
    return call(), threads


@pytest.mark.parametrize("as_", ["table", "arrow"])
@pytest.mark.parametrize("helper", [supersession_chain, current_version])
def test_from_the_main_thread_the_helper_queries_oxigraph_on_its_own_thread_and_gives_the_same_result(
    stores: dict[str, Any], monkeypatch: pytest.MonkeyPatch, helper: Any, as_: str
) -> None:
    graph = stores["oxigraph"]
    memory = _superseded(graph)
    here, threads = _queried_on(monkeypatch, lambda: helper(graph, memory, as_=as_))
    assert threads == {OWN_THREAD}
    with ThreadPoolExecutor(1, thread_name_prefix="caller") as pool:  # another thread: the call runs there
        there, elsewhere = _queried_on(monkeypatch, lambda: pool.submit(helper, graph, memory, as_=as_).result())
    assert elsewhere == {"caller_0"}
    expected = helper(stores["memory"], memory, as_=as_)
    if as_ == "arrow":
        assert here.equals(there) and here.equals(expected)
        assert here.num_rows >= 1
    else:
        assert here == there == expected and here.columns == there.columns
        assert len(here) >= 1


def test_other_threads_and_other_stores_run_where_they_are_called(stores: dict[str, Any]) -> None:
    assert _where(stores["oxigraph"]) == OWN_THREAD
    assert _where(stores["oxigraph"].dataset) == OWN_THREAD  # a bundle or its dataset
    assert _where(graph=stores["oxigraph"]) == OWN_THREAD  # the graph named
    memory = _superseded(stores["oxigraph"])
    assert supersession_chain(graph=stores["oxigraph"], memory=memory) == supersession_chain(stores["memory"], memory)
    assert _where(stores["memory"]) == threading.current_thread().name  # rdflib's store: here
    assert _where(None) == threading.current_thread().name
    with ThreadPoolExecutor(2, thread_name_prefix="caller") as pool:  # callers in threads stay side by side
        gate = threading.Event()
        first = pool.submit(_where, stores["oxigraph"], gate)
        second = pool.submit(_where, stores["oxigraph"])
        assert second.result(30).startswith("caller_")  # not held up behind the first, which still waits
        assert not first.done()
        gate.set()
        assert first.result(30).startswith("caller_")


def test_an_error_is_raised_in_the_caller_with_the_helper_s_frames(stores: dict[str, Any]) -> None:
    graph = stores["oxigraph"]
    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(MifRdfError) as elsewhere:
            pool.submit(current_version, graph, "no-such-memory").result()
    with pytest.raises(MifRdfError) as here:
        current_version(graph, "no-such-memory")
    assert str(here.value) == str(elsewhere.value) and "no memory" in str(here.value)
    assert "current_version" in [entry.name for entry in here.traceback]
    with pytest.raises(MifRdfError, match="id or its IRI"):
        supersession_chain(graph, 42)  # type: ignore[arg-type]
    assert len(current_version(graph, _superseded(graph))) == 1  # the thread serves on after errors


def test_ctrl_c_reaches_the_caller_at_once_and_the_next_call_gets_its_own_result(stores: dict[str, Any]) -> None:
    graph = stores["oxigraph"]
    gate, done = threading.Event(), []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    try:
        began = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            _where(graph, gate, done)
        assert time.monotonic() - began < 10 and done == []  # raised while the call still waited on its thread
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
        gate.set()
    assert _where(graph) == OWN_THREAD  # the next call waits for the abandoned one, then gets its own answer
    assert done == [OWN_THREAD]
    assert len(supersession_chain(graph, _superseded(graph))) == 2


def test_a_forked_child_makes_a_thread_of_its_own(stores: dict[str, Any]) -> None:
    graph = stores["oxigraph"]
    memory = _superseded(graph)
    assert _where(graph) == OWN_THREAD  # the parent's thread exists before the fork
    expected = f"{OWN_THREAD} {len(supersession_chain(graph, memory))}"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, whatever happens
        code = 1
        try:
            os.write(write, f"{_where(graph)} {len(supersession_chain(graph, memory))}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as answer:
            got = answer.read().decode()
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert got == expected


def test_a_helper_called_at_exit_answers_and_the_process_ends(tmp_path) -> None:
    script = (
        "import atexit\n"
        "from mif_rdf import load_bundle\n"
        "from mif_rdf.queries import current_version\n"
        f"bundle = load_bundle({str(EXAMPLES)!r}, store='Oxigraph')\n"
        "memory = next(m.iri for m in bundle.memories.values() if m.relpath.endswith('idempotency-policy-v1.md'))\n"
        "print('now', len(current_version(bundle, memory, as_='arrow')), flush=True)\n"
        "atexit.register(lambda: print('at exit', len(current_version(bundle, memory)), flush=True))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["now 1", "at exit 1"]
