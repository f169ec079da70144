"""Export from an Oxigraph-backed dataset, read and written by Oxigraph itself (issue 19).

Why: the rdflib path copies the store into an rdflib memory dataset term by
term (oxrdflib builds an rdflib node for every term it returns) and then
rdflib serializes the copy: most of an export's time.  Here the store is read
by quad patterns and SPARQL, and ``pyoxigraph.serialize`` writes every
format, so no quad becomes rdflib terms:

* graphs the export policy withholds are never read;
* in shared graphs (every graph but a memory's own) the triples naming a
  hidden term are left out by the store's own query (a SPARQL ``MINUS``);
* N-Quads, TriG and JSON-LD are written graph by graph; Turtle, N-Triples
  and RDF/XML hold one graph, the union of the graphs that leave, as a set
  (a triple in two graphs appears once), from one ``SELECT DISTINCT``;
* Turtle, TriG and RDF/XML declare :data:`mif_rdf.core.namespaces.PREFIXES`, the
  prefixes the rdflib path declares too;
* the summary's counts are the store's ``COUNT`` queries.
"""

from __future__ import annotations

import itertools
import xml.parsers.expat
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from rdflib import BNode, Graph, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.term import IdentifiedNode

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import QUAD_FORMATS
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.load.oxigraph_sink import OxigraphSink, ox
from mif_rdf.load.stores import oxigraph_store

#: mif-rdf's format names -> pyoxigraph's (attribute names of ``RdfFormat``): every format is written natively.
_FORMATS = {
    "nquads": "N_QUADS",
    "trig": "TRIG",
    "json-ld": "JSON_LD",
    "turtle": "TURTLE",
    "nt": "N_TRIPLES",
    "rdfxml": "RDF_XML",
}
#: Formats whose writer abbreviates IRIs by the prefixes it declares.
_PREFIXED = frozenset({"turtle", "trig", "rdfxml"})
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


class UnwritableName(MifRdfError):
    """An IRI that RDF/XML must write as an XML element name (a predicate, an ``rdf:type`` class), and cannot."""

    def __init__(self, iri: str, graph: IdentifiedNode) -> None:
        super().__init__(f"no XML element name for <{iri}>, used in graph {graph}")
        self.iri, self.graph = iri, graph


