"""Query benchmark: helper latencies on rdflib's store and engine against Oxigraph's.

For each size (default 10,000 and 100,000 generated memories, every field
family) and each store, a fresh child process loads the bundle and runs every
query helper ``--repeat`` times, so load time and peak memory are measured per
store, not accumulated.  Printed per helper: rows, the median latency on each
store and the ratio of the first two columns; plus load times and peak RSS.
The first run of a helper is left out of the median on rdflib (it parses the
query; later runs reuse the parse) and reported separately.  The machine is
small and shared: ratios travel, absolute figures are for the record.  Usage::

    python benchmarks/bench_queries.py [--counts 10000,100000] [--repeat 3] [--data DIR]
        [--bundle DIR] [--stores rdflib,oxigraph] [--baseline SRC]

``--bundle DIR`` uses (or generates, for a single count) the bundle in DIR
itself.  ``--baseline SRC`` also runs each store with the package from
another source tree (``PYTHONPATH=SRC``, e.g. an export of the last commit,
with the data folders next to ``src``), right before the current code, so a
change is measured against what it replaces in the same run::

    git archive HEAD src context shapes ontologies | tar -x -C /tmp/baseline
    python benchmarks/bench_queries.py --counts 100000 --bundle /tmp/bench100k \\
        --stores oxigraph --baseline /tmp/baseline/src

A helper that fails (rdflib's RecursionError, say) or outlives
``--helper-timeout`` seconds is reported as such instead of a latency.

``--evaluation`` measures each helper against Oxigraph's own evaluation of
the queries it sends (issue 34 item 5), in this process on the Oxigraph
store: the queries are recorded on one call, then the helper as a Table,
as an Arrow table and the recorded queries run straight on the store
(results serialized as TSV) take turns for ``--rounds`` rounds, so a busy
moment of the shared machine falls on all alike.  Printed: the
median wall time of each, the ratios of the medians, and the same ratios
in CPU time (``time.process_time``), with the load average.  The last
column is the Arrow form's own floor: an Arrow result costs a pyarrow table
whoever makes it, so the Arrow form is also set against the evaluation
followed by pyarrow making a table of the same rows from Python lists
(its cheapest way from values; CPU time)::

    python benchmarks/bench_queries.py --evaluation --counts 10000 --bundle /tmp/bench10k \\
        --helpers supersession_chain,current_version --rounds 301
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the bundle generator, tests/synthetic.py

STORES = {"rdflib": "default", "oxigraph": "Oxigraph"}


def _when(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def helper_calls(bundle: Any) -> dict[str, Callable[[], Any]]:
    """Every helper with arguments drawn from the bundle, the same on every store (same files, same seed).

    Each call passes its keywords on to the helper (``as_="arrow"``).
    """
    from mif_rdf import queries as q

    memories = sorted(bundle.memories.values(), key=lambda m: m.relpath)
    times = sorted(_when(m.frontmatter["created"]) for m in memories)
    middle = times[len(times) // 2]
    tag = Counter(t for m in memories[:500] for t in m.frontmatter.get("tags", [])).most_common(1)[0][0]
    entity = Counter(r["entity"]["@id"] for m in memories[:500] for r in m.frontmatter.get("entities", [])).most_common(
        1
    )[0][0]
    start = next(m.iri for m in memories if len(m.frontmatter.get("relationships", [])) >= 3)
    old = next(
        r["target"]
        for m in memories
        for r in m.frontmatter.get("relationships", [])
        if r["type"] == "supersedes" and r["target"].startswith("urn:mif:")
    )
    return {
        "memories_of_type": lambda **shape: q.memories_of_type(bundle, "procedural", **shape),
        "memories_in_namespace": lambda **shape: q.memories_in_namespace(bundle, "_semantic", **shape),
        "memories_with_tag": lambda **shape: q.memories_with_tag(bundle, tag, **shape),
        "memories_about": lambda **shape: q.memories_about(bundle, entity, **shape),
        "memories_between": lambda **shape: q.memories_between(
            bundle, times[len(times) * 2 // 5], times[len(times) * 9 // 20], **shape
        ),
        "valid_at": lambda **shape: q.valid_at(bundle, middle, **shape),
        "valid_at known_at": lambda **shape: q.valid_at(bundle, middle, known_at=middle - timedelta(days=1), **shape),
        "recorded_by": lambda **shape: q.recorded_by(bundle, middle, **shape),
        "freshness": lambda **shape: q.freshness(bundle, times[-1] + timedelta(days=30), **shape),
        "neighbours out depth 2": lambda **shape: q.neighbours(bundle, start, depth=2, **shape),
        "neighbours relates-to both 2": lambda **shape: q.neighbours(
            bundle, start, "relates-to", direction="both", depth=2, **shape
        ),
        "supersession_chain": lambda **shape: q.supersession_chain(bundle, old, **shape),
        "current_version": lambda **shape: q.current_version(bundle, old, **shape),
        "conflicts": lambda **shape: q.conflicts(bundle, **shape),
        "trusted": lambda **shape: q.trusted(bundle, "verified", 0.9, **shape),
        "relationship_edges": lambda **shape: q.relationship_edges(bundle, **shape),
    }


class _Timeout(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _Timeout


def child(root: Path, store: str, repeat: int, helper_timeout: int) -> dict[str, Any]:
    """Load ``root`` into ``store`` and time every helper; runs in its own process."""
    from mif_rdf import load_bundle

    start = time.perf_counter()
    bundle = load_bundle(root, store=STORES[store], progress=False)
    report: dict[str, Any] = {"load": time.perf_counter() - start, "triples": len(bundle.dataset), "helpers": {}}
    report["rss_after_load"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    signal.signal(signal.SIGALRM, _on_alarm)
    for name, call in helper_calls(bundle).items():
        runs: list[float] = []
        rows, failure = None, None
        for _ in range(repeat):
            signal.alarm(helper_timeout)
            began = time.perf_counter()
            try:
                rows = len(call())
            except _Timeout:
                failure = f"over {helper_timeout} s"
            except RecursionError:
                failure = "RecursionError"
            finally:
                signal.alarm(0)
            if failure:
                break
            runs.append(time.perf_counter() - began)
        report["helpers"][name] = {"runs": runs, "rows": rows, "failure": failure}
    report["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return report


def against_evaluation(root: Path, names: list[str] | None, rounds: int) -> None:
    """Each helper as a Table, as an Arrow table, and Oxigraph's evaluation of its queries: interleaved rounds."""
    import pyarrow
    import pyoxigraph as ox

    from mif_rdf import load_bundle
    from mif_rdf.queries import native

    bundle = load_bundle(root, store=STORES["oxigraph"], progress=False)
    pyarrow.table({"warm": ["up"]})  # pyarrow's import and first table are no helper's time
    store = native.oxigraph_store(bundle.dataset)
    calls = helper_calls(bundle)
    unknown = set(names or ()) - set(calls)
    if unknown:
        raise SystemExit(f"--helpers: no helper {', '.join(sorted(unknown))}; the helpers: {', '.join(calls)}")
    print(f"{len(bundle.memories):,} memories, load average {_load_average()}, {rounds} rounds", flush=True)
    print(
        f"  {'helper':<30} {'rows':>7} {'evaluation':>11} {'Table':>7} {'Arrow':>7} {'CPU: Table':>11} {'Arrow':>7}"
        f" {'Arrow / +table':>15}"
    )
    for name in names or list(calls):
        call = calls[name]
        queries = recorded(native, store, call)
        evaluation = functools.partial(evaluate, store, queries, ox.QueryResultsFormat.TSV)
        runs = {
            "table": call,
            "arrow": lambda call=call: call(as_="arrow"),
            "evaluation": evaluation,
            "evaluation + Arrow": functools.partial(with_arrow_table, evaluation, arrow_columns(call), pyarrow),
        }
        once = min(timed_once(run) for run in runs.values() for _ in range(3))
        number = max(1, int(0.002 / max(once, 1e-6)))  # a turn of at least 2 ms: the clocks' reading is no part of it
        wall: dict[str, list[float]] = {label: [] for label in runs}
        cpu: dict[str, list[float]] = {label: [] for label in runs}
        labels = list(runs)
        for turn in range(rounds):
            for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:  # each goes first in turn
                run = runs[label]
                began, began_cpu = time.perf_counter(), time.process_time()
                for _ in range(number):
                    run()
                cpu[label].append((time.process_time() - began_cpu) / number)
                wall[label].append((time.perf_counter() - began) / number)
        floor, floor_cpu = statistics.median(wall["evaluation"]), statistics.median(cpu["evaluation"])
        arrow_floor = statistics.median(cpu["evaluation + Arrow"])
        print(
            f"  {name:<30} {len(call()):>7} {floor * 1000:>8.3f} ms"
            + "".join(f" {statistics.median(wall[label]) / floor:>6.2f}x" for label in ("table", "arrow"))
            + "".join(f" {statistics.median(cpu[label]) / floor_cpu:>10.2f}x" for label in ("table",))
            + f" {statistics.median(cpu['arrow']) / floor_cpu:>6.2f}x"
            + f" {statistics.median(cpu['arrow']) / arrow_floor:>14.2f}x",
            flush=True,
        )
    print(f"load average at the end {_load_average()}")


