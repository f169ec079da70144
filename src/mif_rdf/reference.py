"""The reference engine: pyld's standard JSON-LD toRdf.

Slow (about 5 ms a memory) but an independent implementation; the fast walker
in :mod:`mif_rdf.tordf` is tested against it, and ``engine="pyld"`` loads a
whole bundle through it.
"""
from __future__ import annotations

from typing import Any

from pyld import jsonld
from rdflib import Graph

from .context import document_loader


def pyld_nquads(document: dict[str, Any], base: str) -> str:
    """N-Quads of a JSON-LD document, by pyld, with the offline context loader."""
    return jsonld.to_rdf(
        document,
        {"base": base, "documentLoader": document_loader, "format": "application/n-quads"},
    )


def pyld_graph(document: dict[str, Any], base: str) -> Graph:
    graph = Graph()
    graph.parse(data=pyld_nquads(document, base), format="nt")
    return graph
