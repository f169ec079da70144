"""The namespace model as RDF: the ``<base>#namespaces`` and ``<base>#inherited`` graphs.

* ``#namespaces`` describes the model itself: agreements (parties, admin,
  members, covered namespaces, who reads and writes), namespace files
  (parent, defaults) and custom reserved prefixes (access, ttl,
  provenance rule).  Vocabulary: ``ontologies/mif-vocabulary.ttl``;
  reference: ``docs/mapping.md``.
* ``#inherited`` holds what each memory inherits from its namespace (spec
  10.7) where the memory does not say it itself: ``mif:inheritedTtl``,
  ``mif:inheritedVisibility``, ``mif:tags`` (the memory graph's own tag
  predicate, so a query over the union finds inherited tags as tags) and
  ``mif:inheritsFrom`` the namespace or prefix node each came from.  It is
  never written into a memory's own graph: that graph stays exactly what
  JSON-LD toRdf gives for the memory's projection.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, RDF, RDFS, XSD

from mif_rdf.core.namespaces import MIF
from mif_rdf.core.statements import Triple
from mif_rdf.nsmodel.model import Agreement, NamespaceModel, segments
from mif_rdf.source.identity import graph_iri, memory_iri

GRAPH_NAMESPACES, GRAPH_INHERITED = "namespaces", "inherited"


def node(base: str, kind: str, name: str) -> URIRef:
    """The IRI of a party, agreement, namespace or prefix of the model: ``<base>#<kind>/<name>``."""
    return URIRef(graph_iri(base, f"{kind}/{quote(name, safe='/+-._~')}"))


def namespaces_triples(model: NamespaceModel, base: str) -> Iterator[Triple]:
    """The ``#namespaces`` graph of ``model``."""
    parties: set[str] = set()
    for agreement in model.agreements:
        yield from _agreement_triples(agreement, base, parties)
    for ns in model.namespaces.values():
        yield from _described(
            node(base, "namespace", ns.path),
            MIF.Namespace,
            [
                (MIF.namespacePath, Literal(ns.path)),
                (MIF.path, Literal(ns.relpath)),
                (MIF.namespaceType, _text(ns.type)),
                (MIF.parentNamespace, node(base, "namespace", ns.parent) if ns.parent is not None else None),
                (MIF.defaultTtl, _duration(ns.default_ttl)),
                (MIF.defaultVisibility, _text(ns.default_visibility)),
                *((MIF.defaultTag, Literal(tag)) for tag in ns.default_tags or ()),
            ],
        )
    for prefix in model.prefixes.values():
        yield from _described(
            node(base, "prefix", prefix.name),
            MIF.ReservedPrefix,
            [
                (MIF.prefixName, Literal(prefix.name)),
                (RDFS.comment, _text(prefix.description)),
                (MIF.prefixAccess, _text(prefix.access)),
                (MIF.prefixTtl, _duration(prefix.ttl)),
                (MIF.provenanceRequired, Literal(prefix.provenance_required)),
            ],
        )
    for name in sorted(parties):
        yield from _described(node(base, "party", name), MIF.Party, [(RDFS.label, Literal(name))])


def _described(subject: URIRef, kind: URIRef, values: Iterable[tuple[URIRef, Any]]) -> Iterator[Triple]:
    """``subject a kind`` and each ``(predicate, object)`` whose object is not None."""
    yield subject, RDF.type, kind
    for predicate, value in values:
        if value is not None:
            yield subject, predicate, value


def _text(value: str | None) -> Literal | None:
    return None if value is None else Literal(value)


def _duration(value: str | None) -> Literal | None:
    return None if value is None else Literal(value, datatype=XSD.duration)


def _agreement_triples(agreement: Agreement, base: str, parties: set[str]) -> Iterator[Triple]:
    subject = node(base, "agreement", agreement.id)
    named = [
        (MIF.party, agreement.parties),
        (MIF.member, agreement.members),
        (MIF.admin, (agreement.admin,) if agreement.admin else ()),
        (MIF.readAccess, sorted(agreement.readers())),
        (MIF.writeAccess, sorted(agreement.writers())),
    ]
    for _, names in named:
        parties.update(names)
    words = [
        (predicate, Literal(value))
        for predicate, value in ((MIF.readAccessRule, agreement.read), (MIF.writeAccessRule, agreement.write))
        if isinstance(value, str) and value
    ]
    yield from _described(
        subject,
        MIF.SharedAgreement,
        [
            (MIF.agreementId, Literal(agreement.id)),
            (MIF.path, Literal(agreement.relpath)),
            (MIF.agreementType, _text(agreement.type)),
            (DCTERMS.created, _text(agreement.created)),
            *((MIF.coversNamespace, Literal(p)) for p in agreement.namespaces),
            *((predicate, node(base, "party", name)) for predicate, names in named for name in names),
            *words,
        ],
    )


