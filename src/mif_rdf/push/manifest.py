"""The sync manifest: which graphs a bundle has written to a store, kept in that store.

It lives in the named graph ``<base>#sync-manifest``, one entry per graph the
bundle owns there::

    _:e <urn:mif-rdf:sync:graph> <urn:mif:7b3c...> ;
        <urn:mif-rdf:sync:hash>  "urdna2015-sha256:9f2c..." .

and one triple ``<base#sync-manifest> <urn:mif-rdf:sync:owner> "sha256:..."``
naming the bundle that wrote it (:func:`bundle_owner`).

An entry *without* a hash is pending: a write or a delete of that graph was
started and not confirmed, so the store may hold the old content, the new
one, or nothing.  Two invariants hold at every moment, even when a push dies
half-way (:mod:`.sync` keeps them):

1. every graph the bundle wrote to the store has an entry (so a later push
   can delete it when it leaves the bundle);
2. an entry with a hash means the store holds exactly the triples with that hash.

What is hashed: the triples *as sent* for that graph (after the export
policy), canonicalized with URDNA2015 (RDFC-1.0's algorithm; pyld implements
it) so blank-node labels do not matter, written as canonical N-Quads and
hashed with SHA-256.  Not the source file bytes: the graph depends on more
than the file (base IRI, mif-rdf version, the links of other files), and a
file edit that changes no triple should send nothing.  Anyone can recompute
the hash from the local dataset with any URDNA2015 implementation.  Stores
may rewrite literals into canonical form (Oxigraph stores ``"1.0"^^xsd:decimal``
as ``"1"``), so the store's copy is compared to the local graph by value, not
by hash (see the tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyld.canon import URDNA2015
from rdflib import BNode, Graph, Literal, URIRef

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.statements import Triple
from mif_rdf.output.serialize import nquad_line
from mif_rdf.remote.gsp import GraphStore, Response, insert_triples, iri_ref
from mif_rdf.source.identity import graph_iri

SYNC = "urn:mif-rdf:sync:"
SYNC_GRAPH, SYNC_HASH, SYNC_OWNER = URIRef(SYNC + "graph"), URIRef(SYNC + "hash"), URIRef(SYNC + "owner")
GRAPH_MANIFEST = "sync-manifest"
HASH_SCHEME = "urdna2015-sha256"
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
#: What a Graph Store may answer a GET with -> rdflib parser name.
#: Only formats that cannot make the parser fetch anything: JSON-LD could name a remote or ``file:``
#: context, RDF/XML an external entity; the manifest is asked for as N-Triples or Turtle.
_PARSERS = {"application/n-triples": "nt", "text/plain": "nt", "text/turtle": "turtle"}


def manifest_iri(base_iri: str) -> str:
    return graph_iri(base_iri, GRAPH_MANIFEST)


def graph_hash(triples: Iterable[Triple]) -> str:
    """``urdna2015-sha256:<hex>`` of a set of triples, whatever their blank-node labels."""
    dataset = {"@default": [{"subject": _pyld(s), "predicate": _pyld(p), "object": _pyld(o)} for s, p, o in triples]}
    canonical = URDNA2015().main(dataset, {"algorithm": "URDNA2015", "format": "application/n-quads"})
    return f"{HASH_SCHEME}:{hashlib.sha256(canonical.encode('utf-8')).hexdigest()}"


def _pyld(term: Any) -> dict[str, str]:
    """A term in pyld's dataset form, built directly: no N-Quads text to re-parse."""
    if isinstance(term, BNode):
        return {"type": "blank node", "value": f"_:{term}"}
    if isinstance(term, Literal):
        if term.language:
            return {"type": "literal", "value": str(term), "datatype": _RDF_LANGSTRING, "language": term.language}
        return {"type": "literal", "value": str(term), "datatype": str(term.datatype or _XSD_STRING)}
    return {"type": "IRI", "value": str(term)}


def ntriples(triples: Iterable[Triple]) -> bytes:
    """The N-Triples document a graph is sent as."""
    return "".join(nquad_line(s, p, o) for s, p, o in triples).encode("utf-8")


def bundle_owner(root: Path, config: dict[str, Any]) -> str:
    """Which bundle wrote a manifest: its configured ``bundle_id``, else a digest of its folder's absolute path.

    Two bundles given the same base IRI share a manifest; the owner tells a
    push that the graphs listed there were written by another bundle, whose
    graphs it must not delete unasked.  Copies of one bundle that say so with
    the same ``bundle_id`` in ``.mif/config.yaml`` are one owner wherever they
    live.  A digest, so no local path leaves the machine.
    """
    configured = config.get("bundle_id")
    if isinstance(configured, str) and configured:
        return "bundle_id:" + configured
    return "sha256:" + hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()


