"""The layout graph: what a lossless round trip needs beyond the JSON-LD graph.

JSON-LD keeps the meaning of a memory, not its form: a ``null`` vanishes, a
list under a ``@set`` term loses its order, ``extensions`` loses its provider
names, a relative target comes back as an absolute IRI, and the graph cannot
tell an unquoted YAML date from a quoted string.  The markdown is canonical, so
its form is data.  The projection stays spec-shaped (spec 15.1/15.4), and the
loader writes the authored frontmatter into a separate named graph,
``<base>#layout``::

    <urn:mif:<id>> mif:authoredFrontmatter "<JSON>" .

The JSON holds the frontmatter in its order and the key paths of its unquoted
YAML timestamps.  The reverse path uses it only as a *template*: when
projecting it (with the memory's body) gives exactly the memory's graph, the
template is what the graph says, written as the author wrote it; when the
graph has been changed since (SPARQL Update, code enriching the dataset), the
graph wins and the template only lends its key order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, XSD

from mif_rdf.core.context import MIF_NS
from mif_rdf.core.statements import Triple
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.tordf import document_triples
from mif_rdf.source.yamlio import TIMESTAMP_RE, YamlTimestamp

AUTHORED_FRONTMATTER = URIRef(MIF_NS + "authoredFrontmatter")
_RDF_JSON = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"
_BY_VALUE = "urn:mif-rdf:value:"  # a datatype prefix for literals compared by value
_MIRRORS = (URIRef(MIF_NS + "timestamp"), DCTERMS.description)
KeyPath = list[Any]  # keys and list indexes


def layout_text(frontmatter: dict[str, Any]) -> str:
    """The JSON a memory's layout triple holds: its frontmatter and where its unquoted timestamps are."""
    return json.dumps(
        {"frontmatter": frontmatter, "timestamps": list(_timestamp_paths(frontmatter, []))},
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )


def frontmatter_of_layout(text: str) -> dict[str, Any] | None:
    """The authored frontmatter a layout literal holds, timestamps restored; None when it is not one."""
    try:
        data = json.loads(text)
        frontmatter, paths = data["frontmatter"], data["timestamps"]
        if not isinstance(frontmatter, dict) or "id" not in frontmatter:
            return None
        for path in paths:
            _mark_timestamp(frontmatter, path)
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return frontmatter


def layout_triples(records: Iterable[Any]) -> Iterator[tuple[Any, Any, Any]]:
    """The layout graph of a bundle's memory records (anything with ``iri`` and ``frontmatter``)."""
    for record in records:
        yield URIRef(record.iri), AUTHORED_FRONTMATTER, Literal(layout_text(record.frontmatter))


def layout_nquads(iri: str, frontmatter: dict[str, Any], graph: str) -> str:
    """A memory's line of the layout graph (:func:`layout_triples`) as N-Quads text in ``graph``.

    JSON text holds no raw control character (JSON escapes them), so of N-Triples' escapes only the
    backslash and the quote are left: two replaces, not a general quoting."""
    text = layout_text(frontmatter).replace("\\", "\\\\").replace('"', '\\"')
    return f'<{iri}> <{AUTHORED_FRONTMATTER}> "{text}" <{graph}> .\n'


def authored_frontmatter(graph: Graph, memory: str) -> dict[str, Any] | None:
    """The template the layout graph (or any graph holding it) keeps for ``memory``."""
    text = graph.value(URIRef(memory), AUTHORED_FRONTMATTER)
    return None if text is None else frontmatter_of_layout(str(text))


def with_timestamps(value: Any) -> Any:
    """``value`` with every timestamp-shaped string as a :class:`YamlTimestamp`.

    For frontmatter that came through JSON (a ``.jsonld`` projection), which has
    no date type: the author of a date-shaped string almost always wrote a YAML
    date, and MIF's own examples write them unquoted.
    """
    if isinstance(value, dict):
        return {k: with_timestamps(v) for k, v in value.items()}
    if isinstance(value, list):
        return [with_timestamps(v) for v in value]
    if type(value) is str and TIMESTAMP_RE.match(value):
        return YamlTimestamp(value)
    return value


def template_fits(template: dict[str, Any], body: str, graph: Iterable[Triple], *, doc_iri: str) -> bool:
    """Whether projecting ``template`` with ``body`` gives exactly ``graph`` (literals as written).

    ``graph`` is a Graph or any collection of its triples (write-back passes
    a set it already holds: a memory's graph read once, not a Graph built
    again).  The ``timestamp``/``description`` mirrors the projection adds
    may be missing from a graph another converter made (the spec's 15.3
    example has none); they are derived, so their absence is no difference.
    """
    triples: set[Triple] = graph if isinstance(graph, set) else set(graph)
    document = project_memory(template, body, path="", doc_iri=doc_iri).document
    expected = set(document_triples(document, doc_iri))
    present = {p for _, p, _ in triples}
    missing = [mirror for mirror in _MIRRORS if mirror not in present]
    if missing:
        expected = {t for t in expected if t[1] not in missing}
    return _same_triples(_comparable(expected), _comparable(triples))


