"""Pausing the cyclic garbage collector around bulk work (loads, validation, large query results)."""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk load (or while query rows are built).

    A load allocates millions of long-lived objects (terms, index entries) and
    creates no garbage cycles; with the collector on, each full collection
    walks all of them again, which made large loads much slower.
    Rows of a large query result make no cycles either, but a hundred
    thousand of them set off full collections over the whole loaded bundle.

    On the way out, what the work made goes straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()`` moves every object
    there without looking at it), where it would end up anyway after two
    collections; otherwise the first young-generation collection walks all of
    it: about a second after a 10,000-memory load.  Skipped when the program
    keeps frozen objects of its own, which ``unfreeze`` would release.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


@functools.cache  # registered once, however often a program calls it
def skip_collection_at_exit() -> None:
    """Leave everything alive at exit out of the interpreter's last full collection (for a command-line run).

    At exit CPython collects every generation once more, walking every object
    still alive (a loaded bundle's records, documents and terms: about 0.3 s
    after a 3,000-memory export on a busy machine) only to free memory that
    the exit returns anyway.  ``gc.freeze()`` at exit moves them to the
    permanent generation, which that collection skips; objects are still
    released as modules are torn down, and handlers registered with
    :mod:`atexit` still run (they do not depend on the collector).
    """
    atexit.register(gc.freeze)
