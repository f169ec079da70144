"""The benchmark suite: one table of our time against a baseline, measured in the same run.

``make bench`` runs it on 10,000 generated memories (every field family, 5 %
of them with a seeded SHACL violation); ``make bench-scale`` runs the
100,000-memory cases, then validation at 10,000 and 30,000 memories
(``--growth``) for one table of its growth.  Every measurement runs in a fresh Python process, so
the peak memory printed is that measurement's own and no case warms another
(only the operating system's file cache is shared, equally by all).  The
machine is small and noisy: the ratios are the result, seconds are for the
record.  Usage::

    python benchmarks/suite.py [--count N] [--data DIR] [--scale [--growth 10000,30000]]
    python benchmarks/suite.py --measure CASE --data DIR    # one measurement, prints JSON

Rows (target in brackets, from the performance issue):

* cold load, memory store      / store floor: rdflib adding the same prebuilt quads   [<= 1.3x]
* cold load, Oxigraph store    vs the pyld path (pyld toRdf per memory)              [>= 20x]
* floor of the Oxigraph load   reading + YAML + Oxigraph's load (the faster of bulk_load and Store.load),
  halved (2 cores), vs the pyld path
* cold load, Oxigraph store, one process, vs its floor in one process (reading + YAML + Oxigraph's load, not halved);
  CPU seconds recorded beside the wall                                          [<= 1.5x, issue 34]
* cold load, memory store      vs the pyld path                                      [>= 2.5x]
* warm reload (cache), both stores, and one changed file, vs the cold load           [>= 3x; Oxigraph <= 0.5 s]
* SHACL level 3 + OKF          vs one pyshacl run (the results must be identical), memory store and Oxigraph
                               store                                                 [>= 15x, issue 34]
* ``validate --level 3``, the command a second time (load cache primed), memory store vs Oxigraph store,
                               same report                                           [<= 1.3x, issue 34]
* user shapes (benchmarks/user_shapes.ttl, 20 of SHACL Core) through mif_rdf.validation.shacl, fast engine vs
                               pySHACL on the same data and shapes (identical results)   [>= 15x]
* validation, Oxigraph store   vs the package before issue 19 (it copied the store into rdflib), run from
                               a ``git archive`` of that commit in the same run; the findings must equal
                               the memory store's; from the cache's on-disk database and from the in-memory
                               store the command makes (the load not timed)            [>= 3x; <= 60 s at 100k]
* validation with the ontology rules the memories' ``ontology`` fields bring (issue 28), memory store,
                               vs the same validation without them                  [<= 1.3x]
* reasoning, fast profile      vs owlrl's OWL 2 RL closure on the links graph
* query helpers (all, one run) on Oxigraph vs rdflib's engine
* query helpers as Arrow tables vs Oxigraph's own evaluation of the queries they send, results
  serialized (and a table of each helper)                                          [each <= 1.5x at 100k]
* export N-Quads, Oxigraph store vs the package before issue 19 (it read the store through oxrdflib,
                               quad by quad), and vs the cold load              [>= 10x; <= 1.5x the load]
* export Turtle, Oxigraph store vs the cold load
* export N-Quads, streamed (``export --stream``) vs the memory store's load and export; with ``--scale``
  also at 10,000 and 300,000 memories (``--stream-sizes``): the peak of the whole process tree (main process and
  workers summed, sampled), CPU seconds, throughput, a million extrapolated       [< 4 min; tree < 1 GiB]
* export N-Quads from the Oxigraph store, the whole ``mif-rdf export --store oxigraph`` process (start-up, cold
  load, export), vs the pyld path as a whole process                             [>= 5x, issue 34]
* export N-Quads on Dask (``export --dask``, a LocalCluster of 1 and of 2 workers) vs the streamed export, with
  ``--scale``; the quads of both and the largest worker's peak memory printed below the table     [>= 0.8x, 2 workers]
* a second ``mif-rdf query`` with default options (the load cache on) vs the first, same run   [< 3 s at 30,000]
* update a tenth of the memories: ``mif-rdf update``'s work (cold load, SPARQL Update adding a tag to about 1,000
                               of 10,000 memories, validation of the changed files, atomic writes) vs the cold load
                                                                                  [<= 2x the cold load]
* start-up: ``mif-rdf --help`` and ``--version`` (medians of 15) against ``import rdflib``   [< 0.3 s]
* suggest (discovery patterns of the ontologies the memories name) vs reading + parsing the files
                               (the generated bundle carries the ai-memory ontology, synthetic.DISCOVERY_ONTOLOGY)
                                                                                  [>= 2,000 memories a second]
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the bundle generator, tests/synthetic.py

HERE = Path(__file__).resolve().parent
MEASURES: dict[str, Callable[[Path], dict[str, Any]]] = {}


def measure(name: str) -> Callable[[Callable[[Path], dict[str, Any]]], Callable[[Path], dict[str, Any]]]:
    def register(function: Callable[[Path], dict[str, Any]]) -> Callable[[Path], dict[str, Any]]:
        MEASURES[name] = function
        return function

    return register


def timed(run: Callable[[], Any]) -> tuple[Any, float]:
    gc.collect()
    start = time.perf_counter()
    value = run()
    return value, time.perf_counter() - start


def bundle_of(data: Path) -> Path:
    return data / "bundle"


def cache_of(data: Path, store: str) -> Path:
    return data / f"cache-{store.lower()}"


def loaded(data: Path, store: str = "default") -> Any:
    """The bundle for measurements that start from a loaded one (through the cache when it is primed)."""
    from mif_rdf import load_bundle

    cache = cache_of(data, store)
    return load_bundle(bundle_of(data), store=store, progress=False, cache=cache if cache.is_dir() else None)


# -- loads ----------------------------------------------------------------------------
def _load(data: Path, **options: Any) -> dict[str, Any]:
    from mif_rdf import load_bundle

    cpu = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    bundle, seconds = timed(lambda: load_bundle(bundle_of(data), progress=False, **options))
    cpu = time.process_time() - cpu  # this process only (with workers=0, the whole load)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the load's workers, joined when it returns
    workers_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "workers_cpu_seconds": workers_cpu,
        "triples": len(bundle.dataset),
        "memories": len(bundle.memories),
    }


@measure("load-memory")
def load_memory(data: Path) -> dict[str, Any]:
    return _load(data)


@measure("load-memory-1-process")
def load_memory_one_process(data: Path) -> dict[str, Any]:
    return _load(data, workers=0)


@measure("load-oxigraph")
def load_oxigraph(data: Path) -> dict[str, Any]:
    return _load(data, store="Oxigraph")


@measure("load-oxigraph-2-workers")
def load_oxigraph_two_workers(data: Path) -> dict[str, Any]:
    """The Oxigraph load with 2 workers whatever the machine's load (the default picks them from the idle cores):
    what an idle 2-core machine runs; ``cpu_seconds`` + ``workers_cpu_seconds`` is the whole load's CPU.

    ``tail_cpu_seconds``: the main process's CPU after the last memory (the links graph on), which runs alone.
    On a loaded machine the wall time says little; ``idle_estimate_seconds`` is what two idle cores would take:
    the three processes share them until the last memory (each process's CPU no faster than alone), then the
    tail runs on one (it matched the idle wall times of the code before, 4.22-4.43 s at 10,000)."""
    from mif_rdf.load import loader, stages

    links, fill, marks = stages._Loader.links, loader.fill, {}

    def marked_links(self: Any) -> None:
        marks["tail"] = time.process_time()
        links(self)

    def marked_fill(*args: Any, **kwargs: Any) -> Any:
        filled = fill(*args, **kwargs)
        marks["end"] = time.process_time()
        return filled

    stages._Loader.links, loader.fill = marked_links, marked_fill  # type: ignore[method-assign]
    found = _load(data, store="Oxigraph", workers=2)
    tail = marks["end"] - marks["tail"]
    before = found["cpu_seconds"] - tail
    return {
        **found,
        "tail_cpu_seconds": tail,
        "idle_estimate_seconds": max(before, (before + found["workers_cpu_seconds"]) / 2) + tail,
    }


@measure("load-oxigraph-1-process")
def load_oxigraph_one_process(data: Path) -> dict[str, Any]:
    """The Oxigraph load in one process: its CPU seconds are the work, whatever else the machine runs."""
    return _load(data, store="Oxigraph", workers=0)


@measure("load-pyld")
def load_pyld(data: Path) -> dict[str, Any]:
    return _load(data, engine="pyld", workers=0)  # the reference path, as it runs in one process


@measure("store-floor")
def store_floor(data: Path) -> dict[str, Any]:
    """rdflib's memory store adding the quads of the bundle, already built (the collector paused, as in a load)."""
    from mif_rdf import new_dataset

    quads = list(loaded(data).dataset.quads((None, None, None, None)))

    def add() -> Any:
        dataset, graphs = new_dataset(), {}
        gc.disable()
        try:
            dataset.addN(
                (s, p, o, graphs[g] if g in graphs else graphs.setdefault(g, dataset.graph(g))) for s, p, o, g in quads
            )
        finally:
            gc.enable()
        return dataset

    dataset, seconds = timed(add)
    return {"seconds": seconds, "triples": len(dataset)}


@measure("oxigraph-floor-1-process")
def oxigraph_floor_one_process(data: Path) -> dict[str, Any]:
    """:func:`oxigraph_floor` in one process, not halved: the floor of ``load-oxigraph-1-process``."""
    found = oxigraph_floor(data)
    return {**found, "seconds": found["reading"] + found["loading"]}


@measure("oxigraph-floor")
def oxigraph_floor(data: Path) -> dict[str, Any]:
    """What an Oxigraph cold load cannot go below: reading and YAML, plus Oxigraph's own load, shared by two cores.

    Both are floors for this package (the fastest YAML parser that passed
    the equivalence tests, and Oxigraph's Rust parser and indexes); the
    projection and walker, which this leaves out, are the rest of a load.
    """
    import pyoxigraph as ox

    from mif_rdf.core.limits import DEFAULT_LIMITS
    from mif_rdf.load.pipeline import prepare_memory
    from mif_rdf.source.bundle_files import discover
    from mif_rdf.source.parse import parse_memory

    root = bundle_of(data)
    files = discover(root).memories
    cpu = time.process_time()
    _, reading = timed(lambda: [parse_memory(root, relpath, DEFAULT_LIMITS) for relpath in files])
    reading_cpu = time.process_time() - cpu
    text = "".join(
        prepare_memory(root, relpath, "mif://local/bench/", DEFAULT_LIMITS, "fast", "nquads").nquads
        for relpath in files
    )
    payload = text.encode()
    store = ox.Store()
    cpu = time.process_time()
    _, bulk = timed(lambda: store.bulk_load(payload, format=ox.RdfFormat.N_QUADS))
    bulk_cpu = time.process_time() - cpu
    # An in-memory store takes text faster through Store.load, which the load uses there
    # (load.stores.made_in_memory): the floor is the faster of Oxigraph's two ways.
    other = ox.Store()
    cpu = time.process_time()
    _, plain = timed(lambda: other.load(payload, format=ox.RdfFormat.N_QUADS))
    plain_cpu = time.process_time() - cpu
    loading, loading_cpu = min((bulk, bulk_cpu), (plain, plain_cpu))
    return {
        "seconds": (reading + loading) / 2,
        "reading": reading,
        "loading": loading,
        "bulk_load": bulk,
        "store_load": plain,
        "cpu_seconds": reading_cpu + loading_cpu,  # one process: the floor of a one-process load's CPU
        "reading_cpu": reading_cpu,
        "bulk_load_cpu": bulk_cpu,
        "store_load_cpu": plain_cpu,
        "triples": len(store),
    }


def _cached(data: Path, store: str) -> dict[str, Any]:
    from mif_rdf import load_bundle

    bundle, seconds = timed(
        lambda: load_bundle(bundle_of(data), store=store, progress=False, cache=cache_of(data, store))
    )
    return {
        "seconds": seconds,
        "state": bundle.cache.state,
        "reparsed": len(bundle.cache.reparsed),
        "triples": len(bundle.dataset),
    }


for _store in ("default", "Oxigraph"):
    for _case in ("prime", "warm", "one-changed"):

        def _run(data: Path, store: str = _store, case: str = _case) -> dict[str, Any]:
            if case == "one-changed":
                path = sorted(bundle_of(data).rglob("*.md"))[len(list(bundle_of(data).rglob("*.md"))) // 2]
                path.write_text(path.read_text(encoding="utf-8") + f"\nEdited at {time.time()}.\n", encoding="utf-8")
            return _cached(data, store)

        measure(f"cache-{_case}-{_store.lower()}")(_run)


# -- validation, reasoning, queries ---------------------------------------------------------
def _digest(found: list[str]) -> dict[str, Any]:
    """How many findings, and a digest of them: equal digests, equal results."""
    return {"results": len(found), "digest": hashlib.sha256("\n".join(found).encode()).hexdigest()}


def _validation(data: Path, engine: str, store: str = "default") -> dict[str, Any]:
    from mif_rdf.validation.run import shacl_report
    from mif_rdf.validation.shapes import shapes_graph

    bundle, shapes = loaded(data, store), shapes_graph(3)
    report, seconds = timed(lambda: shacl_report(bundle.dataset, shapes, engine))  # type: ignore[arg-type]
    return {"seconds": seconds, **_report_digest(report)}


def _report_digest(report: Any, shape_nodes: frozenset[Any] = frozenset()) -> dict[str, Any]:
    """:func:`_digest` of a SHACL report's results; ``shape_nodes`` (blank nodes of the shapes, labelled anew
    by each process's parse) compare as one."""
    from rdflib import BNode
    from rdflib.namespace import SH

    keys = (SH.focusNode, SH.resultPath, SH.value, SH.sourceShape, SH.sourceConstraintComponent)
    rows = [
        tuple("_:shape" if v in shape_nodes else v for v in (report.value(r, k) for k in keys))
        for r in report.subjects(SH.resultSeverity, None)
    ]
    # each store labels the data's blank nodes its own way: "any_blank" compares reports across stores
    any_blank = sorted(repr(tuple("_:" if isinstance(v, BNode) else v for v in row)) for row in rows)
    return {**_digest(sorted(map(repr, rows))), "any_blank": _digest(any_blank)["digest"]}


@measure("validate-engine")
def validate_engine(data: Path) -> dict[str, Any]:
    return _validation(data, "fast")


@measure("validate-pyshacl")
def validate_pyshacl(data: Path) -> dict[str, Any]:
    return _validation(data, "pyshacl")


@measure("validate-engine-oxigraph")
def validate_engine_oxigraph(data: Path) -> dict[str, Any]:
    """:func:`validate_engine` on the Oxigraph store (issue 34: both stores at least 15x pySHACL)."""
    return _validation(data, "fast", "Oxigraph")


def _validate_command(data: Path, store: str) -> dict[str, Any]:
    """``mif-rdf validate --level 3`` as a user runs it a second time: the load cache primed, findings placed
    on their lines, the JSON report written (issue 34: the memory store within 1.3x of the Oxigraph store)."""
    command = [
        str(Path(sys.executable).parent / "mif-rdf"),
        "validate",
        str(bundle_of(data)),
        "--level",
        "3",
        "--store",
        store,
        "--format",
        "json",
        "--no-progress",
        "--cache-dir",
        str(data / f"cache-validate-{store}"),
    ]
    subprocess.run(command, capture_output=True, check=False)  # primes the cache
    done, seconds = timed(lambda: subprocess.run(command, capture_output=True, text=True, check=False))
    if done.returncode not in (0, 1):
        raise SystemExit(f"mif-rdf validate failed: {done.stderr[-2000:]}")
    found = json.loads(done.stdout)
    return {"seconds": seconds, **_digest(sorted(json.dumps(r, sort_keys=True) for r in found["results"]))}


@measure("validate-command-memory")
def validate_command_memory(data: Path) -> dict[str, Any]:
    return _validate_command(data, "memory")


@measure("validate-command-oxigraph")
def validate_command_oxigraph(data: Path) -> dict[str, Any]:
    return _validate_command(data, "oxigraph")


def _user_shapes(data: Path, engine: str) -> dict[str, Any]:
    """The 20 user shapes of benchmarks/user_shapes.ttl through the drop-in validator, by one engine."""
    from rdflib import BNode, Graph

    from mif_rdf.validation.shacl import run

    bundle, shapes = loaded(data), Graph().parse(HERE / "user_shapes.ttl", format="turtle")
    result, seconds = timed(lambda: run(bundle.dataset, shapes, engine=engine))  # type: ignore[arg-type]
    if result.engine != engine:
        raise SystemExit(f"the {engine} engine did not run the user shapes ({result.engine} did)")
    return {
        "seconds": seconds,
        **_report_digest(result.graph, frozenset(s for s in shapes.subjects() if isinstance(s, BNode))),
    }


@measure("user-shapes-engine")
def user_shapes_engine(data: Path) -> dict[str, Any]:
    return _user_shapes(data, "fast")


@measure("user-shapes-pyshacl")
def user_shapes_pyshacl(data: Path) -> dict[str, Any]:
    return _user_shapes(data, "pyshacl")


@measure("reason-fast")
def reason_fast(data: Path) -> dict[str, Any]:
    from mif_rdf.reasoning import infer

    bundle = loaded(data)
    count, seconds = timed(lambda: infer(bundle, "fast"))
    return {"seconds": seconds, "inferred": count}


@measure("reason-owlrl")
def reason_owlrl(data: Path) -> dict[str, Any]:
    from mif_rdf.reasoning import ontology_graph, owlrl_closure

    bundle = loaded(data)
    ontology = ontology_graph(bundle)
    inferred, seconds = timed(lambda: owlrl_closure(bundle.links, ontology, "owlrl"))
    return {"seconds": seconds, "inferred": len(inferred)}


def _settled(run: Callable[[], Any]) -> float:
    """The time of ``run``; for a run under 0.1 s, the median of five (a few milliseconds are mostly noise)."""
    first = timed(run)[1]
    if first >= 0.1:
        return first
    return sorted([first] + [timed(run)[1] for _ in range(4)])[2]


def _queries(data: Path, store: str, **shape: str) -> dict[str, Any]:
    """Every helper (``shape``: its ``as_``), each timed once, or the median of five when it takes under 0.1 s."""
    sys.path.insert(0, str(HERE))
    from bench_queries import helper_calls

    bundle = loaded(data, store)
    seconds = {name: _settled(functools.partial(call, **shape)) for name, call in helper_calls(bundle).items()}
    return {
        "seconds": sum(seconds.values()),
        "slowest": max(seconds, key=seconds.__getitem__),
        "max": max(seconds.values()),
        "each": seconds,
    }


@measure("queries-oxigraph")
def queries_oxigraph(data: Path) -> dict[str, Any]:
    return _queries(data, "Oxigraph")


@measure("queries-oxigraph-arrow")
def queries_oxigraph_arrow(data: Path) -> dict[str, Any]:
    import pyarrow

    pyarrow.table({"warm": ["up"]})  # pyarrow's import and first table (about a second) are not the first helper's time
    return _queries(data, "Oxigraph", as_="arrow")


@measure("queries-oxigraph-floor")
def queries_oxigraph_floor(data: Path) -> dict[str, Any]:
    """Oxigraph's own evaluation of each helper's queries, results serialized as TSV: what a helper cannot beat.

    The queries are those the helper sends (recorded on one run, parts of a
    split query included), then run again straight on the store, one after
    the other.
    """
    import pyoxigraph as ox

    from mif_rdf.queries import native

    sys.path.insert(0, str(HERE))
    from bench_queries import helper_calls, recorded

    bundle = loaded(data, "Oxigraph")
    store = native.oxigraph_store(bundle.dataset)

    def evaluate() -> None:
        for text, options in queries:
            store.query(text, **options).serialize(format=ox.QueryResultsFormat.TSV)

    seconds = {}
    for name, call in helper_calls(bundle).items():
        queries = recorded(native, store, call)
        seconds[name] = _settled(evaluate)
    return {"seconds": sum(seconds.values()), "each": seconds}


@measure("queries-memory")
def queries_memory(data: Path) -> dict[str, Any]:
    return _queries(data, "default")


def _full_validation(data: Path, store: str) -> dict[str, Any]:
    """The whole validation (shapes, key paths, bundle rules) of the bundle in ``store``,
    with a digest of its findings."""
    from mif_rdf.validation.run import validate

    bundle = loaded(data, store)
    report, seconds = timed(lambda: validate(bundle, 3))
    return {
        "seconds": seconds,
        **_digest(sorted(json.dumps(problem.to_dict(), sort_keys=True, default=str) for problem in report.results)),
    }


@measure("validate-oxigraph")
def validate_oxigraph(data: Path) -> dict[str, Any]:
    """The scale case: the full validation of a bundle in the Oxigraph store.

    Also run with the package as it was before issue 19 (:data:`BEFORE`), which copied the store into rdflib.
    """
    return _full_validation(data, "Oxigraph")


@measure("validate-oxigraph-in-memory")
def validate_oxigraph_in_memory(data: Path) -> dict[str, Any]:
    """The full validation on the store ``mif-rdf validate --store oxigraph`` makes: a cold load in memory (not timed).

    :func:`validate_oxigraph` reads the cache's on-disk database, where Oxigraph decodes each term it
    returns from its string table (about 5 us a term, 3-5x an in-memory store's scans).
    """
    from mif_rdf import load_bundle
    from mif_rdf.validation.run import validate

    bundle = load_bundle(bundle_of(data), store="Oxigraph", progress=False)
    report, seconds = timed(lambda: validate(bundle, 3))
    return {
        "seconds": seconds,
        **_digest(sorted(json.dumps(problem.to_dict(), sort_keys=True, default=str) for problem in report.results)),
    }


@measure("validate-memory")
def validate_memory(data: Path) -> dict[str, Any]:
    return _full_validation(data, "default")


@measure("validate-memory-no-ontology-rules")
def validate_memory_no_ontology_rules(data: Path) -> dict[str, Any]:
    """:func:`validate_memory` without the ontologies the memories
    name (issue 28's baseline): SHACL and bundle rules only."""
    from mif_rdf.validation.run import validate

    bundle = loaded(data, "default")
    report, seconds = timed(lambda: validate(bundle, 3, memory_ontologies=False))
    return {
        "seconds": seconds,
        **_digest(sorted(json.dumps(problem.to_dict(), sort_keys=True, default=str) for problem in report.results)),
    }


# -- export -------------------------------------------------------------------------------
def _export(data: Path, fmt: str) -> dict[str, Any]:
    """``export_bundle`` of the Oxigraph-loaded bundle to a file (the load not counted), policy included.

    The store is the one ``mif-rdf export --store oxigraph`` makes, a cold load in memory, not
    :func:`loaded`'s cached one: that is an on-disk database, which Oxigraph itself reads 2-3x
    slower (its own ``Store.dump`` of it takes 3.7 s at 10,000 memories), and the target is about the command.
    """
    from mif_rdf import load_bundle
    from mif_rdf.output.policy import export_bundle

    bundle = load_bundle(bundle_of(data), store="Oxigraph", progress=False)
    target = data / f"export-{os.getpid()}.out"
    try:
        with open(target, "wb") as out:
            _, seconds = timed(lambda: export_bundle(bundle, fmt, out))
        return {"seconds": seconds, "bytes": target.stat().st_size}
    finally:
        target.unlink(missing_ok=True)


@measure("export-oxigraph-nquads")
def export_oxigraph_nquads(data: Path) -> dict[str, Any]:
    """Also run with the package before issue 19 (:data:`BEFORE`),
    which read the store through oxrdflib quad by quad."""
    return _export(data, "nquads")


@measure("export-oxigraph-turtle")
def export_oxigraph_turtle(data: Path) -> dict[str, Any]:
    return _export(data, "turtle")


def _dump(data: Path) -> Path:
    return data / "dump.nq"


@measure("export-stream")
def export_stream(data: Path) -> dict[str, Any]:
    """``export --stream``: N-Quads written while the files are read (no store); the workers' peak memory, and the
    peak of the whole process tree (this process and its workers, summed at each sample), CPU seconds too.

    The dump goes to the system's temporary folder, so a shared scale bundle's folder is only read."""
    from mif_rdf.output.stream_export import stream_nquads

    workers = int(os.environ[WORKERS]) if os.environ.get(WORKERS) else None
    with tempfile.TemporaryDirectory(prefix="mif-bench-stream-") as folder, TreePeak() as tree:
        cpu = time.process_time()
        with open(Path(folder) / "dump.nq", "wb") as out:
            report, seconds = timed(
                lambda: stream_nquads(
                    bundle_of(data), out, progress=False, on_problem=lambda problem: None, workers=workers
                )
            )
        cpu = time.process_time() - cpu
        workers_used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's, joined; not yet the sampler's
    return {
        "seconds": seconds,
        "quads": report.quads,
        "workers": "default" if workers is None else workers,
        "worker_peak_gib": workers_used.ru_maxrss / 2**20,
        "tree_peak_gib": tree.peak / 2**30,
        "cpu_seconds": cpu + workers_used.ru_utime + workers_used.ru_stime,
    }


#: ``--workers N`` reaches the measuring processes through this variable (the stream's worker processes).
WORKERS = "MIF_BENCH_WORKERS"


class TreePeak:
    """The peak resident memory of this process and every process under it (the stream's workers), summed at each
    sample, every 50 ms.

    The sampling runs in a process of its own: a thread here would make the
    stream's worker pool start with a fork server instead of ``fork``
    (mif_rdf.load.pipeline forks only a single-threaded process).  Resident
    pages shared by a worker and its parent since the fork count twice, so
    the figure is an upper bound.
    """

    def __enter__(self) -> TreePeak:
        self.sampler = subprocess.Popen(
            [sys.executable, __file__, "--tree-peak", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.sampler.stdout is not None
        self.sampler.stdout.readline()  # it has taken its first sample
        self.peak = 0
        return self

    def __exit__(self, *exc: object) -> None:
        out, _ = self.sampler.communicate("")  # stdin closed: it prints the peak and ends
        self.peak = int(out.split()[-1])


def tree_resident(pid: int, leave_out: int) -> int:
    """Resident bytes of ``pid`` and of every process under it (but ``leave_out`` and its own), summed now."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        if current == leave_out:
            continue
        try:
            with open(f"/proc/{current}/statm", encoding="ascii") as handle:
                total += int(handle.read().split()[1]) * PAGE
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    todo.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError, IndexError):  # the process ended between two reads
            continue
    return total


PAGE = os.sysconf("SC_PAGE_SIZE")


def sample_tree(pid: int) -> None:
    """``--tree-peak PID``: sample the tree under ``pid`` until stdin closes, then print the largest sum."""
    import select

    peak = tree_resident(pid, os.getpid())
    print("sampling", flush=True)
    while not select.select([sys.stdin], [], [], 0.05)[0]:
        peak = max(peak, tree_resident(pid, os.getpid()))
    print(peak, flush=True)


def _export_dask(data: Path, workers: int) -> dict[str, Any]:
    """``export --dask`` on a LocalCluster of ``workers`` processes (one thread each, no profiler: as the export
    makes its own), started before the clock starts (a user's cluster is already running; its start is recorded
    apart); the largest worker's peak memory.

    The output goes to the system's temporary folder, so a shared scale bundle's folder is only read."""
    import dask
    from distributed import Client, LocalCluster

    from mif_rdf.distributed import export_nquads
    from mif_rdf.distributed.cluster import PROFILER

    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="mif-bench-dask-") as out,
        dask.config.set({PROFILER: False}),  # as the cluster an export makes: Dask's profiler grows with run time
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        started = time.perf_counter() - start
        report, seconds = timed(lambda: export_nquads(bundle_of(data), out, client))
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
    return {
        "seconds": seconds,
        "quads": report.quads,
        "partitions": report.partitions,
        "cluster_start_seconds": started,
        "worker_peak_gib": max(peaks.values()),
    }


@measure("export-dask-1")
def export_dask_1(data: Path) -> dict[str, Any]:
    return _export_dask(data, 1)


@measure("export-dask-2")
def export_dask_2(data: Path) -> dict[str, Any]:
    return _export_dask(data, 2)


@measure("export-memory-nquads")
def export_memory_nquads(data: Path) -> dict[str, Any]:
    """The same N-Quads through the memory store: the load, then the export of the loaded dataset."""
    from mif_rdf import load_bundle
    from mif_rdf.output.policy import export_bundle

    def run() -> None:
        with open(_dump(data), "wb") as out:
            export_bundle(load_bundle(bundle_of(data), progress=False), "nquads", out)

    _, seconds = timed(run)
    _dump(data).unlink()
    return {"seconds": seconds}


# -- discovery suggestions ----------------------------------------------------------------
@measure("suggest")
def suggest_measure(data: Path) -> dict[str, Any]:
    """``mif-rdf suggest``'s work: read and parse every file, run the discovery patterns of the ontologies named."""
    from mif_rdf import suggest

    cpu = time.process_time()
    report, seconds = timed(lambda: suggest(bundle_of(data)))
    return {
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "memories": report.memories,
        "suggestions": len(report.suggestions),
        "patterns": report.patterns,
    }


@measure("read-parse")
def read_parse(data: Path) -> dict[str, Any]:
    """What suggest cannot go below: reading and parsing every memory file (one process, as suggest)."""
    from mif_rdf.source.bundle_files import discover
    from mif_rdf.source.parse import parse_memory

    root = bundle_of(data)
    parsed, seconds = timed(lambda: [parse_memory(root, relpath)[0] for relpath in discover(root).memories])
    return {"seconds": seconds, "memories": len(parsed)}


# -- a repeated query from the command line (issue 37.5) ------------------------------------------
#: What ``mif-rdf query`` runs in the query rows: a count over every memory's types.
CLI_QUERY = "SELECT (COUNT(?m) AS ?n) WHERE { ?m a ?t }"


def _cli_query(data: Path, fresh: bool) -> dict[str, Any]:
    """``mif-rdf query`` with default options, its cache in a folder of the run's own (``fresh``: emptied first)."""
    home = data / "xdg-query"
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
    command = [
        str(Path(sys.executable).parent / "mif-rdf"),
        "query",
        str(bundle_of(data)),
        CLI_QUERY,
        "-q",
        "--no-progress",
    ]
    done, seconds = timed(
        lambda: subprocess.run(command, capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": str(home)})
    )
    if done.returncode != 0:
        raise SystemExit(f"mif-rdf query failed: {done.stderr[-2000:]}")
    return {"seconds": seconds, "answer": done.stdout.split()[-3]}


@measure("query-cli-first")
def query_cli_first(data: Path) -> dict[str, Any]:
    return _cli_query(data, fresh=True)


@measure("query-cli-second")
def query_cli_second(data: Path) -> dict[str, Any]:
    return _cli_query(data, fresh=False)


# -- write-back (issue 31) ---------------------------------------------------------------
@measure("update-tenth")
def update_tenth(data: Path) -> dict[str, Any]:
    """``mif-rdf update``'s work on a copy of the bundle: a cold load, then one SPARQL Update that adds a tag to about
    a tenth of the memories (those whose IRI's MD5 starts below ``1a``: 26 of 256; never ``_local``, which
    write-back refuses), validated and written."""
    from mif_rdf import load_bundle

    scratch = data / "update-scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(bundle_of(data), scratch, symlinks=True)
    update = (
        'INSERT { GRAPH ?m { ?m mif:tags "bench-reviewed" } } '
        "WHERE { GRAPH ?m { ?m a mif:Concept ; mif:namespace ?ns } "
        'FILTER(!STRSTARTS(?ns, "_local") && SUBSTR(MD5(STR(?m)), 1, 2) < "1a") }'
    )
    try:
        result, seconds = timed(lambda: load_bundle(scratch, progress=False).update(update))
        if not result.written or result.refusals:
            raise SystemExit(f"the update wrote nothing: {result.summary()[:2000]}")
        return {"seconds": seconds, "changed": len(result.changed)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# -- whole processes (issue 34 item 3) ----------------------------------------------------
def _process(data: Path, command: Callable[[Path], list[str]]) -> dict[str, Any]:
    """A whole command on the bundle in a fresh interpreter (start-up and imports counted): its wall time and its
    CPU seconds (user + sys of the child and its workers, which other work on a shared machine inflates far less
    than the wall).

    Python runs as an installed package does, with its bytecode cached (pip compiles it at install; a
    ``PYTHONDONTWRITEBYTECODE`` of the calling shell would make each run compile every module again): the
    command runs first, untimed, on a bundle of one memory (:func:`_one_memory`), which writes that bytecode.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command(_one_memory(data)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command(bundle_of(data)), stdout=subprocess.DEVNULL, env=env, check=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"seconds": seconds, "cpu_seconds": cpu}


def _one_memory(data: Path) -> Path:
    """A bundle of the benchmark bundle's ``.mif`` folder and its first memory (made once)."""
    target = data / "one-memory"
    if not (target / ".mif").is_dir():
        bundle = bundle_of(data)
        first = min(bundle.glob("*/*/*.md"))
        (target / first.relative_to(bundle).parent).mkdir(parents=True, exist_ok=True)
        shutil.copy(first, target / first.relative_to(bundle))
        shutil.copytree(bundle / ".mif", target / ".mif")
    return target


@measure("export-oxigraph-process")
def export_oxigraph_process(data: Path) -> dict[str, Any]:
    """``mif-rdf export --store oxigraph`` to an N-Quads file, the whole command: start-up, cold load, export."""
    target = data / f"export-{os.getpid()}.nq"
    try:
        found = _process(
            data,
            lambda bundle: [
                str(Path(sys.executable).parent / "mif-rdf"),
                "export",
                str(bundle),
                "--store",
                "oxigraph",
                "--no-cache",
                "--no-progress",
                "-q",
                "-o",
                str(target),
            ],
        )
        return {**found, "bytes": target.stat().st_size}
    finally:
        target.unlink(missing_ok=True)


#: The pyld path a user writes, in one process: the YAML, the projection, pyld's toRdf, an rdflib Dataset.
PYLD_PROCESS = (
    "import sys; from mif_rdf import load_bundle; load_bundle(sys.argv[1], engine='pyld', workers=0, progress=False)"
)


@measure("pyld-process")
def pyld_process(data: Path) -> dict[str, Any]:
    """The pyld path as a whole process (start-up and imports counted): the baseline of the whole-process export."""
    return _process(data, lambda bundle: [sys.executable, "-c", PYLD_PROCESS, str(bundle)])


# -- start-up ---------------------------------------------------------------------------
def _startup(*command: str, runs: int = 15) -> dict[str, Any]:
    """The median wall time of a short command (benchmarks/bench_startup.py has the import breakdown)."""
    import statistics

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return {"seconds": statistics.median(times)}


@measure("startup-help")
def startup_help(data: Path) -> dict[str, Any]:
    return _startup(str(Path(sys.executable).parent / "mif-rdf"), "--help")


@measure("startup-version")
def startup_version(data: Path) -> dict[str, Any]:
    return _startup(str(Path(sys.executable).parent / "mif-rdf"), "--version")


@measure("startup-rdflib")
def startup_rdflib(data: Path) -> dict[str, Any]:
    """What the package cannot start without: ``import rdflib`` (it teaches rdflib the ``mif`` format)."""
    return _startup(sys.executable, "-c", "import rdflib")


# -- the table --------------------------------------------------------------------------
#: (case, ours, baseline, how the ratio reads, target)
ROWS = [
    ("cold load, memory store", "load-memory", "store-floor", "over", "<= 1.3x the floor"),
    ("cold load, memory store, 1 process", "load-memory-1-process", "store-floor", "over", ""),
    ("cold load, Oxigraph store", "load-oxigraph", "load-pyld", "faster", ">= 20x the pyld path (1 process)"),
    (
        "cold load, Oxigraph store, 1 process / its floor (reading + YAML + Oxigraph's load, 1 process)",
        "load-oxigraph-1-process",
        "oxigraph-floor-1-process",
        "over",
        "<= 1.5x the floor (CPU seconds below the table)",
    ),
    (
        "floor of an Oxigraph cold load (YAML + Oxigraph's load, 2 cores)",
        "oxigraph-floor",
        "load-pyld",
        "faster",
        "what 20x must fit in",
    ),
    ("cold load, memory store", "load-memory", "load-pyld", "faster", ">= 2.5x the pyld path"),
    ("warm reload, memory store", "cache-warm-default", "load-memory", "faster", ">= 3x the cold load"),
    ("one file changed, memory store", "cache-one-changed-default", "load-memory", "faster", ""),
    ("warm reload, Oxigraph store", "cache-warm-oxigraph", "load-oxigraph", "faster", "<= 0.5 s"),
    ("one file changed, Oxigraph store", "cache-one-changed-oxigraph", "load-oxigraph", "faster", ""),
    ("SHACL level 3 + OKF (same results)", "validate-engine", "validate-pyshacl", "faster", ">= 15x pyshacl"),
    (
        "SHACL level 3 + OKF, Oxigraph store (same results) / pySHACL",
        "validate-engine-oxigraph",
        "validate-pyshacl",
        "faster",
        ">= 15x pyshacl",
    ),
    (
        "validate --level 3, the command (warm cache), memory store / Oxigraph store",
        "validate-command-memory",
        "validate-command-oxigraph",
        "over",
        "<= 1.3x",
    ),
    (
        "user shapes, 20 of SHACL Core (same results) / pySHACL",
        "user-shapes-engine",
        "user-shapes-pyshacl",
        "faster",
        ">= 15x pyshacl",
    ),
    (
        "validation, Oxigraph store / before issue 19 (copy into rdflib)",
        "validate-oxigraph",
        "validate-oxigraph-before",
        "faster",
        ">= 3x",
    ),
    (
        "validation, Oxigraph store in memory / before issue 19",
        "validate-oxigraph-in-memory",
        "validate-oxigraph-in-memory-before",
        "faster",
        "",
    ),
    (
        "validation with the ontology rules / without, memory store",
        "validate-memory",
        "validate-memory-no-ontology-rules",
        "over",
        "<= 1.3x",
    ),
    ("reasoning, fast profile / owlrl", "reason-fast", "reason-owlrl", "faster", ""),
    ("query helpers, all, Oxigraph / rdflib", "queries-oxigraph", "queries-memory", "faster", ""),
    (
        "query helpers, all, as Arrow / Oxigraph's own evaluation",
        "queries-oxigraph-arrow",
        "queries-oxigraph-floor",
        "over",
        "each <= 1.5x at 100k",
    ),
    (
        "export N-Quads, Oxigraph store / before issue 19",
        "export-oxigraph-nquads",
        "export-oxigraph-nquads-before",
        "faster",
        ">= 10x",
    ),
    (
        "export N-Quads, Oxigraph store / cold load",
        "export-oxigraph-nquads",
        "load-oxigraph",
        "over",
        "<= 1.5x the load",
    ),
    ("export Turtle, Oxigraph store / cold load", "export-oxigraph-turtle", "load-oxigraph", "over", ""),
    ("export N-Quads, streamed / memory store (load + export)", "export-stream", "export-memory-nquads", "faster", ""),
    (
        "second mif-rdf query, default options / the first (same run)",
        "query-cli-second",
        "query-cli-first",
        "faster",
        "< 3 s at 30,000",
    ),
    (
        "update a tenth of the memories (load + update + validate + write) / cold load, memory store",
        "update-tenth",
        "load-memory",
        "over",
        "<= 2x the cold load",
    ),
    (
        "export from the Oxigraph store, whole process / the pyld path, whole process",
        "export-oxigraph-process",
        "pyld-process",
        "faster",
        ">= 5x the pyld path",
    ),
    ("start-up, mif-rdf --help / import rdflib", "startup-help", "startup-rdflib", "over", "< 0.3 s"),
    ("start-up, mif-rdf --version / import rdflib", "startup-version", "startup-rdflib", "over", "< 0.3 s"),
    (
        "suggest (discovery patterns) / reading + parsing the files",
        "suggest",
        "read-parse",
        "over",
        ">= 2,000 memories a second",
    ),
]
#: The cache entries first (later measurements load through them: warm loads are the same bundle),
#: the one-changed-file cases last (they edit a file).
ORDER = [
    "cache-prime-default",
    "cache-prime-oxigraph",
    "cache-warm-default",
    "cache-warm-oxigraph",
    "load-memory",
    "load-memory-1-process",
    "store-floor",
    "load-oxigraph",
    "load-oxigraph-1-process",
    "oxigraph-floor",
    "oxigraph-floor-1-process",
    "load-pyld",
    "validate-engine",
    "validate-pyshacl",
    "validate-engine-oxigraph",
    "validate-command-memory",
    "validate-command-oxigraph",
    "user-shapes-engine",
    "user-shapes-pyshacl",
    "validate-oxigraph",
    "validate-oxigraph-before",
    "validate-oxigraph-in-memory",
    "validate-oxigraph-in-memory-before",
    "validate-memory",
    "validate-memory-no-ontology-rules",
    "reason-fast",
    "reason-owlrl",
    "queries-oxigraph",
    "queries-memory",
    "queries-oxigraph-arrow",
    "queries-oxigraph-floor",
    "export-oxigraph-nquads",
    "export-oxigraph-nquads-before",
    "export-oxigraph-turtle",
    "export-stream",
    "export-memory-nquads",
    "export-oxigraph-process",
    "pyld-process",
    "query-cli-first",
    "query-cli-second",
    "update-tenth",
    "startup-rdflib",
    "startup-help",
    "startup-version",
    "read-parse",
    "suggest",
    "cache-one-changed-default",
    "cache-one-changed-oxigraph",
]
SCALE_ORDER = [
    "load-oxigraph",
    "cache-prime-oxigraph",
    "cache-warm-oxigraph",
    "validate-oxigraph",
    "validate-oxigraph-before",
    "validate-oxigraph-in-memory",
    "validate-oxigraph-in-memory-before",
    "queries-oxigraph",
    "queries-oxigraph-arrow",
    "queries-oxigraph-floor",
    "export-oxigraph-nquads",
    "export-oxigraph-turtle",
    "export-stream",
    "export-dask-1",
    "export-dask-2",
]
SCALE_ROWS = [
    ("cold load, Oxigraph store", "load-oxigraph", None, "", "fits in 24 GiB"),
    ("warm reload, Oxigraph store", "cache-warm-oxigraph", "load-oxigraph", "faster", "<= 0.5 s"),
    (
        "validation, level 3, Oxigraph store / before issue 19",
        "validate-oxigraph",
        "validate-oxigraph-before",
        "faster",
        "<= 60 s, half the memory",
    ),
    (
        "validation, level 3, Oxigraph store in memory / before issue 19",
        "validate-oxigraph-in-memory",
        "validate-oxigraph-in-memory-before",
        "faster",
        "<= 60 s",
    ),
    ("query helpers, all, Oxigraph store", "queries-oxigraph", None, "", ""),
    (
        "query helpers, all, as Arrow / Oxigraph's own evaluation",
        "queries-oxigraph-arrow",
        "queries-oxigraph-floor",
        "over",
        "each <= 1.5x",
    ),
    (
        "export N-Quads, Oxigraph store / cold load",
        "export-oxigraph-nquads",
        "load-oxigraph",
        "over",
        "<= 1.5x the load",
    ),
    ("export Turtle, Oxigraph store / cold load", "export-oxigraph-turtle", "load-oxigraph", "over", ""),
    (
        "export N-Quads, streamed (no store) / Oxigraph cold load",
        "export-stream",
        "load-oxigraph",
        "over",
        "flat memory",
    ),
    # throughput of the Dask export over the stream's (the stream's time over Dask's), same run, same bundle
    ("export N-Quads, Dask, 1 worker / streamed", "export-dask-1", "export-stream", "faster", ""),
    ("export N-Quads, Dask, 2 workers / streamed", "export-dask-2", "export-stream", "faster", ">= 0.8x"),
]


#: The package before issue 19 (validation on Oxigraph read a copy of the store in rdflib): the baseline of
#: the measurements named ``<measure>-before``, run from a ``git archive`` of that commit in the same run.
BEFORE = "3c9b03a"


def run_measure(name: str, data: Path) -> dict[str, Any]:
    """One measurement in a fresh process; its result plus that process's peak memory.

    ``<measure>-before`` runs ``<measure>`` with the package as it was at :data:`BEFORE`.
    """
    measure_name, env = name, None
    if name.endswith("-before"):
        measure_name, env = name[: -len("-before")], {**os.environ, "PYTHONPATH": str(source_at(BEFORE, data))}
    done = subprocess.run(
        [sys.executable, __file__, "--measure", measure_name, "--data", str(data)],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"measurement {name} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"  {name:<28} {result['seconds']:9.2f} s   peak {result['peak_gib']:5.2f} GiB", file=sys.stderr, flush=True)
    return result


def source_at(revision: str, data: Path) -> Path:
    """The package's source folder as it was at ``revision`` (with its data folders), extracted under ``data``."""
    target = data / f"source-{revision}"
    if not (target / "src").is_dir():
        archive = subprocess.run(
            ["git", "-C", str(HERE.parent), "archive", revision, "src", "context", "shapes", "ontologies"],
            capture_output=True,
        )
        if archive.returncode != 0:
            raise SystemExit(
                f"cannot read commit {revision} of this repository: {archive.stderr.decode(errors='replace').strip()}"
            )
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "src"


def table(rows: list[tuple[str, str, str | None, str, str]], results: dict[str, dict[str, Any]], size: int) -> str:
    lines = [
        "| case | size | ours | baseline | ratio | target | peak memory (ours) |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for case, ours, baseline, reads, target in rows:
        mine = results[ours]
        if baseline is None:
            base_text, ratio = "", ""
        else:
            base = results[baseline]["seconds"]
            base_text = f"{base:,.2f} s"
            ratio = (
                f"{mine['seconds'] / base:.2f}x" if reads == "over" else f"{base / mine['seconds']:.1f}x faster"
            )  # the target says of what
        lines.append(
            f"| {case} | {size:,} | {mine['seconds']:,.2f} s | {base_text} | {ratio} | {target} | "
            f"{mine['peak_gib']:.2f} GiB |"
        )
    return "\n".join(lines)


def helper_table(results: dict[str, dict[str, Any]]) -> str:
    """Each helper: as a Table, as an Arrow table, and Oxigraph's own evaluation of its queries (same run)."""
    lines = ["| helper | Table | Arrow | Oxigraph's evaluation | Arrow / evaluation |", "|---|---:|---:|---:|---:|"]
    rows, arrow, floor = (
        results[name]["each"] for name in ("queries-oxigraph", "queries-oxigraph-arrow", "queries-oxigraph-floor")
    )
    for name in rows:
        lines.append(
            f"| {name} | {rows[name]:.3f} s | {arrow[name]:.3f} s | {floor[name]:.3f} s | "
            f"{arrow[name] / max(floor[name], 1e-6):.2f}x |"
        )
    return "\n".join(lines)


#: What the growth table measures at each smaller size (the cache first:
#: validation runs on the on-disk store, as at full size).
GROWTH_ORDER = ["cache-prime-oxigraph", "validate-oxigraph", "validate-oxigraph-before"]


def growth_table(growth: dict[int, dict[str, dict[str, Any]]]) -> str:
    """Validation on the Oxigraph store at each size, against the package before issue 19: linear growth shows
    as a steady time per 1,000 memories."""
    lines = [
        "| memories | validation | per 1,000 memories | peak memory | before issue 19 | its peak memory | faster |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sorted(growth):
        ours, before = growth[size]["validate-oxigraph"], growth[size]["validate-oxigraph-before"]
        lines.append(
            f"| {size:,} | {ours['seconds']:,.1f} s | {ours['seconds'] * 1000 / size:.2f} s | {ours['peak_gib']:.2f} "
            "GiB "
            f"| {before['seconds']:,.1f} s | {before['peak_gib']:.2f} GiB | "
            f"{before['seconds'] / ours['seconds']:.1f}x |"
        )
    return "\n".join(lines)


def stream_table(streams: dict[int, dict[str, Any]]) -> str:
    """The streamed export at each size: flat peak memory and steady throughput, and what they make of a million."""
    lines = [
        "| memories | quads | time | memories a second | CPU seconds (all processes) | peak memory, whole tree "
        "| main process | largest worker |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sorted(streams):
        run = streams[size]
        lines.append(
            f"| {size:,} | {run['quads']:,} | {run['seconds']:,.1f} s | {size / run['seconds']:,.0f} "
            f"| {run.get('cpu_seconds', 0):,.1f} s | {run.get('tree_peak_gib', 0):.2f} GiB | {run['peak_gib']:.2f} GiB "
            f"| {run['worker_peak_gib']:.2f} GiB |"
        )
    largest = max(streams)
    rate = largest / streams[largest]["seconds"]
    peak = max(run.get("tree_peak_gib", 0) for run in streams.values())
    lines.append(
        f"\n1,000,000 memories at {rate:,.0f} a second (the {largest:,}-memory rate, extrapolated): about "
        f"{1_000_000 / rate / 60:,.1f} minutes (target < 4), {streams[largest]['quads'] * 1_000_000 // largest:,} "
        f"quads; the whole tree's peak stays near {peak:.2f} GiB (target < 1 GiB at 100,000 and 300,000)"
    )
    if streams[largest].get("cpu_seconds"):  # what two idle cores would take: the processes run side by side
        cpu = streams[largest]["cpu_seconds"] / largest
        lines.append(
            f"from its CPU seconds ({cpu * 1e6:,.0f} us a memory, all processes) over two idle cores: about "
            f"{cpu * 1_000_000 / 2 / 60:,.1f} minutes"
        )
    return "\n".join(lines)


def other_streams(
    sizes: str, count: int, results: dict[str, dict[str, Any]], data: Path, growth: dict[int, Any], seed: int
) -> dict[int, dict[str, Any]]:
    """The streamed export at ``count`` (already measured) and at each of ``sizes`` (``N`` or ``N=FOLDER``, a
    folder holding a generated ``bundle/`` to reuse, e.g. a shared scale bundle; else one is generated)."""
    streams = {count: results["export-stream"]}
    for entry in (n.strip() for n in sizes.split(",") if n.strip()):
        size_text, _, given = entry.partition("=")
        size = int(size_text)
        if size == count:
            continue
        folder = Path(given) if given else data / f"growth-{size}" if size in growth else data / f"stream-{size}"
        prepare(folder, size, seed)
        streams[size] = run_measure("export-stream", folder)
    return streams


def prepare(data: Path, count: int, seed: int) -> None:
    """A generated bundle with seeded violations, reused when ``data`` already holds one."""
    from mif_rdf.source.markdown import render_memory, split_frontmatter
    from mif_rdf.source.yamlio import load_yaml
    from synthetic import generate_bundle

    if (bundle_of(data) / ".mif").is_dir():
        return
    print(f"generating {count:,} memories in {bundle_of(data)} ...", file=sys.stderr, flush=True)
    paths = generate_bundle(
        bundle_of(data), count, seed=seed, discovery=True, ontologies=True
    )  # memories name ontologies it carries
    rng = random.Random(seed)
    breakers = [
        lambda fm: fm.update(created="2026-01-15"),
        lambda fm: fm["temporal"]["decay"].update(model="cubic"),
        lambda fm: fm["provenance"].update(confidence=1.7),
        lambda fm: fm.update(namespace="has space"),
    ]
    for path in rng.sample(paths, len(paths) // 20):
        split = split_frontmatter(path.read_text(encoding="utf-8"))
        frontmatter = load_yaml(split.frontmatter).data
        try:
            rng.choice(breakers)(frontmatter)
        except (KeyError, TypeError):
            continue
        path.write_text(render_memory(frontmatter, split.body), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, help="memories to generate (default 10,000; 100,000 with --scale)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, help="working folder to (re)use; default: a temporary folder")
    parser.add_argument(
        "--scale", action="store_true", help="the 100,000-memory cases: Oxigraph load, validation, queries"
    )
    parser.add_argument(
        "--growth",
        default="10000,30000",
        help="with --scale: smaller bundles whose validation is also timed, to show its growth (default 10000,30000)",
    )
    parser.add_argument(
        "--stream-sizes",
        default="10000,300000",
        help=(
            "with --scale: other bundle sizes the streamed export is also run on, to show flat memory (default "
            "10000,300000; SIZE=FOLDER reuses the generated bundle in FOLDER/bundle)"
        ),
    )
    parser.add_argument(
        "--cases",
        help="only these measurements (comma-separated names) and the rows they fill, e.g. to check one row at a "
        "small size: --scale --count 2000 --cases export-stream,export-dask-1,export-dask-2",
    )
    parser.add_argument("--measure", choices=sorted(MEASURES), help=argparse.SUPPRESS)
    parser.add_argument(
        "--workers",
        type=int,
        help="worker processes for the streamed export (default: as the command picks them, from the idle cores; "
        "on a shared machine --workers 2 measures what an idle 2-core machine runs)",
    )
    parser.add_argument("--tree-peak", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.workers is not None:
        os.environ[WORKERS] = str(args.workers)
    if args.tree_peak:
        sample_tree(args.tree_peak)
        return 0
    if args.measure:
        result = MEASURES[args.measure](args.data)
        result["peak_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(json.dumps(result))
        return 0

    count = args.count or (100_000 if args.scale else 10_000)
    temporary = None if args.data else tempfile.mkdtemp(prefix="mif-bench-")
    data = args.data or Path(temporary)  # type: ignore[arg-type]
    started = time.perf_counter()
    try:
        prepare(data, count, args.seed)
        for store in ("default", "oxigraph"):
            shutil.rmtree(cache_of(data, store), ignore_errors=True)
        rows = SCALE_ROWS if args.scale else ROWS
        order = SCALE_ORDER if args.scale else ORDER
        if args.cases:
            chosen = set(args.cases.split(","))
            order = [name for name in order if name in chosen]
            rows = [row for row in rows if row[1] in chosen and (row[2] is None or row[2] in chosen)]
        results: dict[str, dict[str, Any]] = {}
        for name in order:
            results[name] = run_measure(name, data)
        growth = {count: results}
        if args.cases:
            print(f"\n{count:,} memories; only {args.cases}\n")
            print(table(rows, results, count))
            print(cpu_details(results))
            print(dask_details(results))
            if args.scale and "export-stream" in results:
                print("\n" + stream_table(other_streams(args.stream_sizes, count, results, data, {}, args.seed)))
            return 0
        if args.scale:
            for size in sorted(int(n) for n in args.growth.split(",") if n.strip() and int(n) < count):
                folder = data / f"growth-{size}"
                prepare(folder, size, args.seed)
                growth[size] = {name: run_measure(name, folder) for name in GROWTH_ORDER}
            streams = other_streams(args.stream_sizes, count, results, data, growth, args.seed)
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    print(
        f"\n{count:,} memories, {results['load-oxigraph'].get('triples', 0):,} quads; "
        f"suite took {time.perf_counter() - started:,.0f} s ({sys.version.split()[0]}, {time.strftime('%Y-%m-%d')})\n"
    )
    print(table(rows, results, count))
    if not args.scale:
        same = (
            results["validate-engine"]["digest"] == results["validate-pyshacl"]["digest"]
            and results["validate-engine"]["any_blank"] == results["validate-engine-oxigraph"]["any_blank"]
        )
        print(f"\nSHACL results identical to pyshacl: {same} ({results['validate-engine']['results']} results)")
        users = results["user-shapes-engine"]["digest"] == results["user-shapes-pyshacl"]["digest"]
        print(
            f"user shapes: results identical to pyshacl: {users} ({results['user-shapes-engine']['results']} results)"
        )
        same = same and users
        stores = (
            results["validate-oxigraph"]["digest"]
            == results["validate-memory"]["digest"]
            == results["validate-oxigraph-in-memory"]["digest"]
        )
        commands = results["validate-command-memory"]["digest"] == results["validate-command-oxigraph"]["digest"]
        same = same and stores and commands
        print(f"validate --level 3 reports identical on both stores: {commands}")
        print(
            f"validation findings identical on Oxigraph (on disk and in memory) and the memory store: {stores} "
            f"({results['validate-oxigraph']['results']} findings; before issue 19, Oxigraph: "
            f"{results['validate-oxigraph-before']['results']})"
        )
        print(
            f"slowest query helper on Oxigraph: {results['queries-oxigraph']['slowest']} "
            f"({results['queries-oxigraph']['max']:.2f} s)"
        )
        floor = results["oxigraph-floor"]
        print(
            f"Oxigraph cold-load floor: reading and YAML {floor['reading']:.2f} s + Oxigraph's load "
            f"{floor['loading']:.2f} s (bulk_load {floor['bulk_load']:.2f} s, Store.load {floor['store_load']:.2f} s), "
            "one process"
        )
        print(cpu_details(results))
        found = results["suggest"]
        print(
            f"suggest: {found['memories'] / found['seconds']:,.0f} memories a second (target >= 2,000; "
            f"{found['memories'] / found['cpu_seconds']:,.0f} a CPU second, one process); "
            f"{found['suggestions']:,} suggestions from {found['patterns']} patterns"
        )
        print("\n" + helper_table(results))
        return 0 if same else 1
    print(
        f"\nslowest query helper: {results['queries-oxigraph']['slowest']} ({results['queries-oxigraph']['max']:.2f} s)"
    )
    print("\n" + helper_table(results))
    print("\n" + growth_table(growth))
    print("\n" + stream_table(streams))
    print(dask_details(results))
    return 0


#: (ours, baseline, how the ratio reads, target) of the rows whose CPU seconds are the figure of record on a
#: shared machine (issue 34 items 1 and 3).
CPU_PAIRS = [
    ("load-oxigraph-1-process", "oxigraph-floor-1-process", "over", "<= 1.5x"),
    ("export-oxigraph-process", "pyld-process", "faster", ">= 5x"),
]


def cpu_details(results: dict[str, dict[str, Any]]) -> str:
    """The CPU seconds of the :data:`CPU_PAIRS` that ran, and their ratio."""
    lines = []
    for ours, baseline, reads, target in CPU_PAIRS:
        if ours in results and baseline in results:
            mine, theirs = results[ours]["cpu_seconds"], results[baseline]["cpu_seconds"]
            ratio = mine / theirs if reads == "over" else theirs / mine
            lines.append(
                f"CPU seconds, {ours}: {mine:.2f} s, {baseline}: {theirs:.2f} s: {ratio:.2f}x "
                f"{'the baseline' if reads == 'over' else 'faster'} (target {target})"
            )
    return "\n".join(lines)


def dask_details(results: dict[str, dict[str, Any]]) -> str:
    """What the Dask rows leave out: the quads (the same as the stream's), partitions, cluster start, worker peaks."""
    return "\n".join(
        f"{name}: {run['quads']:,} quads (stream: {results['export-stream']['quads']:,}), {run['partitions']} "
        f"partitions, cluster start {run['cluster_start_seconds']:.1f} s (not timed), largest worker's peak "
        f"{run['worker_peak_gib']:.2f} GiB"
        for name, run in results.items()
        if name.startswith("export-dask") and "export-stream" in results
    )


if __name__ == "__main__":
    sys.exit(main())
