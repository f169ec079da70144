"""Import: named graphs from an RDF file merged into a bundle as write-back edits (issue 31).

A graph named by a memory's IRI replaces that memory's graph in the loaded
dataset; the difference then goes through the same path as a SPARQL Update
(:func:`mif_rdf.output.update.plan_changes`): minimal edits of the memory's file,
refusals for what the markdown cannot hold, validation, atomic writes.  So a
file exported (or pushed and read back) from the same bundle changes no byte.

The bundle's own derived graphs (``<base>#links``, ``#layout``, ...) are
skipped: the files are their source; so are graphs equal to the bundle's
(entities included).  Any other graph (an unknown memory, an
entity, a foreign graph) is refused, and then nothing is written.  A graph
named ``urn:mif:<id>`` that the bundle does not have becomes a new memory
file (as with ``update``), marked ``provenance.sourceType: external_import``.
Spec 18.3: an import never raises a memory's ``trustLevel``; a higher level
in the file is refused.

A store may give a literal back in its canonical form (Oxigraph writes
``"1.0"^^xsd:decimal`` as ``"1"``): where an imported literal has the value,
datatype and language of one the memory already has, the memory's own form
is kept, so a value that did not change is no change
(:func:`import_dataset`; the graphs of a store come through
:func:`mif_rdf.remote.import_from_store`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.compare import isomorphic, to_canonical_graph
from rdflib.term import Node

from mif_rdf.core.context import MIF_NS
from mif_rdf.core.errors import Problem, Severity
from mif_rdf.output.update import UpdateResult, apply_plan, is_new_memory_graph, plan_changes
from mif_rdf.output.writeback import read_dataset
from mif_rdf.source.identity import MEMORY_PREFIX

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle

TRUST_LEVEL = URIRef(MIF_NS + "trustLevel")
PROVENANCE, SOURCE_TYPE, EXTERNAL_IMPORT = (
    URIRef(MIF_NS + "provenance"),
    URIRef(MIF_NS + "sourceType"),
    URIRef(MIF_NS + "ExternalImport"),
)
#: Spec 18.3's trust levels, lowest first.
TRUST_IRIS = tuple(
    URIRef(MIF_NS + name)
    for name in ("Uncertain", "LowConfidence", "ModerateConfidence", "HighConfidence", "UserStated", "Verified")
)


def import_graphs(
    bundle: LoadedBundle, source: str | Path | IO[bytes], fmt: str, *, dry_run: bool = False, force: bool = False
) -> UpdateResult:
    """Merge the named graphs of an RDF file (``fmt``: an rdflib quad format) into the bundle's files."""
    return import_dataset(bundle, read_dataset(source, fmt), dry_run=dry_run, force=force)


