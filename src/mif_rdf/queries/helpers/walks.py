"""Questions answered by walking the graph: neighbours within a depth, every relationship edge,
conflicts, and a memory's supersession chain and current version."""

from __future__ import annotations

from typing import Any

from rdflib import URIRef

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError
from mif_rdf.queries.columns import Columns, Shape, Shaped
from mif_rdf.queries.helpers.parameters import (
    _COLUMNS,
    GraphLike,
    _iri,
    _memory,
    _select,
    _shaped,
    _shaped_rows,
    _text,
)
from mif_rdf.queries.native import SPLIT_HERE
from mif_rdf.queries.sparql import sparql_term
from mif_rdf.source.identity import relationship_iri

DIRECTIONS = ("out", "in", "both")
#: Upper bound for neighbour searches: each step is a query, and the nodes it starts from grow with each.
MAX_NEIGHBOUR_DEPTH = 4


# -- relationships -------------------------------------------------------------------------
def neighbours(
    graph: GraphLike,
    memory: str | URIRef,
    relationship: str | URIRef | None = None,
    *,
    direction: str = "out",
    depth: int = 1,
    as_: Shape = "table",
) -> Shaped:
    """Memories and entities within ``depth`` relationship steps of ``memory``, each with its shortest distance.

    ``relationship`` is a type name in any spelling (``derived-from``,
    ``DerivedFrom``, ``derived_from``, ``team:reinforces``) or an IRI; None
    follows every relationship type.  ``direction`` is ``out`` (the memory's
    own relationships), ``in`` (relationships pointing at it) or ``both``.
    Paths only pass through nodes of the bundle (memories and entities).

    A breadth-first search, one query per step from the nodes the last step
    reached: a single query of every chain up to ``depth`` explored every
    walk before dropping those through blank nodes and ontology IRIs (every
    memory points at its ontology), many times slower with rdflib's engine
    (docs/performance.md).
    """
    if direction not in DIRECTIONS:
        raise MifRdfError(f"unknown direction {direction!r}: use one of {', '.join(DIRECTIONS)}")
    _check_depth(depth)
    start = _memory(memory)
    rel = None if relationship is None else _relationship(relationship)
    found: dict[str, tuple[Any, Any, int]] = {}  # node -> (path, title, distance)
    frontier = [str(start)]
    for distance in range(1, depth + 1):
        query = f"""SELECT ?relationship ?next (SAMPLE(?p) AS ?path) (SAMPLE(COALESCE(?t, ?n)) AS ?title) WHERE {{
          {_step(frontier, direction, typed=rel is not None)}
          FILTER(isIRI(?next) && EXISTS {{ ?next mif:path [] }})
          OPTIONAL {{ ?next mif:path ?p }} OPTIONAL {{ ?next dc:title ?t }} OPTIONAL {{ ?next schema:name ?n }}
        }} GROUP BY ?relationship ?next"""
        reached = _select(graph, query, ("next", "path", "title"), relationship=rel)
        frontier = []
        for node, path, title in zip(*reached.values):
            if node != str(start) and node not in found:
                found[node] = (path, title, distance)
                frontier.append(node)
        if not frontier:
            break
    order = sorted(found, key=lambda node: (found[node][2], found[node][0]))  # by distance, then path
    columns = [order, [found[n][0] for n in order], [found[n][1] for n in order], [found[n][2] for n in order]]
    return _shaped(Columns(("neighbour", "path", "title", "depth"), columns), as_)


#: One step along any relationship, from ?node to ?next; the links graph also gives every node a mif:path and
#: memories a mif:location and a mif:namespaceUri, which are not relationships.
_ANY_STEP = {
    "out": "!(mif:path|mif:location|mif:namespaceUri)",
    "in": "^!(mif:path|mif:location|mif:namespaceUri)",
    "both": "(!(mif:path|mif:location|mif:namespaceUri)|^!(mif:path|mif:location|mif:namespaceUri))",
}


def _step(frontier: list[str], direction: str, *, typed: bool) -> str:
    """The patterns of one step from the ``frontier`` nodes (as ?node) to ?next.

    A typed step uses the ``?relationship`` parameter, which cannot sit in a
    property path, so ``both`` is a UNION whose branches use it in triple
    patterns only (the package's rules).  Each branch starts from its own
    copy of the frontier: Oxigraph plans UNION branches on their own, and
    one ``VALUES`` outside them made each branch scan every triple of the
    relationship type (docs/performance.md).
    """
    nodes = "VALUES ?node { " + " ".join(sparql_term(URIRef(node)) for node in frontier) + " }"
    if not typed:
        return f"{nodes} ?node {_ANY_STEP[direction]} ?next ."
    out, into = f"{nodes} ?node ?relationship ?next .", f"{nodes} ?next ?relationship ?node ."
    return {"out": out, "in": into, "both": f"{{ {out} }} UNION {{ {into} }}"}[direction]


