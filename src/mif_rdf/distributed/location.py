"""Where a bundle and an export live: a local folder or an fsspec URL.

fsspec reads the URL (``file://``, and any scheme an installed fsspec
implementation knows).  The workers open the files themselves, so the
bundle must be at the same path on every worker: a local folder for a
``LocalCluster``, a shared file system for a cluster.  Object stores
(``s3://``, ``gs://``) are refused with that said, not read half-way.
"""

from __future__ import annotations

from pathlib import Path

from mif_rdf.core.errors import MifRdfError


def local_folder(url: str | Path, what: str) -> Path:
    """The local path of ``url`` (a folder or a ``file://`` URL); a clear error for any other scheme."""
    text = str(url)
    if "://" not in text:
        return Path(text)
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

    try:
        fs, path = fsspec.core.url_to_fs(text)
    except (ImportError, ValueError) as exc:
        raise MifRdfError(f"{what} {text!r}: {exc}") from None
    if not isinstance(fs, LocalFileSystem):
        raise MifRdfError(
            f"{what} {text!r}: only local folders and file:// URLs (a folder every worker sees at the same path) "
            "are read today; copy the bundle to a shared file system first"
        )
    return Path(path)