def arrow_columns(call: Callable[..., Any]) -> dict[str, tuple[list[Any], Any]]:
    """The columns of a helper's Arrow table as Python lists, with their Arrow types."""
    table = call(as_="arrow")
    return {name: (table.column(name).to_pylist(), table.schema.field(name).type) for name in table.column_names}


def evaluate(store: Any, queries: list[tuple[str, dict[str, Any]]], tsv: Any) -> list[bytes]:
    """Oxigraph's own evaluation of a helper's queries, each result serialized as TSV: a helper's floor."""
    return [store.query(text, **options).serialize(format=tsv) for text, options in queries]


def with_arrow_table(evaluation: Callable[[], Any], columns: dict[str, tuple[list[Any], Any]], pyarrow: Any) -> Any:
    """The floor of a helper's Arrow form: Oxigraph's evaluation, then pyarrow making a table of the same rows
    from Python lists already made (``columns``: name -> values and Arrow type), its cheapest way from values:
    an Arrow result pays for a table, whoever builds it."""
    evaluation()
    return pyarrow.table({name: pyarrow.array(values, type=kind) for name, (values, kind) in columns.items()})


def recorded(native: Any, store: Any, call: Callable[[], Any]) -> list[tuple[str, dict[str, Any]]]:
    """The queries (text and options) one call of a helper sends to Oxigraph, parts of a split query included."""
    sent: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def query(self, text: str, **options: Any) -> Any:
            sent.append((text, options))
            return store.query(text, **options)

    real = native.oxigraph_store
    native.oxigraph_store = lambda graph: Recorder()
    try:
        call()
    finally:
        native.oxigraph_store = real
    return sent


