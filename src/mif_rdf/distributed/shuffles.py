"""The moves of data both the export and the validation make: partitions of files, buckets, the claims settled."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mif_rdf.distributed.tasks import (
    Verdicts,
    part,
    settle_ids,
    settle_locations,
    settle_spooled_ids,
    settle_spooled_locations,
)

if TYPE_CHECKING:
    from distributed import Client, Future

#: Memory files per partition when ``partitions`` is not given (and at least two partitions per worker).
PARTITION_SIZE = 5_000


def partitioned(dask: Client, relpaths: list[str], partitions: int | None) -> list[list[str]]:
    """``relpaths`` (in path order) cut into ``partitions`` consecutive runs of nearly equal size (default: one per
    :data:`PARTITION_SIZE` files, at least two per worker)."""
    count = partitions or max(2 * len(dask.scheduler_info()["workers"]), math.ceil(len(relpaths) / PARTITION_SIZE))
    count = max(1, min(count, len(relpaths)))
    size = math.ceil(len(relpaths) / count) if relpaths else 0
    return [relpaths[i : i + size] for i in range(0, len(relpaths), size)] if relpaths else [[]]


def collected(futures: list[Future]) -> list[Any]:
    """The results of ``futures`` in their order, each future let go as soon as its result is here (the list is
    emptied).

    A worker keeps a task, with its arguments (a partition's 5,000 paths,
    about 0.5 MiB) and its result, until no client holds its future.
    Gathered all at once, every partition's task stayed in its worker until
    the last partition was written: memory that grew with the bundle.
    """
    from distributed import as_completed

    place = {future.key: i for i, future in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    finished = as_completed(futures, with_results=True)
    futures.clear()
    for future, result in finished:
        results[place[future.key]] = result
        del future  # not held while the next one is awaited
    return results


def column(dask: Client, results: list[Future], number: int) -> list[Future]:
    """Bucket ``number`` of every task's bucketed result: the shuffle's one move of data."""
    return [dask.submit(part, result, number) for result in results]


def settled(dask: Client, claims: list[Future], buckets: int) -> Verdicts:
    """The files that lose their id, then their location, to an earlier file: two shuffles of the claims
    (bucketed by id), whose small result (only the losers) comes back here."""
    by_id = [dask.submit(settle_ids, column(dask, claims, j), buckets) for j in range(buckets)]
    survivors = [dask.submit(part, s, 1) for s in by_id]
    locations = [dask.submit(settle_locations, column(dask, survivors, j)) for j in range(buckets)]
    lost: Verdicts = {}
    for verdicts in dask.gather([dask.submit(part, s, 0) for s in by_id] + locations):
        lost.update(verdicts)
    return lost


def spooled_settled(dask: Client, out_dir: Path, buckets: int) -> Verdicts:
    """:func:`settled` for claims in the partitions' spool files (:mod:`mif_rdf.distributed.spool`), once every
    partition is written: one task per bucket and step reads its bucket of every file, no task moves them."""
    lost: Verdicts = {}
    for step in (settle_spooled_ids, settle_spooled_locations):  # the second reads what the first wrote
        for verdicts in dask.gather([dask.submit(step, out_dir, j, buckets, pure=False) for j in range(buckets)]):
            lost.update(verdicts)
    return lost
