"""Oxigraph sessions of the load cache: the cached database is never handed out, each load gets a checkpoint of it.

A session is a checkpoint (hard links) of the entry's database in its
``sessions/`` folder, removed when the store is released, so changes made to
the loaded dataset (inferences, pushes) never leak into the cache.
"""

from __future__ import annotations

import os
import secrets
import shutil
import weakref
import zlib
from pathlib import Path

from rdflib import Dataset

from mif_rdf.core.outputs import PREFIX, owner, process_exists, sweep
from mif_rdf.load import stores
from mif_rdf.load.cache_entry import _Stale


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


def _checkpoint_into(
    dataset: Dataset, target: Path, checked: dict[str, tuple[int, int]] | None = None
) -> dict[str, tuple[int, int]]:
    """Replace the cached database at ``target`` by a checkpoint of the session database; its tables.

    ``checked``: the tables of the database the session was made from, checked when it was opened; the
    checkpoint links the same files (a table is never rewritten under its name), so only new ones are read.
    """
    fresh = target.with_name(f"{PREFIX}{owner()}-{target.name}")
    shutil.rmtree(fresh, ignore_errors=True)
    stores.backup(dataset, fresh)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(fresh, target)
    return _tables(target, checked)


def _tables(database: Path, checked: dict[str, tuple[int, int]] | None = None) -> dict[str, tuple[int, int]]:
    """Size and CRC-32 of each data file (``*.sst``, never rewritten once made) of an Oxigraph database.

    RocksDB checks its blocks only when it reads them, which may be long after
    a warm load; a CRC-32 of the data files is cheap next to the load it saves
    (docs/performance.md, warm reloads).  A file named in ``checked`` with the
    same size keeps the CRC-32 recorded there.
    """
    tables = {}
    for path in sorted(database.glob("*.sst")):
        size = path.stat().st_size
        known = (checked or {}).get(path.name)
        if known is not None and known[0] == size:
            tables[path.name] = known
            continue
        with open(path, "rb") as handle:
            tables[path.name] = (size, zlib.crc32(handle.read()))
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