def same_graph(left: Graph, right: Graph) -> bool:
    """Whether two graphs are isomorphic.

    A projection's graph is a forest of blank nodes (each the object of at
    most one triple, no cycles), and for forests comparing every root's
    subtree, written out, is an exact test in linear time; rdflib's general
    test refines colourings and was most of a write-back's time per memory.
    Any other graph goes to :func:`rdflib.compare.isomorphic`.
    """
    return _same_triples(set(left), set(right))


def _same_triples(left: set[Triple], right: set[Triple]) -> bool:
    """:func:`same_graph` on two sets of triples (a Graph is a set of triples; sets cost no store's indexes)."""
    if len(left) != len(right):
        return False
    mine, theirs = _forest(left), _forest(right)
    if mine is None or theirs is None:
        return isomorphic(_graph_of(left), _graph_of(right))
    return mine == theirs


def _graph_of(triples: set[Triple]) -> Graph:
    graph = Graph()
    for triple in triples:
        graph.add(triple)
    return graph


def _forest(graph: set[Triple]) -> Counter[tuple[Any, Any, Any]] | None:
    """The graph's triples from its roots, each blank node written out as its subtree; None: not a forest."""
    edges: dict[Any, list[tuple[Any, Any]]] = {}
    parents: Counter[Any] = Counter()
    for s, p, o in graph:
        edges.setdefault(s, []).append((p, o))
        if isinstance(o, BNode):
            parents[o] += 1
    if any(count > 1 for count in parents.values()):
        return None
    reached = 0
    written: dict[Any, Any] = {}

    def subtree(node: Any, depth: int) -> Any:
        nonlocal reached
        if not isinstance(node, BNode):
            return node
        if node not in written:
            if depth > _MAX_DEPTH:
                raise RecursionError
            pairs = edges.get(node, [])
            reached += len(pairs)
            written[node] = ("_:", tuple(sorted(((p, subtree(o, depth + 1)) for p, o in pairs), key=repr)))
        return written[node]

    out: Counter[tuple[Any, Any, Any]] = Counter()
    try:
        for s, pairs in edges.items():
            if isinstance(s, BNode) and parents[s]:
                continue  # written out under its parent
            root = subtree(s, 0)
            if not isinstance(s, BNode):
                reached += len(pairs)
                out.update((root, p, subtree(o, 1)) for p, o in pairs)
            else:
                out[(root, None, None)] += 1
    except RecursionError:
        return None
    return out if reached == len(graph) else None  # unreached triples: a cycle of blank nodes


#: Deeper blank-node nesting than any frontmatter the limits let through goes to the general test.
_MAX_DEPTH = 200


def _comparable(triples: set[Triple]) -> set[Triple]:
    """The triples with every well-typed literal replaced by its value (two literals of one value become one triple,
    as they would in a Graph).

    Stores keep the value of a typed literal, not always its text
    (Oxigraph through oxrdflib gives ``...Z`` back as ``...+00:00``), and write
    ``xsd:string`` literals typed or plain; the template lends the author's
    text only where the values agree.
    """
    return {(s, p, _value_term(o)) for s, p, o in triples}


def _value_term(term: Any) -> Any:
    if not isinstance(term, Literal) or term.language is not None:
        return term
    if term.datatype is None or term.datatype == XSD.string:
        return Literal(str(term))
    if term.ill_typed or term.value is None or str(term.datatype) == _RDF_JSON:
        return term
    value = term.value.normalize() if isinstance(term.value, Decimal) else term.value
    return Literal(repr(value), datatype=URIRef(_BY_VALUE + str(term.datatype)))


def _timestamp_paths(value: Any, path: KeyPath) -> list[KeyPath]:
    """Key paths of the timestamps in ``value``, depth first; a path is built only for a timestamp or a container
    (most values of a frontmatter are neither, and this runs on every memory of a load: one list filled by plain
    recursion, not nested generators, which cost a third of the layout graph)."""
    if isinstance(value, YamlTimestamp):
        return [list(path)]
    found: list[KeyPath] = []
    _collect_timestamps(value, path, found)
    return found


#: The types of most values of a frontmatter, none of which is or holds a timestamp: passed over at one lookup.
_NO_TIMESTAMP = frozenset({str, int, float, bool, type(None)})


def _collect_timestamps(value: Any, path: KeyPath, found: list[KeyPath]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if type(item) not in _NO_TIMESTAMP:
                _collect_timestamp(item, [*path, str(key)], found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if type(item) not in _NO_TIMESTAMP:
                _collect_timestamp(item, [*path, index], found)


def _collect_timestamp(item: Any, path: KeyPath, found: list[KeyPath]) -> None:
    if isinstance(item, YamlTimestamp):
        found.append(path)
    elif isinstance(item, (dict, list)):
        _collect_timestamps(item, path, found)


def _mark_timestamp(data: Any, path: KeyPath) -> None:
    *parents, last = path
    for step in parents:
        data = data[step]
    if isinstance(data[last], str):
        data[last] = YamlTimestamp(data[last])
