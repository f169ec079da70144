"""The floor under ``mif-rdf serve``'s latency: a constant answer on the same uvicorn stack, against ``oxigraph serve``.

``bench_serve.py`` compares the real server with ``oxigraph serve``; this
says how much of the gap is the stack itself.  Each server answers the same
small SELECT (distinct text per request, 4 kept-alive clients, alternating
rounds): ``oxigraph serve`` over the given store, and a constant ASGI
answer on uvicorn with h11, with httptools, and with httptools plus a hop to
a worker thread and back (as serve's query path makes).  docs/decisions.md
("Where 1.5x of oxigraph serve is out of reach") has a run.

Usage (the store is the one bench_serve.py leaves in its --data folder)::

    python benchmarks/bench_serve_floor.py DATA/oxigraph-baseline [--requests 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import statistics
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_serve import QUERIES, latencies, percentile, wait_until_answering  # noqa: E402
from oxigraph_server import free_port, oxigraph_command  # noqa: E402

BODY = b'{"head":{"vars":["m","title"]},"results":{"bindings":[]}}'
STACKS = {"uvicorn h11, constant": ("h11", False), "uvicorn httptools, constant": ("httptools", False)}
STACKS["uvicorn httptools, constant via a worker thread"] = ("httptools", True)


def constant_app(port: int, http: str, hop: bool) -> None:
    """Serve BODY for every request (in this process, until it is terminated)."""
    import uvicorn

    work: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[bytes]]] = queue.SimpleQueue()

    def worker() -> None:
        while True:
            loop, future = work.get()
            loop.call_soon_threadsafe(future.set_result, BODY)

    for _ in range(2):
        threading.Thread(target=worker, daemon=True).start()
    headers = [(b"content-type", b"application/sparql-results+json"), (b"content-length", str(len(BODY)).encode())]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = BODY
        if hop:
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            work.put((loop, future))
            body = await future
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    uvicorn.run(app, host="127.0.0.1", port=port, http=http, lifespan="off", access_log=False, proxy_headers=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", type=Path, help="an Oxigraph store folder (bench_serve.py's oxigraph-baseline)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "HTTP", "HOP"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        constant_app(int(args.serve[0]), args.serve[1], args.serve[2] == "1")
        return 0
    query = QUERIES["small SELECT (10 rows)"][0]
    processes = []
    try:
        port = free_port()
        bind = f"127.0.0.1:{port}"
        command = [oxigraph_command(), "serve", "--location", str(args.store), "--bind", bind, "--union-default-graph"]
        processes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        urls = {"oxigraph serve": f"http://127.0.0.1:{port}/query"}
        for name, (http, hop) in STACKS.items():
            port = free_port()
            serve = [sys.executable, __file__, str(args.store), "--serve", str(port), http, "1" if hop else "0"]
            processes.append(subprocess.Popen(serve, stderr=subprocess.DEVNULL))
            urls[name] = f"http://127.0.0.1:{port}/query"
        for url in urls.values():
            wait_until_answering(url)
            latencies(url, query, 4, 5)
        found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in urls}
        for _ in range(args.rounds):
            for name, url in urls.items():
                values, wall = latencies(url, query, 4, args.requests)
                found[name].append((percentile(values, 0.5), percentile(values, 0.99), len(values) / wall))
        print("| server | p50 | p99 | requests/s | p50 vs Oxigraph (median of rounds; range) |\n|---|---|---|---|---|")
        for name, rows in found.items():
            ratios = [row[0] / base[0] for row, base in zip(rows, found["oxigraph serve"], strict=True)]
            p50, p99, rate = (statistics.median(r[i] for r in rows) for i in range(3))
            print(
                f"| {name} | {p50 * 1000:.2f} ms | {p99 * 1000:.1f} ms | {rate:.0f} | "
                f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |"
            )
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
