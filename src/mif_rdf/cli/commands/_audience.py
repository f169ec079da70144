"""``--audience PARTY``: the option every command that lets data leave takes (export, push, load -o,
convert to-jsonld, serve).

The rules live in :mod:`mif_rdf.nsmodel.audience`, asked through
:func:`mif_rdf.nsmodel.access.withheld_reason`; this module only reads the
options and, without ``--audience``, says once that it exists when the
bundle has shared agreements.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _common

if TYPE_CHECKING:
    from mif_rdf.nsmodel import Audience


def audience_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--audience",
        metavar="PARTY",
        help="write only what the organization PARTY may read (spec 10.2, 10.4): _public, _shared "
        "namespaces whose agreement lets PARTY read, and PARTY's own namespaces; never _local, _system only with "
        "--include-system; see docs/namespaces.md",
    )
    parser.add_argument("--include-system", action="store_true", help="with --audience, also write _system memories")


def audience_of(args: argparse.Namespace, root: Path) -> Audience | None:
    """The audience the options name (for the bundle at ``root``), or None; without one,
    a hint when the bundle has agreements."""
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.nsmodel import Audience, read_namespace_model

    if not root.is_dir():
        return None  # the load that follows names what is wrong with the folder
    model = read_namespace_model(root)
    if getattr(args, "audience", None) is None:
        if getattr(args, "include_system", False):
            raise MifRdfError("--include-system needs --audience PARTY")
        if model.agreements:
            _common.note(
                f"note: this bundle has shared agreements ({len(model.agreements)}); --audience PARTY writes only "
                "what PARTY may read"
            )
        return None
    return Audience.of(model, args.audience, args.include_system)