@dataclass(frozen=True)
class Selection:
    """What leaves one Oxigraph store: every graph not withheld, read whole or without the hidden terms."""

    store: Any
    #: (pyoxigraph graph name, filtered) in export order: the default graph first, then by name
    graphs: list[tuple[Any, bool]]
    #: the terms shared graphs may not mention, as pyoxigraph terms
    hidden: list[Any]

    @classmethod
    def of(
        cls, graph: Graph, withheld: Collection[str], hidden: Iterable[Any], memory_graphs: Collection[Any]
    ) -> Selection | None:
        """The selection for the store under ``graph``, or None when it is not backed
        by Oxigraph (callers fall back)."""
        store = oxigraph_store(graph)
        if store is None:
            return None
        terms = [OxigraphSink.term(t) for t in hidden]
        memories = {str(m) for m in memory_graphs}
        names = sorted(
            (n for n in store.named_graphs() if not (isinstance(n, ox.NamedNode) and n.value in withheld)), key=str
        )
        graphs = [(ox.DefaultGraph(), bool(terms))]
        graphs += [(n, bool(terms) and not (isinstance(n, ox.NamedNode) and n.value in memories)) for n in names]
        return cls(store, graphs, terms)

    def quads(self) -> Iterator[Any]:
        """Every quad that leaves, graph by graph; a whole graph goes from the store to the
        writer with no Python per quad."""
        return itertools.chain.from_iterable(
            self._unhidden(name) if filtered else self.store.quads_for_pattern(None, None, None, name)
            for name, filtered in self.graphs
        )

    def union(self) -> Any:
        """The union of what leaves as a set of triples: Oxigraph's ``DISTINCT``, not a Python set."""
        return self.store.query(
            f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SELECT DISTINCT ?s ?p ?o WHERE {{ {self._pattern()} }} }}"
        )

    def sizes(self) -> dict[IdentifiedNode, int]:
        """How many triples each graph sends (graphs that send none left out),
        counted by the store, not by reading them."""
        counts = {
            row[0]: int(row[1].value)
            for row in self.store.query("SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        }
        sizes: dict[IdentifiedNode, int] = {}
        for name, filtered in self.graphs:
            count = (
                self._count(name, filtered) if filtered or isinstance(name, ox.DefaultGraph) else counts.get(name, 0)
            )
            if count:
                sizes[_rdflib_name(name)] = count
        return sizes

    def refuse_unwritable_xml_names(self, prefixes: dict[str, str] | None) -> None:
        """Stop an RDF/XML export, before anything is written, when a predicate or class has no XML element name.

        RDF/XML writes each predicate, and each ``rdf:type`` class, as an element
        name: a namespace plus a local name.  An IRI that no XML name ends
        (``.../property/2024``) has none; rdflib says "Can't split", Oxigraph
        0.5 writes an element that is not well-formed XML.  So each distinct
        one is written alone first and read back by expat with namespaces
        (as rdflib reads RDF/XML): a name ending in ``:`` is an XML name, but no
        namespace-qualified one.
        """
        rdf_type = ox.NamedNode(_RDF_TYPE)
        probe = ox.NamedNode("urn:mif-rdf:probe")
        predicates = self.store.query(f"SELECT DISTINCT ?p WHERE {{ {self._pattern()} }}")
        checks = [(p, f"?p = {p}", ox.Triple(probe, p, ox.Literal(""))) for [p] in predicates]
        classes = self.store.query(
            f"SELECT DISTINCT ?o WHERE {{ {self._pattern()} FILTER(?p = {rdf_type} && isIRI(?o)) }}"
        )
        checks += [(c, f"?p = {rdf_type} && ?o = {c}", ox.Triple(probe, rdf_type, c)) for [c] in classes]
        for iri, condition, triple in checks:
            try:
                rdf_xml = ox.serialize([triple], format=ox.RdfFormat.RDF_XML, prefixes=prefixes)
                assert rdf_xml is not None  # without an output, serialize returns the bytes
                xml.parsers.expat.ParserCreate(namespace_separator=" ").Parse(rdf_xml, True)
            except xml.parsers.expat.ExpatError:
                [where] = next(
                    iter(self.store.query(f"SELECT ?g WHERE {{ {self._pattern()} FILTER({condition}) }} LIMIT 1"))
                )
                raise UnwritableName(iri.value, _rdflib_name(where or ox.DefaultGraph())) from None

    def _unhidden(self, name: Any) -> Iterator[Any]:
        """The quads of one shared graph whose subject and object are not hidden, filtered by the store's query."""
        rows = self.store.query(f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o{self._minus()} }}", default_graph=name)
        return (ox.Quad(s, p, o, name) for s, p, o in rows)

    def _count(self, name: Any, filtered: bool) -> int:
        [[count]] = self.store.query(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o{self._minus() if filtered else ''} }}", default_graph=name
        )
        return int(count.value)

    def _minus(self) -> str:
        """What a shared graph's ``?s ?p ?o`` loses: the triples whose subject or object is hidden.

        ``MINUS`` of the hidden terms' own triples (index lookups, then a hash
        anti-join), not ``FILTER(?s NOT IN (...))``, which compares every
        triple with every hidden term.
        """
        listed = " ".join(str(t) for t in self.hidden)
        return f" MINUS {{ VALUES ?s {{ {listed} }} ?s ?p ?o }} MINUS {{ VALUES ?o {{ {listed} }} ?s ?p ?o }}"

    def _pattern(self) -> str:
        """A SPARQL group pattern matching ``?s ?p ?o`` in every graph that leaves,
        shared graphs without the hidden terms.

        Graphs are listed by ``VALUES ?g`` (a join, not a ``NOT IN`` list
        tested on every quad); a graph named by a blank node
        cannot be written in a query, and is never a memory's own, so those
        are matched by ``isBlank``.
        """
        minus = self._minus() if self.hidden else ""
        branches = []
        for filtered in (False, True):
            named = " ".join(str(name) for name, f in self.graphs if f is filtered and isinstance(name, ox.NamedNode))
            if named:
                branches.append(f"{{ VALUES ?g {{ {named} }} GRAPH ?g {{ ?s ?p ?o{minus if filtered else ''} }} }}")
        if any(isinstance(name, ox.BlankNode) for name, _ in self.graphs):
            branches.append(f"{{ GRAPH ?g {{ ?s ?p ?o{minus} }} FILTER(isBlank(?g)) }}")
        branches.append(f"{{ ?s ?p ?o{minus} }}")  # the default graph
        return " UNION ".join(branches)


def _rdflib_name(name: Any) -> IdentifiedNode:
    """An rdflib graph name for a pyoxigraph one (the default graph is rdflib's default graph id)."""
    if isinstance(name, ox.DefaultGraph):
        return DATASET_DEFAULT_GRAPH_ID
    return URIRef(name.value) if isinstance(name, ox.NamedNode) else BNode(name.value)


def write_native(
    graph: Graph,
    fmt: str,
    withheld: Collection[str],
    hidden: Iterable[Any],
    memory_graphs: Collection[Any],
    out: IO[bytes],
) -> bool:
    """Write what leaves the Oxigraph store under ``graph`` in ``fmt``, serialized by Oxigraph.

    ``withheld`` are the graph IRIs never read, ``hidden`` the terms shared
    graphs may not mention, ``memory_graphs`` the graphs that are a memory's
    own (sent as written).  Returns False (nothing written) when ``graph``
    is not backed by Oxigraph, so callers fall back to rdflib.  Raises
    :class:`UnwritableName` before writing anything when RDF/XML cannot
    name a predicate or class.
    """
    selection = Selection.of(graph, withheld, hidden, memory_graphs)
    if selection is None:
        return False
    rdf_format = getattr(ox.RdfFormat, _FORMATS[fmt])
    prefixes = {prefix: str(namespace) for prefix, namespace in PREFIXES.items()} if fmt in _PREFIXED else None
    if fmt in QUAD_FORMATS:
        ox.serialize(selection.quads(), out, rdf_format, prefixes=prefixes)
        return True
    if fmt == "rdfxml":
        selection.refuse_unwritable_xml_names(prefixes)
    ox.serialize(selection.union(), out, rdf_format, prefixes=prefixes)
    return True


def native_sizes(
    graph: Graph, withheld: Collection[str], hidden: Iterable[Any], memory_graphs: Collection[Any]
) -> dict[IdentifiedNode, int] | None:
    """:meth:`Selection.sizes` for the store under ``graph``, or None when it is not backed by Oxigraph."""
    selection = Selection.of(graph, withheld, hidden, memory_graphs)
    return None if selection is None else selection.sizes()
