"""A persistent cache of loaded bundles, so that reopening one costs little.

One cache entry per bundle folder, base IRI, engine, store kind and limits,
in a folder under the cache directory (``default_cache_dir()`` or ``--cache
DIR``).  An entry holds:

* ``manifest``: for every file read, its size, mtime and SHA-256; the config
  and problems; a fingerprint of the code that made them;
* ``records``: the parsed memory and entity records, unpickled only when the
  bundle's ``memories`` or ``entities`` are first used (SPARQL work never does);
* the triples: ``dataset`` (a pickle of rdflib's memory store, restored whole,
  because adding the triples again costs as much as the cold load) or
  ``oxigraph/`` (an Oxigraph database).

**What counts as changed.**  A file whose size, mtime, inode and inode change
time (ctime, which no ``touch -r`` puts back) are the recorded ones is
trusted, unless its mtime is so close to when it was recorded that a write in
the same clock tick could hide (git's "racily clean" case); otherwise its
SHA-256 decides, so a touched but unchanged file is not parsed again.  Changed,
new and deleted files are parsed again alone (:func:`mif_rdf.load.loader.reload`), and the
links graph is rebuilt.

**When the cache is not used.**  Every cache file carries a SHA-256 of its
content; a file that is missing, truncated, corrupt, or written by other code
(another mif-rdf, rdflib or pyoxigraph version, or edited sources) means a cold
load that rewrites the entry.  So does a bundle with duplicate ids, a changed
config or more memories than the limit: who wins there depends on the whole
bundle.  Deleting the cache folder is always safe.

**Oxigraph.**  The cached database is never handed out: each load gets a
checkpoint of it (hard links, milliseconds) in ``sessions/``, removed when the
store is released, so changes made to the loaded dataset (inferences, pushes)
never leak into the cache.

Cache files are pickles: a cache folder must be as trusted as the code that
reads it, which is why it is created readable by its owner only, and an entry
folder or file that another user owns or others may write is refused with an
error, never read.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import secrets
import shutil
import sys
import time
import weakref
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from typing import Literal as TypingLiteral

import rdflib
from rdflib import Dataset
from rdflib.store import Store

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Problem, ProblemLog
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import PREFIX, process_exists, sweep
from mif_rdf.core.resources import data_dir
from mif_rdf.load import stores, termpickle
from mif_rdf.load.bundle import CacheReport, LoadedBundle, RecordMaps, Records
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.load.stores import new_dataset
from mif_rdf.source.parse import BundleFiles, discover

StoreKind = TypingLiteral["memory", "oxigraph"]
#: Bumped whenever the layout of an entry changes (3: .jsonld memories and projections are stamped;
#: 4: the records' classes moved to mif_rdf.load.bundle, so older pickles name modules that are gone).
CACHE_FORMAT = 4
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


@dataclass(frozen=True)
class _Steps:
    """What the loader lends the cache: make a bundle, fill an empty one, re-read changed files."""

    into: type[LoadedBundle]
    fill: Callable[[LoadedBundle, bool | None, int | None], LoadedBundle]
    reload: Callable[..., object]


class _Stale(Exception):
    """The entry cannot be used; the message says why (it goes into the report)."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/mif-rdf``, or ``~/.cache/mif-rdf``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mif-rdf"


def load_cached(
    root: Path,
    base: str,
    *,
    engine: ToRdfEngine,
    store: str | Store,
    limits: Limits,
    cache_dir: Path,
    into: type[LoadedBundle],
    fill: Callable[[LoadedBundle, bool | None, int | None], LoadedBundle],
    reload: Callable[..., object],
    progress: bool | None = None,
    workers: int | None = None,
) -> LoadedBundle:
    """Load ``root`` through the cache entry for these settings (see the module docstring).

    The loader hands over its steps: ``into`` makes the bundle, ``fill``
    reads every file into an empty one (a cold load), ``reload`` re-reads the
    files that changed (a warm one).  The cache decides only what is still
    good; it never imports the loader.
    """
    steps = _Steps(into, fill, reload)
    kind = store_kind(store)
    entry = entry_dir(cache_dir, root, base, engine, kind, limits)
    with _locked(entry), no_cyclic_gc():
        _prune_sessions(entry)
        try:
            return _warm(steps, entry, root, base, engine, kind, limits)
        except _Stale as stale:
            return _cold(steps, entry, root, base, engine, kind, limits, str(stale), progress, workers)


