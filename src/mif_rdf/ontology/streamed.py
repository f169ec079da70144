"""A compile written straight to its output as N-Triples, never held as rdflib graphs (issue 39).

:func:`~mif_rdf.ontology.compiler.compile_ontologies` returns graphs, which
rdflib keeps at about 1 KB a triple: some 1,000 times the YAML's size.  The
command line's output route needs no graph: :func:`write_owl` and
:func:`write_shapes_text` run the same writers into a
:class:`~mif_rdf.ontology.triple_stream.TripleStream`, so the memory a compile
takes is the composed model's (bounded by the YAML's size), whatever the
number of triples.  What they write is, read back, the graph
``Compilation.merged()`` and ``Compilation.shapes`` hold (isomorphic:
tests/test_ontology_streamed.py compares them on every shipped and test
ontology and on generated ones).
"""

from __future__ import annotations

import io
from collections.abc import Set
from dataclasses import dataclass, field
from typing import Any, TextIO

from rdflib.namespace import OWL, RDF, SH
from rdflib.term import Node

from mif_rdf.ontology.compiler import (
    Prepared,
    _config_ontology,
    _config_ontology_iri,
    kept_in_merged,
    merged_header,
    write_shapes,
)
from mif_rdf.ontology.iris import ontology_iri
from mif_rdf.ontology.owl import OwlWriter
from mif_rdf.ontology.triple_stream import TripleStream


@dataclass
class Written:
    """What a streamed output holds: lines (a triple written twice counts twice) and the typed subjects."""

    triples: int
    ontologies: set[Node] = field(default_factory=set)
    classes: set[Node] = field(default_factory=set)
    node_shapes: set[Node] = field(default_factory=set)


class _Discard(io.StringIO):
    """A text stream that keeps nothing."""

    def write(self, text: str) -> int:
        return len(text)


class _MergedView:
    """The merged view of ``Compilation.merged`` as a filter in front of a stream (see ``kept_in_merged``)."""

    def __init__(self, stream: TripleStream, main: Node, others: Set[Node]) -> None:
        self.stream, self.main, self.others = stream, main, others
        self.imports: set[Node] = set()
        self.ontologies: set[Node] = set()

    def add(self, triple: tuple[Node, Node, Node]) -> None:
        subject, predicate, value = triple
        if predicate == RDF.type and value == OWL.Ontology:
            self.ontologies.add(subject)
        if predicate == OWL.imports and (subject == self.main or subject in self.others):
            self.imports.add(value)
        if kept_in_merged(triple, self.main, self.others):
            self.stream.add(triple)

    def __getattr__(self, name: str) -> Any:  # bind, predicates, objects: the stream's
        return getattr(self.stream, name)


def write_owl(prepared: Prepared, out: TextIO) -> Written:
    """The merged OWL/RDFS of the compile (``Compilation.merged()``) as N-Triples lines on ``out``."""
    documents = {ontology_iri(c.view.file.id) for c in prepared.written}
    config = _config_ontology_iri(prepared.bundle, prepared.root) if prepared.root is not None else None
    main = ontology_iri(prepared.roots[0].id) if prepared.roots else next(iter(documents))
    others = (documents | ({config} if config is not None else set())) - {main}
    stream = TripleStream(out)
    stream.count_subjects_of(OWL.Class)
    view = _MergedView(stream, main, others)
    unwritten = TripleStream(_Discard())  # documents the output leaves out still give their warnings
    for composer in prepared.composers:  # in the order compile_ontologies writes them: the same warnings
        target = view if ontology_iri(composer.view.file.id) in documents else unwritten
        OwlWriter(target, composer, prepared.declarations, prepared.warnings).write()  # type: ignore[arg-type]
    held = set(view.ontologies)
    if prepared.root is not None:
        written = _config_ontology(view, prepared.bundle, prepared.root, prepared.warnings)  # type: ignore[arg-type]
        held |= {written} if written is not None else set()
    for triple in merged_header(main, others & held, view.imports):
        stream.add(triple)
    return Written(stream.written, held, stream.typed.get(OWL.Class, set()))


def write_shapes_text(prepared: Prepared, out: TextIO) -> Written:
    """The SHACL shapes of the compile (``Compilation.shapes``) as N-Triples lines on ``out``."""
    stream = TripleStream(out)
    stream.count_subjects_of(SH.NodeShape)
    write_shapes(stream, prepared.composers, prepared.roots, prepared.warnings)
    return Written(stream.written, node_shapes=stream.typed.get(SH.NodeShape, set()))
