"""The file of a memory an update inserts: where it goes, and its graph read back as frontmatter and body."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rdflib import URIRef
from rdflib.namespace import DCTERMS

from mif_rdf.core.context import MIF_NS
from mif_rdf.core.errors import MifRdfError
from mif_rdf.output.update.changes import FileChange, Quad, _Refused, _triple
from mif_rdf.output.update.edit import CONCEPT_TYPE, _without_mirrors
from mif_rdf.rdf.layout import template_fits
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.source.identity import ENTITY_PREFIX, MEMORY_PREFIX

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle


def is_new_memory_graph(bundle: LoadedBundle, graph: str) -> bool:
    """Whether a graph name is a memory IRI (``urn:mif:<id>``, not an entity's) the bundle does not have."""
    return graph.startswith(MEMORY_PREFIX) and not graph.startswith(ENTITY_PREFIX) and graph not in bundle.entities


def new_memory_path(root: Path, memory_id: str, namespace: Any) -> str:
    """Where a new memory's file goes (spec 3.2/3.3): ``<namespace>/<id>.md``,
    under ``memories/`` when the bundle has that folder."""
    folder = "memories/" if (root / "memories").is_dir() else ""
    if isinstance(namespace, str) and namespace.strip("/"):
        folder += namespace.strip("/") + "/"
    return f"{folder}{memory_id}.md"


def new_memory_file(bundle: LoadedBundle, iri: str, quads: list[Quad]) -> FileChange:
    """The file of a memory the update inserted:
    its graph read back as frontmatter and body, at :func:`new_memory_path`."""
    from mif_rdf.output.writeback import output_target
    from mif_rdf.source.identity import document_iri, id_from_memory_iri
    from mif_rdf.source.markdown import render_memory

    node = URIRef(iri)
    graph = bundle.dataset.graph(node)
    missing = [
        name
        for name, predicate in (("mif:conceptType", CONCEPT_TYPE), ("dc:created", DCTERMS.created))
        if graph.value(node, predicate) is None
    ]
    if missing:
        raise _Refused(
            f"{_triple(quads[0], '+')}: a new memory's graph needs {' and '.join(missing)} on <{iri}> (spec 4.1: "
            "type and created are required)"
        )
    memory_id = id_from_memory_iri(iri)
    relpath = new_memory_path(bundle.root, memory_id, graph.value(node, URIRef(MIF_NS + "namespace")))
    try:
        target = output_target(bundle.root, relpath, ".md")
    except MifRdfError as exc:
        raise _Refused(str(exc), "id") from None
    if target.exists():
        raise _Refused(f"a new memory <{iri}> would be written to {relpath}, which exists; nothing written", "id")
    doc_iri = document_iri(bundle.base_iri, relpath)
    recovered = recover_memory(graph, iri, doc_iri=doc_iri, base=bundle.base_iri, path=relpath)
    if not template_fits(
        recovered.frontmatter, recovered.body, _without_mirrors(set(graph), recovered.frontmatter), doc_iri=doc_iri
    ):
        raise _Refused(
            f"the graph of the new memory <{iri}> does not read back to frontmatter that loads to the same triples; "
            "nothing written"
        )
    return FileChange(relpath, None, render_memory(recovered.frontmatter, recovered.body))
