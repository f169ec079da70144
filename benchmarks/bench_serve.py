"""``mif-rdf serve`` at 10,000 memories: query latency against ``oxigraph serve``, and the delay from a saved file.

Generates the bundle (or reuses ``--data``) and starts the console script on a
free loopback port.

* **Latency** (issue 33): ``--clients`` clients (default 4), each on its own
  kept-alive connection, send ``--requests`` requests of a small SELECT (10
  rows) and of a mid-size one (1,000 rows, sorted); p50, p99 and throughput.
  Every request's text is distinct (a comment with the client and request
  number), so no cache of a query's text or answer helps either server.
  The baseline is ``oxigraph serve --union-default-graph`` holding the same
  quads (read from our ``/store``), started in the same run and asked the same
  queries the same way, in ``--rounds`` alternating rounds (the machine may be
  shared: the ratio is the median of the rounds' ratios, their range beside
  it).  Target: p50 at most 1.5x Oxigraph's.
* **Edit delay**: edits one memory at a time (a new title with a unique word)
  and polls the endpoint until an ASK for that word is true.  The delay
  includes the watcher's grouping of events (a batch is handed over once
  10 ms pass without a new event, at most 50 ms after the first), the
  incremental reload and its publication, and the polling query itself (a
  scan of every title, 8-15 ms at 10,000 memories).  Target: median under
  100 ms.

Usage::

    python benchmarks/bench_serve.py [--count 10000] [--edits 10] [--requests 200] [--clients 4] [--rounds 3]
                                     [--data DIR]

``--rounds 0`` measures the edit delay alone.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import serve_process  # noqa: E402
from oxigraph_server import free_port, oxigraph_command  # noqa: E402
from serve_process import ServeProcess  # noqa: E402

serve_process.READY_DEADLINE_S = 900.0  # loading 10,000 memories takes a minute or more on a busy machine

PREFIXES = "PREFIX dc: <http://purl.org/dc/terms/>\nPREFIX mif: <https://mif-spec.dev/ns/>\n"
#: the query, and the share of ``--requests`` it gets (Oxigraph takes seconds over the mid-size one at 10,000 memories)
QUERIES = {
    "small SELECT (10 rows)": (PREFIXES + "SELECT ?m ?title WHERE { ?m dc:title ?title } LIMIT 10", 1.0),
    "mid SELECT (1,000 rows, sorted)": (
        PREFIXES
        + "SELECT ?m ?type ?title WHERE { ?m mif:conceptType ?type ; dc:title ?title } ORDER BY ?title LIMIT 1000",
        0.025,
    ),
}


def ask(url: str, word: str) -> bool:
    query = f'ASK {{ ?m <http://purl.org/dc/terms/title> ?t FILTER(CONTAINS(?t, "{word}")) }}'
    request = urllib.request.Request(
        url + "?" + urllib.parse.urlencode({"query": query}), headers={"Accept": "text/csv"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read().strip() == b"true"


def latencies(url: str, query: str, clients: int, requests: int) -> tuple[list[float], float]:
    """Each client on one kept-alive connection, ``requests`` GETs each: every latency (s) and the wall time.

    Each request's text is distinct (a comment numbers it), so neither server answers from a cache of texts.
    """
    parts = urllib.parse.urlsplit(url)
    found: list[float] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        mine = []
        targets = [
            parts.path + "?" + urllib.parse.urlencode({"query": f"{query}\n# client {number} request {n}"})
            for n in range(requests)
        ]
        for target in targets:
            t0 = time.perf_counter()
            connection.request("GET", target, headers={"Accept": "application/sparql-results+json"})
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200 and body, (url, response.status, body[:200])
            mine.append(time.perf_counter() - t0)
        connection.close()
        with lock:
            found.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found, time.perf_counter() - started


def wait_until_answering(url: str) -> None:
    """Poll ``url`` (a server just started) until it answers, for at most a minute."""
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} did not start") from None
            time.sleep(0.1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def compare_with_oxigraph(server: ServeProcess, folder: Path, clients: int, requests: int, rounds: int) -> str:
    """The latency table: this server and ``oxigraph serve`` with the same quads, measured one after the other."""
    with urllib.request.urlopen(
        urllib.request.Request(server.url + "store", headers={"Accept": "application/n-quads"}), timeout=600
    ) as response:
        quads = response.read()
    location = folder / "oxigraph-baseline"
    subprocess.run(["rm", "-rf", str(location)], check=True)
    dump = folder / "served.nq"
    dump.write_bytes(quads)
    subprocess.run(
        [oxigraph_command(), "load", "--location", str(location), "--file", str(dump)], check=True, capture_output=True
    )
    port = free_port()
    baseline = subprocess.Popen(
        [
            oxigraph_command(),
            "serve",
            "--location",
            str(location),
            "--bind",
            f"127.0.0.1:{port}",
            "--union-default-graph",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        base_url = f"http://127.0.0.1:{port}/query"
        wait_until_answering(base_url)
        lines = [
            "| query | server | p50 | p99 | requests/s | p50 vs Oxigraph (median of rounds; range) |",
            "|---|---|---|---|---|---|",
        ]
        for label, (query, share) in QUERIES.items():
            count = max(2, round(requests * share))
            latencies(server.query_url, query, clients, 2)  # warm both
            latencies(base_url, query, clients, 2)
            measured: dict[str, tuple[list[float], float]] = {"mif-rdf serve": ([], 0.0), "oxigraph serve": ([], 0.0)}
            ratios = []
            for _ in range(rounds):  # alternating, so both see the same moments of a shared machine
                ours = latencies(server.query_url, query, clients, count)
                theirs = latencies(base_url, query, clients, count)
                ratios.append(percentile(ours[0], 0.5) / percentile(theirs[0], 0.5))
                for name, (values, wall) in (("mif-rdf serve", ours), ("oxigraph serve", theirs)):
                    measured[name] = (measured[name][0] + values, measured[name][1] + wall)
            ratio = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
            for name, (values, wall) in measured.items():
                lines.append(
                    f"| {label} | {name} | {percentile(values, 0.5) * 1000:.2f} ms | "
                    f"{percentile(values, 0.99) * 1000:.1f} ms | "
                    f"{len(values) / wall:.0f} | {ratio if name == 'mif-rdf serve' else ''} |"
                )
        return "\n".join(lines)
    finally:
        baseline.terminate()
        baseline.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument(
        "--requests", type=int, default=200, help="requests per client and round of the small query (default 200)"
    )
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds per server and query (default 3; 0: edits only)"
    )
    parser.add_argument("--data", type=Path, help="folder for the generated bundle (kept; reused when it holds one)")
    args = parser.parse_args(argv)
    from synthetic import generate_bundle

    folder = args.data or Path(tempfile.mkdtemp(prefix="mif-serve-bench-"))
    bundle = folder / "bundle"
    if not (bundle / ".mif").is_dir():
        print(f"generating {args.count:,} memories in {bundle} ...", file=sys.stderr, flush=True)
        generate_bundle(bundle, args.count, seed=1)
    paths = sorted(bundle.rglob("*.md"))
    paths = [p for p in paths if p.name not in ("index.md", "log.md")]
    started = time.perf_counter()
    with ServeProcess(bundle) as server:
        print(
            f"serving {len(paths):,} memories after {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True
        )
        load = os.getloadavg()[0]
        table = (
            compare_with_oxigraph(server, folder, args.clients, args.requests, args.rounds)
            if args.rounds > 0
            else "(no latency rounds: --rounds 0)"
        )
        time.sleep(1.0)  # the watcher starts listening just after the server
        rng = random.Random(7)
        delays = []
        for n in range(args.edits):
            path = rng.choice(paths)
            text = path.read_text(encoding="utf-8")
            # the generator leaves some memories untitled (title is optional), and _local ones are never served
            while "\ntitle: " not in text or "\nnamespace: _local" in text:
                path = rng.choice(paths)
                text = path.read_text(encoding="utf-8")
            word = f"benchmarkword{n}x{rng.randrange(10**9)}"
            edited = text.replace("\ntitle: ", f"\ntitle: {word} ", 1)
            t0 = time.perf_counter()
            path.write_text(edited, encoding="utf-8")
            while not ask(server.query_url, word):
                if time.perf_counter() - t0 > 60:
                    said = "".join(server.stderr[1:]) or "nothing"
                    raise SystemExit(f"edit {n} ({path}) not seen after 60 s; the server said: {said}")
                time.sleep(0.005)
            delays.append(time.perf_counter() - t0)
            time.sleep(0.2)
    print(
        f"{len(paths):,} memories, {args.clients} clients x {args.requests} requests per round of the small query "
        f"({max(2, round(args.requests * QUERIES['mid SELECT (1,000 rows, sorted)'][1]))} of the mid-size one), "
        f"{args.rounds} rounds; {os.cpu_count()} cores, load average {load:.1f} at the start\n\n{table}\n"
    )
    print(
        f"| memories | edits | median delay | max delay |\n|---|---|---|---|\n"
        f"| {len(paths):,} | {len(delays)} | {statistics.median(delays) * 1000:.0f} ms | {max(delays) * 1000:.0f} ms |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