def relationship_edges(graph: GraphLike, *, as_: Shape = "table") -> Shaped:
    """Every direct relationship between two nodes of the bundle (memories and entities), with labels.

    Ordered by source path, relationship and target path.  A node's label is
    its title, else its name, else its path.  Two queries, joined here: the
    edges with both ends' paths, and every node's labels.  Labelling each
    edge in SPARQL looked up four labels per edge; a node is labelled once
    here.  Edges are found from their
    target: a memory has a few dozen triples of its own but only its
    relationships point at it; the sources' paths are one scan joined to
    them (a subquery), not a lookup per edge.  Both queries visit every node,
    so Oxigraph may split them (:data:`SPLIT_HERE`).  The rows are sorted
    here, not by ``ORDER BY``: Oxigraph compares terms by reading their text
    back from the store (docs/performance.md).
    """
    edges = _select(
        graph,
        """SELECT ?source ?relationship ?target ?source_path ?target_path WHERE {
      ?target mif:path ?target_path .
      """
        + SPLIT_HERE
        + """      ?source ?relationship ?target .
      { SELECT ?source ?source_path WHERE { ?source mif:path ?source_path } }
    }""",
        ("source_path", "relationship", "target_path", "source", "target"),
        split_on="target",
    )
    nodes = _select(
        graph,
        """SELECT ?node ?path ?label WHERE {
      ?node mif:path ?path .
      """
        + SPLIT_HERE
        + """      OPTIONAL { ?node dc:title ?title } OPTIONAL { ?node schema:name ?name }
      BIND(COALESCE(?title, ?name, ?path) AS ?label)
    }""",
        ("node", "path", "label"),
        split_on="node",
    )
    with no_cyclic_gc():
        labels: dict[tuple[Any, Any], list[Any]] = {}
        for key, label in zip(zip(nodes.column("node"), nodes.column("path")), nodes.column("label")):
            labels.setdefault(key, []).append(label)  # a node with two titles has two labels
        source_paths, relationships, target_paths, sources, targets = edges.values
        order = [  # tuples compare in C, the position last: ties keep the query's order, as a stable sort would
            i for *_, i in sorted(zip(map(str, source_paths), relationships, map(str, target_paths), range(len(edges))))
        ]
        columns = _labelled(order, sources, source_paths, relationships, targets, target_paths, labels)
    return _shaped(Columns(("source", "source_label", "relationship", "target", "target_label"), columns), as_)


def _labelled(
    order: list[int],
    sources: list[Any],
    source_paths: list[Any],
    relationships: list[Any],
    targets: list[Any],
    target_paths: list[Any],
    labels: dict[tuple[Any, Any], list[Any]],
) -> list[list[Any]]:
    """The columns of :func:`relationship_edges`: the edges at ``order``, each end with its label.

    A node with two labels gives its edges a row per label, as one query
    would.  Most nodes have one, and then each column is one pass.
    """
    if all(len(found) == 1 for found in labels.values()):
        label = {key: found[0] for key, found in labels.items()}
        return [
            [sources[i] for i in order],
            [label[sources[i], source_paths[i]] for i in order],
            [relationships[i] for i in order],
            [targets[i] for i in order],
            [label[targets[i], target_paths[i]] for i in order],
        ]
    columns: list[list[Any]] = [[], [], [], [], []]
    for i in order:
        for source_label in labels[sources[i], source_paths[i]]:
            for target_label in labels[targets[i], target_paths[i]]:
                for column, value in zip(
                    columns, (sources[i], source_label, relationships[i], targets[i], target_label)
                ):
                    column.append(value)
    return columns


def conflicts(graph: GraphLike, *, as_: Shape = "table") -> Shaped:
    """Pairs of memories joined by ``conflicts-with`` (in either direction), each pair once."""
    pair = """FILTER(STR(?memory) < STR(?other))
      ?memory mif:path ?path . ?other mif:path ?other_path .
      OPTIONAL { ?memory dc:title ?title } OPTIONAL { ?other dc:title ?other_title }"""
    query = f"""SELECT DISTINCT ?memory ?path ?title ?other ?other_path ?other_title WHERE {{
      {{ ?memory mif:conflicts-with ?other . {pair} }} UNION {{ ?other mif:conflicts-with ?memory . {pair} }}
    }} ORDER BY ?path ?other_path"""
    return _shaped(_select(graph, query, (*_COLUMNS, "other", "other_path", "other_title")), as_)


# -- supersession ----------------------------------------------------------------------------
_VERSION_COLUMNS = (*_COLUMNS, "offset")


