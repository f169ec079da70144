"""Keeping a served bundle in sync with its folder: a ``watchfiles`` watcher thread.

Every batch of file-system events (creates, edits, moves, deletes; watchfiles
groups events that arrive within ``debounce_ms``) becomes one
:meth:`ServedBundle.apply` of the memory and entity files it names: a moved
file is a delete and a create, a created or removed folder stands for every
file under it.  A change of ``.mif/config.yaml`` (the base IRI, relationship
types) loads the whole bundle again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import watchfiles

from mif_rdf.serve.served import ServedBundle, is_bundle_file
from mif_rdf.source.bundle_files import discover

CONFIG_FILES = (".mif/config.yaml", ".mif/config.yml")


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
            self.served.apply(relpaths)

    def _files_at(self, root: Path, relpath: str) -> set[str]:
        """The bundle files an event path stands for: itself, or every file in (or formerly in) a folder."""
        if is_bundle_file(relpath):
            return {relpath}
        folder = relpath.rstrip("/") + "/"
        known = {m.relpath for m in self.served.bundle.memories.values()} | {
            e.relpath for e in self.served.bundle.entities.values()
        }
        found = {p for p in known if p.startswith(folder)}
        if (root / relpath).is_dir():
            files = discover(root)
            found |= {p for p in (*files.memories, *files.entities, *files.projections) if p.startswith(folder)}
        return found
