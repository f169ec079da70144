"""The safe export of the Python API: :meth:`Bundle.export <mif_rdf.bundle.Bundle.export>` and :func:`mif_rdf.export`.

``bundle.dataset`` holds everything that was loaded, ``_local`` memories
included, so ``bundle.dataset.serialize(...)`` writes what spec 10.2 says
never leaves the machine.  This is the call to use instead: it applies
exactly the policy of ``mif-rdf export`` (:func:`mif_rdf.output.policy.export_policy`
and :func:`~mif_rdf.output.policy.export_bundle`: no ``_local``, never a raised
trust level, with an audience only what that party may read) and takes the
format from the file's extension as the command line does
(:func:`mif_rdf.core.formats.format_for`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Union

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import format_for, is_gzipped
from mif_rdf.nsmodel import Audience, audience_for
from mif_rdf.output.policy import ExportPolicy, export_bundle, export_policy

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle

#: Where an export goes: a file name (its extension names the format) or a binary stream.
Destination = Union[str, "os.PathLike[str]", IO[bytes]]


def export(
    bundle: LoadedBundle,
    target: Destination,
    format: str | None = None,
    *,
    include_local: bool = False,
    audience: str | Audience | None = None,
    include_system: bool = False,
) -> ExportPolicy:
    """Write what may leave the machine to ``target``; returns the policy applied (what was withheld and why).

    ``format``: any name :mod:`mif_rdf.core.formats` knows (``ttl``, ``nq``,
    ``trig`` ...); by default the one the file's extension names (an
    unknown extension is an error, not a silent Turtle file; under ``.gz``,
    ``x.nq.gz``, written gzip-compressed), Turtle for a stream.
    ``include_local=True`` also writes ``_local`` memories (a copy
    for this machine).  ``audience`` (an organization of the bundle, or an
    :class:`~mif_rdf.nsmodel.Audience`) writes only what that party may read
    (spec 10.2, 10.4; ``include_system`` adds ``_system``); an audience never
    reads ``_local``, so ``include_local`` with one is refused rather than ignored.
    """
    if include_local and audience is not None:
        raise MifRdfError(
            "include_local=True does not apply with an audience: an audience never reads _local (spec 10.2)"
        )
    if include_system and audience is None:
        raise MifRdfError("include_system=True needs an audience")
    if isinstance(audience, str):
        audience = audience_for(bundle, audience, include_system=include_system)
    path = Path(target) if isinstance(target, (str, os.PathLike)) else None
    fmt = format_for(path, format)
    policy = export_policy(bundle, audience, include_local=include_local)
    if isinstance(target, (str, os.PathLike)):
        _write_file(Path(target), bundle.root, lambda out: export_bundle(bundle, fmt, out, policy))
    else:
        export_bundle(bundle, fmt, target, policy)
    return policy


def _write_file(path: Path, bundle_root: Path, writer: Callable[[IO[bytes]], object]) -> None:
    """Run ``writer`` on the file at ``path`` (its folder created): the API's one place that writes a file.

    As the command line does: a file of the bundle (a memory, anything in
    ``.mif/``) is never the target, and the target is replaced only once
    complete (:mod:`mif_rdf.core.outputs`), so an interrupted export leaves the
    previous file as it was; a name ending in ``.gz`` is written gzip-compressed.
    """
    from mif_rdf.core.outputs import refuse_sources, replacing

    if path.is_dir():
        raise MifRdfError(f"{str(path)!r} is a folder; give the output file's name")
    refuse_sources([("target", path)], [], bundle_root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, gzipped=is_gzipped(path)) as handle:
        writer(handle)
