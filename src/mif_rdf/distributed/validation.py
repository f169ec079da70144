"""``validate``: a bundle's validation on a Dask cluster, with the findings of ``mif-rdf validate``.

Partitions of memory files are checked in the workers by the validator
itself (:func:`mif_rdf.distributed.checks.check_partition`); the rules
across memories are shuffles: the id and location claims settle which file
keeps each (as for the export), and a join of every relationship with its
target gives the broken links and the derivations out of time.  The
client reads only the bundle's ``.mif`` folder and the list of files.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.distributed.checks import bundle_level, check_partition, claims_of, join_checks
from mif_rdf.distributed.cluster import check_address, connected
from mif_rdf.distributed.location import opened
from mif_rdf.distributed.shuffles import column, partitioned, settled
from mif_rdf.distributed.tasks import Settings, part
from mif_rdf.load.loader import memory_files, open_bundle
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.nsmodel.reading import read_namespace_model
from mif_rdf.ontology.binding import bundle_ontologies
from mif_rdf.validation.bundle_rules import reserved_name_problems
from mif_rdf.validation.ontology_rules import LEVEL as ONTOLOGY_LEVEL
from mif_rdf.validation.report import ValidationReport

if TYPE_CHECKING:
    from distributed import Client


def validate(
    bundle_url: str | Path,
    client: Client | str | None = None,
    *,
    level: int = 3,
    base_iri: str | None = None,
    partitions: int | None = None,
    engine: ToRdfEngine = "fast",
    limits: Limits = DEFAULT_LIMITS,
    strict_temporal: bool = False,
    ontology_dirs: Iterable[Path | str] | None = None,
    workers: int | None = None,
    on_start: Callable[[Client], None] | None = None,
) -> ValidationReport:
    """Validate the bundle at ``bundle_url`` at conformance ``level`` (1-3) on a Dask cluster.

    The report's findings are those of :func:`mif_rdf.validation.validate`
    on the loaded bundle (tests compare them), in path order; it holds no
    SHACL report graph (its RDF form, :meth:`~mif_rdf.validation.ValidationReport.report_graph`,
    gives every finding as one of mif-rdf's own results).  ``client``,
    ``partitions``, ``workers`` and ``on_start`` are those of
    :func:`~mif_rdf.distributed.export_nquads`.
    """
    if level not in (1, 2, 3):
        raise MifRdfError(f"level {level}: the distributed validation checks levels 1, 2 and 3")
    check_address(client)
    with opened(bundle_url) as (root, source):
        bundle = open_bundle(root, base_iri=base_iri, engine=engine, limits=limits)
        files = memory_files(bundle)
        settings = Settings(
            bundle.root,
            bundle.base_iri,
            engine,
            limits,
            frozenset(files.projections),
            read_namespace_model(bundle.root, bundle.config, limits),
            bundle.root,  # nothing is written
            ontology_dirs=None if ontology_dirs is None else tuple(str(d) for d in ontology_dirs),
            source=source,
        )
        with connected(client, workers) as dask:
            if on_start is not None:
                on_start(dask)
            chunks = partitioned(dask, files.memories, partitions)
            buckets = len(chunks)
            firsts = [sum(len(c) for c in chunks[:i]) for i in range(buckets)]
            claims = [dask.submit(claims_of, settings, c, f, buckets) for c, f in zip(chunks, firsts, strict=True)]
            lost = settled(dask, claims, buckets)
            checked = [
                dask.submit(check_partition, settings, c, f, lost, level, strict_temporal, buckets)
                for c, f in zip(chunks, firsts, strict=True)
            ]
            own, entity_targets = bundle_level(settings, level, strict_temporal, len(files.memories))
            joins = [
                dask.submit(
                    join_checks,
                    [entity_targets, *column(dask, [dask.submit(part, c, 1) for c in checked], j)],
                    column(dask, [dask.submit(part, c, 2) for c in checked], j),
                    strict_temporal,
                )
                for j in range(buckets)
            ]
            per_file = [item for items in dask.gather([dask.submit(part, c, 0) for c in checked]) for item in items]
            loaded = sum(dask.gather([dask.submit(part, c, 3) for c in checked]))
            references = [r for refs in dask.gather([dask.submit(part, c, 4) for c in checked]) for r in refs]
            del checked  # each bucket's blobs are then held only for its join, and freed once it has run
            joined = [item for items in dask.gather(joins) for item in items if (item[1].level or 0) <= level]
        results = [p for p in bundle.problems if not p.path.startswith(".mif")] + own
        results += [p for _, p in sorted(per_file + joined, key=lambda item: item[0])]
        results += [p for p in reserved_name_problems(bundle.root) if (p.level or 0) <= level]
        if level >= ONTOLOGY_LEVEL and references:  # one warning per ontology id, naming every memory naming it
            bound = bundle_ontologies(bundle.root, references, user_dirs=settings.ontology_dirs)
            results += [
                p if p.level is not None else dataclasses.replace(p, level=ONTOLOGY_LEVEL) for p in bound.problems
            ]
        if not loaded:  # as the validator says of an empty bundle
            results.append(Problem(".", f"no memories to validate in {settings.home}", Severity.ERROR, rule="empty"))
        return ValidationReport(level=level, results=results, memories=loaded)
