"""Validation benchmark: mif-rdf's SHACL engine against one pyshacl run over the whole graph.

Both check the same shapes (level 3 + OKF) on the same loaded dataset of a
generated bundle with seeded violations, and must find the same results (the
script checks it).  Prints both times and the speed-up; ratios travel, seconds
are for the record.  Usage::

    python benchmarks/bench_validation.py [--count N] [--seed S]
"""
from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
from pathlib import Path

from rdflib.namespace import SH

from mif_rdf import load_bundle
from mif_rdf.markdown import render_memory, split_frontmatter
from mif_rdf.synthetic import generate_bundle
from mif_rdf.validation.run import shacl_report
from mif_rdf.validation.shapes import shapes_graph
from mif_rdf.yamlio import load_yaml


def seed_violations(paths: list[Path], rng: random.Random, share: float = 0.05) -> int:
    """Break a few fields in a share of the memories (a wrong enum, a bad date, a range)."""
    breakers = [
        lambda fm: fm.update(created="2026-01-15"),
        lambda fm: fm["temporal"]["decay"].update(model="cubic"),
        lambda fm: fm["provenance"].update(confidence=1.7),
        lambda fm: fm.update(namespace="has space"),
    ]
    broken = 0
    for path in rng.sample(paths, int(len(paths) * share)):
        split = split_frontmatter(path.read_text(encoding="utf-8"))
        frontmatter = load_yaml(split.frontmatter).data
        try:
            rng.choice(breakers)(frontmatter)
        except (KeyError, TypeError):
            continue
        path.write_text(render_memory(frontmatter, split.body), encoding="utf-8")
        broken += 1
    return broken


def results(report) -> set:
    keys = (SH.focusNode, SH.resultPath, SH.value, SH.sourceShape, SH.sourceConstraintComponent)
    return {tuple(report.value(r, k) for k in keys) for r in report.subjects(SH.resultSeverity, None)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        paths = generate_bundle(Path(tmp), args.count, seed=args.seed)
        broken = seed_violations(paths, random.Random(args.seed))
        bundle = load_bundle(tmp, progress=False)
    shapes = shapes_graph(3)
    times = {}
    reports = {}
    for engine in ("fast", "pyshacl"):
        gc.collect()
        start = time.perf_counter()
        reports[engine] = shacl_report(bundle.dataset, shapes, engine)  # type: ignore[arg-type]
        times[engine] = time.perf_counter() - start
        print(f"  {engine:<8} {times[engine]:8.2f} s", flush=True)
    same = results(reports["fast"]) == results(reports["pyshacl"])
    print(f"\nvalidation, {args.count} memories ({len(bundle.dataset):,} triples), {broken} seeded violations, "
          f"{len(results(reports['fast']))} results, identical to pyshacl: {same}")
    print(f"{'case':<34}{'time s':>9}{'ratio':>10}")
    print(f"{'pyshacl, one run, whole graph':<34}{times['pyshacl']:9.2f}{1:9.2f}x")
    print(f"{'mif-rdf engine':<34}{times['fast']:9.2f}{times['pyshacl'] / times['fast']:9.2f}x faster   (target >= 5x)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
