"""The one-millisecond helpers, called from the main thread on Oxigraph, run on a thread of the package's own.

Why (docs/performance.md, "The helpers' own thread (session 16)"): after a
bundle is loaded, glibc's heap of the main thread holds tens of thousands
of free chunks, and every allocation that misses the thread's small cache
searches them.  Oxigraph allocates from that heap as it evaluates, so in
the main thread a query of about 0.1 ms costs twice what it costs in a
thread that glibc gave a fresh heap (an arena) of its own (``ASK {}``
35 us against 16 us).  No call can tidy that heap afterwards
(``malloc_trim`` gives pages back, not order); only an environment
variable read when the process starts does.  So a helper whose time is
mostly one short query (:func:`~.helpers.walks.supersession_chain`,
:func:`~.helpers.walks.current_version`) runs, with its Arrow or Table
building, on one long-lived thread made on the first such call: measured
17-30 % less CPU a call, the hand-over (about 20 us) included.

What stays as it was:

* a call from any other thread (``serve``'s request threads, a thread
  pool) runs where it is called: those threads have heaps of their own,
  and callers in several threads keep running side by side;
* a graph not in Oxigraph (rdflib's store, a remote store): its Python
  objects do not come from that heap, so nothing would be gained;
* the result and any error are the call's own: an error is raised in the
  caller (its traceback shows the helper's frames too);
* Ctrl-C (or any signal handler's exception) reaches the caller at once,
  while it waits; the helper's call then finishes on the thread (Oxigraph
  cannot be stopped mid-query in either thread) and its result is dropped;
  a call made next waits for it;
* after a ``fork`` the child makes a thread of its own on its first call
  (the parent's is not in the child); while the interpreter shuts down
  every call runs where it is called.

Calls from the main thread run one at a time on the thread, as they would
in the main thread itself.
"""

from __future__ import annotations

import functools
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.stores import oxigraph_store

P = ParamSpec("P")
R = TypeVar("R")


class _Call:
    """One call handed to the thread: what to run, and its outcome once ``done`` is released."""

    __slots__ = ("function", "args", "kwargs", "done", "value", "error")

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.done = threading.Lock()
        self.done.acquire()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.function(*self.args, **self.kwargs)
        except BaseException as exc:  # handed to the caller, whatever it is
            self.error = exc
        finally:
            self.done.release()


class _Thread:
    """The long-lived thread and the calls waiting for it, in the order they came."""

    def __init__(self) -> None:
        self.calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="mif-rdf helpers", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            self.calls.get().run()

    def run(self, call: _Call) -> Any:
        self.calls.put(call)
        call.done.acquire()  # Ctrl-C lands here, in the caller; the call still finishes on the thread
        if call.error is not None:
            error, call.error = call.error, None  # no cycle through the traceback's frames
            raise error
        return call.value


_thread: _Thread | None = None
_making = threading.Lock()


def _own_thread() -> _Thread:
    global _thread
    with _making:
        if _thread is None:
            _thread = _Thread()
        return _thread


def _forget_the_thread() -> None:
    """In a forked child: the parent's thread is not there (and the lock may have been held at the fork)."""
    global _thread, _making
    _thread, _making = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_the_thread)


def on_own_thread(helper: Callable[P, R]) -> Callable[P, R]:
    """``helper(graph, ...)`` run on the package's own thread when called from the main thread
    on a graph (or bundle) in Oxigraph; anywhere else where it is called (see the module notes).
    The graph is the first argument or the one named ``graph``."""

    @functools.wraps(helper)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        graph = args[0] if args else kwargs.get("graph")
        if (
            threading.current_thread() is not threading.main_thread()
            or oxigraph_store(graph.dataset if isinstance(graph, LoadedBundle) else graph) is None
            or sys.is_finalizing()
        ):
            return helper(*args, **kwargs)
        try:
            thread = _thread if _thread is not None else _own_thread()
        except RuntimeError:  # no thread can be started (a limit on threads): run here
            return helper(*args, **kwargs)
        result: R = thread.run(_Call(helper, args, kwargs))
        return result

    return run
