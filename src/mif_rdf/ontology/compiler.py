"""Ontology YAML -> resolved model -> OWL/RDFS and SHACL (DESIGN section 5).

:func:`compile_ontologies` does everything that can fail first (reading,
``extends``, trait composition, ``subtype_of`` checks) so a bad ontology is
one clear :class:`~mif_rdf.core.errors.MifRdfError`, then writes both graphs.
Warnings (things that compile but deserve a look) are collected in
``Compilation.warnings``; with ``strict`` the ones where a precedence chose
between two definitions, or a trait is undefined, are errors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SH
from rdflib.term import Node

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import MAX_ONTOLOGY_FIELDS
from mif_rdf.core.namespaces import bind_prefixes
from mif_rdf.ontology.iris import MIFO, VOCABULARY, ontology_iri, shape_iri, term_namespace
from mif_rdf.ontology.loader import config_relationships
from mif_rdf.ontology.model import STRICT_RULES, RelationshipDef
from mif_rdf.ontology.owl import OwlWriter, relationship
from mif_rdf.ontology.owl_properties import PropertyDeclaration, field_declarations
from mif_rdf.ontology.registry import Registry, user_ontology_dirs
from mif_rdf.ontology.registry import search_path as build_search_path
from mif_rdf.ontology.resolution import ResolvedOntology, resolve
from mif_rdf.ontology.shapes import ShapeWriter, Target
from mif_rdf.ontology.subtypes import check_subtypes
from mif_rdf.ontology.traits import ComposedEntity, Composer
from mif_rdf.source.identity import document_iri
from mif_rdf.source.parse import bundle_base_iri, parse_config

if TYPE_CHECKING:  # a loaded bundle is read, never made here: compiling needs no loader
    from mif_rdf.load.bundle import LoadedBundle

OntologyRef = str | Path
BundleRef: TypeAlias = "LoadedBundle | Path | str | None"
CONFIG = ".mif/config.yaml"


@dataclass
class Compilation:
    """Compiled ontologies: the OWL graph, the SHACL shapes graph and the warnings.

    ``owl`` is the union of the written ontologies (one ``owl:Ontology`` each: what
    reasoning reads); ``documents`` holds each ontology of the ``extends`` chain
    as its own graph (ontology IRI -> graph, parents first), the form OWL tools
    read with ``owl:imports``; :meth:`merged` is the one-file view.
    """

    roots: list[ResolvedOntology]
    composers: list[Composer]
    owl: Graph
    shapes: Graph
    warnings: list[Problem] = field(default_factory=list)
    documents: dict[URIRef, Graph] = field(default_factory=dict)

    def merged(self) -> Graph:
        """``owl`` as one ontology: the first named ontology's header, the others' kept as annotations.

        One file with several ``owl:Ontology`` headers is read by the OWL API as
        whichever header it meets first; here the other ontologies of the file
        lose their ``rdf:type``, ``owl:versionIRI`` and ``owl:imports`` (their
        labels and annotations stay), and the merged ontology imports what none
        of them holds (the MIF vocabulary, parents left out by ``with_ancestors=False``).
        """
        graph = new_graph()
        for prefix, namespace in self.owl.namespaces():
            graph.bind(prefix, namespace, override=False)
        graph += self.owl
        main = ontology_iri(self.roots[0].id) if self.roots else next(iter(self.documents))
        others = {o for o in graph.subjects(RDF.type, OWL.Ontology) if o != main}
        imports = {i for o in [main, *others] for i in graph.objects(o, OWL.imports)}
        for triple in [t for o in [main, *others] for t in graph.triples((o, None, None))]:
            if not kept_in_merged(triple, main, others):
                graph.remove(triple)
        for triple in merged_header(main, others, imports):
            graph.add(triple)
        return graph


def kept_in_merged(triple: tuple[Node, Node, Node], main: Node, others: Set[Node]) -> bool:
    """Whether a triple of the union stays in the merged view (headers of the other ontologies, and every
    ``owl:imports`` of an ontology of the file, go: :func:`merged_header` writes the imports left)."""
    subject, predicate, _ = triple
    if subject in others:
        return predicate not in (RDF.type, OWL.versionIRI, OWL.imports)
    return subject != main or predicate != OWL.imports


def merged_header(main: Node, others: Set[Node], imports: Set[Node]) -> list[tuple[Node, Node, Node]]:
    """What the merged view adds to ``main``: the ``imports`` none of its ontologies holds, the note on the others."""
    added: list[tuple[Node, Node, Node]] = [
        (main, OWL.imports, target) for target in sorted(imports - {main, *others}, key=str)
    ]
    if others:
        held = ", ".join(sorted(str(o) for o in others))
        note = (
            f"merged view: this one file also holds {held} (their terms, their headers as annotations); "
            "`mif-rdf ontology compile --output-dir DIR` writes each ontology as its own document"
        )
        added.append((main, RDFS.comment, Literal(note)))
    return added


def new_graph() -> Graph:
    graph = bind_prefixes(Graph())
    graph.bind("mifo", MIFO)
    graph.bind("sh", SH)
    return graph


def compile_ontologies(
    ontologies: Iterable[OntologyRef],
    *,
    search_path: Iterable[Path | str] = (),
    bundle: BundleRef = None,
    with_ancestors: bool = True,
    strict: bool = False,
    user_dirs: Iterable[Path | str] | None = None,
) -> Compilation:
    """Compile ontologies named by id (found along the search path) or by file.

    The search path is the built-in ``ontologies/`` folder, then
    ``user_dirs`` (default: ``MIF_RDF_ONTOLOGY_PATH``), then ``bundle``'s
    ``.mif/ontologies/``, then ``search_path`` (``--path``); a bundle also
    contributes the ``relationship_types`` of its ``.mif/config.yaml``.  The OWL
    graph holds every named ontology and, unless ``with_ancestors`` is false,
    every ontology they extend (each its own ``owl:Ontology``), so the output
    stands alone.  Raises :class:`MifRdfError` for any ontology that cannot
    compile, and with ``strict`` for the first warning where two definitions
    disagreed and a precedence of docs/ontology.md chose one, or a trait is
    undefined.
    """
    prepared = prepare_ontologies(
        ontologies,
        search_path=search_path,
        bundle=bundle,
        with_ancestors=with_ancestors,
        strict=strict,
        user_dirs=user_dirs,
    )
    return compile_prepared(prepared)


def compile_prepared(prepared: Prepared) -> Compilation:
    """The graphs of a prepared compile (:func:`compile_ontologies` after :func:`prepare_ontologies`).

    Refused past ``MAX_ONTOLOGY_FIELDS`` composed fields, before any graph is
    built: rdflib holds a triple in about 1 KB (the text route of
    :mod:`~mif_rdf.ontology.streamed` has no such bound).
    """
    _check_size(prepared.composers)
    roots, composers, warnings, root = prepared.roots, prepared.composers, prepared.warnings, prepared.root
    documents: dict[URIRef, Graph] = {}
    for composer in composers:  # an ontology that extends its own id (an override) shares its document
        document = documents.setdefault(ontology_iri(composer.view.file.id), new_graph())
        document.bind(composer.view.id, term_namespace(composer.view.id))
        OwlWriter(document, composer, prepared.declarations, warnings).write()
    owl = new_graph()
    for composer in prepared.written:
        owl.bind(composer.view.id, term_namespace(composer.view.id))
        owl += documents[ontology_iri(composer.view.file.id)]
    if root is not None:
        config = new_graph()
        if _config_ontology(config, prepared.bundle, root, warnings) is not None:
            documents[_config_ontology_iri(prepared.bundle, root)] = config
            owl += config
    shapes = new_graph()
    write_shapes(shapes, composers, roots, warnings)
    return Compilation(roots, composers, owl, shapes, warnings, documents)


@dataclass
class Prepared:
    """Everything of a compile that can fail, done: the ontologies read, resolved and composed.

    What :func:`compile_ontologies` builds graphs from, and
    :mod:`~mif_rdf.ontology.streamed` writes as text without them.
    """

    roots: list[ResolvedOntology]
    composers: list[Composer]
    written: list[Composer]  # the composers whose documents the output holds (all but with_ancestors=False)
    declarations: dict[URIRef, PropertyDeclaration]
    warnings: list[Problem]
    bundle: BundleRef
    root: Path | None

    @property
    def composed_fields(self) -> int:
        """Fields of entity types once traits and supertypes are composed: what the output's size follows."""
        return sum(len(c.compose(name).fields) for c in self.composers for name in c.view.entity_types)


