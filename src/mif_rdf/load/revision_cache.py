"""Folders that hold a bundle as it was at a revision, kept between loads and brought up to date by git blob id.

Loading a revision used to write every file of it into a new temporary
folder and load that folder cold.  Two adjacent revisions of a large bundle
share almost every file, so this module keeps a few such folders ("slots")
per repository folder in the cache directory, each with the blob id of
every file it holds (``blobs.json``).  Bringing a slot to another revision
writes only the files whose blob id differs and deletes those that are gone:
the files that did not change keep their size, mtime and inode, so the load
cache (:mod:`mif_rdf.load.cache`, whose entry is keyed on the slot's folder)
trusts them and parses again only what the revision changed.

A slot is locked (``fcntl.flock`` on its ``lock`` file) from the moment it is
taken until the bundle loaded from it is released, so two bundles alive at
once (``diff`` holds two revisions) never share a folder, in one process or
in several.  The slot used most recently is tried first; when all
:data:`SLOTS` are taken, or locks are not available (not POSIX), the caller
loads from a private temporary folder as before.  ``blobs.json`` is removed
before a slot's files change and written after, so an interrupted update
makes the next one rewrite the slot whole, never trust a half-written one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.cache_entry import _RACY_NS, _check_owned

#: Folders kept per repository folder: two for ``diff``, one for a third process, one spare.
SLOTS = 4

#: ``read(blob ids) -> {blob id: content}``: how the files' contents are fetched (one ``git cat-file --batch``).
BlobReader = Callable[[list[str]], dict[str, bytes]]


@dataclass
class Slot:
    """A slot taken for one load: ``folder`` holds the revision's files; :meth:`release` gives the slot back."""

    folder: Path
    lock: IO[Any] | None
    written: int  # files written (changed or new) to bring it to the revision
    removed: int  # files deleted

    def release(self) -> None:
        if self.lock is not None:
            self.lock.close()  # closing the file releases the flock
            self.lock = None


def slots_dir(cache_dir: Path, key: str, name: str) -> Path:
    """The slots of one repository folder: named after the folder for people, by a hash of ``key`` for uniqueness."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40] or "bundle"
    return Path(cache_dir) / "revisions" / f"{readable}-{digest}"


def take_slot(home: Path, name: str, files: Sequence[tuple[str, str]], read: BlobReader) -> Slot | None:
    """A free slot under ``home`` brought to exactly ``files`` ((relpath, blob id) pairs); None when none is free.

    The slot's files are under ``<slot>/<name>`` (the bundle folder's own name).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no way to know a slot is free
        return None
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        _check_owned(home, home.stat())  # files others could write would be loaded as the revision's
    except OSError as exc:
        raise MifRdfError(f"cache folder {str(home)!r} cannot be used: {exc.strerror or exc}") from None
    for slot in _by_last_use(home):
        slot.mkdir(mode=0o700, exist_ok=True)
        _check_owned(slot, slot.stat())
        handle = open(slot / "lock", "a")  # noqa: SIM115 - held open until the bundle is released
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        try:
            written, removed = _bring_to(slot, name, dict(files), read)
        except BaseException:
            handle.close()
            raise
        return Slot(slot / name, handle, written, removed)
    return None


def _by_last_use(home: Path) -> list[Path]:
    """The slot folders, the one used last first (its files are likeliest to be the next revision's)."""

    def last_use(slot: Path) -> float:
        try:
            return (slot / "blobs.json").stat().st_mtime
        except OSError:
            return 0.0

    return sorted((home / f"slot-{index}" for index in range(SLOTS)), key=last_use, reverse=True)


def _bring_to(slot: Path, name: str, wanted: dict[str, str], read: BlobReader) -> tuple[int, int]:
    """Make ``<slot>/<name>`` hold exactly ``wanted`` (relpath -> blob id); the files written and removed."""
    folder, record = slot / name, slot / "blobs.json"
    held = _held(record, folder)
    record.unlink(missing_ok=True)  # until the files are right, the record vouches for nothing
    if held is None:  # no record to trust (first use, another folder name, an interrupted update): start empty
        _empty(slot, keep=("lock",))
        held = {}
    gone = [relpath for relpath in held if relpath not in wanted]
    for relpath in gone:
        (folder / relpath).unlink(missing_ok=True)
    _prune_empty(folder, gone)
    changed = [relpath for relpath, blob in wanted.items() if held.get(relpath) != blob]
    contents = read([wanted[relpath] for relpath in changed])
    # Dated back past the load cache's "racily clean" window, so the load that follows can trust these files
    # by their stamps from then on (a file just written would be hashed again at the next load). Only this
    # module writes a slot, and any later write gives a file a new mtime and ctime, which the cache sees.
    settled = time.time_ns() - 2 * _RACY_NS
    for relpath in changed:
        path = folder / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.is_dir():  # never through a link; a folder where a file now is goes
            _remove(path)
        path.write_bytes(contents[wanted[relpath]])
        os.utime(path, ns=(settled, settled))
    temporary = record.with_suffix(".tmp")
    temporary.write_text(json.dumps({"folder": name, "blobs": wanted}), encoding="utf-8")
    os.replace(temporary, record)
    return len(changed), len(gone)


def _held(record: Path, folder: Path) -> dict[str, str] | None:
    """What the slot's record says it holds, None when there is no record to trust."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("folder") != folder.name or not isinstance(data.get("blobs"), dict):
        return None
    return {str(relpath): str(blob) for relpath, blob in data["blobs"].items()}


def _empty(slot: Path, keep: tuple[str, ...]) -> None:
    for child in slot.iterdir():
        if child.name not in keep:
            _remove(child)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _prune_empty(folder: Path, removed: list[str]) -> None:
    """Remove the folders the removed files leave empty (a revision without them has no such folder)."""
    parents = {p for relpath in removed for p in Path(relpath).parents if p != Path(".")}
    for parent in sorted(parents, key=lambda p: len(p.parts), reverse=True):  # the deepest first
        try:
            (folder / parent).rmdir()
        except OSError:  # not empty, or already gone
            pass
