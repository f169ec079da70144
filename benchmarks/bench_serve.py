"""How long from a saved file to a query that sees it, under ``mif-rdf serve``, at 10,000 memories.

Generates the bundle (or reuses ``--data``), starts the console script on a
free loopback port, then edits one memory at a time (a new title with a
unique word) and polls the SPARQL endpoint until an ASK for that word is
true.  The delay includes the watcher's grouping of events (50 ms), the
incremental reload and its publication.  Usage::

    python benchmarks/bench_serve.py [--count 10000] [--edits 10] [--data DIR]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from serve_process import ServeProcess  # noqa: E402


def ask(url: str, word: str) -> bool:
    query = f'ASK {{ ?m <http://purl.org/dc/terms/title> ?t FILTER(CONTAINS(?t, "{word}")) }}'
    request = urllib.request.Request(url + "?" + urllib.parse.urlencode({"query": query}), headers={"Accept": "text/csv"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read().strip() == b"true"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--data", type=Path, help="folder for the generated bundle (kept; reused when it holds one)")
    args = parser.parse_args(argv)
    from mif_rdf.synthetic import generate_bundle

    folder = args.data or Path(tempfile.mkdtemp(prefix="mif-serve-bench-"))
    bundle = folder / "bundle"
    if not (bundle / ".mif").is_dir():
        print(f"generating {args.count:,} memories in {bundle} ...", file=sys.stderr, flush=True)
        generate_bundle(bundle, args.count, seed=1)
    paths = sorted(bundle.rglob("*.md"))
    paths = [p for p in paths if p.name not in ("index.md", "log.md")]
    started = time.perf_counter()
    with ServeProcess(bundle) as server:
        print(f"serving {len(paths):,} memories after {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        time.sleep(1.0)  # the watcher starts listening just after the server
        rng = random.Random(7)
        delays = []
        for n in range(args.edits):
            path = rng.choice(paths)
            text = path.read_text(encoding="utf-8")
            word = f"benchmarkword{n}x{rng.randrange(10**9)}"
            edited = text.replace("\ntitle: ", f"\ntitle: {word} ", 1)
            assert edited != text, f"{path} has no title line"
            t0 = time.perf_counter()
            path.write_text(edited, encoding="utf-8")
            while not ask(server.query_url, word):
                if time.perf_counter() - t0 > 60:
                    raise SystemExit(f"edit {n} not seen after 60 s")
                time.sleep(0.005)
            delays.append(time.perf_counter() - t0)
            time.sleep(0.2)
    print(f"| memories | edits | median delay | max delay |\n|---|---|---|---|\n"
          f"| {len(paths):,} | {len(delays)} | {statistics.median(delays) * 1000:.0f} ms | {max(delays) * 1000:.0f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