def import_dataset(
    bundle: LoadedBundle,
    incoming: Dataset,
    *,
    dry_run: bool = False,
    force: bool = False,
    skip_foreign: bool = False,
) -> UpdateResult:
    """Merge the named graphs of ``incoming`` (read with lexical forms kept,
    :func:`~mif_rdf.output.writeback.read_dataset`) into the bundle's files.

    ``skip_foreign``: graphs not named ``urn:mif:...`` are skipped (listed in
    :attr:`UpdateResult.skipped`) instead of refused -- a store holds other data
    beside a bundle's graphs (push manifests, other bundles' derived graphs).
    """
    memories = {record.iri for record in bundle.memories.values()}
    derived = bundle.base_iri + "#"
    dataset = bundle.dataset
    refusals: list[Problem] = []
    replacements: dict[str, Graph] = {}
    skipped: list[str] = []
    for graph in incoming.graphs():
        name = str(graph.identifier)
        if not len(graph) or name.startswith(derived) or name.startswith("urn:x-rdflib:default"):
            continue
        if name in bundle.entities and isomorphic(dataset.graph(URIRef(name)), graph):
            continue  # an entity file as the bundle has it
        if skip_foreign and not name.startswith(MEMORY_PREFIX):
            skipped.append(name)
            continue
        if name not in memories and is_new_memory_graph(bundle, name):
            replacements[name] = _marked_external(name, graph)
            continue
        if name not in memories:
            refusals.append(
                Problem(
                    name,
                    f"the graph <{name}> is not a memory of this bundle (or is an entity the file changes); only "
                    "memories' graphs are imported, nothing written",
                    Severity.ERROR,
                    rule="import",
                )
            )
            continue
        current = dataset.graph(URIRef(name))
        graph = _in_own_forms(graph, current)
        if isomorphic(current, graph):
            continue
        refusals.extend(_raised_trust(bundle, name, graph))
        # blank nodes get canonical labels on both sides, so only the nodes that differ
        # differ (not every blank node of the file)
        _replace(current, to_canonical_graph(current))
        replacements[name] = to_canonical_graph(graph)
    before = set(dataset.quads((None, None, None, None)))
    for name, graph in replacements.items():
        _replace(dataset.graph(URIRef(name)), graph)
    after = set(dataset.quads((None, None, None, None)))
    result = plan_changes(bundle, after - before, before - after)
    result.refusals[:0] = refusals
    result.skipped = sorted(skipped)
    return apply_plan(bundle, result, dry_run=dry_run, force=force)


def _marked_external(name: str, graph: Graph) -> Graph:
    """A new memory's graph with ``provenance.sourceType`` set to
    ``external_import`` (spec 18.3), keeping its other provenance."""
    out = Graph()
    for triple in graph:
        if triple[1] != SOURCE_TYPE:
            out.add(triple)
    node = URIRef(name)
    provenance = out.value(node, PROVENANCE)
    if provenance is None:
        provenance = BNode()
        out.add((node, PROVENANCE, provenance))
    out.add((provenance, SOURCE_TYPE, EXTERNAL_IMPORT))
    return out


def _in_own_forms(graph: Graph, current: Graph) -> Graph:
    """``graph`` with each literal that has the value of one of ``current``'s written in ``current``'s form."""
    own: dict[tuple[object, ...], Literal] = {}
    for term in current.objects():
        if isinstance(term, Literal) and (key := _value_key(term)) is not None:
            own.setdefault(key, term)
    if not own:
        return graph
    out = Graph()
    for s, p, o in graph:
        key = _value_key(o) if isinstance(o, Literal) else None
        out.add((s, p, own.get(key, o) if key is not None else o))
    return out


def _value_key(term: Literal) -> tuple[object, ...] | None:
    """What makes two literals the same value: datatype, language and the parsed value (None: not parsed)."""
    if term.datatype is None or term.value is None:
        return None
    try:
        hash(term.value)
    except TypeError:
        return None
    return (term.datatype, term.language, type(term.value), term.value)


def _replace(target: Graph, triples: Graph) -> None:
    target.remove((None, None, None))
    for triple in triples:
        target.add(triple)


def _raised_trust(bundle: LoadedBundle, name: str, graph: Graph) -> list[Problem]:
    """A refusal when the imported graph has a higher trustLevel than the memory (spec 18.3: never raised)."""

    def rank(levels: Iterable[Node]) -> int:
        found = [TRUST_IRIS.index(level) for level in levels if level in TRUST_IRIS]
        return max(found, default=-1)

    old = rank(bundle.dataset.graph(URIRef(name)).objects(None, TRUST_LEVEL))
    new = rank(graph.objects(None, TRUST_LEVEL))
    if new > old >= 0:
        record = next(r for r in bundle.memories.values() if r.iri == name)
        return [
            Problem(
                record.relpath,
                f"the import would raise trustLevel from {TRUST_IRIS[old].split('/')[-1]} to "
                f"{TRUST_IRIS[new].split('/')[-1]}; "
                "an import never raises trust (spec 18.3), nothing written",
                Severity.ERROR,
                key="provenance.trustLevel",
                rule="import",
            )
        ]
    return []
