"""``mif-rdf import``: merge the memory graphs of an RDF file, or of a triple store, into a bundle's markdown files."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mif_rdf.cli.commands import _common
from mif_rdf.core.formats import QUAD_FORMATS

ORDER = 43


def register(commands: argparse._SubParsersAction) -> None:
    from mif_rdf.cli.commands.push import PASSWORD_ENV, credential_options

    parser = commands.add_parser(
        "import",
        help="merge the memory graphs of an RDF file or a triple store into a bundle's files",
        description="Load a bundle and the named graphs of an RDF file (N-Quads, TriG, JSON-LD) or of a triple "
        "store (SOURCE an http(s) URL: the store's Graph Store Protocol endpoint, read with one GET of the whole "
        "dataset; Oxigraph: http://HOST:7878/store); each graph named by a memory's IRI replaces that memory's "
        "graph and is written back to its file as the minimal edits 'update' makes. The bundle's derived graphs and "
        "graphs equal to the bundle's are skipped; any other graph is refused, and then nothing is written. An "
        "import never raises a memory's trustLevel, and a new memory is marked sourceType external_import (spec "
        "18.3). A push followed by an import changes no byte. See docs/writeback.md.",
        epilog="Exit codes: 0 done; 1 refused (nothing written); 2 could not run; 3 store unreachable; 4 timeout; "
        f"5 credentials missing or refused (--user with ${PASSWORD_ENV}, or --token-env); 6 request rejected (4xx); "
        "7 store failed (5xx).",
    )
    _common.bundle_options(parser)
    parser.add_argument(
        "source",
        metavar="SOURCE",
        help="the RDF file (.nq, .trig, .jsonld; + .gz: read decompressed), or a store's Graph Store endpoint URL "
        "(no user or password in it)",
    )
    parser.add_argument("--format", choices=sorted(QUAD_FORMATS), help="the file's format (default: from its suffix)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing: print the unified diff of every file the import would change",
    )
    parser.add_argument(
        "--force", action="store_true", help="write even when the changed memories gain validation errors"
    )
    credential_options(parser)
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="SECONDS", help="per-request timeout of a store (default 30)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.cli.commands.update import report
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.core.formats import format_for
    from mif_rdf.output import import_graphs

    if is_url(args.source):
        return _from_store(args)
    if args.user or args.token_env or args.password is not None:
        raise MifRdfError("--user, --password and --token-env are for a store's URL, not a file")
    source = Path(args.source)
    if not source.is_file():
        raise MifRdfError(f"cannot read {str(source)!r}: no such file")
    fmt = format_for(source, args.format)
    if fmt not in QUAD_FORMATS:
        raise MifRdfError(f"{str(source)!r} is {fmt}, which has no named graphs: give N-Quads, TriG or JSON-LD")
    bundle = _common.load(args)
    result = import_graphs(bundle, source, fmt, dry_run=args.dry_run, force=args.force)
    return report(result, args.dry_run)


def is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def _from_store(args: argparse.Namespace) -> int:
    from mif_rdf.cli.commands.push import credentials_from, warn_unencrypted
    from mif_rdf.cli.commands.update import report
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.core.redaction import redact_text
    from mif_rdf.remote import HttpClient, StoreError, check_endpoint, import_from_store

    if args.format:
        raise MifRdfError("--format is for a file; a store says its format in its answer")
    check_endpoint(args.source, "SOURCE")  # before the bundle loads; never a password in the URL
    credentials = credentials_from(args, os.environ)
    warn_unencrypted(credentials, (args.source,))
    bundle = _common.load(args)
    try:
        result = import_from_store(
            bundle, args.source, client=HttpClient(credentials, args.timeout), dry_run=args.dry_run, force=args.force
        )
    except StoreError as error:
        print(f"mif-rdf: error: {redact_text(str(error))}", file=sys.stderr)
        return error.exit_code
    return report(result, args.dry_run)
