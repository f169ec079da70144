"""The files of a load-cache entry (:mod:`mif_rdf.load.cache`): file stamps, the manifest, checksummed files, the lock.

Every cache file starts with a magic line and the SHA-256 of its payload, and
is written atomically; the manifest vouches for the other files by their
hashes.  Cache files are pickles, so a folder or file another user owns or
others may write is refused with an error, never read.  What goes wrong
reading an entry raises :class:`_Stale` (the cache then loads afresh).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import rdflib

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import PREFIX, owner
from mif_rdf.core.resources import data_dir
from mif_rdf.load import stores
from mif_rdf.load.bundle import RecordMaps

#: Bumped whenever the layout of an entry changes (3: .jsonld memories and projections are stamped;
#: 4: the records' classes moved to mif_rdf.load.bundle, so older pickles name modules that are gone;
#: 5: the manifest's classes moved to mif_rdf.load.cache_entry; 6: the journal, mif_rdf.load.cache_journal;
#: 7: a memory record keeps its projection document as ``projected``, None until asked for).
CACHE_FORMAT = 7
_MAGIC = b"mif-rdf cache\n"
_DIGEST = hashlib.sha256().digest_size
#: A file modified this close to when it was recorded is checked by content anyway.
_RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class Stamp:
    """What a file looked like when it was read."""

    size: int
    mtime_ns: int
    sha256: str
    checked_ns: int  # when it was taken: an mtime this close to it proves nothing
    ctime_ns: int = -1  # inode change time: an edit whose mtime was put back (touch -r) still moves it
    inode: int = -1


@dataclass
class _Manifest:
    format: int
    fingerprint: str
    stamps: dict[str, Stamp]
    config_path: str | None
    config: dict[str, Any]
    problems: list[Problem]
    dataset_sha256: str  # of the memory store's pickle ("" for Oxigraph)
    tables: dict[str, tuple[int, int]]  # Oxigraph's data files: name -> (size, CRC-32)
    records_sha256: str  # of the records' pickle, a file of its own: read only when asked for
    journal_sha256: str = ""  # of the journal of warm loads since the base was written ("" for none)


class _Stale(Exception):
    """The entry cannot be used; the message says why (it goes into the report)."""


def entry_dir(cache_dir: Path, root: Path, base: str, engine: str, kind: str, limits: Limits) -> Path:
    """The entry folder: named after the bundle folder for people, by a hash of the settings for uniqueness."""
    key = hashlib.sha256(repr((str(root), base, engine, kind, limits)).encode()).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", root.name)[:40] or "bundle"
    return Path(cache_dir) / f"{name}-{key}"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of everything that decides what a load produces: sources, contexts, library versions."""
    digest = hashlib.sha256(f"{CACHE_FORMAT} {sys.version} {rdflib.__version__} {stores.oxigraph_version()}".encode())
    package = Path(__file__).resolve().parent.parent  # all of mif_rdf/
    files = sorted(package.rglob("*.py")) + sorted(p for p in data_dir("context").iterdir() if p.is_file())
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _fresh_stamp(folder: str, relpath: str, manifest: _Manifest) -> Stamp | None:
    """None when a file is known unchanged, else its stamp now (its content decides when in doubt).

    ``folder`` is the bundle root with a trailing separator: plain strings, because
    this runs once per file on every warm load.
    """
    stamp = manifest.stamps.get(relpath)
    if stamp is not None:
        try:
            info = os.stat(folder + relpath)
        except OSError:
            info = None
        if (
            info
            and info.st_size == stamp.size
            and info.st_mtime_ns == stamp.mtime_ns < stamp.checked_ns - _RACY_NS
            and info.st_ctime_ns == stamp.ctime_ns
            and info.st_ino == stamp.inode
        ):
            return None
    return _stamp(Path(folder), relpath)


def _same_content(now: Stamp, then: Stamp | None) -> bool:
    return then is not None and now.size == then.size >= 0 and now.sha256 == then.sha256


