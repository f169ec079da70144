"""Ontology compile memory against the YAML's size (issue 39 item 6: under 20x), at two sizes.

Each measurement runs in a fresh process that first compiles ``mif-base`` (so
every module is imported), then the generated ontology
(``tests/synthetic_ontology.py``, the shape of the issue's 164,022-type file:
about 320 bytes a type); the peak resident memory it grows by is divided by
the file's size.  Rows: ``mif-rdf ontology compile -o X.ttl --shapes Y.ttl``
(the text route) and, as the baseline of the same run, the graph compile of
the Python API (``compile_ontologies`` with ``merged()`` and ``shapes``: what
the command did before, rdflib graphs), at the smaller size only (it takes
about 1 KB a triple).  Both sizes must compose past ``STREAM_ONTOLOGY_FIELDS``
(2,000 fields; about 400 generated types): below it the command still builds
graphs (pretty Turtle), at most about 100 MB.  Usage::

    python benchmarks/bench_ontology_memory.py [--types 2000,20000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from synthetic_ontology import ontology_yaml  # noqa: E402  (the generator lives beside the tests)

RUN = """
import json, resource, sys, time
from pathlib import Path
path, out, how = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
if how == "graphs":
    import mif_rdf.ontology.compiler as compiler
    compiler.MAX_ONTOLOGY_FIELDS = 10**9  # the baseline: what a compile into graphs takes
    compiler.compile_ontologies(["mif-base"]).merged()
else:
    from mif_rdf.cli.main import main
    main(["ontology", "compile", "mif-base", "-o", str(out / "w.ttl"), "--shapes", str(out / "ws.ttl"), "-q"])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if how == "graphs":
    result = compiler.compile_ontologies([path])
    result.merged(), result.shapes
else:
    main(["ontology", "compile", str(path), "-o", str(out / "o.ttl"), "--shapes", str(out / "s.ttl"), "-q"])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grown": (peak - base) * 1024, "seconds": time.perf_counter() - start}))
"""


def measure(path: Path, how: str, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(path), str(out), how], capture_output=True, text=True, check=True, cwd=ROOT
    )
    found: dict[str, float] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", default="2000,20000", help="entity types of the two generated ontologies")
    args = parser.parse_args()
    sizes = [int(n) for n in args.types.split(",")]
    print(f"{'case':66} {'YAML':>9} {'grown':>9} {'ratio':>7} {'seconds':>8}   target")
    with tempfile.TemporaryDirectory(prefix="mif-rdf-bench-") as folder:
        out = Path(folder)
        for index, types in enumerate(sizes):
            path = out / f"t{types}" / "big.ontology.yaml"
            path.parent.mkdir()
            path.write_text(ontology_yaml(types))
            size = path.stat().st_size
            for how in ["text", "graphs"] if index == 0 else ["text"]:
                found = measure(path, how, out)
                case = f"compile {types:,} entity types, " + (
                    "ontology compile -o .ttl --shapes .ttl" if how == "text" else "baseline: graphs (Python API)"
                )
                target = "< 20x" if how == "text" else ""
                print(
                    f"{case:66} {size / 1e6:7.2f}MB {found['grown'] / 1e6:7.1f}MB {found['grown'] / size:6.1f}x "
                    f"{found['seconds']:8.1f}   {target}"
                )


if __name__ == "__main__":
    main()
