"""``--dask [SCHEDULER_ADDRESS]``: ``export`` on a Dask cluster (:mod:`mif_rdf.distributed`, the ``[dask]`` extra).

Without an address a ``LocalCluster`` of ``--workers`` processes (default:
one per core) is started for the run and stopped after it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mif_rdf.cli.commands import _audience, _common
from mif_rdf.core.errors import MifRdfError, counted

if TYPE_CHECKING:
    from distributed import Client

    from mif_rdf.validation import ValidationReport

#: What ``--dask`` without an address means.
LOCAL = "local"


def dask_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--dask [SCHEDULER_ADDRESS]`` and ``--partitions N``; ``what`` says what the command does there."""
    parser.add_argument(
        "--dask",
        nargs="?",
        const=LOCAL,
        type=_address,
        metavar="SCHEDULER_ADDRESS",
        help=(
            "run on a Dask cluster: the scheduler at SCHEDULER_ADDRESS (host:port or tcp://host:port), or a local "
            f"cluster of --workers processes when none is given; {what} (pip install 'mif-rdf[dask]'; docs/scale.md)"
        ),
    )
    parser.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        help="with --dask: memory files cut into N partitions (default: one per 5,000 files, at least two per worker)",
    )


def _address(text: str) -> str:
    """A scheduler address; a bundle folder taken for one (``--dask BUNDLE``) is said plainly."""
    if text != LOCAL and ":" not in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a scheduler address (host:port or tcp://host:port); to use a local cluster put the "
            "bundle before --dask, or end the option list: --dask -- BUNDLE"
        )
    return text


def export(args: argparse.Namespace, loaded: list[str]) -> int:
    """``export --dask``: the partition files and the manifest, problems on standard error, one summary line."""
    if args.output is None:
        raise MifRdfError("--dask writes a folder (one .nq.gz file per partition and manifest.json): give it with -o")
    if args.format not in (None, "nquads"):
        raise MifRdfError(
            f"--dask writes N-Quads only (gzipped, one file per partition); leave out --format {args.format}"
        )
    if loaded or args.stream:
        raise MifRdfError(
            "--dask reads the files on the cluster and uses no store or cache: leave out "
            + " and ".join(loaded or ["--stream"])
        )
    _check_counts(args)
    _dask_installed()
    from mif_rdf.distributed import export_nquads

    report = export_nquads(
        args.bundle,
        args.output,
        None if args.dask == LOCAL else args.dask,
        base_iri=args.base,
        partitions=args.partitions,
        engine=args.engine,
        limits=_common.limits_of(args),
        with_hashes=args.with_hashes,
        audience=_audience.audience_of(args, args.bundle),
        ontology_dirs=args.ontology_dir,
        workers=args.workers,
        on_start=_started,
    )
    from mif_rdf.rdf import ILL_TYPED

    _common.show_problems(p for p in report.problems if p.rule != ILL_TYPED)
    _common.show_ill_typed([p for p in report.problems if p.rule == ILL_TYPED], args.bundle.resolve())
    _common.note(
        f"wrote {counted(report.quads, 'quad')} in {counted(report.graphs, 'graph')} to {args.output}/ "
        f"({counted(len(report.files), 'gzipped N-Quads file')} from {counted(report.partitions, 'partition')}, "
        f"manifest.json)" + (f"; {len(report.withheld)} withheld (--verbose lists them)" if report.withheld else "")
    )
    for item in report.withheld.values():
        _common.detail(f"withheld {item.label}: {item.reason}")
    return _common.exit_for(report.problems)


def refuse_for_validate(args: argparse.Namespace) -> None:
    """``validate --dask`` with an option the cluster does not run: said with what to give instead, before any
    other check of those options (whose own advice, such as "give --shapes FILE" for --level 0, would lead to a
    second refusal)."""
    for given, why in (
        (args.level == 0, "--level 0 runs only your own shapes, which --dask does not run: give --level 1, 2 or 3"),
        (
            args.shapes,
            (
                "--dask runs levels 1-3, not your own shapes: leave out --shapes (or leave out --dask to run them on "
                "one machine)"
            ),
        ),
        (args.inference != "none", "--inference applies to --shapes, which --dask does not run: leave out --inference"),
        (args.ontology, "--dask applies the ontologies the memories name, no others: leave out --ontology"),
        (
            args.path,
            "--dask looks up the ontologies the memories name in the bundle, the built-in ones and --ontology-dir: "
            "leave out --path (give the folder with --ontology-dir DIR)",
        ),
        (args.as_of, "--dask validates every memory, not those valid at a date: leave out --as-of"),
        (
            args.rev,
            "--dask reads the files as they are in the folder, not at a git revision: leave out --rev (check the "
            "revision out into a folder of its own and validate that)",
        ),
        (
            args.cache or args.cache_dir,
            "--dask reads the files on the cluster and keeps no cache: leave out "
            + ("--cache-dir" if args.cache_dir else "--cache"),
        ),
        (args.store == "oxigraph", "--dask loads no store: leave out --store"),
    ):
        if given:
            raise MifRdfError(why)


def validate(args: argparse.Namespace) -> ValidationReport:
    """``validate --dask``: the report of the run on the cluster (levels 1-3; the bundle's own ontologies);
    :func:`refuse_for_validate` has refused what it does not run."""
    _check_counts(args)
    _dask_installed()
    from mif_rdf.distributed import validate as distributed_validate

    return distributed_validate(
        args.bundle,
        None if args.dask == LOCAL else args.dask,
        level=args.level,
        base_iri=args.base,
        partitions=args.partitions,
        engine=args.engine,
        limits=_common.limits_of(args),
        strict_temporal=args.strict_temporal,
        ontology_dirs=args.ontology_dir,
        workers=args.workers,
        on_start=_started,
    )


def _check_counts(args: argparse.Namespace) -> None:
    if args.partitions is not None and args.partitions < 1:
        raise MifRdfError("--partitions must be 1 or more")
    if args.workers == 0:
        raise MifRdfError("--dask needs at least one worker: leave out --workers 0")


def _dask_installed() -> None:
    try:
        import distributed  # noqa: F401  (the extra is there)
    except ImportError:
        raise MifRdfError("--dask needs Dask: pip install 'mif-rdf[dask]'") from None


def _started(client: Client) -> None:
    """The first line: the scheduler, and its dashboard where the tasks' progress shows."""
    from mif_rdf.distributed import dashboard

    link = dashboard(client)
    _common.note(
        f"Dask scheduler {client.scheduler.address}: "
        + (f"dashboard {link}" if link else "no dashboard (pip install bokeh)")
    )