@dataclass
class Manifest:
    """Graph IRI -> content hash (None: pending) for one bundle in one store, and which bundle wrote it."""

    iri: str
    entries: dict[str, str | None] = field(default_factory=dict)
    owner: str | None = None  # None: written before owners were recorded

    def with_entries(self, changes: dict[str, str | None], removed: Iterable[str] = ()) -> Manifest:
        entries = {**self.entries, **changes}
        for graph in removed:
            entries.pop(graph, None)
        return Manifest(self.iri, entries, self.owner)

    def triples(self) -> Iterator[Triple]:
        if self.owner is not None:
            yield URIRef(self.iri), SYNC_OWNER, Literal(self.owner)
        for graph, digest in sorted(self.entries.items()):
            entry = BNode()
            yield entry, SYNC_GRAPH, URIRef(graph)
            if digest is not None:
                yield entry, SYNC_HASH, Literal(digest)

    @classmethod
    def from_graph(cls, iri: str, graph: Graph) -> Manifest:
        """Read entries back; an entry that is not exactly one graph and at most one hash counts as pending."""
        entries: dict[str, str | None] = {}
        for entry in set(graph.subjects(SYNC_GRAPH, None)):
            graphs = list(graph.objects(entry, SYNC_GRAPH))
            hashes = [str(h) for h in graph.objects(entry, SYNC_HASH)]
            for name in map(str, graphs):
                clear = len(graphs) == 1 and len(hashes) == 1 and name not in entries
                entries[name] = hashes[0] if clear else None
        owners = sorted(str(o) for o in graph.objects(URIRef(iri), SYNC_OWNER))
        return cls(iri, entries, owners[0] if len(owners) == 1 else "unknown" if owners else None)


def read_manifest(store: GraphStore, base_iri: str) -> Manifest:
    """The bundle's manifest as the store holds it (empty before the first push)."""
    iri = manifest_iri(base_iri)
    response = store.get_graph(iri)
    if response is None:
        return Manifest(iri)
    return Manifest.from_graph(iri, _parse(response, iri))


def _parse(response: Response, iri: str) -> Graph:
    media = response.content_type.split(";")[0].strip().lower() or "application/n-triples"
    if media not in _PARSERS:
        raise MifRdfError(f"the store sent the manifest graph <{iri}> as {media!r}, which mif-rdf cannot read")
    try:
        return Graph().parse(data=response.body, format=_PARSERS[media])
    except Exception as error:  # rdflib's parsers raise many types; any of them means an unreadable manifest
        why = " ".join(str(error).split())
        raise MifRdfError(f"the manifest graph <{iri}> in the store is not valid {media}: {why[:200]}") from None


def save_manifest(store: GraphStore, before: Manifest, after: Manifest) -> None:
    """Make the store's manifest ``after`` (it holds ``before``): a delta with Update, else a PUT."""
    absent = object()  # unlike None (pending), "no entry at all"
    changed = sorted(
        g
        for g in before.entries.keys() | after.entries.keys()
        if before.entries.get(g, absent) != after.entries.get(g, absent)
    )
    if not changed and before.owner == after.owner:
        return
    if before.owner != after.owner and store.update_endpoint:  # taken over: written whole
        sparql = (
            f"DROP SILENT GRAPH {iri_ref(after.iri)} ;\nINSERT DATA {{ GRAPH {iri_ref(after.iri)} {{\n"
            f"{ntriples(after.triples()).decode('utf-8')}}} }}"
        )
        store.update(sparql.encode("utf-8"), f"take over the manifest <{after.iri}>")
        return
    if not store.update_endpoint:
        if after.entries:
            store.put_graph(after.iri, ntriples(after.triples()))
        else:
            store.delete_graph(after.iri)
        return
    name = iri_ref(after.iri)
    values = " ".join(iri_ref(g) for g in changed)
    sparql = (
        f"WITH {name} DELETE {{ ?e ?p ?o }} WHERE {{ VALUES ?g {{ {values} }} ?e {iri_ref(SYNC_GRAPH)} ?g ; ?p ?o }}"
    )
    kept = Manifest(after.iri, {g: after.entries[g] for g in changed if g in after.entries}, after.owner)
    if kept.entries:
        sparql += " ;\n" + insert_triples(after.iri, ntriples(kept.triples())).decode("utf-8")
    store.update(sparql.encode("utf-8"), f"update the manifest <{after.iri}>")
