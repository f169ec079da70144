"""RDF file formats: one name each, the spellings other tools use, and file extensions.

People arrive with riot's and rdflib's names (``ttl``, ``nt``, ``nq``,
``jsonld``, ``xml``) and with file names (``x.rdf``, ``x.owl``), so every
command accepts all of them and means one format by each.  A file extension
that names no RDF format is an error rather than a silent Turtle file.
This module imports nothing heavy: the command line reads it to build its
options.
"""

from __future__ import annotations

from pathlib import Path

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
        implied = SUFFIXES.get(path.suffix.lower()) if path is not None else None
        if implied is not None and implied != named:  # N-Triples silently in x.ttl fools the next tool that reads it
            raise MifRdfError(
                f"--format {name} writes {named}, but the extension of {str(path)!r} says {implied}: "
                "change one (an extension no RDF format uses is fine)"
            )
        return named
    if path is None:
        return "turtle"
    if path.is_dir():
        raise MifRdfError(f"{str(path)!r} is a folder; give the output file's name (.ttl .nt .nq .trig .jsonld .rdf)")
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise MifRdfError(
            f"{str(path)!r}: cannot tell an RDF format from the extension {suffix or '(none)'!r}; "
            f"use one of {' '.join(sorted(SUFFIXES))} or give --format"
        )
    return SUFFIXES[suffix]
