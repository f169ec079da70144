"""Serializers: Turtle, N-Triples, N-Quads, TriG, JSON-LD and RDF/XML.

Turtle, N-Triples and RDF/XML hold one graph, so they get the union of all graphs;
N-Quads, TriG and JSON-LD keep every named graph.  Every format carries the
same RDF terms, lexical forms included: rdflib's Turtle writer respells
numbers in its shorthand (``"9.995E1"^^xsd:double`` as ``9.995e+01``,
``"7"^^xsd:decimal`` as ``7.0``: the same value, another term), so Turtle and
TriG write such a literal in full.  JSON-LD is written expanded, one
``{"@id": <graph>, "@graph": [...]}`` per named graph with every literal as a
typed value object: JSON numbers would be converted again by the reader
(``0.94`` under ``xsd:decimal`` becomes ``9.399999999999999E-1`` in pyld and
jsonld.js), and no context is needed to read it.  The MIF-shaped JSON-LD of
a memory is its projection (``mif-rdf convert to-jsonld``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.serializers.trig import TrigSerializer
from rdflib.plugins.serializers.turtle import _GEN_QNAME_FOR_DT, TurtleSerializer

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import RDF_FORMATS
from mif_rdf.core.namespaces import PREFIXES, bind_prefixes
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.rdf.tordf import nt_string

#: CLI format names -> rdflib serializer names (:mod:`mif_rdf.core.formats` has their other spellings).


def serialize_bundle(bundle: LoadedBundle, fmt: str, out: IO[bytes]) -> None:
    """Write the bundle's dataset to a binary stream in one of :data:`RDF_FORMATS`."""
    if fmt not in RDF_FORMATS:
        raise MifRdfError(f"unknown format {fmt!r}; choose one of {', '.join(RDF_FORMATS)}")
    if fmt == "json-ld":
        out.write(json.dumps(bundle_jsonld(bundle), indent=2, ensure_ascii=False).encode("utf-8"))
        out.write(b"\n")
        return
    if fmt == "nquads":
        write_nquads(bundle.dataset, out)
        return
    if fmt == "trig":
        bind_prefixes(bundle.dataset)
        _ExactTrig(bundle.dataset).serialize(out, encoding="utf-8")
        return
    union = Graph()
    bind_prefixes(union)
    for triple in bundle.dataset.triples((None, None, None)):
        union.add(triple)
    if fmt == "turtle":
        _ExactTurtle(union).serialize(out, encoding="utf-8")
    else:
        write_graph_as(union, fmt, out)


def write_graph_as(graph: Graph, fmt: str, out: IO[bytes]) -> None:
    """One graph in a one-graph format; RDF/XML's limits (a predicate it cannot split) are a clear error."""
    if fmt in ("nquads", "trig"):
        raise MifRdfError(
            f"{fmt} is for named graphs, and this is one graph: write it as turtle, nt, json-ld or rdfxml (.ttl .nt "
            ".jsonld .rdf)"
        )
    try:
        graph.serialize(out, format=RDF_FORMATS[fmt], encoding="utf-8")
    except ValueError as exc:  # rdflib's RDF/XML writer: "Can't split <iri>"
        raise rdfxml_refusal(str(exc)) from None


def rdfxml_refusal(reason: str) -> MifRdfError:
    """The error for a graph RDF/XML cannot write (an IRI with no XML element name), from either store's writer."""
    return MifRdfError(f"RDF/XML cannot write this graph ({reason}); use turtle or nquads")


class _NotAProjectPrefix(Exception):
    """Raised inside the serializer for a prefix outside
    :data:`~mif_rdf.core.namespaces.PREFIXES`: the IRI is written in full."""


# The mixin extends whichever writer it is mixed into; the type checker reads it as extending Turtle's (TriG's base).
if TYPE_CHECKING:
    _Writer = TurtleSerializer
else:
    _Writer = object


