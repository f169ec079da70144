"""The load cache's query database: a second query on an unchanged bundle reads nothing again (issue 37.5).

A warm load still restores the whole store (rdflib's memory store: unpickled
triple by triple; Oxigraph: a checkpoint, its tables checked), and the types
graph is computed again.  A query needs none of that when nothing changed: the
Oxigraph entry of the load cache keeps, beside its database, a *query
database* ``view/``: the loaded dataset with what the command added
(``<base>#types``) and the union of its graphs as a set for default graph
(:func:`mif_rdf.load.set_union.union_view`, so counts are those of rdflib's
memory store).  It is written by :func:`keep_query_view` after a load and
opened read-only by :func:`cached_query_view` when

* every bundle file is as the entry recorded (the load cache's own rule,
  :func:`mif_rdf.load.cache._changes`),
* and ``view.key`` holds the key it was written with: the entry's database
  (its tables), the code fingerprint, the files under ``.mif/`` that the load
  cache does not stamp (agreements, namespace files, ontologies), and the
  caller's own key (the ontology folders the types graph was read from).

Anything else (a changed file, a missing or damaged view) means no view: the
caller loads as usual and writes a new one.  The entry's lock is held while
the view is read, so a writer never replaces it under a reader.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rdflib import Dataset

from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import PREFIX
from mif_rdf.load import stores
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.cache import _changes
from mif_rdf.load.cache_entry import _locked, _read_file, _Stale, _write_file, code_fingerprint, entry_dir
from mif_rdf.load.loader import _located
from mif_rdf.load.pipeline import ToRdfEngine


@dataclass(frozen=True)
class QueryView:
    """An open query database: the dataset queries read, the load's problems, the cache entry it lives in."""

    dataset: Dataset
    problems: list[Problem]
    entry: Path


@contextlib.contextmanager
def cached_query_view(
    root: str | Path,
    *,
    base_iri: str | None,
    engine: ToRdfEngine,
    limits: Limits,
    cache_dir: Path,
    key: str,
) -> Iterator[QueryView | None]:
    """The query database of the bundle as it is now, opened read-only, or None when there is none to trust."""
    folder, base = _located(root, base_iri, engine)
    entry = entry_dir(cache_dir, folder, base, engine, "oxigraph", limits)
    if not (entry / "view.key").is_file():  # never written: no lock, nothing to make
        yield None
        return
    with _locked(entry):
        view = _open(entry, folder, limits, key)
        yield view


def _open(entry: Path, root: Path, limits: Limits, key: str) -> QueryView | None:
    try:
        now = _changes(entry, root, limits)
        if not now.none or _read_file(entry / "view.key") != _key(root, now.manifest.tables, key):
            return None
        dataset = stores.read_only_view(entry / "view")
    except (_Stale, OSError, RuntimeError, MifRdfError):  # pyoxigraph reports a damaged database as RuntimeError
        return None
    problems = [*now.files.problems, *(p for p in now.manifest.problems if p.rule != "discovery")]
    return QueryView(dataset, problems, entry)


def keep_query_view(bundle: LoadedBundle, key: str) -> None:
    """Write the query database of ``bundle``, loaded through the Oxigraph cache, and what it was made for."""
    if bundle.cache is None or stores.oxigraph_store(bundle.dataset) is None:
        return
    entry = bundle.cache.entry
    with _locked(entry):
        try:
            now = _changes(entry, bundle.root, bundle.limits)
        except _Stale:
            return
        if not now.none:  # a file changed since this load: the next load writes the view
            return
        (entry / "view.key").unlink(missing_ok=True)
        fresh = entry / f"{PREFIX}{os.getpid()}-view"
        shutil.rmtree(fresh, ignore_errors=True)
        stores.write_union_view(bundle.dataset, fresh)
        shutil.rmtree(entry / "view", ignore_errors=True)
        os.replace(fresh, entry / "view")
        _write_file(entry / "view.key", _key(bundle.root, now.manifest.tables, key))


def _key(root: Path, tables: dict[str, tuple[int, int]], key: str) -> bytes:
    digest = hashlib.sha256(repr((code_fingerprint(), sorted(tables.items()), key)).encode())
    mif = root / ".mif"
    for path in sorted(mif.rglob("*")) if mif.is_dir() else []:
        if path.is_file() and "entities" not in path.relative_to(mif).parts[:1]:  # entities: the cache stamps them
            info = path.stat()
            digest.update(f"{path.relative_to(root)}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\n".encode())
    return digest.hexdigest().encode()
