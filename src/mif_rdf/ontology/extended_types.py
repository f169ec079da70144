"""A memory's ontology-extended type, from its namespace path (spec 4.2.1, 4.4), as RDF.

A memory has no field naming an extended type: spec 4.4 says the namespace
path "MAY map to an ontology-extended type defined by a referenced ontology
(e.g. an incident whose base is episodic, reached via _episodic/incidents)".
The rule mif-rdf applies (docs/ontology.md, "Extended types"), in the view of
the ontology the memory names (its own definitions and all it extends):

1. A namespace node *offers* an entity type when the ontology's discovery
   patterns pair them (``suggest_entity`` with ``suggest_namespace``), or when
   the node's last segment is the type's name or its plural
   (``_procedural/runbooks`` offers ``runbook``).  A type whose ``base``
   differs from the node's base type is never offered.
2. The memory's path is looked up from the full path upward; the deepest
   node that offers anything decides (``_episodic/incidents/2025`` is an
   incident).
3. One type offered: that type.  Several (``_semantic/science`` offers
   ``hypothesis`` and ``measurement``): the one the memory's ``entity:``
   payload names, if it is among them; otherwise none: a guess would assert a
   class the author did not choose.
4. No node offers a type: the memory gets no extended type.

The result goes into its own named graph ``<base>#types`` (the memory's own
graph stays exactly the JSON-LD of its projection): ``<memory> rdf:type
<class>`` and, for every class used, its ``rdfs:subClassOf`` chain up to the
base class (``mif:EpisodicType``) and its label, so ``?m a <class>`` and
``?m a/rdfs:subClassOf* mif:EpisodicType`` both work without a reasoner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import RDF, RDFS
from rdflib.term import Node

from mif_rdf.core.namespaces import MIF
from mif_rdf.core.statements import Triple
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.load.stores import oxigraph_store
from mif_rdf.ontology.binding import BoundOntologies, OntologyReference, bundle_ontologies
from mif_rdf.ontology.iris import entity_class
from mif_rdf.ontology.model import EntityTypeDef
from mif_rdf.ontology.namespace_tree import NamespaceTree, normalized_namespace, root_type
from mif_rdf.ontology.resolution import ResolvedOntology
from mif_rdf.source.identity import GRAPH_TYPES, graph_iri


def _singulars(segment: str) -> set[str]:
    """The names a plural path segment may stand for: ``runbooks`` -> runbook; ``policies`` -> policy."""
    names = {segment}
    if segment.endswith("ies"):
        names.add(segment[:-3] + "y")
    if segment.endswith("es"):
        names.add(segment[:-2])
    if segment.endswith("s"):
        names.add(segment[:-1])
    return names


@dataclass
class TypeMap:
    """The namespace paths of one ontology view and the entity types each offers."""

    view: ResolvedOntology
    offers: dict[str, list[EntityTypeDef]] = field(default_factory=dict)

    @classmethod
    def of(cls, view: ResolvedOntology) -> TypeMap:
        found = cls(view)
        files = [view.file, *(a.file for a in view.ancestors())]
        tree = NamespaceTree(view)
        paths = {path: tree.implied_type(path) for path in tree.nodes}  # node path -> the base type it implies
        for onto in files:  # discovery pairs (spec 10.8.4)
            patterns = onto.discovery.get("patterns") if isinstance(onto.discovery, dict) else None
            for pattern in patterns if isinstance(patterns, list) else []:
                if isinstance(pattern, dict) and isinstance(pattern.get("suggest_namespace"), str):
                    entity = view.entity_types.get(str(pattern.get("suggest_entity")))
                    path = normalized_namespace(pattern["suggest_namespace"])
                    if entity is not None and entity.base == paths.get(path, root_type(path)):
                        found._offer(path, entity)
        for path, base in paths.items():  # the node named after the type
            names = _singulars(path.rsplit("/", 1)[-1])
            for entity in view.entity_types.values():
                if entity.name in names and entity.base == base:
                    found._offer(path, entity)
        return found

    def _offer(self, path: str, entity: EntityTypeDef) -> None:
        offered = self.offers.setdefault(path, [])
        if all(e.name != entity.name for e in offered):
            offered.append(entity)

    def type_of(self, namespace: str, payload_type: str | None = None) -> EntityTypeDef | None:
        """The extended type of a memory in ``namespace`` (see the module docstring)."""
        parts = normalized_namespace(namespace).split("/")
        for depth in range(len(parts), 0, -1):
            offered = self.offers.get("/".join(parts[:depth]))
            if offered:
                if len(offered) == 1:
                    return offered[0]
                return next((e for e in offered if e.name == payload_type), None)
        return None


@dataclass(frozen=True)
class Placement:
    """What decides a memory's extended type: the ontology it names, its namespace, its payload's type."""

    memory: str
    ontology: str
    namespace: str
    payload_type: str | None = None


PLACEMENTS = """SELECT ?memory ?ontology ?namespace ?payload_type WHERE {
  ?memory mif:ontology ?ontology ; mif:namespace ?namespace .
  FILTER (isIRI(?ontology))
  OPTIONAL { ?memory mif:entity ?entity . ?entity mif:entity_type|mif:entityType ?payload_type }
}"""


def placements(bundle: LoadedBundle, memories: Iterable[str] | None = None) -> list[Placement]:
    """Every memory that names an ontology and has a namespace (of ``memories`` only, when given: their IRIs).

    Read from the graph, not the parsed frontmatter, so a warm cached load
    need not read its records: on Oxigraph by one query, on rdflib's store by
    triple patterns (index lookups, a third of the query's time there).  The ontology id
    is the last segment of the ``mif:ontology`` IRI, as the compiled shapes
    read it.
    """
    dataset = bundle.dataset
    found: dict[str, Placement] = {}  # Oxigraph's union graph is a bag: each memory once
    store = oxigraph_store(dataset)
    if store is not None:  # Oxigraph answers the query natively (its own terms: no rdflib term per value)
        query = f"PREFIX mif: <{MIF}>\n{PLACEMENTS}"
        if memories is not None:  # an index lookup per memory, not a scan of the bundle
            values = " ".join(f"<{iri}>" for iri in memories)
            query = query.replace("WHERE {", f"WHERE {{ VALUES ?memory {{ {values} }}", 1)
        for memory, ontology, namespace, payload in store.query(query, use_default_graph_as_union=True):
            found.setdefault(
                memory.value,
                Placement(
                    memory.value,
                    re.sub(r"^.*[/#:]", "", ontology.value),
                    namespace.value,
                    None if payload is None else payload.value,
                ),
            )
        return list(found.values())
    wanted = None if memories is None else set(memories)
    for memory, ontology in dataset.subject_objects(MIF.ontology):
        if (
            not isinstance(ontology, URIRef)
            or str(memory) in found
            or (wanted is not None and str(memory) not in wanted)
        ):
            continue
        namespace = next(dataset.objects(memory, MIF.namespace), None)
        if namespace is None:
            continue
        payload = next(
            (
                t
                for e in dataset.objects(memory, MIF.entity)
                for p in (MIF.entity_type, MIF.entityType)
                for t in dataset.objects(e, p)
            ),
            None,
        )
        found[str(memory)] = Placement(
            str(memory),
            re.sub(r"^.*[/#:]", "", str(ontology)),
            str(namespace),
            None if payload is None else str(payload),
        )
    return list(found.values())


class Typer:
    """Extended types one memory at a time: the one path of a load's types graph and of ``export --stream``.

    Each ontology id is bound the first time a memory names it (memoised, as
    :func:`bundle_ontologies` is), so a writer that never holds the whole
    bundle needs nothing but this; :meth:`hierarchy` gives the label and
    ``rdfs:subClassOf`` chain of every class used, to write once.
    """

    def __init__(
        self, root: Path, user_dirs: Iterable[Path | str] | None = None, path_dirs: Iterable[Path | str] = ()
    ) -> None:
        self.root = root
        self.user_dirs = None if user_dirs is None else list(user_dirs)
        self.path_dirs = list(path_dirs)
        self._bound: dict[str, BoundOntologies] = {}
        self._maps: dict[str, TypeMap | None] = {}
        self._used: dict[URIRef, Graph] = {}

    def class_of(self, place: Placement) -> URIRef | None:
        if place.ontology not in self._maps:
            # no path: binding problems are validation's to show, not this step's (and the memo key stays the same)
            bound = bundle_ontologies(
                self.root, [OntologyReference(".", place.ontology)], user_dirs=self.user_dirs, path_dirs=self.path_dirs
            )
            view = bound.view(place.ontology)
            self._bound[place.ontology] = bound
            self._maps[place.ontology] = TypeMap.of(view) if view is not None else None
        type_map = self._maps[place.ontology]
        entity = type_map.type_of(place.namespace, place.payload_type) if type_map is not None else None
        compilation = self._bound[place.ontology].compilation
        if entity is None or compilation is None:
            return None
        cls = entity_class(entity.origin.ontology, entity.name)
        self._used.setdefault(cls, compilation.owl)
        return cls

    def chain(self, cls: URIRef) -> list[Triple]:
        """The label and ``rdfs:subClassOf`` chain of one class :meth:`class_of` gave."""
        return class_chain(cls, self._used[cls])

    def hierarchy(self) -> list[Triple]:
        """Each used class's label and ``rdfs:subClassOf`` chain (each triple once)."""
        found: dict[Triple, None] = {}
        for cls, owl in self._used.items():
            found.update(dict.fromkeys(class_chain(cls, owl)))
        return list(found)


def add_types_graph(
    bundle: LoadedBundle,
    *,
    user_dirs: Iterable[Path | str] | None = None,
    path_dirs: Iterable[Path | str] = (),
) -> int:
    """Write (or rewrite) ``<base>#types`` of ``bundle``; return how many memories have an extended type.

    The ontologies are those the memories name, resolved as
    :func:`~mif_rdf.ontology.bundle_ontologies` does (``user_dirs`` default
    ``MIF_RDF_ONTOLOGY_PATH``; ``path_dirs``: ``--path``).
    """
    iri = URIRef(graph_iri(bundle.base_iri, GRAPH_TYPES))
    bundle.dataset.remove_graph(iri)
    typer = Typer(bundle.root, user_dirs, path_dirs)
    typed = [(URIRef(p.memory), RDF.type, cls) for p in placements(bundle) if (cls := typer.class_of(p)) is not None]
    if typed:
        target = bundle.dataset.graph(iri)
        bundle.dataset.addN((s, p, o, target) for s, p, o in typed + typer.hierarchy())
    return len(typed)


def placement_of(memory: str, frontmatter: Mapping[str, object]) -> Placement | None:
    """What decides a memory's extended type, read from its frontmatter (the graph-free twin of :func:`placements`)."""
    ref, namespace = frontmatter.get("ontology"), frontmatter.get("namespace")
    ontology_id = ref.get("id") if isinstance(ref, dict) else None
    if not isinstance(ontology_id, str) or not isinstance(namespace, str):
        return None
    payload = frontmatter.get("entity")
    kind = (
        next((payload[k] for k in ("entity_type", "entityType") if k in payload), None)
        if isinstance(payload, dict)
        else None
    )
    return Placement(memory, ontology_id.strip(), namespace, kind if isinstance(kind, str) else None)


def class_chain(cls: URIRef, owl: Graph) -> list[Triple]:
    """``cls``'s label and ``rdfs:subClassOf`` chain up to its base class, from ``owl`` (restrictions stay there)."""
    triples: list[Triple] = []
    seen: set[Node] = set()
    todo: list[Node] = [cls]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for label in owl.objects(current, RDFS.label):
            triples.append((current, RDFS.label, label))
        for parent in owl.objects(current, RDFS.subClassOf):
            if isinstance(parent, URIRef):
                triples.append((current, RDFS.subClassOf, parent))
                todo.append(parent)
    return triples
