"""Reasoning over a loaded bundle: inferred triples in their own named graph.

Three profiles:

* ``fast`` (default): built in, linear in the number of edges.  Over the
  links graph (the direct edges between memories and entities) it applies
  what bundles need most: symmetric and inverse relationship types,
  ``rdfs:subPropertyOf`` / ``owl:equivalentProperty``, ``rdfs:domain`` /
  ``rdfs:range`` (named classes) and ``rdfs:subClassOf`` /
  ``owl:equivalentClass``, to a fixpoint.  These are owlrl's rules prp-symp,
  prp-inv1/2, prp-spo1, prp-eqp1/2, prp-dom, prp-rng, cax-sco, cax-eqc1/2 and
  give the same triples (tests/test_reasoning.py compares them).
* ``rdfs`` and ``owlrl``: owlrl's RDFS and OWL 2 RL closures.  Their cost
  grows about quadratically with the graph (DESIGN section 8), so they are
  never a default; ``scope="links"`` restricts them to the links graph.

The ontology graph (``<base>#ontology``) holds the mif: vocabulary, the
compiled ontologies (default: mif-base and those the memories name) and the bundle
config's ``relationship_types``; inferences go to ``<base>#inferences``, and
each call replaces both.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD
from rdflib.term import Node

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import open_rdf, rdf_suffix
from mif_rdf.core.names import PROFILES, SCOPES
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.ontology import bundle_ontologies, compile_ontologies, memory_references, vocabulary
from mif_rdf.source.identity import GRAPH_INFERENCES, GRAPH_ONTOLOGY, graph_iri

#: Files given as ontologies that are RDF already (not ontology YAML).
RDF_SUFFIXES = {
    ".ttl": "turtle",
    ".nt": "nt",
    ".n3": "n3",
    ".owl": "xml",
    ".rdf": "xml",
    ".xml": "xml",
    ".jsonld": "json-ld",
}
OntologySource = str | Path | Graph


def ontology_graph(
    bundle: LoadedBundle, ontologies: Iterable[OntologySource] | None = None, *, search_path: Iterable[Path | str] = ()
) -> Graph:
    """The vocabulary, the ontologies and the bundle's relationship types.

    ``ontologies``: ids, YAML or RDF files, graphs; default mif-base and every
    ontology the bundle's memories name that resolves (:func:`~mif_rdf.ontology.bundle_ontologies`).
    """
    graph = vocabulary()
    yaml_refs: list[str | Path] = []
    if ontologies is None:
        named = bundle_ontologies(bundle.root, memory_references(bundle.memories.values()), path_dirs=search_path)
        ontologies = list(dict.fromkeys(["mif-base", *named.ontologies]))
    for source in ontologies:
        if isinstance(source, Graph):
            graph += source
        elif rdf_suffix(Path(source)) in RDF_SUFFIXES:  # x.ttl, or x.ttl.gz read decompressed
            path = Path(source)
            if not path.is_file():
                raise MifRdfError(f"ontology file {str(path)!r} does not exist")
            with open_rdf(path) as handle:
                graph.parse(handle, format=RDF_SUFFIXES[rdf_suffix(path)])
        else:
            yaml_refs.append(source)
    graph += compile_ontologies(yaml_refs, search_path=search_path, bundle=bundle).owl
    return graph


def infer(
    bundle: LoadedBundle,
    profile: str = "fast",
    ontologies: Iterable[OntologySource] | None = None,
    *,
    search_path: Iterable[Path | str] = (),
    scope: str | None = None,
) -> int:
    """Write the inferences of ``profile`` into ``<base>#inferences``; return how many there are.

    ``ontologies``: ontology ids or files (YAML is compiled, RDF files are read
    as they are) or rdflib graphs; default mif-base.  The ontology graph goes
    into ``<base>#ontology``.  ``scope`` (rdfs/owlrl only): ``"all"`` (default,
    every graph of the bundle) or ``"links"`` (the links graph only).
    """
    if profile not in PROFILES:
        raise MifRdfError(f"unknown reasoning profile {profile!r}: use one of {', '.join(PROFILES)}")
    scope = scope or ("links" if profile == "fast" else "all")
    if scope not in SCOPES or (profile == "fast" and scope != "links"):
        raise MifRdfError(
            f"scope {scope!r} is not available for profile {profile!r} (fast works on the links graph; rdfs/owlrl "
            "take 'all' or 'links')"
        )
    ontology = ontology_graph(bundle, ontologies, search_path=search_path)
    dataset = bundle.dataset
    ontology_iri = URIRef(graph_iri(bundle.base_iri, GRAPH_ONTOLOGY))
    inferences_iri = URIRef(graph_iri(bundle.base_iri, GRAPH_INFERENCES))
    dataset.remove_graph(inferences_iri)
    dataset.remove_graph(ontology_iri)
    ontology_target = dataset.graph(ontology_iri)
    dataset.addN((s, p, o, ontology_target) for s, p, o in ontology)
    if scope == "links":
        data: Iterable[Triple] = bundle.links
    else:
        data = (t for t in dataset.triples((None, None, None)) if t not in ontology)
    new = fast_closure(data, ontology) if profile == "fast" else owlrl_closure(data, ontology, profile)
    target = dataset.graph(inferences_iri)
    dataset.addN((s, p, o, target) for s, p, o in new)
    return len(new)


class FastRules:
    """The schema facts the fast profile needs, precomputed from the ontology graph."""

    def __init__(self, ontology: Graph) -> None:
        self.superproperties = _closure(ontology, RDFS.subPropertyOf, OWL.equivalentProperty)
        self.superclasses = _closure(ontology, RDFS.subClassOf, OWL.equivalentClass)
        self.inverses: dict[Node, set[Node]] = {}
        for p, q in ontology.subject_objects(OWL.inverseOf):
            self.inverses.setdefault(p, set()).add(q)
            self.inverses.setdefault(q, set()).add(p)
        self.symmetric = set(ontology.subjects(RDF.type, OWL.SymmetricProperty))
        self.domains = _named(ontology, RDFS.domain)
        self.ranges = _named(ontology, RDFS.range)

    def consequences(self, s: Node, p: Node, o: Node) -> Iterator[Triple]:
        if p == RDF.type:
            for c in self.superclasses.get(o, ()):
                yield s, RDF.type, c
            return
        for q in self.superproperties.get(p, ()):
            yield s, q, o
        for c in self.domains.get(p, ()):
            yield s, RDF.type, c
        if isinstance(o, Literal):
            return
        for q in self.inverses.get(p, ()):
            yield o, q, s
        if p in self.symmetric:
            yield o, p, s
        for c in self.ranges.get(p, ()):
            yield o, RDF.type, c


def _closure(graph: Graph, *predicates: URIRef) -> dict[Node, set[Node]]:
    """For each term, every term above it along ``predicates`` (equivalences count both ways)."""
    up: dict[Node, set[Node]] = {}
    for predicate in predicates:
        for a, b in graph.subject_objects(predicate):
            if isinstance(a, URIRef) and isinstance(b, URIRef):
                up.setdefault(a, set()).add(b)
                if predicate in (OWL.equivalentProperty, OWL.equivalentClass):
                    up.setdefault(b, set()).add(a)
    closed: dict[Node, set[Node]] = {}
    for start, above in up.items():
        seen: set[Node] = set()
        todo = list(above)
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(up.get(node, ()))
        seen.discard(start)
        closed[start] = seen
    return closed


def _named(graph: Graph, predicate: URIRef) -> dict[Node, set[Node]]:
    out: dict[Node, set[Node]] = {}
    for p, c in graph.subject_objects(predicate):
        if isinstance(c, URIRef):
            out.setdefault(p, set()).add(c)
    return out


def fast_closure(data: Iterable[Triple], ontology: Graph) -> set[Triple]:
    """The triples the fast profile adds to ``data`` (a worklist to the fixpoint)."""
    rules = FastRules(ontology)
    known = set(data)
    queue = deque(known)
    new: set[Triple] = set()
    while queue:
        for triple in rules.consequences(*queue.popleft()):
            if triple not in known:
                known.add(triple)
                new.add(triple)
                queue.append(triple)
    return new


_W3C = (str(RDF), str(RDFS), str(OWL), str(XSD))
_REFLEXIVE = {OWL.sameAs, RDFS.subClassOf, OWL.equivalentClass, RDFS.subPropertyOf, OWL.equivalentProperty}
_TOP = {OWL.Thing, RDFS.Resource}


def _trivial(triple: Triple) -> bool:
    """Tautologies owlrl writes for every resource, and axioms about the W3C vocabularies themselves."""
    s, p, o = triple
    return (
        isinstance(s, Literal)
        or (s == o and p in _REFLEXIVE)
        or (p in (RDF.type, RDFS.subClassOf) and o in _TOP)
        or (isinstance(s, URIRef) and str(s).startswith(_W3C))
    )


def owlrl_closure(data: Iterable[Triple], ontology: Graph, profile: str) -> set[Triple]:
    """What owlrl's RDFS or OWL 2 RL closure adds to ``data`` plus ``ontology``.

    Left out: tautologies, and statements about the ontology's own blank nodes
    (restrictions, unions), which describe the schema rather than the bundle.
    Ill-typed literals of the data (``strength: strong`` under the
    ``xsd:decimal`` term) are not given to owlrl, which stops on some of them
    (decimal's InvalidOperation is no ValueError); OWL RL infers nothing from
    them but an inconsistency, which this function does not report.
    """
    import owlrl  # imported here: only these two profiles need it

    graph = Graph()
    for triple in data:
        if not (isinstance(triple[2], Literal) and triple[2].ill_typed):
            graph.add(triple)
    source = set(graph)
    graph += ontology
    schema_nodes = {s for s in ontology.subjects() if isinstance(s, BNode)}
    semantics = owlrl.RDFS_Semantics if profile == "rdfs" else owlrl.OWLRL_Semantics
    owlrl.DeductiveClosure(semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
    return {t for t in graph if t not in source and t not in ontology and not _trivial(t) and t[0] not in schema_nodes}
