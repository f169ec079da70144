"""Reasoning benchmark: the fast profile against owlrl's OWL 2 RL closure.

For one generated bundle (default 10,000 memories) it times
``infer(bundle, "fast")`` and owlrl's OWL 2 RL closure.  owlrl's cost grows
about quadratically with the graph (DESIGN section 8: RDFS on 10,000 whole
memories takes over 15 minutes), so owlrl is run on the links graph plus the
ontology only (``scope="links"``), and the output says so.  The two must agree
on the triples the fast rules speak about; the benchmark checks that too.
Usage::

    python benchmarks/bench_reasoning.py [--count N] [--seed S] [--data DIR] [--skip-owlrl]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rdflib import URIRef
from rdflib.namespace import RDF

from mif_rdf import load_bundle
from mif_rdf.reasoning import fast_closure, infer, ontology_graph, owlrl_closure

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the bundle generator, tests/synthetic.py
from synthetic import generate_bundle

T = TypeVar("T")


def timed(label: str, run: Callable[[], T]) -> tuple[T, float]:
    gc.collect()
    start = time.perf_counter()
    value = run()
    seconds = time.perf_counter() - start
    print(f"  {label:<58} {seconds:8.2f} s", flush=True)
    return value, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, help="bundle folder to (re)use; default: a temporary folder")
    parser.add_argument("--skip-owlrl", action="store_true", help="time the fast profile only")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp) / "bundle"
        if not (root / ".mif").is_dir():
            generate_bundle(root, args.count, args.seed)
        bundle, _ = timed(f"load {args.count:,} memories", lambda: load_bundle(root, progress=False))
        links = len(bundle.links)
        print(f"  links graph: {links:,} triples; dataset: {len(bundle.dataset):,} triples")
        count, fast_seconds = timed("infer(bundle, 'fast')  [links graph + ontology]", lambda: infer(bundle, "fast"))
        print(f"  fast profile: {count:,} inferred triples")
        if args.skip_owlrl:
            return 0
        ontology = ontology_graph(bundle)
        owl, owl_seconds = timed(
            "owlrl OWL 2 RL closure  [restricted to links graph + ontology]",
            lambda: owlrl_closure(bundle.links, ontology, "owlrl"),
        )
        nodes = {s for s, _, _ in bundle.links}
        comparable = {t for t in owl if t[0] in nodes and (t[1] != RDF.type or isinstance(t[2], URIRef))}
        same = comparable == fast_closure(bundle.links, ontology)
        print(f"  owlrl: {len(owl):,} inferred triples, {len(comparable):,} about the bundle's memories and entities")
        print(f"  fast == owlrl on the fast rules' triples: {same}")
        print(f"  owlrl (links graph only) / fast: {owl_seconds / fast_seconds:.1f}x slower")
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
