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

**As of a date** (``query --as-of``): the caller restricts the loaded bundle
to the memories valid then and writes it as a query database of its own,
``view-asof-<digest>/``, one per moment (the moment is part of the key; the
:data:`AS_OF_VIEWS` used last are kept), with what the restriction left out
(``.meta``: the memories valid, the paths taken out), so a query as of a date
asked before costs what a plain one costs (issue 38, item 5).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rdflib import Dataset

from mif_rdf.core.errors import MifRdfError, Problem
from mif_rdf.core.limits import Limits
from mif_rdf.core.outputs import PREFIX, owner
from mif_rdf.load import stores
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.cache import _changes
from mif_rdf.load.cache_entry import _locked, _read_file, _Stale, _write_file, code_fingerprint, entry_dir
from mif_rdf.load.loader import _located
from mif_rdf.load.pipeline import ToRdfEngine

#: Query databases kept per cache entry for ``--as-of`` moments (each a checkpoint plus its default graph).
AS_OF_VIEWS = 4


@dataclass(frozen=True)
class QueryView:
    """An open query database: the dataset queries read, the load's problems, the cache entry it lives in;
    as of a moment, how many memories were valid and the paths of those left out."""

    dataset: Dataset
    problems: list[Problem]
    entry: Path
    valid: int = 0
    left_out: tuple[str, ...] = ()


@contextlib.contextmanager
def cached_query_view(
    root: str | Path,
    *,
    base_iri: str | None,
    engine: ToRdfEngine,
    limits: Limits,
    cache_dir: Path,
    key: str,
    as_of: str | None = None,
) -> Iterator[QueryView | None]:
    """The query database of the bundle as it is now (as of the moment ``as_of``, a normalized date, when
    given), opened read-only, or None when there is none to trust."""
    folder, base = _located(root, base_iri, engine)
    entry = entry_dir(cache_dir, folder, base, engine, "oxigraph", limits)
    name = _view_name(as_of)
    if not (entry / f"{name}.key").is_file():  # never written: no lock, nothing to make
        yield None
        return
    with _locked(entry):
        view = _open(entry, folder, limits, key, name, as_of)
        yield view


def _view_name(as_of: str | None) -> str:
    """The folder of a query database: ``view``, or one per ``--as-of`` moment."""
    return "view" if as_of is None else f"view-asof-{hashlib.sha256(as_of.encode()).hexdigest()[:16]}"


def _open(entry: Path, root: Path, limits: Limits, key: str, name: str, as_of: str | None) -> QueryView | None:
    try:
        now = _changes(entry, root, limits)
        if not now.none or _read_file(entry / f"{name}.key") != _key(root, now.manifest.tables, key, as_of):
            return None
        valid = 0
        left_out: tuple[str, ...] = ()
        if as_of is not None:
            meta = json.loads(_read_file(entry / f"{name}.meta"))
            valid, left_out = int(meta["valid"]), tuple(str(path) for path in meta["left_out"])
            os.utime(entry / f"{name}.key")  # the as-of views used last are the ones kept
        dataset = stores.read_only_view(entry / name)
    except (_Stale, OSError, RuntimeError, MifRdfError, ValueError, KeyError, TypeError):  # pyoxigraph: RuntimeError
        return None
    gone = set(left_out)
    problems = [*now.files.problems, *(p for p in now.manifest.problems if p.rule != "discovery")]
    return QueryView(dataset, [p for p in problems if p.path not in gone], entry, valid, left_out)


def keep_query_view(bundle: LoadedBundle, key: str, as_of: str | None = None, left_out: Sequence[str] = ()) -> None:
    """Write the query database of ``bundle``, loaded through the Oxigraph cache, and what it was made for.

    With ``as_of`` (the moment, normalized), ``bundle`` is the bundle restricted to it and ``left_out``
    the paths the restriction took out.
    """
    if bundle.cache is None or stores.oxigraph_store(bundle.dataset) is None:
        return
    entry = bundle.cache.entry
    name = _view_name(as_of)
    with _locked(entry):
        try:
            now = _changes(entry, bundle.root, bundle.limits)
        except _Stale:
            return
        if not now.none:  # a file changed since this load: the next load writes the view
            return
        (entry / f"{name}.key").unlink(missing_ok=True)
        if as_of is not None:
            _keep_fewer_as_of_views(entry)
        fresh = entry / f"{PREFIX}{owner()}-{name}"
        shutil.rmtree(fresh, ignore_errors=True)
        stores.write_union_view(bundle.dataset, fresh)
        shutil.rmtree(entry / name, ignore_errors=True)
        os.replace(fresh, entry / name)
        if as_of is not None:
            meta = {"valid": len(bundle.memories), "left_out": list(left_out)}
            _write_file(entry / f"{name}.meta", json.dumps(meta).encode("utf-8", "surrogateescape"))
        _write_file(entry / f"{name}.key", _key(bundle.root, now.manifest.tables, key, as_of))


def _keep_fewer_as_of_views(entry: Path) -> None:
    """Make room for one more as-of query database: the ones used longest ago go."""
    keys = sorted(entry.glob("view-asof-*.key"), key=lambda path: path.stat().st_mtime, reverse=True)
    for stale in keys[AS_OF_VIEWS - 1 :]:
        stale.unlink(missing_ok=True)
        shutil.rmtree(stale.with_suffix(""), ignore_errors=True)
        stale.with_suffix(".meta").unlink(missing_ok=True)


def _key(root: Path, tables: dict[str, tuple[int, int]], key: str, as_of: str | None = None) -> bytes:
    digest = hashlib.sha256(repr((code_fingerprint(), sorted(tables.items()), key, as_of)).encode())
    mif = root / ".mif"
    for path in sorted(mif.rglob("*")) if mif.is_dir() else []:
        if path.is_file() and "entities" not in path.relative_to(mif).parts[:1]:  # entities: the cache stamps them
            info = path.stat()
            digest.update(f"{path.relative_to(root)}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\n".encode())
    return digest.hexdigest().encode()
