"""Load benchmark: the fast loader against the pyld path and the two floors.

Prints, for one generated bundle (default 10,000 memories, every field family):

* fast loader, default rdflib store      -- what ``load_bundle()`` costs
* pyld path, default rdflib store         -- the same load through pyld's toRdf
* parse floor  -- read + split + YAML C-loader of the same files, nothing else
* store floor  -- rdflib adding the same, already built quads to a fresh Dataset

as ratios measured in the same run (the machine is small and noisy; ratios
travel, absolute seconds are for the record).  Usage::

    python benchmarks/bench_load.py [--count N] [--seed S] [--skip-pyld] [--data DIR]
"""
from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from mif_rdf import load_bundle, new_dataset
from mif_rdf.markdown import split_frontmatter
from mif_rdf.parse import discover
from mif_rdf.synthetic import generate_bundle
from mif_rdf.yamlio import load_yaml


def timed(label: str, run: Callable[[], object], results: dict[str, float]) -> object:
    gc.collect()
    start = time.perf_counter()
    value = run()
    results[label] = time.perf_counter() - start
    print(f"  {label:<28} {results[label]:8.2f} s", flush=True)
    return value


def parse_floor(root: Path) -> int:
    count = 0
    for relpath in discover(root).memories:
        text = (root / relpath).read_bytes().decode("utf-8")
        load_yaml(split_frontmatter(text).frontmatter)
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-pyld", action="store_true", help="skip the slow pyld path")
    parser.add_argument("--data", type=Path, help="bundle folder to (re)use; default: a temporary folder")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp) / "bundle"
        if not (root / ".mif").is_dir():
            print(f"generating {args.count} memories in {root} ...", flush=True)
            generate_bundle(root, args.count, seed=args.seed)
        results: dict[str, float] = {}
        print(f"load benchmark, {args.count} memories ({sys.version.split()[0]}):")
        bundle = timed("fast loader", lambda: load_bundle(root, progress=False), results)
        triples = len(bundle.dataset)  # type: ignore[attr-defined]
        quads = [(s, p, o, g) for s, p, o, g in bundle.dataset.quads((None, None, None, None))]  # type: ignore[attr-defined]
        del bundle

        def store_floor() -> None:  # with the collector paused, as the loader does
            dataset = new_dataset()
            graphs = {}
            gc.disable()
            try:
                dataset.addN((s, p, o, graphs.get(g) if g in graphs else graphs.setdefault(g, dataset.graph(g))) for s, p, o, g in quads)
            finally:
                gc.enable()

        timed("store floor (addN only)", store_floor, results)
        timed("parse floor (YAML C loader)", lambda: parse_floor(root), results)
        if not args.skip_pyld:
            timed("pyld path", lambda: load_bundle(root, engine="pyld", progress=False), results)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    fast = results["fast loader"]
    print(f"\ntriples: {triples:,}   peak RSS: {peak:,.0f} MiB")
    print(f"{'case':<32}{'time s':>9}{'ratio':>10}")
    if "pyld path" in results:
        print(f"{'pyld path / fast loader':<32}{results['pyld path']:9.2f}{results['pyld path'] / fast:9.2f}x   (target >= 2.5x)")
    print(f"{'fast loader / store floor':<32}{fast:9.2f}{fast / results['store floor (addN only)']:9.2f}x")
    print(f"{'fast loader / parse floor':<32}{fast:9.2f}{fast / results['parse floor (YAML C loader)']:9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