def supersession_chain(graph: GraphLike, memory: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The versions around ``memory``, newest first: ``offset`` > 0 supersedes it, < 0 is superseded by it, 0 is itself.

    Every memory that supersedes ``memory`` (directly or not) and every one it
    supersedes, with its shortest distance.  Empty when ``memory`` is not in
    the graph.
    """
    versions = _Versions(graph, _memory(memory))
    about = versions.about
    rows = [{**about[m], "offset": offset} for m, offset in versions.offsets().items() if m in about]
    rows.sort(key=lambda r: (-r["offset"], r["path"] or ""))
    return _shaped_rows(_VERSION_COLUMNS, rows, as_)


def current_version(graph: GraphLike, memory: str | URIRef, *, as_: Shape = "table") -> Shaped:
    """The newest version(s) of ``memory``: the end of its ``supersedes`` chain, which nothing supersedes.

    One row, unless the chain forks; ``memory`` itself when nothing
    supersedes it.  Its query lists every version of ``memory`` (a row per
    version and edge, as for :func:`supersession_chain`), so it gives more
    rows than the heads kept here.  Raises :class:`MifRdfError` when ``memory`` is not in the
    graph, or when every newer version is superseded in turn (a cycle).
    """
    versions = _Versions(graph, _memory(memory))
    about, superseded = versions.about, versions.superseded_by
    if versions.start not in about:
        raise MifRdfError(f"no memory {versions.start!r} in the graph")
    heads = [
        {**about[m], "offset": offset} for m, offset in versions.offsets(older=False).items() if m not in superseded
    ]
    if not heads:
        raise MifRdfError(f"{versions.start!r}: every newer version is superseded in turn (a supersedes cycle)")
    heads.sort(key=lambda r: r["path"] or "")
    return _shaped_rows(_VERSION_COLUMNS, heads, as_)


class _Versions:
    """Every version of one memory, what each supersedes, its path and title: one query.

    ``mif:supersedes*``/``+`` from the bound memory: Oxigraph evaluates paths
    natively, and rdflib only walks the versions of that memory (a chain of
    600 versions works), not the whole graph.  Distances are counted here,
    from the edges.  The edges are OPTIONAL lookups per version: as a plain
    pattern, Oxigraph would start from every ``supersedes`` edge of the graph.
    """

    def __init__(self, graph: GraphLike, start: URIRef) -> None:
        # ?start is projected though unused: Oxigraph substitutes only a projected variable (a blank node, oxrdflib)
        query = """SELECT ?start ?x ?y ?path ?title WHERE {
          { ?x mif:supersedes* ?start } UNION { ?start mif:supersedes+ ?x }
          OPTIONAL { ?x mif:supersedes ?y }
          OPTIONAL { ?x mif:path ?path } OPTIONAL { ?x dc:title ?title }
        }"""
        self.start = str(start)
        #: the versions that are nodes of the bundle; what each supersedes, and is superseded by (never empty sets)
        self.about: dict[str, dict[str, Any]] = {}
        self.supersedes: dict[str, set[str]] = {}
        self.superseded_by: dict[str, set[str]] = {}
        about, supersedes, superseded_by = self.about, self.supersedes, self.superseded_by
        for x, y, path, title in zip(*_select(graph, query, ("x", "y", "path", "title"), start=start).values):
            if path is not None:
                about[x] = {"memory": x, "path": path, "title": title}
            if y is not None:
                supersedes.setdefault(x, set()).add(y)
                superseded_by.setdefault(y, set()).add(x)

    def offsets(self, *, older: bool = True) -> dict[str, int]:
        """Each version's signed distance from the start: newer ones positive, older ones negative (without
        ``older``, only the start and the newer ones).

        Two breadth-first walks, each with its own visited set, so each finds
        its shortest distances; a version both newer and older (a cycle) keeps
        its newer one.  The older walk goes on through such a version: what it
        supersedes is older than the start too.
        """
        found = {self.start: 0}
        walks = ((1, self.superseded_by), (-1, self.supersedes)) if older else ((1, self.superseded_by),)
        for step, edges in walks:
            seen, frontier, distance = {self.start}, [self.start], 0
            while frontier:
                distance += step
                reached = []
                for node in frontier:
                    for n in edges.get(node, ()):
                        if n not in seen:
                            seen.add(n)
                            reached.append(n)
                            found.setdefault(n, distance)
                frontier = reached
        return found


def _check_depth(depth: int) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_NEIGHBOUR_DEPTH:
        raise MifRdfError(f"depth must be a whole number from 1 to {MAX_NEIGHBOUR_DEPTH} (got {depth!r})")


def _relationship(value: str | URIRef) -> URIRef:
    iri = (
        value
        if isinstance(value, URIRef) or "://" in str(value)
        else relationship_iri(_text(value, "relationship type"))
    )
    return _iri(iri, "relationship type")