def store_kind(store: str | Store) -> StoreKind:
    """The cacheable store a ``load_bundle(store=...)`` value names."""
    if isinstance(store, str) and store.lower() in ("default", "memory"):
        return "memory"
    if isinstance(store, str) and store.lower() == "oxigraph":
        if not stores.oxigraph_installed():
            raise MifRdfError("the Oxigraph store needs the oxigraph extra: pip install 'mif-rdf[oxigraph]'")
        return "oxigraph"
    raise MifRdfError(f"the cache works with the default (memory) and Oxigraph stores, not {store!r}")


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


# -- warm ---------------------------------------------------------------------------
def _warm(
    steps: _Steps, entry: Path, root: Path, base: str, engine: ToRdfEngine, kind: StoreKind, limits: Limits
) -> LoadedBundle:
    manifest = _read_manifest(entry)
    files = discover(root)
    if any(p.rule == "read" for p in files.problems):  # its files are not listed, yet still readable one by one
        raise _Stale("a folder could not be read: a fresh load tells what it holds")
    if any(
        p.rule in ("duplicate-id", "duplicate-path", "limit") and p.path in (".", *manifest.stamps)
        for p in manifest.problems
    ):
        raise _Stale("the bundle had duplicate ids or went over a limit; who wins depends on every file")
    if len(files.memories) > limits.max_memories:
        raise _Stale("more memory files than --max-memories")
    config_now = files.config and _fresh_stamp(str(root) + os.sep, files.config, manifest)
    if files.config != manifest.config_path or (
        config_now and not _same_content(config_now, manifest.stamps[files.config])
    ):
        raise _Stale("the bundle config changed")
    current = [*files.memories, *files.projections, *files.entities]
    present = set(current) | ({files.config} if files.config else set())
    removed = [relpath for relpath in manifest.stamps if relpath not in present]
    folder = str(root) + os.sep
    fresh = {relpath: stamp for relpath in current if (stamp := _fresh_stamp(folder, relpath, manifest)) is not None}
    changed = [relpath for relpath, stamp in fresh.items() if not _same_content(stamp, manifest.stamps.get(relpath))]
    stamps = {relpath: stamp for relpath, stamp in manifest.stamps.items() if relpath in present}
    stamps.update(fresh)

    dataset = _restore_dataset(entry, kind, manifest)
    problems = [*files.problems, *(p for p in manifest.problems if p.rule != "discovery")]
    bundle = steps.into(
        root=root,
        base_iri=base,
        dataset=dataset,
        engine=engine,
        config=manifest.config,
        problems=ProblemLog(problems),
        limits=limits,
        records=Records(_records_reader(entry, manifest)),
    )
    if changed or removed:
        steps.reload(bundle, *removed, *changed)
        if any(p.rule in ("duplicate-id", "duplicate-path") for p in bundle.problems):
            raise _Stale("a changed file brought a duplicate id")
        _save(entry, bundle, kind, stamps, files)
    elif fresh or files.problems != [p for p in manifest.problems if p.rule == "discovery"]:
        _save(entry, bundle, kind, stamps, files, manifest)  # the triples and records are as cached
    bundle.cache = CacheReport(entry, "warm", reparsed=tuple(changed), removed=tuple(removed))
    return bundle


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


def _restore_dataset(entry: Path, kind: StoreKind, manifest: _Manifest) -> Dataset:
    if kind == "memory":
        payload = _read_file(entry / "dataset", manifest.dataset_sha256)
        try:
            dataset = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means a bad entry
            raise _Stale(f"the cached dataset cannot be read ({type(exc).__name__})") from None
        if not isinstance(dataset, Dataset):
            raise _Stale("the cached dataset is not a Dataset")
        return dataset
    database = entry / "oxigraph"
    if _tables(database) != manifest.tables:
        raise _Stale("the cached Oxigraph database is damaged (its data files do not match the manifest)")
    try:
        return _session_dataset(entry, database)
    except (OSError, RuntimeError) as exc:  # pyoxigraph reports a damaged database as RuntimeError
        raise _Stale(f"the cached Oxigraph database cannot be opened ({exc})") from None


# -- cold ---------------------------------------------------------------------------
def _cold(
    steps: _Steps,
    entry: Path,
    root: Path,
    base: str,
    engine: ToRdfEngine,
    kind: StoreKind,
    limits: Limits,
    reason: str,
    progress: bool | None,
    workers: int | None,
) -> LoadedBundle:
    (entry / "manifest").unlink(missing_ok=True)  # until the new one is written, the entry is invalid
    files = discover(root)
    relpaths = [*files.memories, *files.projections, *files.entities, *([files.config] if files.config else [])]
    stamps = {relpath: _stamp(root, relpath) for relpath in relpaths}  # before reading: a later edit shows
    if kind == "memory":
        dataset = new_dataset("default")
    else:
        dataset = _session_dataset(entry, None)
    bundle = steps.fill(
        steps.into(root=root, base_iri=base, dataset=dataset, engine=engine, limits=limits), progress, workers
    )
    if kind != "memory":
        # A bulk load leaves dozens of unmerged tables; every later read of the cached database looks
        # through each. Compacting once here (13 s at 100,000 memories) took validation's 55 scans there
        # from 43 to 28 s. Incremental updates add little and leave it to RocksDB's own compaction.
        stores.optimize(dataset)
    _save(entry, bundle, kind, stamps, files)
    bundle.cache = CacheReport(entry, "cold", reason=reason)
    return bundle