def _stamp(root: Path, relpath: str) -> Stamp:
    path = root / relpath
    checked_ns = time.time_ns()
    try:
        info = path.stat()
        data = path.read_bytes()
    except OSError:  # unreadable now: a stamp that matches nothing, so it is retried next time
        return Stamp(-1, -1, "", checked_ns)
    return Stamp(
        info.st_size, info.st_mtime_ns, hashlib.sha256(data).hexdigest(), checked_ns, info.st_ctime_ns, info.st_ino
    )


def _records_reader(entry: Path, manifest: _Manifest) -> Callable[[], RecordMaps]:
    """Checks the records file now; unpickles it when the records are first asked for."""
    payload = _read_file(entry / "records", manifest.records_sha256)

    def read() -> RecordMaps:
        with no_cyclic_gc():
            return pickle.loads(payload)

    return read


def _read_manifest(entry: Path) -> _Manifest:
    if not (entry / "manifest").is_file():
        raise _Stale("no cache entry yet")
    payload = _read_file(entry / "manifest")
    try:
        manifest = pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means a bad entry
        raise _Stale(f"the cache manifest cannot be read ({type(exc).__name__})") from None
    if not isinstance(manifest, _Manifest) or manifest.format != CACHE_FORMAT:
        raise _Stale("the cache entry has another format")
    if manifest.fingerprint != code_fingerprint():
        raise _Stale("mif-rdf, rdflib or pyoxigraph changed since the entry was written")
    return manifest


# -- files --------------------------------------------------------------------------
def _write_file(path: Path, payload: bytes) -> str:
    """Write atomically (a reader sees the old file or the whole new one) and return the payload's SHA-256."""
    digest = hashlib.sha256(payload)
    temporary = path.with_name(f"{PREFIX}{owner()}-{path.name}")  # a killed save leaves it to the next run's sweep
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:  # whatever the umask
        handle.write(_MAGIC + digest.digest())
        handle.write(payload)
    os.replace(temporary, path)
    return digest.hexdigest()


def _read_file(path: Path, expected_sha256: str | None = None) -> bytes:
    """The payload, checked against its own checksum and, when given, the one the manifest recorded."""
    try:
        with open(path, "rb") as handle:
            _check_owned(path, os.fstat(handle.fileno()))
            data = handle.read()
    except OSError as exc:
        raise _Stale(f"cannot read {path.name} ({exc.strerror})") from None
    header = len(_MAGIC) + _DIGEST
    digest = hashlib.sha256(memoryview(data)[header:]).digest()
    if not data.startswith(_MAGIC) or digest != data[len(_MAGIC) : header]:
        raise _Stale(f"{path.name} is corrupt (checksum mismatch)")
    if expected_sha256 is not None and digest.hex() != expected_sha256:
        raise _Stale(f"{path.name} does not belong to the manifest")
    return data[header:]


def _check_owned(path: Path, info: os.stat_result) -> None:
    """Refuse a cache folder or file another user owns or others may write: unpickling it would run their code."""
    uid = getattr(os, "geteuid", None)
    if uid is None:  # pragma: no cover - not POSIX
        return
    if info.st_uid != uid() or info.st_mode & 0o022:
        who = "owned by another user" if info.st_uid != uid() else "writable by other users"
        raise MifRdfError(
            f"cache {'folder' if path.is_dir() else 'file'} {str(path)!r} is {who}; it is not read "
            "(cache files are pickles: reading one runs what it says). Delete it, or use a --cache-dir of your own"
        )


@contextlib.contextmanager
def _locked(entry: Path) -> Iterator[None]:
    """One process at a time per entry (others wait); a no-op where ``fcntl`` is missing."""
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # an existing folder keeps its mode
        entry.mkdir(mode=0o700, exist_ok=True)
        _check_owned(entry, entry.stat())
    except OSError as exc:
        raise MifRdfError(f"cache folder {str(entry.parent)!r} cannot be used: {exc.strerror or exc}") from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(entry / "lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
