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
  ``oxigraph/`` (an Oxigraph database);
* ``journal``: what the warm loads since ``dataset`` and ``records`` were
  written changed (:mod:`mif_rdf.load.cache_journal`), replayed on them, so a
  warm load that read a few files again writes those few, not the whole entry.

**What counts as changed.**  A file whose size, mtime, inode and inode change
time (ctime, which no ``touch -r`` puts back) are the recorded ones is
trusted, unless its mtime is so close to when it was recorded that a write in
the same clock tick could hide (git's "racily clean" case); otherwise its
SHA-256 decides, so a touched but unchanged file is not parsed again.  Changed,
new and deleted files are parsed again alone (:func:`mif_rdf.load.incremental.reload`), and the
links graph is rebuilt.

**When the cache is not used.**  Every cache file carries a SHA-256 of its
content; a file that is missing, truncated, corrupt, or written by other code
(another mif-rdf, rdflib or pyoxigraph version, or edited sources) means a cold
load that rewrites the entry.  So does a bundle with duplicate ids, a changed
config or more memories than the limit: who wins there depends on the whole
bundle.  Deleting the cache folder is always safe.

**Oxigraph.**  The cached database is never handed out: each load gets a
checkpoint of it (hard links) in ``sessions/``, removed when the
store is released, so changes made to the loaded dataset (inferences, pushes)
never leak into the cache.

Cache files are pickles: a cache folder must be as trusted as the code that
reads it, which is why it is created readable by its owner only, and an entry
folder or file that another user owns or others may write is refused with an
error, never read.

This module decides warm or cold; the entry's files (stamps, manifest,
checksums, ownership, the lock) are :mod:`mif_rdf.load.cache_entry`'s, the
Oxigraph sessions :mod:`mif_rdf.load.cache_sessions`'.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal as TypingLiteral

from rdflib import Dataset
from rdflib.store import Store

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Problem, ProblemLog
from mif_rdf.core.limits import Limits
from mif_rdf.load import stores, termpickle
from mif_rdf.load.bundle import CacheReport, LoadedBundle, RecordMaps, Records
from mif_rdf.load.cache_entry import (
    CACHE_FORMAT,
    Stamp,
    _fresh_stamp,
    _locked,
    _Manifest,
    _read_file,
    _read_manifest,
    _records_reader,
    _same_content,
    _Stale,
    _stamp,
    _write_file,
    code_fingerprint,
    entry_dir,
)
from mif_rdf.load.cache_journal import JOURNAL_SHARE, Segment, recording, records_delta, replay
from mif_rdf.load.cache_sessions import _checkpoint_into, _prune_sessions, _session_dataset, _tables
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.load.stores import new_dataset
from mif_rdf.source.bundle_files import BundleFiles, discover

StoreKind = TypingLiteral["memory", "oxigraph"]


@dataclass(frozen=True)
class _Steps:
    """What the loader lends the cache: make a bundle, fill an empty one, re-read changed files."""

    into: type[LoadedBundle]
    fill: Callable[[LoadedBundle, bool | None, int | None], LoadedBundle]
    reload: Callable[..., object]


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


# -- warm ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Changes:
    """What changed in the bundle folder since the entry was written (raising :class:`_Stale` when that cannot
    be told file by file)."""

    manifest: _Manifest
    files: BundleFiles
    fresh: dict[str, Stamp]  # the files whose stamp changed, with their stamp now
    changed: list[str]  # ... of which the content changed too
    removed: list[str]
    stamps: dict[str, Stamp]  # every file's stamp now

    @property
    def none(self) -> bool:
        """Whether the entry holds the bundle as it is now (no file to read again)."""
        return not self.changed and not self.removed


def _changes(entry: Path, root: Path, limits: Limits) -> _Changes:
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
        files.config and config_now and not _same_content(config_now, manifest.stamps[files.config])
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
    return _Changes(manifest, files, fresh, changed, removed, stamps)


def _warm(
    steps: _Steps, entry: Path, root: Path, base: str, engine: ToRdfEngine, kind: StoreKind, limits: Limits
) -> LoadedBundle:
    now = _changes(entry, root, limits)
    manifest, files, changed, removed = now.manifest, now.files, now.changed, now.removed
    journal = _read_journal(entry, manifest)
    dataset = _restore_dataset(entry, kind, manifest, journal)
    problems = [*files.problems, *(p for p in manifest.problems if not _discovered(p, manifest))]
    bundle = steps.into(
        root=root,
        base_iri=base,
        dataset=dataset,
        engine=engine,
        config=manifest.config,
        problems=ProblemLog(problems),
        limits=limits,
        records=Records(_replayed_records(entry, manifest, journal)),
    )
    if changed or removed:
        segment = _reload(steps, bundle, kind, [*removed, *changed])
        if any(p.rule in ("duplicate-id", "duplicate-path") for p in bundle.problems):
            raise _Stale("a changed file brought a duplicate id")
        _save(entry, bundle, kind, now.stamps, files, base=manifest, journal=[*journal, segment] if segment else [])
    elif now.fresh or files.problems != [p for p in manifest.problems if _discovered(p, manifest)]:
        _save(entry, bundle, kind, now.stamps, files, unchanged=manifest)  # the triples and records are as cached
    bundle.cache = CacheReport(entry, "warm", reparsed=tuple(changed), removed=tuple(removed))
    return bundle