class _ExactLiterals(_Writer):
    """Turtle's shorthand only where it writes the literal's own lexical form; elsewhere the full ``"..."^^type``.

    Prefixes: exactly :data:`~mif_rdf.core.namespaces.PREFIXES`, declared whether
    used or not, the same set Oxigraph's writer declares for the Oxigraph
    store (:mod:`mif_rdf.output.oxigraph_export`).  rdflib alone would declare the
    used ones among the ~30 it binds by default and invent ``ns1:`` for
    others, a set that changes with the data and cannot be computed without
    reading every IRI.  An IRI outside them is written in full.
    """

    def reset(self) -> None:
        super().reset()
        for prefix, namespace in PREFIXES.items():
            self.addNamespace(prefix, URIRef(namespace))

    def addNamespace(self, prefix: str, namespace: URIRef) -> str:  # type: ignore[override]  # as TurtleSerializer's
        if PREFIXES.get(prefix) != namespace:
            raise _NotAProjectPrefix(prefix)
        return super().addNamespace(prefix, namespace)

    def get_pname(self, uri: Any, gen_prefix: bool = True) -> str | None:
        try:
            return super().get_pname(uri, gen_prefix=False)
        except _NotAProjectPrefix:
            return None

    def label(self, node: Any, position: int) -> str:
        text = super().label(node, position)
        if isinstance(node, Literal) and node.datatype is not None and not text.startswith('"') and text != str(node):
            return node._literal_n3(use_plain=False, qname_callback=lambda dt: self.get_pname(dt, _GEN_QNAME_FOR_DT))
        return text


class _ExactTurtle(_ExactLiterals, TurtleSerializer):
    pass


class _ExactTrig(_ExactLiterals, TrigSerializer):
    pass


def write_nquads(dataset: Dataset, out: IO[bytes]) -> None:
    """Stream N-Quads quad by quad: no second copy of the dataset is built."""
    write_quads(dataset.quads((None, None, None, None)), out)


def write_quads(quads: Iterable[tuple[Any, Any, Any, Any]], out: IO[bytes]) -> None:
    """Stream any quads (a filtered view of a dataset, say) as N-Quads, one line at a time."""
    for s, p, o, g in quads:
        out.write(nquad_line(s, p, o, g).encode("utf-8"))


def nquad_line(s: Any, p: Any, o: Any, graph: Any = None) -> str:
    """One N-Quads line; without a graph (or for the default graph) an N-Triples line."""
    graph = getattr(graph, "identifier", graph)
    parts = [s.n3(), p.n3(), nt_term(o)]
    if graph is not None and graph != DATASET_DEFAULT_GRAPH_ID:
        parts.append(graph.n3())
    return " ".join(parts) + " .\n"


def nt_term(term: Any) -> str:
    """N-Triples form of a term (rdflib's ``n3()`` may use Turtle's long strings)."""
    if not isinstance(term, Literal):
        return term.n3()
    text = nt_string(str(term))
    if term.language:
        return f"{text}@{term.language}"
    return f"{text}^^<{term.datatype}>" if term.datatype else text


def bundle_jsonld(bundle: LoadedBundle) -> dict[str, Any]:
    """The whole dataset as one expanded JSON-LD document: one named graph object per graph, terms exact."""
    graphs: list[dict[str, Any]] = []
    names = sorted(
        (g.identifier for g in bundle.dataset.graphs() if len(g)), key=lambda n: (n != DATASET_DEFAULT_GRAPH_ID, str(n))
    )
    for name in names:
        nodes = node_objects(bundle.dataset.graph(name))
        if name == DATASET_DEFAULT_GRAPH_ID:
            graphs.extend(nodes)
        else:
            graphs.append({"@id": str(name), "@graph": nodes})
    return {"@graph": graphs}


def node_objects(graph: Iterable[tuple[Any, Any, Any]]) -> list[dict[str, Any]]:
    """Expanded JSON-LD node objects for arbitrary triples (full IRIs, typed values)."""
    nodes: dict[Any, dict[str, Any]] = {}
    for s, p, o in sorted(graph, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
        node = nodes.setdefault(s, {"@id": _node_id(s)})
        node.setdefault(str(p), []).append(_expanded_object(o))
    return list(nodes.values())


def _node_id(term: Any) -> str:
    return f"_:{term}" if isinstance(term, BNode) else str(term)


def _expanded_object(term: Any) -> dict[str, Any]:
    if isinstance(term, Literal):
        value: dict[str, Any] = {"@value": str(term)}
        if term.language:
            value["@language"] = term.language
        elif term.datatype:
            value["@type"] = str(term.datatype)
        return value
    return {"@id": _node_id(term)}
