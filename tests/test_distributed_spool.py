"""Issue 32: the export's shuffle records wait in a spool file per partition, read by bucket (distributed.spool),
the partitions (so the buckets, one per partition) grow in number with the bundle, not in size, and what a partition
freed goes back to the system."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import pytest

from mif_rdf.distributed.shuffles import PARTITION_SIZE, partitioned
from mif_rdf.distributed.spool import SPOOL, read_blob, remove_spools, spool_path, write_spool
from mif_rdf.distributed.tasks import give_back_memory


def test_a_spool_file_gives_back_each_blob_alone(tmp_path: Path) -> None:
    blobs = [b"targets of bucket 0", b"", b"\x00\xff" * 1000, b"edges of bucket 1"]
    path = spool_path(tmp_path, 7)
    assert path.name == f"{SPOOL}00007.bin"
    write_spool(path, blobs)
    assert [read_blob(path, i) for i in range(len(blobs))] == blobs
    with pytest.raises(IndexError, match="holds 4 blobs"):
        read_blob(path, 4)
    write_spool(path, [b"again"])  # a partition written again replaces its file whole
    assert read_blob(path, 0) == b"again" and path.stat().st_size == 8 * 3 + len(b"again")
    (tmp_path / "part-00007.nq.gz").write_bytes(b"kept")
    remove_spools(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00007.nq.gz"]


class _Scheduler:
    """What ``partitioned`` asks of a client: how many workers there are."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def scheduler_info(self) -> dict[str, dict[str, object]]:
        return {"workers": {f"tcp://w{i}": {} for i in range(self.workers)}}


@pytest.mark.parametrize("memories", [100_000, 300_000])
def test_partitions_grow_in_number_not_in_size_with_the_bundle(memories: int) -> None:
    """Each partition (and so each bucket's share of the records a join reads) stays at most PARTITION_SIZE files:
    a worker's work per task is the same at 100,000 and 300,000 memories."""
    relpaths = [f"m/{i:07d}.md" for i in range(memories)]
    chunks = partitioned(_Scheduler(2), relpaths, None)  # type: ignore[arg-type]
    assert len(chunks) == memories // PARTITION_SIZE
    assert max(map(len, chunks)) == PARTITION_SIZE and [p for c in chunks for p in c] == relpaths
    few = partitioned(_Scheduler(8), relpaths[:1000], None)  # type: ignore[arg-type]
    assert len(few) == 16  # at least two a worker


def _resident() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc" or not Path("/proc/self/statm").exists(), reason="glibc only")
def test_a_partitions_freed_memory_is_given_back_to_the_system() -> None:
    """What a partition freed, scattered among what lives on (here: one block in 64 kept), leaves the process's
    resident memory after it is written; glibc alone keeps it in its heap."""
    blocks = [bytes(1024) + i.to_bytes(4, "little") for i in range(100_000)]  # about 100 MB of C heap
    kept = blocks[::64]
    del blocks
    before = _resident()
    give_back_memory()
    assert before - _resident() > 50 * 2**20 and len(kept) == 1563
