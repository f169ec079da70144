"""Query benchmark: helper latencies on rdflib's store and engine against Oxigraph's.

For each size (default 10,000 and 100,000 generated memories, every field
family) and each store, a fresh child process loads the bundle and runs every
query helper ``--repeat`` times, so load time and peak memory are measured per
store, not accumulated.  Printed per helper: rows, the median latency on each
store and the ratio rdflib/oxigraph; plus load times and peak RSS.  The first
run of a helper is left out of the median on rdflib (it parses the query;
later runs reuse the parse) and reported separately.  The machine is small and
shared: ratios travel, absolute figures are for the record.  Usage::

    python benchmarks/bench_queries.py [--counts 10000,100000] [--repeat 3] [--data DIR]

A helper that fails (rdflib's RecursionError, say) or outlives
``--helper-timeout`` seconds is reported as such instead of a latency.
"""
from __future__ import annotations

import argparse
import json
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

STORES = {"rdflib": "default", "oxigraph": "Oxigraph"}


def _when(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def helper_calls(bundle: Any) -> dict[str, Callable[[], Any]]:
    """Every helper with arguments drawn from the bundle, the same on every store (same files, same seed)."""
    from mif_rdf import queries as q

    memories = sorted(bundle.memories.values(), key=lambda m: m.relpath)
    times = sorted(_when(m.frontmatter["created"]) for m in memories)
    middle = times[len(times) // 2]
    tag = Counter(t for m in memories[:500] for t in m.frontmatter.get("tags", [])).most_common(1)[0][0]
    entity = Counter(r["entity"]["@id"] for m in memories[:500] for r in m.frontmatter.get("entities", [])).most_common(1)[0][0]
    start = next(m.iri for m in memories if len(m.frontmatter.get("relationships", [])) >= 3)
    old = next(r["target"] for m in memories for r in m.frontmatter.get("relationships", []) if r["type"] == "supersedes" and r["target"].startswith("urn:mif:"))
    return {
        "memories_of_type": lambda: q.memories_of_type(bundle, "procedural"),
        "memories_in_namespace": lambda: q.memories_in_namespace(bundle, "_semantic"),
        "memories_with_tag": lambda: q.memories_with_tag(bundle, tag),
        "memories_about": lambda: q.memories_about(bundle, entity),
        "memories_between": lambda: q.memories_between(bundle, times[len(times) * 2 // 5], times[len(times) * 9 // 20]),
        "valid_at": lambda: q.valid_at(bundle, middle),
        "valid_at known_at": lambda: q.valid_at(bundle, middle, known_at=middle - timedelta(days=1)),
        "recorded_by": lambda: q.recorded_by(bundle, middle),
        "freshness": lambda: q.freshness(bundle, times[-1] + timedelta(days=30)),
        "neighbours out depth 2": lambda: q.neighbours(bundle, start, depth=2),
        "neighbours relates-to both 2": lambda: q.neighbours(bundle, start, "relates-to", direction="both", depth=2),
        "supersession_chain": lambda: q.supersession_chain(bundle, old),
        "current_version": lambda: q.current_version(bundle, old),
        "conflicts": lambda: q.conflicts(bundle),
        "trusted": lambda: q.trusted(bundle, "verified", 0.9),
        "relationship_edges": lambda: q.relationship_edges(bundle),
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


def _median(runs: list[float], store: str) -> float:
    warm = runs[1:] if store == "rdflib" and len(runs) > 1 else runs
    return statistics.median(warm)


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def print_report(count: int, reports: dict[str, dict[str, Any]]) -> None:
    rdf, oxi = reports["rdflib"], reports["oxigraph"]
    print(f"\n{count:,} memories, {rdf['triples']:,} triples")
    print(f"  load         rdflib {rdf['load']:8.1f} s    oxigraph {oxi['load']:8.1f} s    ratio {rdf['load'] / oxi['load']:5.2f}")
    print(f"  peak RSS     rdflib {_gib(rdf['peak_rss']):>10}    oxigraph {_gib(oxi['peak_rss']):>10}    (after load: {_gib(rdf['rss_after_load'])} / {_gib(oxi['rss_after_load'])})")
    print(f"  {'helper':<30} {'rows':>8} {'rdflib ms':>11} {'(first)':>9} {'oxigraph ms':>12} {'rdflib/oxigraph':>16}")
    for name, r in rdf["helpers"].items():
        o = oxi["helpers"][name]
        rows = r["rows"] if r["rows"] == o["rows"] or r["failure"] else f"{r['rows']}!={o['rows']}"
        left = r["failure"] or f"{_median(r['runs'], 'rdflib') * 1000:11.1f}"
        first = "" if r["failure"] else f"{r['runs'][0] * 1000:9.1f}"
        right = o["failure"] or f"{_median(o['runs'], 'oxigraph') * 1000:12.1f}"
        ratio = "" if r["failure"] or o["failure"] else f"{_median(r['runs'], 'rdflib') / max(_median(o['runs'], 'oxigraph'), 1e-6):16.1f}"
        print(f"  {name:<30} {rows if rows is not None else '-':>8} {left:>11} {first:>9} {right:>12} {ratio:>16}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="10000,100000", help="bundle sizes, comma-separated (default 10000,100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per helper (default 3)")
    parser.add_argument("--helper-timeout", type=int, default=300, help="give up on one helper run after this many seconds")
    parser.add_argument("--data", type=Path, help="folder to keep generated bundles in (bundle-<count>/), reused across runs")
    parser.add_argument("--child", nargs=2, metavar=("ROOT", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.repeat, args.helper_timeout)))
        return 0

    from mif_rdf.synthetic import generate_bundle

    counts = [int(c) for c in args.counts.split(",") if c.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data or Path(tmp)
        print(f"query benchmark ({sys.version.split()[0]}), repeat {args.repeat}, seed {args.seed}", flush=True)
        for count in counts:
            root = folder / f"bundle-{count}"
            if not (root / ".mif").is_dir():
                print(f"generating {count:,} memories in {root} ...", flush=True)
                generate_bundle(root, count, seed=args.seed)
            reports = {}
            for store in STORES:
                command = [sys.executable, __file__, "--child", str(root), store, "--repeat", str(args.repeat), "--helper-timeout", str(args.helper_timeout)]
                done = subprocess.run(command, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    print(f"{store} run failed:\n{done.stderr}", file=sys.stderr)
                    return 1
                reports[store] = json.loads(done.stdout.strip().splitlines()[-1])
            print_report(count, reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
