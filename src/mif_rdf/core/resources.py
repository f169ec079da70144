"""Where the shipped data lives: contexts, shapes, ontologies.

In a wheel the three folders are copied into ``mif_rdf/data/`` (see
``pyproject.toml``); in a source checkout (editable install, tests) they are the
top-level folders of the repository.  Code asks here and never builds paths by
hand, so both layouts work.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # mif_rdf/
_KINDS = ("context", "shapes", "ontologies")


@cache
def data_dir(kind: str) -> Path:
    """Folder holding the shipped ``kind`` files (``context``, ``shapes`` or ``ontologies``)."""
    if kind not in _KINDS:
        raise ValueError(f"unknown data kind {kind!r}; expected one of {_KINDS}")
    for candidate in (_PACKAGE_DIR / "data" / kind, _PACKAGE_DIR.parent.parent / kind):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"mif-rdf data folder {kind!r} is missing from this installation")


def data_file(kind: str, name: str) -> Path:
    return data_dir(kind) / name
