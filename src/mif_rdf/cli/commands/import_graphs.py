"""``mif-rdf import``: merge the memory graphs of an RDF file into a bundle's markdown files."""

from __future__ import annotations

import argparse
from pathlib import Path

from mif_rdf.cli.commands import _common
from mif_rdf.core.formats import QUAD_FORMATS

ORDER = 43


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "import",
        help="merge the memory graphs of an RDF file (N-Quads, TriG, JSON-LD) into a bundle's files",
        description="Load a bundle and an RDF file of named graphs; each graph named by a memory's IRI replaces that "
        "memory's "
        "graph and is written back to its file as the minimal edits 'update' makes. The bundle's derived graphs and "
        "graphs equal to the bundle's are skipped; any other graph is refused, and then nothing is written. An "
        "import never raises a memory's trustLevel (spec 18.3). See docs/writeback.md.",
    )
    _common.bundle_options(parser)
    parser.add_argument("source", type=Path, help="the RDF file (.nq, .trig, .jsonld; + .gz: read decompressed)")
    parser.add_argument("--format", choices=sorted(QUAD_FORMATS), help="the file's format (default: from its suffix)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing: print the unified diff of every file the import would change",
    )
    parser.add_argument(
        "--force", action="store_true", help="write even when the changed memories gain validation errors"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mif_rdf.cli.commands.update import report
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.core.formats import format_for
    from mif_rdf.output import import_graphs

    if not args.source.is_file():
        raise MifRdfError(f"cannot read {str(args.source)!r}: no such file")
    fmt = format_for(args.source, args.format)
    if fmt not in QUAD_FORMATS:
        raise MifRdfError(f"{str(args.source)!r} is {fmt}, which has no named graphs: give N-Quads, TriG or JSON-LD")
    bundle = _common.load(args)
    result = import_graphs(bundle, args.source, fmt, dry_run=args.dry_run, force=args.force)
    return report(result, args.dry_run)