def _save(
    entry: Path,
    bundle: LoadedBundle,
    kind: StoreKind,
    stamps: dict[str, Stamp],
    files: BundleFiles,
    unchanged: _Manifest | None = None,
) -> None:
    """Write the entry: the triples and records first (unless ``unchanged`` has them), the manifest last.

    The manifest vouches for the other files by their hashes, so it is removed while they change.
    """
    if unchanged is None:
        (entry / "manifest").unlink(missing_ok=True)
        tables: dict[str, tuple[int, int]] = {}
        if kind == "memory":
            dataset_sha256 = _write_file(entry / "dataset", termpickle.dumps(bundle.dataset))  # exact lexical forms
        else:
            tables = _checkpoint_into(bundle.dataset, entry / "oxigraph")
            dataset_sha256 = ""
        records = (bundle.memories, bundle.entities)
        records_sha256 = _write_file(entry / "records", pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL))
    else:
        dataset_sha256, records_sha256, tables = unchanged.dataset_sha256, unchanged.records_sha256, unchanged.tables
    manifest = _Manifest(
        CACHE_FORMAT,
        code_fingerprint(),
        stamps,
        files.config,
        bundle.config,
        list(bundle.problems),
        dataset_sha256,
        tables,
        records_sha256,
    )
    _write_file(entry / "manifest", pickle.dumps(manifest, protocol=pickle.HIGHEST_PROTOCOL))


def _records_reader(entry: Path, manifest: _Manifest) -> Callable[[], RecordMaps]:
    """Checks the records file now; unpickles it when the records are first asked for."""
    payload = _read_file(entry / "records", manifest.records_sha256)

    def read() -> RecordMaps:
        with no_cyclic_gc():
            return pickle.loads(payload)  # type: ignore[no-any-return]

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
    temporary = path.with_name(f"{PREFIX}{os.getpid()}-{path.name}")  # a killed save leaves it to the next run's sweep
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


# -- Oxigraph sessions ---------------------------------------------------------------
def _session_dataset(entry: Path, source: Path | None) -> Dataset:
    """A Dataset on a private Oxigraph database: a checkpoint of ``source``, or empty.

    The session folder goes when the store object is released (or at exit).
    """
    sessions = entry / "sessions"
    sessions.mkdir(exist_ok=True)
    session = sessions / f"{os.getpid()}-{secrets.token_hex(4)}"
    if source is not None:
        if not source.is_dir():
            raise _Stale("the cached Oxigraph database is missing")
        stores.copy_database(source, session)
    dataset = stores.oxigraph_dataset(session)
    weakref.finalize(dataset.store, shutil.rmtree, str(session), True)
    return dataset


def _checkpoint_into(dataset: Dataset, target: Path) -> dict[str, tuple[int, int]]:
    """Replace the cached database at ``target`` by a checkpoint of the session database; its tables."""
    fresh = target.with_name(f"{PREFIX}{os.getpid()}-{target.name}")
    shutil.rmtree(fresh, ignore_errors=True)
    stores.backup(dataset, fresh)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(fresh, target)
    return _tables(target)


def _tables(database: Path) -> dict[str, tuple[int, int]]:
    """Size and CRC-32 of each data file (``*.sst``, never rewritten once made) of an Oxigraph database.

    RocksDB checks its blocks only when it reads them, which may be long after
    a warm load; CRC-32 reads 100 MB in about 50 ms.
    """
    tables = {}
    for path in sorted(database.glob("*.sst")):
        with open(path, "rb") as handle:
            tables[path.name] = (path.stat().st_size, zlib.crc32(handle.read()))
    return tables


def _prune_sessions(entry: Path) -> None:
    """Remove session folders and half-written files left behind by processes that are gone."""
    sweep(entry)
    sessions = entry / "sessions"
    if not sessions.is_dir():
        return
    for folder in sessions.iterdir():
        pid = folder.name.split("-", 1)[0]
        if pid.isdigit() and not process_exists(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