def inherited_triples(
    model: NamespaceModel, base: str, memories: Iterable[tuple[str, Mapping[str, Any]]]
) -> Iterator[Triple]:
    """The ``#inherited`` graph: for each ``(memory id, frontmatter)``,
    what its namespace gives it and it does not say itself."""
    if not model.namespaces and not any(p.ttl for p in model.prefixes.values()):
        return
    for memory_id, frontmatter in memories:
        yield from memory_inherited(model, base, memory_id, frontmatter)


def memory_inherited(
    model: NamespaceModel, base: str, memory_id: str, frontmatter: Mapping[str, Any]
) -> Iterator[Triple]:
    """One memory's triples of the ``#inherited`` graph (none when its own values cover everything)."""
    inherited = model.inherited(frontmatter.get("namespace"))
    subject = URIRef(memory_iri(memory_id))
    sources: set[str] = set()
    temporal = frontmatter.get("temporal")
    if inherited.ttl is not None and not (isinstance(temporal, dict) and temporal.get("ttl") is not None):
        value, source = inherited.ttl
        sources.add(source)
        yield subject, MIF.inheritedTtl, Literal(value, datatype=XSD.duration)
    if inherited.visibility is not None:
        value, source = inherited.visibility
        sources.add(source)
        yield subject, MIF.inheritedVisibility, Literal(value)
    if inherited.tags is not None and frontmatter.get("tags") is None:
        tags, source = inherited.tags
        sources.add(source)
        for tag in tags:
            yield subject, MIF.tags, Literal(tag)
    for source in sorted(sources):
        yield subject, MIF.inheritsFrom, node(base, "prefix" if source in model.prefixes else "namespace", source)


def namespace_uri(authority: str, namespace: object, memory_id: str) -> str | None:
    """``mif://{authority}/{namespace}/{memory-id}`` (spec 10.6, 19.2),
    or None for a memory without a well-formed namespace.

    Runs once per memory of every load: the namespace part is worked out once
    per namespace, and an id that needs no quoting (a UUID) is used as is.
    """
    path = _namespace_path(namespace) if isinstance(namespace, str) else None
    if path is None:
        return None
    return f"mif://{authority}/{path}/{memory_id if _PLAIN_ID.match(memory_id) else quote(memory_id, safe='-._~')}"


_PLAIN_ID = re.compile(r"[A-Za-z0-9._~-]+\Z")


@lru_cache(maxsize=4096)  # a bundle has a few hundred namespaces at most, read once per memory
def _namespace_path(namespace: str) -> str | None:
    parts = segments(namespace)
    return None if parts is None else quote("/".join(parts), safe="/+-._~")


def model_graphs(
    model: NamespaceModel, base: str, memories: Iterable[tuple[str, Mapping[str, Any]]]
) -> dict[str, list[Triple]]:
    """Both graphs of the model, by graph IRI (empty lists for a bundle without a namespace model)."""
    return {
        graph_iri(base, GRAPH_NAMESPACES): list(namespaces_triples(model, base)),
        graph_iri(base, GRAPH_INHERITED): list(inherited_triples(model, base, memories)),
    }


def is_model_problem(problem: Any, config_path: str | None) -> bool:
    """Whether a load problem is one reading the namespace model reports (so a fresh read replaces it)."""
    from mif_rdf.nsmodel.model import AGREEMENTS_DIR, NAMESPACES_DIR

    if problem.path.startswith((AGREEMENTS_DIR + "/", NAMESPACES_DIR + "/")) or problem.path in (
        AGREEMENTS_DIR,
        NAMESPACES_DIR,
    ):
        return True
    return problem.path == config_path and problem.rule in ("reserved-prefix", "system-namespace", "authority")
