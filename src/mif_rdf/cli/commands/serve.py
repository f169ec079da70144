"""``mif-rdf serve``: a bundle as a live, read-only SPARQL endpoint and a page for people."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from mif_rdf.cli.commands import _audience, _common
from mif_rdf.core.errors import MifRdfError

ORDER = 45
DEFAULT_PORT = 7879


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "serve",
        help="serve a bundle: live SPARQL endpoint, Graph Store reads and a page at /, kept in sync with the files",
        description="Load a bundle into Oxigraph and serve it over HTTP: the SPARQL 1.1 Protocol at /query (GET and "
        "POST, "
        "every result format Oxigraph writes, by content negotiation; the default graph is the union of all graphs), "
        "Graph Store Protocol reads at /store, a service description (GET /query), and a page for people at /. "
        "Read-only (no SPARQL Update, no Graph Store writes) unless --writable. Edits, new, moved and deleted files "
        "are picked up as they "
        "happen; a file that stops loading keeps its last good version served. Stop with Ctrl-C.",
    )
    _common.bundle_options(parser, store=False)
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)"
    )
    parser.add_argument(
        "--bind",
        default="127.0.0.1",
        metavar="ADDRESS",
        help=(
            "address to listen on (default 127.0.0.1: this machine only; any other address is reachable by others, "
            "and warned about)"
        ),
    )
    parser.add_argument(
        "--include-local",
        action="store_true",
        help="also serve _local memories (spec 10.2: local only; left out by default)",
    )
    _audience.audience_options(parser)
    _common.as_of_option(parser)
    parser.add_argument(
        "--allow-service",
        action="store_true",
        help="let SERVICE clauses fetch from other SPARQL endpoints (refused by default)",
    )
    parser.add_argument(
        "--shapes",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help=(
            "also apply your own SHACL shapes from this file to the findings the page shows (as validate --shapes; "
            "repeatable), checked against SHACL's shapes for shapes first"
        ),
    )
    parser.add_argument(
        "--writable",
        action="store_true",
        help=(
            "accept SPARQL Update on /update and write it back to the files as 'mif-rdf update' does; clients send "
            "the token printed at start-up (Authorization: Bearer TOKEN or X-MIF-RDF-Token); see docs/writeback.md"
        ),
    )
    parser.add_argument(
        "--no-watch", action="store_true", help="serve the bundle as loaded; do not follow file changes"
    )
    parser.add_argument("--log", action="store_true", help="log every request on standard error")
    parser.add_argument(
        "--query-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="stop a request that has not answered within this time (default 30): 503 with the reason",
    )
    parser.add_argument(
        "--max-concurrent",
        type=int,
        default=os.cpu_count() or 2,
        metavar="N",
        help=(
            "requests reading the bundle at once (default: the number of cores); others wait up to 2 s, then get "
            "503 with Retry-After"
        ),
    )
    parser.add_argument(
        "--max-result-mb",
        type=float,
        default=256,
        metavar="MB",
        help="largest answer sent (default 256 MB); a larger one is cut",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "also answer requests whose Host is NAME (a reverse proxy's name; repeatable; '*' for any). Others than "
            "loopback and --bind get 403"
        ),
    )
    parser.add_argument(
        "--cors",
        action="append",
        default=[],
        metavar="ORIGIN",
        help=(
            "let web pages from ORIGIN (e.g. http://localhost:3000) read the endpoint (repeatable); other origins "
            "get 403"
        ),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from mif_rdf.serve import is_loopback, start, stop
    except ModuleNotFoundError as exc:
        if exc.name not in ("watchfiles", "pyoxigraph", "oxrdflib", "uvicorn", "h11", "httptools"):
            raise
        raise MifRdfError(
            f"serve needs the serve extra (missing module {exc.name}): pip install 'mif-rdf[serve]'"
        ) from None

    if not 0 <= args.port <= 65535:
        raise MifRdfError(f"--port {args.port}: a TCP port is 0 to 65535")
    if args.query_timeout <= 0 or args.max_concurrent < 1 or args.max_result_mb <= 0:
        raise MifRdfError("--query-timeout, --max-concurrent and --max-result-mb must be positive")
    from mif_rdf.serve import ServerLimits

    limits = ServerLimits(
        max_concurrent=args.max_concurrent,
        query_timeout=args.query_timeout,
        max_result_bytes=int(args.max_result_mb * 2**20),
    )
    if args.shapes:
        from mif_rdf.validation import load_shapes

        load_shapes(args.shapes)  # an unreadable file or an ill-formed shape stops here, before the bundle loads
    audience = _audience.audience_of(args, Path(args.bundle))  # a party the bundle does not name: said before loading
    bundle = _common.load(args)
    if not is_loopback(args.bind):
        print(
            f"warning: serving on {args.bind}: anyone who can reach this address can read the bundle (no "
            "authentication, "
            "no encryption); use the default 127.0.0.1 to keep it on this machine",
            file=sys.stderr,
        )
    server, watcher = start(
        bundle,
        bind=args.bind,
        port=args.port,
        include_local=args.include_local,
        allow_service=args.allow_service,
        watch=not args.no_watch,
        quiet=not args.log,
        limits=limits,
        allow_hosts=args.allow_host,
        cors=args.cors,
        audience=audience,
        shapes=args.shapes,
        as_of=args.as_of,
        writable=args.writable,
    )
    if server.app.writer is not None:
        print(
            f"writable: POST SPARQL Update to {server.url}update with the header 'Authorization: Bearer "
            f"{server.app.writer.token}'",
            file=sys.stderr,
            flush=True,
        )
    if args.as_of:
        gone = len(server.served.out_of_time())
        _common.note(
            f"as of {args.as_of}: {len(bundle.memories) - gone} memories valid, {gone} out of their valid time left out"
        )
    errors = sum(1 for p in bundle.problems if p.severity.value == "error")
    print(
        f"serving {bundle.root} ({len(bundle.memories)} memories, {errors} load error{'s' if errors != 1 else ''}) "
        f"at {server.url}  "
        f"(SPARQL: {server.url}query, Graph Store: {server.url}store); Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):  # both stop gracefully: requests in flight get a few seconds
        signal.signal(sig, lambda *_: stopping.set())
    try:
        while not stopping.wait(0.5):
            pass
    finally:
        stop(server, watcher)
    return _common.EXIT_OK
