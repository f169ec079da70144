"""Where a bundle and an export live: a local folder, or any URL fsspec reads.

A local folder (or ``file://`` URL) is read in place: a ``LocalCluster``'s
workers, or a cluster's on a shared file system, see it at the same path.
Any other URL (``s3://``, ``gs://``, ...) is read through fsspec: the client
copies the bundle's ``.mif`` folder and makes an empty file for each other
name (discovery needs the names, not the contents), and each task downloads
only the files of its partition into a temporary folder of its worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.outputs import temporary_folder

#: The folder of the bundle's own files (config, entities, ontologies, namespaces), copied whole.
MIF = ".mif"


def local_folder(url: str | Path, what: str) -> Path:
    """The local path of ``url`` (a folder or a ``file://`` URL); a clear error for any other scheme."""
    found = _local(url, what)
    if found is None:
        raise MifRdfError(f"{what} {str(url)!r}: give a local folder or a file:// URL")
    return found


@contextlib.contextmanager
def opened(url: str | Path) -> Iterator[tuple[Path, str | None]]:
    """The bundle at ``url`` as a folder of this machine, and the URL tasks read its files from (None: local)."""
    local = _local(url, "bundle")
    if local is not None:
        yield local, None
        return
    import fsspec

    fs, path = fsspec.core.url_to_fs(str(url))
    if not fs.isdir(path):
        raise MifRdfError(f"bundle {str(url)!r} is not a folder fsspec can list")
    with temporary_folder("dask") as folder:
        root = Path(folder) / (PurePosixPath(path.rstrip("/")).name or "bundle")
        root.mkdir()
        for name in fs.find(path):
            relpath = PurePosixPath(name).relative_to(PurePosixPath(path)).as_posix()
            target = root / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            if relpath.startswith(MIF + "/"):
                fs.get(name, str(target))
            else:
                target.touch()  # its name only: the task that reads it downloads it
        yield root, str(url)


def fetch(url: str, relpaths: Iterable[str], into: Path) -> None:
    """The bundle's ``.mif`` folder and the files ``relpaths`` from ``url``, into the folder ``into``."""
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    into.mkdir(parents=True, exist_ok=True)
    base = PurePosixPath(path)
    if fs.isdir(str(base / MIF)):
        fs.get(str(base / MIF), str(into / MIF), recursive=True)
    for relpath in relpaths:
        target = into / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        fs.get(str(base / relpath), str(target))


def _local(url: str | Path, what: str) -> Path | None:
    """The local path of ``url``, or None when fsspec reads it from elsewhere."""
    text = str(url)
    if "://" not in text:
        return Path(text)
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

    try:
        fs, path = fsspec.core.url_to_fs(text)
    except (ImportError, ValueError) as exc:
        raise MifRdfError(f"{what} {text!r}: {exc}") from None
    return Path(path) if isinstance(fs, LocalFileSystem) else None