def _discovered(problem: Problem, manifest: _Manifest) -> bool:
    """Whether a recorded problem is one discovery gives (it gives them afresh): a "discovery" one, or a file
    or folder name that is not UTF-8 (rule "encoding" on a path never read; a file read keeps its own)."""
    return problem.rule == "discovery" or (problem.rule == "encoding" and problem.path not in manifest.stamps)


def _reload(steps: _Steps, bundle: LoadedBundle, kind: StoreKind, relpaths: list[str]) -> Segment | None:
    """Read ``relpaths`` again into ``bundle``; what changed as a journal segment (None when it cannot be one)."""
    memories, entities = dict(bundle.memories), dict(bundle.entities)
    if kind == "memory":
        with recording(bundle.dataset.store) as recorder:
            steps.reload(bundle, *relpaths)
        if not recorder.portable:
            return None
        writes: list[tuple[object, ...]] | None = recorder.writes
    else:  # the database is checkpointed whole (cheap): only the records are journaled
        steps.reload(bundle, *relpaths)
        writes = None
    return Segment(writes, records_delta(memories, bundle.memories), records_delta(entities, bundle.entities))


def _read_journal(entry: Path, manifest: _Manifest) -> list[Segment]:
    """The journal's segments, oldest first (none when the entry has no journal)."""
    if not manifest.journal_sha256:
        return []
    payload = _read_file(entry / "journal", manifest.journal_sha256)
    try:
        journal = pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means a bad entry
        raise _Stale(f"the cache journal cannot be read ({type(exc).__name__})") from None
    if not isinstance(journal, list) or not all(isinstance(segment, Segment) for segment in journal):
        raise _Stale("the cache journal is not a journal")
    return journal


def _replayed_records(entry: Path, manifest: _Manifest, journal: list[Segment]) -> Callable[[], RecordMaps]:
    """Reads the records when first asked for, with the journal's changes made to them."""
    read = _records_reader(entry, manifest)

    def replayed() -> RecordMaps:
        memories, entities = read()
        for segment in journal:
            memories, entities = segment.memories.apply(memories), segment.entities.apply(entities)
        return memories, entities

    return replayed


def _restore_dataset(entry: Path, kind: StoreKind, manifest: _Manifest, journal: list[Segment]) -> Dataset:
    if kind == "memory":
        payload = _read_file(entry / "dataset", manifest.dataset_sha256)
        try:
            dataset = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means a bad entry
            raise _Stale(f"the cached dataset cannot be read ({type(exc).__name__})") from None
        if not isinstance(dataset, Dataset):
            raise _Stale("the cached dataset is not a Dataset")
        for segment in journal:
            replay(dataset.store, segment.writes or [])
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
        # through each. Compacting once here pays for itself on the first validation (figures in
        # docs/performance.md). Incremental updates add little and leave it to RocksDB's own compaction.
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
    *,
    unchanged: _Manifest | None = None,
    base: _Manifest | None = None,
    journal: list[Segment] | None = None,
) -> None:
    """Write the entry: the triples and records first, the manifest last.

    ``unchanged`` has the triples, records and journal as they are.  Else,
    after a warm load, ``journal`` (the one read with the ``base`` manifest,
    plus this load's segment) is written instead of the base's pickles while
    it stays under :data:`JOURNAL_SHARE` of them; otherwise the base is
    written whole and the journal emptied.  The manifest vouches for the
    other files by their hashes, so it is removed while they change.
    """
    tables: dict[str, tuple[int, int]] = {}
    if unchanged is not None:
        dataset_sha256, records_sha256 = unchanged.dataset_sha256, unchanged.records_sha256
        tables, journal_sha256 = unchanged.tables, unchanged.journal_sha256
    else:
        (entry / "manifest").unlink(missing_ok=True)
        if kind != "memory":  # the tables ``base`` names were checked when this load opened them
            tables = _checkpoint_into(bundle.dataset, entry / "oxigraph", base.tables if base else None)
        payload = termpickle.dumps(journal) if journal and base is not None else b""
        if base is not None and payload and len(payload) <= JOURNAL_SHARE * _base_size(entry, kind):
            dataset_sha256, records_sha256 = base.dataset_sha256, base.records_sha256
            journal_sha256 = _write_file(entry / "journal", payload)
        else:
            (entry / "journal").unlink(missing_ok=True)
            journal_sha256 = ""
            dataset_sha256 = ""
            if kind == "memory":
                dataset_sha256 = _write_file(entry / "dataset", termpickle.dumps(bundle.dataset))  # exact lexical forms
            records = (bundle.memories, bundle.entities)
            records_sha256 = _write_file(entry / "records", pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL))
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
        journal_sha256,
    )
    _write_file(entry / "manifest", pickle.dumps(manifest, protocol=pickle.HIGHEST_PROTOCOL))


def _base_size(entry: Path, kind: StoreKind) -> int:
    """The bytes of the base's pickles (the triples on the memory store, and the records)."""
    names = ("dataset", "records") if kind == "memory" else ("records",)
    try:
        return sum((entry / name).stat().st_size for name in names)
    except OSError:
        return 0
