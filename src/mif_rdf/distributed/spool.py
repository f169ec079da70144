"""The export's links records between a partition's write and the joins: a file per partition, read by bucket.

The links join needs every partition's targets and edges, and the
settling of ids every partition's id claims, so they wait from the first
partition's write to the last.  Kept as Dask results they
waited in the workers' memory (about 220 bytes a memory, compressed, and
four small tasks per partition and bucket to move them: the worker's share
grew with the bundle).  Written instead into the export's output folder,
which every worker and the client already share (the partitions' files go
there), they take no worker memory between the steps and need no task to
move them: the join of bucket ``j`` reads bucket ``j`` of each partition's
file, only those bytes, so its input is one bucket's records whatever the
bundle's size (the ids' survivors go on to the locations the same way).
The files are removed once the joins have run.

A file is a header of little-endian 64-bit numbers (how many blobs, then
each blob's start and the end of the last) followed by the blobs; it is
written atomically, so a partition written again (or by a second worker
after one was lost) replaces it whole.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

from mif_rdf.core.outputs import replacing

#: What a spool file's name starts with (in the output folder, beside the partitions' files).
SPOOL = "shuffle-"
_NUMBER = struct.Struct("<Q")


def spool_path(out_dir: Path, number: int, step: str = "") -> Path:
    """Where partition ``number`` leaves its records (or, with ``step``, bucket ``number`` of a later step)."""
    return out_dir / f"{SPOOL}{step + '-' if step else ''}{number:05d}.bin"


def write_spool(path: Path, blobs: Sequence[bytes]) -> None:
    """``blobs`` in one file, each readable alone by its place (:func:`read_blob`)."""
    offsets = [0]
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    with replacing(path) as out:
        out.write(struct.pack(f"<{len(offsets) + 1}Q", len(blobs), *offsets))
        for blob in blobs:
            out.write(blob)


def read_blob(path: Path, index: int) -> bytes:
    """Blob ``index`` of the spool file at ``path``: its header's two numbers and its bytes, nothing else."""
    with open(path, "rb") as handle:
        (count,) = _NUMBER.unpack(handle.read(_NUMBER.size))
        if not 0 <= index < count:
            raise IndexError(f"{path.name} holds {count} blobs, not {index + 1}")
        handle.seek(_NUMBER.size * (1 + index))
        start, end = struct.unpack("<2Q", handle.read(2 * _NUMBER.size))
        handle.seek(_NUMBER.size * (count + 2) + start)
        return handle.read(end - start)


def remove_spools(out_dir: Path) -> None:
    """Every spool file in ``out_dir`` (this export's, or what an interrupted one left)."""
    for path in out_dir.glob(f"{SPOOL}*.bin"):
        path.unlink(missing_ok=True)
