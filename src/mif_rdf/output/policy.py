"""What may leave the machine: the export policy of spec sections 10.2 and 18.

Spec 10.2 reserves the namespace prefix ``_local``: "Local only -- never
synchronized or exported".  Spec 18.1 says export functions MUST respect
access controls, and 18.3 that trust levels are not to be elevated.  Every way
data leaves mif-rdf (``mif-rdf push``, ``mif-rdf export``) asks this module
which named graphs may go, and with which triples.  No option overrides it.

The rules (docs/export.md explains them for users):

* A memory or entity file whose ``namespace`` has a path segment ``_local``
  is withheld: ``_local`` itself, ``_local/scratch``, and also
  ``acme/_local/x``.  Spec 10.1 puts reserved prefixes at the root, but names
  starting with ``_`` are reserved everywhere, and an author who wrote
  ``_local`` anywhere in the path meant "keep this here"; withholding by
  mistake is fixable, leaking is not.  The match ignores case and surrounding
  slashes for the same reason.
* A ``namespace`` that is not a string cannot be shown to be shareable, so it
  is withheld too (fail closed).
* A memory whose graph states a higher trust level than its file is withheld:
  the graph has been changed since loading (by code enriching the dataset),
  and export never raises trust.
* The graphs every memory contributes to (links, ontology, types, the default graph)
  lose each triple whose subject or object is a withheld memory or entity, or
  the document IRI (the bundle path) of one: no edge to it, no path of it.
* The inferences graph is withheld whenever anything is withheld: its triples
  may follow from withheld memories without naming them.

A memory that may leave is sent exactly as written, even when one of its own
relationships names a withheld memory; that is reported as a note.

An export for one party (``audience``, ``--audience PARTY``) withholds, on top
of the rules above, every memory and entity the party may not read
(:mod:`mif_rdf.nsmodel.audience`: spec 10.2 and 10.4), and the namespaces
graph (it describes every party's agreements).  :func:`withheld_reason` is
the one place a namespace is judged: export, push, ``load -o``, ``convert
to-jsonld``, ``serve`` and the streamed export all ask it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from rdflib import Dataset, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.term import IdentifiedNode, Node

from mif_rdf.core.context import mif_context
from mif_rdf.core.namespaces import MIF
from mif_rdf.core.statements import Quad, Triple
from mif_rdf.load.bundle import LoadedBundle, Records
from mif_rdf.load.stores import new_dataset
from mif_rdf.nsmodel.access import Withheld, withheld_reason
from mif_rdf.nsmodel.graphs import GRAPH_NAMESPACES
from mif_rdf.output.serialize import rdfxml_refusal, serialize_bundle, write_quads
from mif_rdf.source.identity import GRAPH_INFERENCES, graph_iri

if TYPE_CHECKING:
    from mif_rdf.nsmodel.audience import Audience

#: Spec 12.2 trust levels, lowest first.
TRUST_ORDER = ("uncertain", "low_confidence", "moderate_confidence", "high_confidence", "user_stated", "verified")


@dataclass
class ExportPolicy:
    """The decision for one bundle: which graphs stay, which terms shared graphs may not mention."""

    withheld: dict[str, Withheld] = field(default_factory=dict)
    #: terms shared graphs may not mention (withheld memory and entity IRIs, their document IRIs) -> bundle path
    hidden: dict[Node, str] = field(default_factory=dict)
    memory_graphs: frozenset[Node] = frozenset()
    notes: list[str] = field(default_factory=list)

    def allows(self, graph: str) -> bool:
        return graph not in self.withheld

    def outgoing(self, dataset: Dataset, graph: IdentifiedNode) -> Iterator[Triple]:
        """The triples of one graph that may leave (nothing for a withheld graph)."""
        if not self.allows(str(graph)):
            return iter(())
        triples: Iterable[Triple] = dataset.graph(graph)
        if graph in self.memory_graphs or not self.hidden:
            return iter(triples)
        return (t for t in triples if t[0] not in self.hidden and t[2] not in self.hidden)

    def graph_names(self, dataset: Dataset) -> list[IdentifiedNode]:
        """Every non-empty graph of the dataset that may leave, sorted (the default graph first)."""
        names = [g.identifier for g in dataset.graphs() if len(g) and self.allows(str(g.identifier))]
        return sorted(names, key=lambda n: (n != DATASET_DEFAULT_GRAPH_ID, str(n)))

    def sizes(self, dataset: Dataset) -> dict[IdentifiedNode, int]:
        """How many triples each graph that may leave sends (graphs that send none left out), for a summary.

        Counted without reading the triples where the store can: Oxigraph
        answers ``COUNT`` queries, a memory graph of the rdflib store knows its
        length; only shared graphs with hidden terms are counted triple by triple.
        """
        from mif_rdf.output.oxigraph_export import native_sizes

        native = native_sizes(dataset, self.withheld, self.hidden, self.memory_graphs)
        if native is not None:
            return native
        sizes = {}
        for name in self.graph_names(dataset):
            whole = name in self.memory_graphs or not self.hidden
            count = len(dataset.graph(name)) if whole else sum(1 for _ in self.outgoing(dataset, name))
            if count:
                sizes[name] = count
        return sizes

    def quads(self, dataset: Dataset) -> Iterator[Quad]:
        """Every quad that may leave, streamed graph by graph."""
        for name in self.graph_names(dataset):
            for s, p, o in self.outgoing(dataset, name):
                yield s, p, o, name

    def restrict(self, bundle: LoadedBundle) -> LoadedBundle:
        """A copy of the bundle holding only what may leave (for formats that need a whole bundle)."""
        dataset = new_dataset()
        dataset.addN((s, p, o, dataset.graph(g)) for s, p, o, g in self.quads(bundle.dataset))
        memories = {k: m for k, m in bundle.memories.items() if self.allows(m.iri)}
        entities = {k: e for k, e in bundle.entities.items() if self.allows(e.iri)}
        return dataclasses.replace(bundle, dataset=dataset, records=Records(maps=(memories, entities)))


def trust_raised(frontmatter: dict[str, Any], stated: Iterable[str]) -> str | None:
    """Why the trust levels a memory's graph states (``stated``) exceed what its file (``frontmatter``) says, or None.

    Only the spec's levels have an order; a custom level in the file ranks
    below all of them, and a custom level in the graph is never "higher".
    """
    provenance = frontmatter.get("provenance")
    declared = provenance.get("trustLevel") if isinstance(provenance, dict) else None
    rank = TRUST_ORDER.index(declared) if declared in TRUST_ORDER else -1
    raised = sorted(level for level in stated if _trust_rank().get(level, -1) > rank)
    if not raised:
        return None
    return (
        f"its graph states trust level {', '.join(raised)} but its file says {declared or 'none'}; trust is "
        "never raised on export (spec 18.3)"
    )


@functools.cache
def _trust_rank() -> dict[str, int]:
    """Trust-level IRI (as the context maps the spec's names) -> position in :data:`TRUST_ORDER`."""
    context = mif_context()
    return {str(context.expand_iri(level, vocab=True)): i for i, level in enumerate(TRUST_ORDER)}


def export_policy(
    bundle: LoadedBundle, audience: Audience | None = None, *, include_local: bool = False
) -> ExportPolicy:
    """Decide, for every memory and entity of the bundle, whether it may leave the
    machine (for ``audience``, when given).

    ``include_local`` lets ``_local`` go too, for a copy that stays on this
    machine (the Python API's ``include_local=True``); it does not apply with an
    audience (:func:`withheld_reason`).
    """
    withheld: dict[str, Withheld] = {}
    hidden: dict[Node, str] = {}

    def withhold(iri: str, relpath: str, doc_iri: str, reason: str | None) -> None:
        if reason:
            withheld[iri] = Withheld(iri, relpath, reason)
            hidden[URIRef(iri)] = hidden[URIRef(doc_iri)] = relpath

    trust: dict[str, list[str]] = defaultdict(list)  # one pass over the dataset, not one scan per memory
    for _, _, level, graph in bundle.dataset.quads((None, MIF.trustLevel, None, None)):
        trust[str(getattr(graph, "identifier", graph))].append(str(level))
    for m in bundle.memories.values():
        withhold(
            m.iri,
            m.relpath,
            m.doc_iri,
            withheld_reason(m.frontmatter.get("namespace"), audience, include_local=include_local)
            or trust_raised(m.frontmatter, trust[m.iri]),
        )
    for e in bundle.entities.values():
        withhold(
            e.iri, e.relpath, e.doc_iri, withheld_reason(e.data.get("namespace"), audience, include_local=include_local)
        )
    if audience is not None:
        namespaces = graph_iri(bundle.base_iri, GRAPH_NAMESPACES)
        if any(str(g.identifier) == namespaces and len(g) for g in bundle.dataset.graphs()):
            withheld[namespaces] = Withheld.namespaces_graph(namespaces, audience.party)
    inferences = graph_iri(bundle.base_iri, GRAPH_INFERENCES)
    if withheld and any(str(g.identifier) == inferences and len(g) for g in bundle.dataset.graphs()):
        withheld[inferences] = Withheld(
            inferences,
            inferences,
            "inferences may follow from withheld memories without naming them; reason again over what may leave",
        )
    policy = ExportPolicy(withheld, hidden, frozenset(URIRef(m.iri) for m in bundle.memories.values()))
    policy.notes = _references_to_withheld(bundle, policy)
    return policy


def _references_to_withheld(bundle: LoadedBundle, policy: ExportPolicy) -> list[str]:
    """Exported memories that themselves name a withheld one (sent as written: it is their content)."""
    if not policy.hidden:
        return []
    # Looked up by object, one hidden term at a time (an index lookup in either store), not by reading
    # every exported memory's graph: on Oxigraph that read built rdflib terms for the whole bundle.
    named: dict[str, set[str]] = defaultdict(set)
    for term, label in policy.hidden.items():
        for *_, graph in bundle.dataset.quads((None, None, term, None)):
            named[str(getattr(graph, "identifier", graph))].add(label)
    notes = []
    for record in sorted(bundle.memories.values(), key=lambda m: m.relpath):
        if policy.allows(record.iri):
            notes += [
                f"{record.relpath} names withheld {label}; that reference is its own content and leaves as written"
                for label in sorted(named[record.iri])
            ]
    return notes


def export_bundle(bundle: LoadedBundle, fmt: str, out: IO[bytes], policy: ExportPolicy | None = None) -> ExportPolicy:
    """:func:`~mif_rdf.output.serialize.serialize_bundle` for data leaving the machine.

    What the policy (by default :func:`export_policy` of the bundle) withholds
    is left out.  From the Oxigraph store every format is read and written by
    Oxigraph (:mod:`mif_rdf.output.oxigraph_export`); from other stores N-Quads
    streams quad by quad and the other formats serialize a restricted copy.
    Returns the policy so callers can say what was left out and why.
    """
    from mif_rdf.output.oxigraph_export import UnwritableName, write_native

    policy = policy or export_policy(bundle)
    try:
        if write_native(bundle.dataset, fmt, policy.withheld, policy.hidden, policy.memory_graphs, out):
            return policy
    except UnwritableName as exc:
        raise rdfxml_refusal(
            f"{exc.iri} has no XML element name; it is used in {_graph_label(bundle, exc.graph)}"
        ) from None
    if fmt == "nquads":
        write_quads(policy.quads(bundle.dataset), out)
    else:
        serialize_bundle(policy.restrict(bundle) if policy.withheld else bundle, fmt, out)
    return policy


def _graph_label(bundle: LoadedBundle, graph: Node) -> str:
    """The file a graph comes from (a memory or entity), else the graph's name: for messages."""
    files = {
        record.iri: record.relpath for records in (bundle.memories, bundle.entities) for record in records.values()
    }
    if graph == DATASET_DEFAULT_GRAPH_ID:
        return "the default graph"
    return files.get(str(graph), f"graph <{graph}>")
