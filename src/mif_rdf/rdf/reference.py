"""The reference engine: pyld's standard JSON-LD toRdf.

Slow (about 5 ms a memory) but an independent implementation; the fast walker
in :mod:`mif_rdf.rdf.tordf` is tested against it, and ``engine="pyld"`` loads a
whole bundle through it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import rdflib
from rdflib import Graph

from mif_rdf.core.context import document_loader


def pyld_nquads(document: dict[str, Any], base: str) -> str:
    """N-Quads of a JSON-LD document, by pyld, with the offline context loader.

    pyld is imported here, on first use: importing it imports requests, urllib3 and asyncio, which a load
    through the fast walker never needs (0.06-0.08 CPU s of every process's start-up)."""
    from pyld import jsonld

    return jsonld.to_rdf(
        document,
        {"base": base, "documentLoader": document_loader, "format": "application/n-quads"},
    )


def pyld_graph(document: dict[str, Any], base: str) -> Graph:
    """pyld's graph as rdflib terms, every literal as pyld wrote it (``Z`` stays ``Z``)."""
    graph = Graph()
    with lexical_literals():
        graph.parse(data=pyld_nquads(document, base), format="nt")
    return graph


@contextlib.contextmanager
def lexical_literals() -> Iterator[None]:
    """Parse RDF without rdflib rewriting literals (``Z`` -> ``+00:00``, ``"1"^^xsd:decimal`` -> ``1.0`` ...).

    The same RDF term must come out as went in: the reverse path gives back
    the author's lexical forms, and the two engines must agree term for term.
    """
    previous = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        yield
    finally:
        rdflib.NORMALIZE_LITERALS = previous
