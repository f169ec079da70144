"""Loading a bundle: files -> projection -> triples -> a :class:`~mif_rdf.load.bundle.LoadedBundle`.

:func:`load` reads a folder (through the cache when asked); :func:`open_bundle`
and :func:`fill` are its two halves, which the streamed export and ``serve``
use on their own.  The per-file steps are :mod:`mif_rdf.load.stages`'; the
incremental functions that keep a loaded bundle equal to a fresh load after
some files changed are :mod:`mif_rdf.load.incremental`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from rdflib.store import Store

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.progress import progress_bar
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.cache import default_cache_dir, load_cached
from mif_rdf.load.incremental import refresh_namespace_graphs, reload
from mif_rdf.load.pipeline import (
    CpuReading,
    PreparedMemory,
    ToRdfEngine,
    cpu_reading,
    prepare_memories,
    prepare_memory,
    while_sampling,
    worker_count,
)
from mif_rdf.load.stages import PackedMemory, _Loader, check_projections
from mif_rdf.load.stores import new_dataset
from mif_rdf.source.bundle_files import BundleFiles, discover
from mif_rdf.source.identity import BUNDLE_ID_KEY, bundle_id_problem, normalize_base_iri
from mif_rdf.source.parse import bundle_base_iri, parse_config

B = TypeVar("B", bound=LoadedBundle)


def load(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    store: str | Store = "memory",
    progress: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
    cache: bool | str | Path | None = None,
    workers: int | None = None,
    into: type[LoadedBundle] = LoadedBundle,
) -> LoadedBundle:
    """Load a MIF bundle folder into an rdflib Dataset, as an ``into``
    (:func:`mif_rdf.load_bundle` documents the arguments).

    ``into`` is the class of the result: :class:`~mif_rdf.Bundle` for the
    public API, the plain :class:`LoadedBundle` inside the pipeline.  The cache
    (:mod:`mif_rdf.load.cache`) is handed the steps it needs (make an empty
    bundle, fill it, reload changed files) and never imports this module.
    """
    if cache is not None and cache is not False:
        folder = default_cache_dir() if cache is True else Path(cache)
        root, base = _located(root, base_iri, engine)
        bundle = load_cached(
            root,
            base,
            engine=engine,
            store=store,
            limits=limits,
            cache_dir=folder,
            progress=progress,
            workers=workers,
            into=into,
            fill=fill,
            reload=reload,
        )
        refresh_namespace_graphs(bundle)  # the cache does not watch .mif/shared-agreements and .mif/namespaces
        return bundle
    before = cpu_reading() if workers is None else None  # how busy the machine is, sampled while the store is made
    return fill(
        open_bundle(root, base_iri=base_iri, engine=engine, store=store, limits=limits, into=into),
        progress,
        workers,
        since=before,
    )


def open_bundle(
    root: str | Path,
    *,
    base_iri: str | None = None,
    engine: ToRdfEngine = "fast",
    store: str | Store = "memory",
    limits: Limits = DEFAULT_LIMITS,
    into: type[LoadedBundle] = LoadedBundle,
) -> LoadedBundle:
    """An empty bundle for the folder ``root``, its arguments checked: what :func:`fill` reads the files into.

    The streaming export (:mod:`mif_rdf.output.stream_export`) starts from it too, so
    both read the same folder under the same base IRI and report the same
    problems for the same arguments.
    """
    root, base = _located(root, base_iri, engine)
    return into(root=root, base_iri=base, dataset=new_dataset(store), engine=engine, limits=limits)


def _located(root: str | Path, base_iri: str | None, engine: str) -> tuple[Path, str]:
    """The bundle folder (checked, absolute) and its base IRI."""
    root = Path(root)
    if root.is_file():
        raise MifRdfError(f"{str(root)!r} is a file; give the bundle folder")
    if not root.is_dir():
        raise MifRdfError(f"bundle folder {str(root)!r} does not exist")
    if engine not in ("fast", "pyld"):
        raise MifRdfError(f"unknown engine {engine!r}: use 'fast' or 'pyld'")
    root = root.resolve()
    return root, normalize_base_iri(base_iri) if base_iri else bundle_base_iri(root)


def fill(bundle: B, progress: bool | None = None, workers: int | None = None, *, since: CpuReading | None = None) -> B:
    """Read every file of ``bundle.root`` into the (empty) bundle and return it.

    ``since``: a :func:`~mif_rdf.load.pipeline.cpu_reading` taken before the bundle was opened, so the sample
    of how busy the machine is (which decides the default workers) overlaps that work instead of waiting.
    """
    with no_cyclic_gc():
        _fill(bundle, progress, workers, since)
    return bundle


def _prepared(
    loader: _Loader, memories: list[str], workers: int | None, since: CpuReading | None
) -> Iterator[PreparedMemory | PackedMemory]:
    """Every memory file prepared, in order: the first ones here while the default workers are counted
    (:func:`~mif_rdf.load.pipeline.while_sampling`), the rest by :func:`~mif_rdf.load.pipeline.prepare_memories`."""
    bundle, shape = loader.bundle, loader.shape()
    done = 0
    for relpath in while_sampling(memories, since if workers is None else None):
        yield shape(prepare_memory(bundle.root, relpath, bundle.base_iri, bundle.limits, bundle.engine, loader.output))
        done += 1
    loader.flush()  # no thread is left parsing for the store when the workers are forked
    count = worker_count(len(memories), workers, busy_main=loader.sink is None, since=since)
    yield from prepare_memories(
        bundle.root, memories[done:], bundle.base_iri, bundle.limits, bundle.engine, count, loader.output, shape
    )


def memory_files(bundle: LoadedBundle) -> BundleFiles:
    """Discover the bundle's files and read its config: the memory files to load, in path order, within the limit.

    Discovery's, the config's and the limit's problems go to ``bundle.problems``.
    """
    root = bundle.root
    files: BundleFiles = discover(root)
    bundle.problems.extend(files.problems)
    if files.config:
        bundle.config, problems = parse_config(root, files.config, bundle.limits)
        bundle.problems.extend(problems)
        why = bundle_id_problem(bundle.config[BUNDLE_ID_KEY]) if BUNDLE_ID_KEY in bundle.config else None
        if why is not None:
            bundle.problems.add(
                files.config,
                why,
                Severity.WARNING,
                key=BUNDLE_ID_KEY,
                value=bundle.config[BUNDLE_ID_KEY],
                rule="config",
            )
    memories = files.memories
    if not memories:
        bundle.problems.add(
            ".",
            "no memory files found: a memory is a .md file with YAML frontmatter, or its .jsonld form (index and log "
            "are reserved names)",
            Severity.WARNING,
            rule="empty",
        )
    if len(memories) > bundle.limits.max_memories:
        bundle.problems.add(
            ".",
            f"{len(memories):,} memory files, over the limit of {bundle.limits.max_memories:,} (--max-memories); "
            f"files after {memories[bundle.limits.max_memories - 1]} (in path order) are not loaded",
            rule="limit",
        )
        files.memories = memories[: bundle.limits.max_memories]
    return files


def _fill(bundle: LoadedBundle, progress: bool | None, workers: int | None, since: CpuReading | None) -> None:
    before = since or (cpu_reading() if workers is None else None)  # sampled while the files are found, at least
    files = memory_files(bundle)
    memories = files.memories
    loader = _Loader(bundle, fresh=True)
    for memory in progress_bar(_prepared(loader, memories, workers, before), len(memories), progress, "memories"):
        loader.arrive(memory)
    check_projections(bundle, files.projections)
    for relpath in files.entities:
        loader.entity(relpath)
    loader.links()
    loader.flush()
    refresh_namespace_graphs(bundle)
