"""RDF file formats: one name each, the spellings other tools use, and file extensions.

People arrive with riot's and rdflib's names (``ttl``, ``nt``, ``nq``,
``jsonld``, ``xml``) and with file names (``x.rdf``, ``x.owl``), so every
command accepts all of them and means one format by each.  A file extension
that names no RDF format is an error rather than a silent Turtle file.

A name ending in ``.gz`` is the same format, gzip-compressed (``x.nq.gz``,
``shapes.ttl.gz``), as riot reads and writes it: the format is the one the
extension under ``.gz`` names, reading decompresses (:func:`open_rdf`) and
writing compresses (:func:`mif_rdf.core.outputs.replacing` with ``gzipped``).
This module imports nothing heavy: the command line reads it to build its
options.
"""

from __future__ import annotations

import contextlib
import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from mif_rdf.core.errors import MifRdfError

#: Format name -> rdflib serializer name.
RDF_FORMATS = {
    "turtle": "turtle",
    "nt": "nt",
    "nquads": "nquads",
    "trig": "trig",
    "json-ld": "json-ld",
    "rdfxml": "xml",
}
#: Other spellings (riot's, rdflib's, MIME-ish) -> format name.
ALIASES = {
    "ttl": "turtle",
    "n3": "turtle",
    "ntriples": "nt",
    "n-triples": "nt",
    "nq": "nquads",
    "n-quads": "nquads",
    "jsonld": "json-ld",
    "xml": "rdfxml",
    "rdf/xml": "rdfxml",
    "rdf": "rdfxml",
    "pretty-xml": "rdfxml",
}
#: The extension each format writes.
EXTENSIONS = {"turtle": ".ttl", "nt": ".nt", "nquads": ".nq", "trig": ".trig", "json-ld": ".jsonld", "rdfxml": ".rdf"}
#: Extensions read as a format (more than one may name a format).
SUFFIXES = {
    **{ext: name for name, ext in EXTENSIONS.items()},
    ".nquads": "nquads",
    ".owl": "rdfxml",
    ".xml": "rdfxml",
    ".n3": "turtle",
}
#: Formats that keep named graphs; the others get the union of all graphs.
QUAD_FORMATS = frozenset({"nquads", "trig", "json-ld"})
#: The extension of a gzip-compressed file of any format (``x.nq.gz``).
GZIP = ".gz"
_GZIP_MAGIC = b"\x1f\x8b"


def is_gzipped(path: str | Path) -> bool:
    """Whether the name says gzip (``x.nq.gz``): what is written there is compressed, what is read decompressed."""
    return Path(path).name.lower().endswith(GZIP)


def rdf_suffix(path: Path) -> str:
    """The extension that names the format, lower case: ``.nq`` for ``x.nq`` and for ``x.NQ.gz``."""
    return (path.with_suffix("") if is_gzipped(path) else path).suffix.lower()


def _extensions() -> str:
    return f"{' '.join(sorted(SUFFIXES))} (each also as {GZIP})"


def _unknown_suffix(path: Path) -> str:
    suffix = rdf_suffix(path)
    said = f"{suffix or '(none)'!r}" + (f" under {GZIP}" if is_gzipped(path) else "")
    return f"{str(path)!r}: cannot tell an RDF format from the extension {said}; use one of {_extensions()}"


def format_name(text: str) -> str:
    """The format a user's spelling names (``ttl`` -> ``turtle``), or an error listing the choices."""
    name = text.strip().lower()
    name = ALIASES.get(name, name)
    if name not in RDF_FORMATS:
        raise MifRdfError(f"unknown RDF format {text!r}; use one of {', '.join(RDF_FORMATS)} (or {', '.join(ALIASES)})")
    return name


def format_for(path: Path | None, name: str | None) -> str:
    """The format to write: the one named, else the one the file's extension names, else Turtle."""
    if name:
        named = format_name(name)
        implied = SUFFIXES.get(rdf_suffix(path)) if path is not None else None
        if implied is not None and implied != named:  # N-Triples silently in x.ttl fools the next tool that reads it
            raise MifRdfError(
                f"--format {name} writes {named}, but the extension of {str(path)!r} says {implied}: "
                "change one (an extension no RDF format uses is fine)"
            )
        return named
    if path is None:
        return "turtle"
    if path.is_dir():
        raise MifRdfError(
            f"{str(path)!r} is a folder; give the output file's name (.ttl .nt .nq .trig .jsonld .rdf, or any + .gz)"
        )
    return file_format(path, hint=" or give --format")


def file_format(path: Path, hint: str = "") -> str:
    """The format a file's extension names (the one under ``.gz``), or an error naming the file and the choices."""
    name = SUFFIXES.get(rdf_suffix(path))
    if name is None:
        raise MifRdfError(_unknown_suffix(path) + hint)
    return name


@contextlib.contextmanager
def open_rdf(path: Path) -> Iterator[IO[bytes]]:
    """The bytes of an RDF file to parse, decompressed when its name ends in ``.gz``.

    A ``.gz`` file that is not gzip is refused here, naming the file, rather
    than by a parser's puzzling complaint about its first byte.
    """
    if not is_gzipped(path):
        with open(path, "rb") as handle:
            yield handle
        return
    with open(path, "rb") as raw:
        if raw.read(2) != _GZIP_MAGIC:
            raise MifRdfError(f"{path}: the name ends in {GZIP} but the file is not gzip-compressed")
        raw.seek(0)
        with gzip.GzipFile(fileobj=raw, mode="rb") as handle:
            try:
                yield handle  # type: ignore[misc]  # GzipFile is a binary stream, which IO[bytes] does not name
            except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # cut short, or damaged after its first bytes
                raise MifRdfError(f"{path}: the gzip-compressed data is damaged or cut short ({exc})") from None
