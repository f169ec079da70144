"""The RDF difference of two bundles as a SPARQL 1.1 Update (or RDF Patch): applied to a store
holding the old bundle's export, it leaves exactly the new bundle's export.

Both sides are what ``mif-rdf export`` writes (never ``_local`` memories; the
``#types`` graph included), compared named graph by named graph:

* a graph only in the old export is dropped (``DROP SILENT GRAPH``);
* a graph only in the new export is inserted (``INSERT DATA``);
* a graph in both that differs is patched quad by quad (``DELETE DATA`` of
  the quads that went, ``INSERT DATA`` of the new ones) when neither side has
  a blank node; otherwise it is replaced whole (``DROP`` then ``INSERT DATA``).

The blank node rule: ``DELETE DATA`` cannot name a blank node (SPARQL 1.1
Update 3.1.2), and a blank node's label means nothing outside the document
that wrote it, so a graph holding one (a memory's relationships, temporal
block, citations) is replaced whole.  Each memory has its own graph, so a
change costs the graphs of the memories it touches, never the bundle.
"""

from __future__ import annotations

import hashlib
import io
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle


def exported_graphs(bundle: LoadedBundle) -> dict[str, set[tuple[str, str, str]]]:
    """What ``mif-rdf export`` writes for ``bundle``, as N-Triples terms grouped by graph name.

    pyoxigraph reads the export back (it keeps each literal's lexical form,
    where rdflib would rewrite ``Z`` as ``+00:00``), and a graph with blank
    nodes is canonicalized (W3C RDF Dataset Canonicalization, RDFC-1.0), so
    an unchanged graph compares equal whatever labels its blank nodes had.
    """
    import pyoxigraph as ox

    from mif_rdf.ontology import add_types_graph
    from mif_rdf.output.policy import export_bundle, export_policy

    add_types_graph(bundle)
    buffer = io.BytesIO()
    export_bundle(bundle, "nquads", buffer, export_policy(bundle, None))
    quads: dict[str, list] = defaultdict(list)
    for quad in ox.parse(buffer.getvalue(), format=ox.RdfFormat.N_QUADS):
        quads[str(quad.graph_name)].append(quad)
    graphs = {}
    for name, found in quads.items():
        if any(isinstance(term, ox.BlankNode) for quad in found for term in (quad.subject, quad.object)):
            dataset = ox.Dataset(found)
            dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
            found = list(dataset)
        graphs[name.strip("<>")] = {(str(q.subject), str(q.predicate), str(q.object)) for q in found}
    return graphs


def _has_blank(triples: set[tuple[str, str, str]]) -> bool:
    return any(term.startswith("_:") for triple in triples for term in (triple[0], triple[2]))


@dataclass
class GraphChange:
    """How one named graph changes: ``replaced`` (every old quad goes first),
    then ``deleted`` and ``inserted`` triples."""

    name: str
    replaced: set[tuple[str, str, str]]
    deleted: set[tuple[str, str, str]]
    inserted: set[tuple[str, str, str]]

    @property
    def label(self) -> str:
        """What prefixes the graph's blank node labels: taken from its name alone, so a patch made
        from the changed memories only (:mod:`mif_rdf.output.diff_fast`) names them as one made
        from the whole bundles does."""
        return "g" + hashlib.sha256(self.name.encode("utf-8")).hexdigest()[:16]


def graph_changes(old: LoadedBundle, new: LoadedBundle) -> list[GraphChange]:
    """The named graphs whose exports differ, each with what goes and what comes (see the module docstring)."""
    before, after = exported_graphs(old), exported_graphs(new)
    changes = []
    for name in sorted(set(before) | set(after)):
        was, now = before.get(name, set()), after.get(name, set())
        if was == now:
            continue
        if was and (not now or _has_blank(was) or _has_blank(now)):
            changes.append(GraphChange(name, was, set(), now))
        else:
            changes.append(GraphChange(name, set(), was - now, now - was))
    return changes


def sparql_update(old: LoadedBundle, new: LoadedBundle) -> str:
    """The SPARQL 1.1 Update that turns ``old``'s export into ``new``'s:
    a replaced graph is dropped and inserted again."""
    return update_text(graph_changes(old, new))


def rdf_patch(old: LoadedBundle, new: LoadedBundle) -> str:
    """The same change as RDF Patch (see :func:`patch_text`)."""
    return patch_text(graph_changes(old, new))


def update_text(changes: list[GraphChange]) -> str:
    """:func:`sparql_update` of ``changes`` (:func:`graph_changes`, or the fast diff's)."""
    operations = []
    for change in changes:
        graph = f"<{change.name}>"
        if change.replaced:
            operations.append(f"DROP SILENT GRAPH {graph}")
        if change.deleted:
            operations.append(_data("DELETE", graph, change.deleted, change.label))
        if change.inserted:
            operations.append(_data("INSERT", graph, change.inserted, change.label))
    return " ;\n".join(operations) + ("\n" if operations else "")


def patch_text(changes: list[GraphChange]) -> str:
    """The change ``changes`` make as RDF Patch (the format of Apache Jena's RDF Delta):
    ``D`` and ``A`` rows of quads in one ``TX``/``TC``.

    RDF Patch has no "drop graph": a replaced graph is every old quad deleted
    (``D``), then every new one added.  Blank nodes carry their RDFC-1.0
    canonical labels, prefixed with a label made from the graph's name.
    """
    rows = ["TX ."]
    for change in changes:
        graph = f"<{change.name}>"
        rows += [
            f"D {_term(s, change.label)} {p} {_term(o, change.label)} {graph} ."
            for s, p, o in sorted(change.replaced | change.deleted)
        ]
        rows += [
            f"A {_term(s, change.label)} {p} {_term(o, change.label)} {graph} ." for s, p, o in sorted(change.inserted)
        ]
    return "\n".join([*rows, "TC ."]) + "\n"


def _term(text: str, label: str) -> str:
    """A term in N-Triples syntax; a blank node label gets its graph's prefix (a label must not recur across graphs)."""
    return f"_:{label}{text[2:]}" if text.startswith("_:") else text


def _data(verb: str, graph: str, triples: set[tuple[str, str, str]], label: str) -> str:
    rows = "\n".join(f"    {_term(s, label)} {p} {_term(o, label)} ." for s, p, o in sorted(triples))
    return f"{verb} DATA {{\n  GRAPH {graph} {{\n{rows}\n  }}\n}}"
