"""Start-up benchmark: how long ``mif-rdf --help`` and ``--version`` take, and what they import.

The target (issue 19 item 5) is under 0.3 s for both.  Wall times on a small,
noisy machine drift, so each figure is the median of interleaved runs and is
printed beside two baselines measured in the same run: the bare interpreter
(``python -c pass``) and ``import rdflib`` (which the package needs to teach
rdflib the ``mif`` format).  ``python -X importtime`` then lists the heaviest
modules ``--help`` imports, so a regression shows where it comes from, and
the check that pyld, pyshacl, owlrl and pyoxigraph are not among them.
Usage::

    python benchmarks/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

CLI = str(Path(sys.executable).parent / "mif-rdf")
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import rdflib": [sys.executable, "-c", "import rdflib"],
    "mif-rdf --version": [CLI, "--version"],
    "mif-rdf --help": [CLI, "--help"],
}
#: modules a --help must never load: each belongs to one command's work
HEAVY = ("pyld", "pyshacl", "owlrl", "pyoxigraph", "oxrdflib", "rdflib.plugins.sparql", "yaml")


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def imports_of_help() -> list[tuple[int, str]]:
    """(cumulative microseconds, module) for every module ``mif-rdf --help`` imports, heaviest first."""
    code = (
        "import sys; sys.argv = ['mif-rdf', '--help']\nfrom mif_rdf.cli.main import main\ntry:\n    main()\n"
        "except SystemExit:\n    pass\n"
    )
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    ).stderr
    rows = [re.match(r"import time:\s+\d+ \|\s+(\d+) \|(\s*)(\S+)", line) for line in err.splitlines()]
    return sorted(((int(m.group(1)), m.group(3)) for m in rows if m), reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):  # interleaved, so a busy moment hits every case alike
        for name, command in CASES.items():
            times[name].append(timed(command))
    base = statistics.median(times["python -c pass"])
    print(f"{'case':<20} {'median s':>9} {'vs python':>10}   target")
    for name, runs in times.items():
        median = statistics.median(runs)
        target = "< 0.3 s: " + ("met" if median < 0.3 else "MISSED") if name.startswith("mif-rdf") else ""
        print(f"{name:<20} {median:>9.3f} {median / base:>9.1f}x   {target}")
    modules = imports_of_help()
    print("\nheaviest imports of mif-rdf --help (cumulative ms):")
    for micros, module in modules[:8]:
        print(f"  {micros / 1000:8.1f}  {module}")
    loaded = {module for _, module in modules}
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    print(f"\nheavy modules loaded by --help: {', '.join(heavy) or 'none'}")
    return 1 if heavy else 0


if __name__ == "__main__":
    sys.exit(main())
