"""Import from a triple store: the graphs a store holds, merged into a bundle's files as a file's graphs are.

The store is read with one Graph Store Protocol ``GET`` of its endpoint
(:meth:`~mif_rdf.remote.gsp.GraphStore.get_dataset`), through the same
client as ``push`` (timeouts, bounded retries, credentials, no redirects,
secrets redacted), and the quads go through
:func:`mif_rdf.output.graph_import.import_dataset`: minimal edits, refusals,
trust never raised, new memories marked ``external_import``.  Graphs not
named ``urn:mif:...`` are skipped, not refused: a store holds other data
(push manifests, other bundles' derived graphs).  So a push
followed by an import of the store's graphs changes no byte of the bundle.
"""

from __future__ import annotations

from io import BytesIO
from typing import TYPE_CHECKING

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.redaction import redacted
from mif_rdf.output.graph_import import import_dataset
from mif_rdf.output.writeback import read_dataset
from mif_rdf.remote.gsp import GraphStore, HttpClient

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle
    from mif_rdf.output.update import UpdateResult

#: The media types of a whole dataset a store may answer with, and rdflib's name for each.
DATASET_TYPES = {"application/n-quads": "nquads", "application/trig": "trig", "application/ld+json": "json-ld"}


def import_from_store(
    bundle: LoadedBundle,
    endpoint: str,
    *,
    client: HttpClient | None = None,
    dry_run: bool = False,
    force: bool = False,
) -> UpdateResult:
    """Merge every graph of the store at ``endpoint`` (its Graph Store Protocol URL) into the bundle's files."""
    store = GraphStore(endpoint, client=client)
    response = store.get_dataset()
    media = response.content_type.split(";")[0].strip().lower()
    fmt = DATASET_TYPES.get(media)
    if fmt is None:
        raise MifRdfError(
            f"the store at {redacted(endpoint)} answered with {media or 'no content type'}, not a dataset of named "
            "graphs (N-Quads or TriG): give its Graph Store endpoint (Oxigraph: http://HOST:7878/store, Fuseki: "
            "http://HOST:3030/DATASET)"
        )
    try:
        incoming = read_dataset(BytesIO(response.body), fmt)
    except Exception as exc:  # rdflib's parsers share no error class; the message is the store's data
        raise MifRdfError(f"the store at {redacted(endpoint)} sent {media} that does not parse: {exc}") from None
    return import_dataset(bundle, incoming, dry_run=dry_run, force=force, skip_foreign=True)
