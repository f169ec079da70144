"""Work run beside this process, in a forked child, while this process does other work: the second core put to use.

A write-back's two scratch validations (the changed files as they would be,
and as they are) are independent and CPU-bound, and Python runs one of them
at a time in a process.  :func:`start_beside` forks a child for one of them
when a second core is idle (:func:`mif_rdf.load.pipeline.spare_core`); the
child sends its result back through a pipe.  Where no core is spare, where
``fork`` is unsafe or unavailable, or when the child fails, the work runs
here, when its result is asked for: the result is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Beside(Generic[T]):
    """One piece of work, running in a forked child or waiting to run here: :meth:`result` or :meth:`cancel`."""

    def __init__(self, work: Callable[[], T], process: Any = None, pipe: Any = None) -> None:
        self._work = work
        self._process = process
        self._pipe = pipe

    @property
    def forked(self) -> bool:
        """Whether the work runs in a child process."""
        return self._process is not None

    def result(self) -> T:
        """The work's result: the child's when it sent one, else computed here."""
        if self._process is None:
            return self._work()
        try:
            ok, value = self._pipe.recv()
        except (EOFError, OSError):  # the child died without a word (killed, out of memory)
            ok, value = False, None
        finally:
            self._close()
        return value if ok else self._work()  # the child failed: the same work here says what went wrong

    def cancel(self) -> None:
        """Stop the child (its result is not needed)."""
        if self._process is not None:
            self._process.kill()
            self._close()

    def _close(self) -> None:
        self._process.join()
        self._pipe.close()
        self._process = None


def start_beside(work: Callable[[], T], *, worth_it: bool = True) -> Beside[T]:
    """Start ``work`` in a forked child when ``worth_it`` and a second core is idle; else it waits to run here."""
    import multiprocessing

    from mif_rdf.load.pipeline import spare_core

    if not worth_it or not spare_core():
        return Beside(work)
    receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)

    def child() -> None:
        receive.close()
        try:
            send.send((True, work()))
        except BaseException:  # noqa: BLE001 - the parent runs the work again and sees the error itself
            send.send((False, None))
        finally:
            send.close()

    process = multiprocessing.get_context("fork").Process(target=child, name="mif-rdf-beside")
    process.start()
    send.close()
    return Beside(work, process, receive)
