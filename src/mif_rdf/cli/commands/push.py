"""``mif-rdf push``: send a bundle to a triple store, only what changed.

Exit codes: 0 the store holds exactly what may leave the bundle; 1 pushed,
but the bundle has errors (deletions wait while a file fails to load); 2 could not run (bad
arguments, unreadable bundle, missing password); 3 store unreachable;
4 timeout; 5 credentials missing or refused (401/403); 6 request rejected
(other 4xx, redirect); 7 store failed (5xx, or still busy after retries).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mif_rdf.cli.commands import _audience, _common
from mif_rdf.core.errors import MifRdfError, counted

if TYPE_CHECKING:  # for annotations; each function imports what it runs (fast start-up)
    from mif_rdf.push import Action, Plan
    from mif_rdf.remote import Credentials

ORDER = 25
PASSWORD_ENV = "MIF_RDF_PASSWORD"
_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "push",
        help="send a bundle to a triple store (Graph Store Protocol or SPARQL Update), only what changed",
        description=(
            "Make a triple store hold the bundle's named graphs (one per memory and entity file, the links graph): "
            "PUT per graph with the SPARQL 1.1 Graph Store Protocol, or SPARQL 1.1 Update with --update-endpoint. "
            "A manifest of content hashes kept in the store makes later pushes send only changed graphs and delete "
            "graphs of removed memories. Memories in _local namespaces never leave (spec 10.2); every skipped graph "
            "is listed with its reason."
        ),
        epilog="Exit codes: 0 done; 1 done but the bundle has errors; 2 could not run; 3 store unreachable; 4 timeout; "
        "5 credentials missing or refused; 6 request rejected (4xx); 7 store failed (5xx). See docs/export.md.",
    )
    _common.bundle_options(parser)
    _common.suggestion_option(parser)
    parser.add_argument(
        "--endpoint",
        required=True,
        metavar="URL",
        help="the store's Graph Store Protocol endpoint (Oxigraph: http://HOST:7878/store, Fuseki: http://HOST:3030/DATASET/data)",
    )
    parser.add_argument(
        "--update-endpoint",
        metavar="URL",
        help="write with SPARQL 1.1 Update at this URL instead of PUT/DELETE (Oxigraph: http://HOST:7878/update)",
    )
    credential_options(parser)
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help=(
            "read the store's manifest and print the plan; write nothing (a store that cannot be reached: every "
            "graph shown as new)"
        ),
    )
    parser.add_argument(
        "--take-over",
        action="store_true",
        help=(
            "when the store's manifest at this base IRI was written by another bundle (another folder or "
            "bundle_id), let this bundle replace it (deleting that bundle's graphs this one does not have); without "
            "it such a push refuses"
        ),
    )
    _audience.audience_options(parser)
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="SECONDS", help="per-request timeout (default 30)"
    )
    parser.add_argument(
        "--retries",
        type=int,
        metavar="N",
        help=(
            "retries of transient faults (connection refused/reset, 429, 502, 503, 504) with exponential backoff "
            "(default 3; 0 for --dry-run, which only reads: one try)"
        ),
    )
    parser.set_defaults(func=run)


def credential_options(parser: argparse.ArgumentParser) -> None:
    """How a command authenticates to a store (push, import): the options, defined once."""
    parser.add_argument(
        "--user",
        metavar="NAME",
        help=f"HTTP basic authentication user; the password comes from ${PASSWORD_ENV} or --password",
    )
    parser.add_argument(
        "--password",
        metavar="PASSWORD",
        help=f"the password for --user (visible to other local users in the process list: prefer ${PASSWORD_ENV})",
    )
    parser.add_argument("--token-env", metavar="VAR", help="send a bearer token read from this environment variable")


def warn_unencrypted(credentials: Credentials | None, urls: Iterable[str | None]) -> None:
    """Warn when credentials would cross the network unencrypted (http:// to a host other than this machine)."""
    for url in filter(None, urls):
        parts = urlsplit(url)
        if credentials and parts.scheme == "http" and parts.hostname not in _LOOPBACK:
            print(f"warning: credentials go to {parts.hostname} unencrypted (http://); use https://", file=sys.stderr)


def credentials_from(args: argparse.Namespace, environ: Mapping[str, str]) -> Credentials | None:
    """Credentials named by the options, read from where they say; never prompts."""
    from mif_rdf.remote import Credentials

    if args.password is not None and not args.user:
        raise MifRdfError("--password needs --user")
    if args.user and args.token_env:
        raise MifRdfError("give either --user or --token-env, not both")
    if args.user:
        password = args.password if args.password is not None else environ.get(PASSWORD_ENV)
        if password is None:
            raise MifRdfError(f"--user {args.user} needs a password: set {PASSWORD_ENV} (or pass --password)")
        return Credentials.basic(args.user, password)
    if args.token_env:
        token = environ.get(args.token_env)
        if not token:
            raise MifRdfError(f"--token-env {args.token_env}: that environment variable is not set or empty")
        return Credentials.bearer(token, f"${args.token_env}")
    return None


class _Progress:
    """What push shows while it works: the plan (all of it for a dry run or ``--verbose``, else its
    counts), then a bar of graphs written on a terminal."""

    def __init__(self, dry_run: bool) -> None:
        self.full = dry_run or _common.verbose()
        self.bar: Any = None

    def plan(self, plan: Plan) -> None:
        """Shown before anything is written, so a failed push still says what it was doing."""
        lines = (
            plan.lines()
            if self.full
            else [line for line in plan.lines() if not line.startswith(("send", "delete", "withhold"))]
        )
        for line in lines:
            print(f"  {line}", flush=True)
        work = len(plan.work)
        withheld = len(plan.of("withhold"))
        if not self.full and (work or withheld):
            print(f"  {counted(work, 'graph')} to write, {withheld} withheld (--verbose lists them)", flush=True)
        if work and not self.full and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=work, desc="push", unit="graph", file=sys.stderr, leave=False)

    def done(self, action: Action) -> None:
        if self.bar is not None:
            self.bar.update()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run(args: argparse.Namespace) -> int:
    from mif_rdf.core.redaction import redact_text, redacted
    from mif_rdf.output import export_policy
    from mif_rdf.push import push_bundle
    from mif_rdf.remote import GraphStore, HttpClient, RetryPolicy, StoreError
    from mif_rdf.validation import ill_typed_literals

    if args.retries is not None and args.retries < 0:
        raise MifRdfError("--retries must be 0 or more")
    retries = (
        args.retries if args.retries is not None else 0 if args.dry_run else 3
    )  # a plan is not worth seconds of backoff
    credentials = credentials_from(args, os.environ)
    client = HttpClient(credentials, timeout=args.timeout, retry=RetryPolicy(retries=retries))
    store = GraphStore(args.endpoint, update_endpoint=args.update_endpoint, client=client)
    warn_unencrypted(credentials, (args.endpoint, args.update_endpoint))
    audience = _audience.audience_of(args, Path(args.bundle))  # a party the bundle does not name: said before loading
    bundle = _common.load(args)
    _common.add_suggestions(args, bundle, audience)
    _common.show_problems(bundle.problems)
    _common.show_ill_typed(ill_typed_literals(bundle, export_policy(bundle, audience).allows), bundle.root)
    print(f"push {bundle.root.name} ({bundle.base_iri}) -> {redacted(args.endpoint)} ({store.protocol})")
    progress = _Progress(args.dry_run)
    try:
        result = push_bundle(
            bundle,
            store,
            dry_run=args.dry_run,
            on_plan=progress.plan,
            on_done=progress.done,
            take_over=args.take_over,
            audience=audience,
        )
    except StoreError as error:
        print(f"mif-rdf: error: {redact_text(str(error))}", file=sys.stderr)
        return error.exit_code
    finally:
        progress.close()
    print(result.summary())
    return _common.exit_for(list(bundle.problems))
