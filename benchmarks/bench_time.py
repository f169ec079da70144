"""Time and change (issue 38): revisions through the cache, ``diff`` of two revisions, and what ``--as-of`` costs.

A generated bundle (tests/synthetic.py, 10,000 memories by default) is
committed to a scratch git repository, then 1 % of its memory files (100 at
10,000) get a new title and a second commit.  Every figure is a whole
``mif-rdf`` command in a fresh process, and each row is a ratio against a
baseline measured in the same run (the machine is small and shared: the
ratios are the result, seconds are for the record):

* the second of two adjacent revisions (``query --rev B`` after ``--rev A``, the cache on: its files go to
  the slot that held A, and the load cache parses only the changed files) vs the same revision cold
  (``--no-cache``), on each store; and the same with ``load_bundle(rev=...)`` in a fresh process, the load
  alone                                                                             [>= 5x faster]
* ``diff A B`` (text with the findings, ``--no-findings``, ``--format rdf-patch``), and ``diff A`` against
  the working tree (which holds B), which read only the files that differ (no cache involved), against the
  target                                                                            [< 5 s]
* ``query`` and ``export`` with ``--as-of`` vs without, the load cache warm           [<= 1.1x]

Usage::

    python benchmarks/bench_time.py [--count N] [--data DIR] [--rounds R] [--only revisions diff as-of]
                                    [--stores memory oxigraph]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the bundle generator, tests/synthetic.py

CLI = str(Path(sys.executable).parent / "mif-rdf")
QUERY = "SELECT ?type (COUNT(?m) AS ?n) WHERE { ?m mif:location ?l ; a ?type } GROUP BY ?type"
AS_OF = "2025-06-01"


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.org",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.org",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


def make_history(data: Path, count: int) -> tuple[Path, str, str, int]:
    """The repository (bundle at ``kb/``), its two commits, and how many memory files the second changed."""
    from synthetic import generate_bundle

    repo = data / f"repo-{count}"
    marker = repo / ".bench-ready"
    paths = None
    if not marker.exists():
        if repo.exists():
            subprocess.run(["rm", "-rf", str(repo)], check=True)
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
        paths = generate_bundle(repo / "kb", count)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "A")
        changed = sorted(paths)[:: max(1, len(paths) // max(1, count // 100))][: max(1, count // 100)]
        for path in changed:
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("\ntitle: ", "\ntitle: Revised ", 1), encoding="utf-8")
        git(repo, "commit", "-qam", "B")
        marker.write_text(str(len(changed)), encoding="utf-8")
    return repo / "kb", git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD"), int(marker.read_text())


def run(*args: str, cache_home: Path) -> float:
    """Seconds one ``mif-rdf`` command takes (its own process), the user cache folder at ``cache_home``."""
    return timed([CLI, *args], cache_home)


def load_revision(bundle: Path, rev: str, store: str, cache: bool, cache_home: Path) -> float:
    """Seconds a fresh Python process takes to import mif-rdf and ``load_bundle(bundle, rev=rev)``: the load
    alone, without what a command does after it (the Oxigraph store's first union query copies it whole)."""
    code = f"from mif_rdf import load_bundle; load_bundle({str(bundle)!r}, rev={rev!r}, store={store!r}, cache={cache})"
    return timed([sys.executable, "-c", code], cache_home)


def timed(command: list[str], cache_home: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return seconds


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--data", type=Path, help="a folder for the generated repository (kept between runs)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each timed command (median)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=("revisions", "diff", "as-of"),
        default=("revisions", "diff", "as-of"),
        help="the rows to measure (default: all)",
    )
    parser.add_argument(
        "--stores", nargs="+", choices=("memory", "oxigraph"), default=("memory", "oxigraph"), help="for the revisions"
    )
    args = parser.parse_args()
    data = args.data or Path(tempfile.mkdtemp(prefix="mif-rdf-bench-time-"))
    bundle, rev_a, rev_b, changed = make_history(data, args.count)
    print(f"{args.count} memories, {changed} files changed between the two revisions", file=sys.stderr)
    rows: list[tuple[str, float, float | None, str]] = []

    # -- the second of two adjacent revisions vs cold ----------------------------------------------------
    for store in args.stores if "revisions" in args.only else ():
        cold, second = [], []
        for round_ in range(args.rounds):
            home = data / f"cache-rev-{store}-{round_}"
            subprocess.run(["rm", "-rf", str(home)], check=True)
            query = ("query", str(bundle), "--store", store, "ASK {}")
            cold.append(run(*query, "--rev", rev_b, "--no-cache", cache_home=home))
            run(*query, "--rev", rev_a, cache_home=home)  # A into the cache (not timed)
            second.append(run(*query, "--rev", rev_b, cache_home=home))
        rows.append(
            (
                f"second adjacent revision, {store} store (query --rev B after A) vs cold",
                median(second),
                median(cold),
                ">= 5x",
            )
        )
        cold, second = [], []
        for round_ in range(args.rounds):
            home = data / f"cache-load-{store}-{round_}"
            subprocess.run(["rm", "-rf", str(home)], check=True)
            cold.append(load_revision(bundle, rev_b, store, False, home))
            load_revision(bundle, rev_a, store, True, home)  # A into the cache (not timed)
            second.append(load_revision(bundle, rev_b, store, True, home))
        rows.append(
            (
                f"second adjacent revision, {store} store (load_bundle rev=B after A) vs cold",
                median(second),
                median(cold),
                ">= 5x",
            )
        )

    # -- diff of the two revisions --------------------------------------------------------------------------
    diffs = (
        ((rev_a, rev_b), "diff A B (text, with findings)"),
        ((rev_a, rev_b, "--no-findings"), "diff A B --no-findings"),
        ((rev_a, rev_b, "--format", "rdf-patch"), "diff A B --format rdf-patch"),
        ((rev_a,), "diff A (against the working tree, which holds B; text, with findings)"),
        ((rev_a, "--format", "rdf-patch"), "diff A (working tree) --format rdf-patch"),
    )
    for options, label in diffs if "diff" in args.only else ():  # only the changed files are read: no cache
        home = data / "cache-diff"
        subprocess.run(["rm", "-rf", str(home)], check=True)
        seconds = median([run("diff", str(bundle), *options, cache_home=home) for _ in range(args.rounds)])
        rows.append((label, seconds, None, "< 5 s"))

    # -- --as-of on a query and an export, the load cache warm -----------------------------------------------
    home = data / "cache-asof"
    out = data / "out"
    out.mkdir(exist_ok=True)
    if "as-of" in args.only:
        run("query", str(bundle), "ASK {}", cache_home=home)  # the cache primed
    cases = (
        ("query", ["query", str(bundle), QUERY, "--format", "csv"]),
        ("export", ["export", str(bundle), "-o", str(out / "export.nq")]),
    )
    for name, command in cases if "as-of" in args.only else ():
        plain, as_of = [], []
        for _ in range(args.rounds):  # interleaved, so drift on the shared machine falls on both alike
            plain.append(run(*command, cache_home=home))
            as_of.append(run(*command, "--as-of", AS_OF, cache_home=home))
        rows.append((f"{name} --as-of vs without (cache warm)", median(as_of), median(plain), "<= 1.1x"))

    print("| case | size | ours (s) | baseline (s) | ratio | target |")
    print("|---|---:|---:|---:|---:|---|")
    for case, ours, baseline, target in rows:
        if baseline is None:
            print(f"| {case} | {args.count:,} | {ours:.2f} | | | {target} |")
        else:
            faster = target.startswith(">=")
            ratio = baseline / ours if faster else ours / baseline
            print(f"| {case} | {args.count:,} | {ours:.2f} | {baseline:.2f} | {ratio:.2f}x | {target} |")


if __name__ == "__main__":
    main()