def prepare_ontologies(
    ontologies: Iterable[OntologyRef],
    *,
    search_path: Iterable[Path | str] = (),
    bundle: BundleRef = None,
    with_ancestors: bool = True,
    strict: bool = False,
    user_dirs: Iterable[Path | str] | None = None,
) -> Prepared:
    """Read, resolve and compose (the arguments of :func:`compile_ontologies`); raises as it does."""
    root = Path(bundle) if isinstance(bundle, (str, Path)) else bundle.root if bundle is not None else None
    if root is not None and not root.is_dir():
        raise MifRdfError(f"bundle folder {str(root)!r} does not exist")
    users = user_ontology_dirs() if user_dirs is None else user_dirs
    registry = Registry(build_search_path(users, root, search_path))
    cache: dict[int, ResolvedOntology] = {}
    roots = [resolve(registry, registry.get(ref), cache) for ref in ontologies]
    composers = [Composer(view) for view in cache.values()]  # parents first
    warnings = [
        *registry.problems,
        *(w for composer in composers for w in composer.view.file.warnings + composer.view.warnings),
    ]
    for composer in composers:
        composer.all_traits()
        warnings.extend(check_subtypes(composer.view, composer))
        for name in composer.view.entity_types:
            composer.compose(name)
        warnings.extend(composer.warnings.values())
    warnings = list({(w.path, w.message): w for w in warnings}.values())  # a definition several views inherit: once
    if strict:
        _refuse(warnings)
    written = composers if with_ancestors else [c for c in composers if any(c.view is r for r in roots)]
    declarations = field_declarations(composers, warnings)
    return Prepared(roots, composers, written, declarations, warnings, bundle, root)