def timed_once(run: Callable[[], Any]) -> float:
    began = time.perf_counter()
    run()
    return time.perf_counter() - began


def _load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _median(runs: list[float], store: str) -> float:
    warm = runs[1:] if store == "rdflib" and len(runs) > 1 else runs
    return statistics.median(warm)


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def print_report(count: int, reports: dict[str, dict[str, Any]]) -> None:
    """One column per run (``rdflib``, ``oxigraph``, ``... baseline``), the ratio of the first two."""
    labels = list(reports)
    first = reports[labels[0]]
    print(f"\n{count:,} memories, {first['triples']:,} triples")
    for label, report in reports.items():
        print(
            f"  {label:<22} load {report['load']:8.1f} s   peak RSS {_gib(report['peak_rss']):>10} (after load: "
            f"{_gib(report['rss_after_load'])})"
        )
    ratio_label = f"{labels[0]}/{labels[1]}" if len(labels) > 1 else ""
    columns = "".join(
        f" {label + ' ms':>20}" + (f" {'(first)':>9}" if _store(label) == "rdflib" else "") for label in labels
    )
    print(f"  {'helper':<30} {'rows':>8}{columns} {ratio_label:>28}")
    for name in first["helpers"]:
        results = [reports[label]["helpers"][name] for label in labels]
        counted = {r["rows"] for r in results if not r["failure"]}
        rows = (
            "-"
            if not counted
            else str(counted.pop())
            if len(counted) == 1
            else "!=".join(str(r["rows"]) for r in results)
        )
        cells = ""
        for label, r in zip(labels, results):
            median = r["failure"] or f"{_median(r['runs'], _store(label)) * 1000:.1f}"
            cells += f" {median:>20}"
            if _store(label) == "rdflib":
                first_run = "" if r["failure"] else f"{r['runs'][0] * 1000:.1f}"
                cells += f" {first_run:>9}"
        ratio = ""
        if len(results) > 1 and not results[0]["failure"] and not results[1]["failure"]:
            left, right = (_median(results[i]["runs"], _store(labels[i])) for i in (0, 1))
            ratio = f"{left / max(right, 1e-6):.1f}"
        print(f"  {name:<30} {rows:>8}{cells} {ratio:>28}", flush=True)


