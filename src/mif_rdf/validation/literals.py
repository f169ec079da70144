"""Ill-typed literals: values the published context types so that what the spec writes is not a valid lexical form.

Both ``validate`` and every export (``export``, ``push``) report them, with
the file and the key path, so this check lives with validation and the
output stage asks it.
"""

from __future__ import annotations

from collections.abc import Callable

from mif_rdf.core.errors import Problem
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.rdf.projection import project_entity, project_memory


def ill_typed_literals(bundle: LoadedBundle, include: Callable[[str], bool] = lambda iri: True) -> list[Problem]:
    """A warning naming file and key path for each ill-typed literal an export of the bundle holds.

    The published context types some keys so that values the spec itself
    writes make ill-typed literals (``accessed: 2026-01-24`` becomes
    ``"2026-01-24"^^xsd:dateTime``); the graph keeps them as every JSON-LD
    processor writes them, and whatever takes them out of mif-rdf says so.
    ``include`` picks the graphs (memory or entity IRIs) that leave.
    """
    found: list[Problem] = []
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        if include(record.iri):
            if record.ill_typed is not None:  # the load projected it already (an export's whole process pays once)
                found += record.ill_typed
                continue
            found += project_memory(
                record.frontmatter, record.body, path=record.relpath, doc_iri=record.doc_iri
            ).ill_typed
    for entity in sorted(bundle.entities.values(), key=lambda e: e.relpath):
        if include(entity.iri):
            found += project_entity(entity.data, iri=entity.iri, path=entity.relpath, doc_iri=entity.doc_iri).ill_typed
    return found