def _check_size(composers: list[Composer]) -> None:
    """Refuse, before any graph is built, a compile whose composed fields
    would take gigabytes (see MAX_ONTOLOGY_FIELDS)."""
    sizes = {c.view.id: sum(len(c.compose(name).fields) for name in c.view.entity_types) for c in composers}
    if sum(sizes.values()) > MAX_ONTOLOGY_FIELDS:
        largest = max(sizes, key=sizes.__getitem__)
        raise MifRdfError(
            f"the ontologies compose to {sum(sizes.values()):,} entity-type fields (traits and supertypes included; "
            f"'{largest}' alone {sizes[largest]:,}), over the limit of {MAX_ONTOLOGY_FIELDS:,} "
            "(mif_rdf.core.limits.MAX_ONTOLOGY_FIELDS): each field becomes dozens of OWL and SHACL triples; "
            "`mif-rdf ontology compile` writes any size to .ttl or .nt files (-o, --shapes; not --output-dir)"
        )


def _refuse(warnings: list[Problem]) -> None:
    """``strict``: the first warning of :data:`STRICT_RULES` as an error."""
    lenient = [w for w in warnings if w.rule in STRICT_RULES]
    if lenient:
        more = f" (--strict; {len(lenient) - 1} more like it)" if len(lenient) > 1 else " (--strict)"
        raise MifRdfError(f"{lenient[0].path}: {lenient[0].message}{more}")