def _store(label: str) -> str:
    return label.split()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="10000,100000", help="bundle sizes, comma-separated (default 10000,100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per helper (default 3)")
    parser.add_argument(
        "--helper-timeout", type=int, default=300, help="give up on one helper run after this many seconds"
    )
    parser.add_argument(
        "--data", type=Path, help="folder to keep generated bundles in (bundle-<count>/), reused across runs"
    )
    parser.add_argument(
        "--bundle", type=Path, help="the bundle folder itself (generated there if missing; one count only)"
    )
    parser.add_argument(
        "--stores", default=",".join(STORES), help="stores to run, comma-separated (default rdflib,oxigraph)"
    )
    parser.add_argument(
        "--baseline", type=Path, help="also run each store with the package from this source tree, first"
    )
    parser.add_argument(
        "--evaluation",
        action="store_true",
        help="each helper against Oxigraph's own evaluation of its queries, in interleaved rounds (one count)",
    )
    parser.add_argument("--helpers", help="with --evaluation: the helpers to measure, comma-separated (default all)")
    parser.add_argument("--rounds", type=int, default=101, help="with --evaluation: interleaved rounds (default 101)")
    parser.add_argument("--child", nargs=2, metavar=("ROOT", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.repeat, args.helper_timeout)))
        return 0

    from synthetic import generate_bundle

    if args.evaluation:
        count = int(args.counts.split(",")[0])
        names = [name.strip() for name in args.helpers.split(",") if name.strip()] if args.helpers else None
        with tempfile.TemporaryDirectory() as tmp:
            root = args.bundle or (args.data or Path(tmp)) / f"bundle-{count}"
            if not (root / ".mif").is_dir():
                print(f"generating {count:,} memories in {root} ...", flush=True)
                generate_bundle(root, count, seed=args.seed)
            against_evaluation(root, names, args.rounds)
        return 0

    counts = [int(c) for c in args.counts.split(",") if c.strip()]
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if not stores or any(s not in STORES for s in stores):
        parser.error(f"--stores takes {', '.join(STORES)}")
    if args.bundle is not None and len(counts) != 1:
        parser.error("--bundle takes one count")
    if args.baseline is not None and not (args.baseline / "mif_rdf").is_dir():
        parser.error(f"--baseline: no mif_rdf package in {args.baseline}")
    runs = [(f"{store} baseline", store, str(args.baseline.resolve())) for store in stores if args.baseline] + [
        (store, store, None) for store in stores
    ]
    runs.sort(key=lambda run: stores.index(run[1]))  # each store's baseline right before it
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data or Path(tmp)
        print(f"query benchmark ({sys.version.split()[0]}), repeat {args.repeat}, seed {args.seed}", flush=True)
        for count in counts:
            root = args.bundle or folder / f"bundle-{count}"
            if not (root / ".mif").is_dir():
                print(f"generating {count:,} memories in {root} ...", flush=True)
                generate_bundle(root, count, seed=args.seed)
            reports = {}
            for label, store, source in runs:
                command = [
                    sys.executable,
                    __file__,
                    "--child",
                    str(root),
                    store,
                    "--repeat",
                    str(args.repeat),
                    "--helper-timeout",
                    str(args.helper_timeout),
                ]
                env = (
                    None
                    if source is None
                    else {
                        **os.environ,
                        "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")])),
                    }
                )
                done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
                if done.returncode != 0:
                    print(f"{label} run failed:\n{done.stderr}", file=sys.stderr)
                    return 1
                reports[label] = json.loads(done.stdout.strip().splitlines()[-1])
            print_report(count, reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
