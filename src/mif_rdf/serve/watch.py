"""Keeping a served bundle in sync with its folder: a ``watchfiles`` watcher thread.

Every batch of file-system events (creates, edits, moves, deletes; watchfiles
groups events that arrive within ``debounce_ms``) becomes one
:meth:`ServedBundle.apply` of the memory and entity files it names: a moved
file is a delete and a create, a created or removed folder stands for every
file under it.  A change of ``.mif/config.yaml`` (the base IRI, relationship
types) loads the whole bundle again.

An edit that lands while its batch is being applied may be read before or
after it, and its event may already be part of the batch being handled:
the files of a batch are hashed before and after :meth:`ServedBundle.apply`,
and a file whose bytes changed meanwhile is applied again, so the served
bundle always ends on what is on disk (no stamp of mtime and size is trusted:
two saves in one tick with the same size differ only in their bytes).
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import watchfiles

from mif_rdf.core.limits import Limits
from mif_rdf.serve.served import ServedBundle, is_bundle_file
from mif_rdf.source.bundle_files import discover, loadable
from mif_rdf.source.parse import read_text

CONFIG_FILES = (".mif/config.yaml", ".mif/config.yml")

#: How many times a batch is applied again while its files keep changing under it (the next event catches the rest).
MAX_PASSES = 5


class Watcher:
    """Watches the bundle folder in a daemon thread and applies each batch of changes."""

    def __init__(self, served: ServedBundle, *, debounce_ms: int = 50) -> None:
        self.served = served
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mif-rdf-watch", daemon=True)

    def start(self) -> Watcher:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        root = self.served.bundle.root
        for changes in watchfiles.watch(
            root,
            stop_event=self._stop,
            debounce=self.debounce_ms,
            step=10,
            raise_interrupt=False,
            yield_on_timeout=False,
            watch_filter=None,
        ):
            try:
                self.handle(path for _, path in changes)
            except Exception as exc:  # a reload that failed must not stop the watching
                print(f"mif-rdf serve: reloading failed: {type(exc).__name__}: {exc}", file=sys.stderr)

    def handle(self, paths: Iterable[str]) -> None:
        """Apply the changes of one batch of event paths (absolute, as watchfiles gives them)."""
        root = self.served.bundle.root
        relpaths: set[str] = set()
        for path in paths:
            try:
                relpath = Path(path).relative_to(root).as_posix()
            except ValueError:
                continue
            if relpath in CONFIG_FILES:
                self.served.reload_all()
                return
            relpaths |= self._files_at(root, relpath)
        if relpaths:
            self.apply_until_stable(relpaths)

    def apply_until_stable(self, relpaths: set[str]) -> None:
        """Apply ``relpaths``, and again those whose bytes changed while they were being applied."""
        root, limits = self.served.bundle.root, self.served.bundle.limits
        for _ in range(MAX_PASSES):
            before = {p: _content_hash(root, p, limits) for p in relpaths}
            self.served.apply(relpaths)
            relpaths = {p for p in relpaths if _content_hash(root, p, limits) != before[p]}
            if not relpaths:
                return

    def _files_at(self, root: Path, relpath: str) -> set[str]:
        """The bundle files an event path stands for: itself, or every file in (or formerly in) a folder."""
        if is_bundle_file(relpath):
            return {relpath}
        folder = relpath.rstrip("/") + "/"
        found = {p for p in self.served.index.paths() if p.startswith(folder)}
        if (root / relpath).is_dir():
            files = discover(root)
            found |= {p for p in (*files.memories, *files.entities, *files.projections) if p.startswith(folder)}
        return found


def _content_hash(root: Path, relpath: str, limits: Limits) -> bytes | None:
    """The file's text as a fresh load reads it (:func:`~mif_rdf.source.parse.read_text`: no FIFO waited on, at
    most the size limit read), hashed; ``None`` for what the loader would not read (gone, a symlink, a folder,
    over the limit, not UTF-8)."""
    if not loadable(root, relpath):
        return None
    text = read_text(root / relpath, relpath, [], limits)
    return None if text is None else hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
