"""The links graph's triples of a memory (path, location, namespace URI, resolved edges) and the broken-link warning."""

from __future__ import annotations

from functools import lru_cache

from rdflib import Literal, URIRef

from mif_rdf.core.context import is_absolute_iri, is_valid_iri
from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import LOCATION, NAMESPACE_URI, PATH
from mif_rdf.rdf.jsonld_source import is_jsonld_path, json_pointer
from mif_rdf.rdf.tordf import nt_string
from mif_rdf.source.identity import ENTITY_PREFIX, MEMORY_PREFIX, relationship_iri


def place(relpath: str, doc_iri: str, uri: str | None = None) -> tuple[tuple[URIRef, str, bool], ...]:
    """Where a memory is, in the links graph, as (predicate, object, whether the object is an IRI): its bundle
    path, its document IRI and its namespace URI (spec 10.6), if it has one."""
    found = (PATH, relpath, False), (LOCATION, doc_iri, True)
    return found if uri is None else (*found, (NAMESPACE_URI, uri, True))


def place_triples(iri: str, relpath: str, doc_iri: str, uri: str | None = None) -> tuple[Triple, ...]:
    """:func:`place` as the memory's triples."""
    subject = URIRef(iri)
    return tuple((subject, p, URIRef(o) if is_iri else Literal(o)) for p, o, is_iri in place(relpath, doc_iri, uri))


def place_nquads(iri: str, relpath: str, doc_iri: str, uri: str | None, graph: str) -> str:
    """:func:`place` as N-Quads text in ``graph``."""
    tail = f" <{graph}> .\n"
    return "".join(
        f"<{iri}> <{p}> {'<' + o + '>' if is_iri else nt_string(o)}{tail}"
        for p, o, is_iri in place(relpath, doc_iri, uri)
    )


@lru_cache(maxsize=1024)  # a bundle uses a few relationship types, on every link
def link_predicate(relationship_type: str) -> URIRef | None:
    """The links graph's predicate for a relationship type; None when it makes no IRI (the
    projection noted that type on its memory and field)."""
    predicate = relationship_iri(relationship_type)
    return URIRef(predicate) if is_valid_iri(predicate) else None


@lru_cache(maxsize=1024)
def predicate_nquads(relationship_type: str) -> str | None:
    """:func:`link_predicate` as N-Quads text; None when the type makes no IRI."""
    predicate = link_predicate(relationship_type)
    return None if predicate is None else f"<{predicate}>"


def broken_link(relpath: str, index: int, target: str) -> Problem:
    """The warning for a relationship target that should resolve
    inside the bundle (a path, a memory URN) and does not."""
    key = f"relationships[{index}].target"
    return Problem(
        relpath,
        f"relationship target {target!r} does not resolve to a memory of the bundle (broken link)",
        Severity.WARNING,
        key=json_pointer(key) if is_jsonld_path(relpath) else key,
        value=target,
        rule="link",
    )


def expects_bundle_target(target: str) -> bool:
    """Paths and memory URNs should resolve inside the bundle; other IRIs may point anywhere."""
    if target.startswith(MEMORY_PREFIX):
        return not target.startswith(ENTITY_PREFIX)
    return not is_absolute_iri(target)