def compile_owl(ontologies: Iterable[OntologyRef], **options: Any) -> Graph:
    """The OWL/RDFS graph of :func:`compile_ontologies`."""
    return compile_ontologies(ontologies, **options).owl


def compile_shapes(ontologies: Iterable[OntologyRef], **options: Any) -> Graph:
    """The SHACL shapes graph of :func:`compile_ontologies` (validate with pyshacl ``advanced=True``)."""
    return compile_ontologies(ontologies, **options).shapes


def bundle_relationships(bundle: BundleRef, root: Path, warnings: list[Problem]) -> dict[str, RelationshipDef]:
    """The ``relationship_types`` of a bundle's config (spec 8.1)."""
    if bundle is not None and not isinstance(bundle, (str, Path)):  # a loaded bundle
        config: dict[str, Any] = bundle.config
    elif (root / CONFIG).is_file():
        config, problems = parse_config(root, CONFIG)
        warnings.extend(problems)
    else:
        config = {}
    return config_relationships(root / CONFIG, config.get("relationship_types"), warnings)


def _config_ontology_iri(bundle: BundleRef, root: Path) -> URIRef:
    base = bundle_base_iri(root) if bundle is None or isinstance(bundle, (str, Path)) else bundle.base_iri
    return URIRef(document_iri(base, CONFIG))


def _config_ontology(graph: Graph, bundle: BundleRef, root: Path, warnings: list[Problem]) -> URIRef | None:
    """The bundle config's relationship types as an ontology of their own (None when there are none)."""
    relationships = bundle_relationships(bundle, root, warnings)
    if not relationships:
        return None
    iri = _config_ontology_iri(bundle, root)
    graph.add((iri, RDF.type, OWL.Ontology))
    graph.add((iri, RDFS.label, Literal(f"relationship types of bundle {root.name}")))
    graph.add((iri, OWL.imports, VOCABULARY))
    for rel in relationships.values():
        relationship(graph, rel, iri, None, None)
    return iri


def write_shapes(graph: Any, composers: list[Composer], roots: list[ResolvedOntology], warnings: list[Problem]) -> None:
    """Node shapes for every entity type any compiled ontology sees, into ``graph`` (or a triple stream).

    One entity type name can compose differently in two views (a child
    overrides a trait; two unrelated ontologies both define ``observation``):
    then each version targets the memories whose ``ontology: id`` picks it.
    """
    writer = ShapeWriter(graph)
    versions: dict[str, dict[bytes, tuple[ComposedEntity, list[str]]]] = {}
    for composer in composers:
        for name in composer.view.entity_types:
            composed = composer.compose(name)
            key = hashlib.sha256(composed.fingerprint().encode()).digest()  # not the text: one per entity type
            versions.setdefault(name, {}).setdefault(key, (composed, []))[1].append(composer.view.id)
    root_ids = {r.id for r in roots}
    known = tuple(dict.fromkeys(c.view.id for c in composers))
    for name, found in versions.items():
        if len(found) == 1:
            composed, _ = next(iter(found.values()))
            writer.entity(shape_iri(composed.entity.origin.ontology, name), composed, Target(name))
            continue
        described = "; ".join(f"{c.entity.origin} as seen by {', '.join(ids)}" for c, ids in found.values())
        first = next(iter(found.values()))[0]
        warnings.append(
            Problem(
                str(first.entity.origin.file),
                f"entity type '{name}' composes differently in the compiled ontologies ({described}); memories are "
                "checked "
                "against the version of the ontology their 'ontology: id' names, memories naming none against the "
                "named ontologies' versions",
                Severity.WARNING,
                key=name,
                rule="ontology",
            )
        )
        for composed, ids in found.values():
            owner = composed.entity.origin.ontology if composed.entity.origin.ontology in ids else ids[0]
            target = Target(name, tuple(ids), any(i in root_ids for i in ids), known)
            writer.entity(shape_iri(owner, name), composed, target)
