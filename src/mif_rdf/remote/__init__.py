"""A remote triple store as an rdflib Dataset: query it with the same code as a local bundle.

``load_bundle(...).dataset`` is a Dataset whose queries see the union of all
named graphs.  :func:`remote_dataset` gives a Dataset over a SPARQL query
endpoint (rdflib's read-only ``SPARQLStore``) with the same two behaviours:

* ``ds.query(...)`` runs on the store, with the store's default graph set to
  the union of its named graphs by ``union_params`` -- store-specific, hence a
  parameter: :data:`OXIGRAPH_UNION` for Oxigraph, :data:`FUSEKI_UNION` for
  Fuseki/TDB2, nothing for GraphDB and Virtuoso (their default graph already
  is the union), or start Oxigraph with ``--union-default-graph``.  Left out,
  it is found by probing (:func:`union_params_for`): a store whose named
  graphs hold data while its default graph looks empty would otherwise make
  every query silently return nothing;
* ``ds.graph(URIRef(iri))`` reads one named graph (``default-graph-uri``), and
  ``ds.graphs()`` lists them.

Requests go through :class:`~mif_rdf.remote.gsp.HttpClient` rather than
rdflib's connector, which has no timeout and turns every fault into a bare
``ValueError``: here they have timeouts, bounded retries, credentials, and
raise one-line :class:`~mif_rdf.remote.gsp.StoreError` subclasses.
"""

from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import TYPE_CHECKING

from rdflib import BNode, Dataset, Graph
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.query import Result

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.lazy import lazy_names
from mif_rdf.remote.gsp import Credentials as Credentials
from mif_rdf.remote.gsp import GraphStore as GraphStore
from mif_rdf.remote.gsp import HttpClient as HttpClient
from mif_rdf.remote.gsp import RetryPolicy as RetryPolicy
from mif_rdf.remote.gsp import StoreError as StoreError
from mif_rdf.remote.gsp import check_endpoint as check_endpoint
from mif_rdf.remote.gsp import with_params

if TYPE_CHECKING:  # imported on first use: it brings the write-back path, which pushes and queries never need
    from mif_rdf.remote.store_import import import_from_store as import_from_store

__getattr__, __dir__ = lazy_names(__name__, {"import_from_store": "mif_rdf.remote.store_import"})

OXIGRAPH_UNION: Mapping[str, str] = {"union-default-graph": ""}
FUSEKI_UNION: Mapping[str, str] = {"default-graph-uri": "urn:x-arq:UnionGraph"}
_PROBE_NAMED = "ASK { GRAPH ?g { ?s ?p ?o } }"
_PROBE_DEFAULT = "ASK { ?s ?p ?o }"


class RemoteStore(SPARQLStore):
    """rdflib's SPARQLStore, talking through :class:`HttpClient` (POST, ``application/sparql-query``)."""

    def __init__(
        self, query_endpoint: str, *, union_params: Mapping[str, str] | None = None, client: HttpClient | None = None
    ) -> None:
        super().__init__(check_endpoint(query_endpoint, "query endpoint"), returnFormat="xml")
        self.union_params = dict(union_params or {})
        self.client = client or HttpClient()

    def add_graph(self, graph: Graph) -> None:
        """``Dataset.graph(iri)`` registers the graph it hands out;
        a remote graph exists when it has triples, so there is nothing to do."""

    def _query(self, query: str, default_graph: str | None = None, named_graph: str | None = None) -> Result:
        """Every store operation (query, triples, len, contexts) ends here."""
        self._queries += 1
        scoped = default_graph is not None and not isinstance(default_graph, BNode)
        params = {"default-graph-uri": str(default_graph)} if scoped else self.union_params
        assert self.query_endpoint is not None
        response = self.client.request(
            "POST",
            with_params(self.query_endpoint, params),
            query.encode("utf-8"),
            {"Content-Type": "application/sparql-query; charset=utf-8", "Accept": self.response_mime_types()},
            what="a SPARQL query",
        )
        return Result.parse(BytesIO(response.body), content_type=response.content_type.split(";")[0].strip())


def remote_dataset(
    query_endpoint: str,
    *,
    union_params: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
    timeout: float = 30.0,
    retry: RetryPolicy | None = None,
) -> Dataset:
    """A read-only Dataset over a SPARQL endpoint whose queries see the union of the named graphs.

    Without ``union_params``, two or three ASK queries find them (see
    :func:`union_params_for`); raises :class:`MifRdfError` when no known
    parameter makes the default graph the union.
    """
    client = HttpClient(credentials, timeout, retry)
    if union_params is None:
        union_params = union_params_for(query_endpoint, client)
    return Dataset(store=RemoteStore(query_endpoint, union_params=union_params, client=client), default_union=True)


def union_params_for(query_endpoint: str, client: HttpClient | None = None) -> Mapping[str, str]:
    """The request parameters that make this store's default graph the union of its named graphs.

    Nothing when the default graph already answers (GraphDB, Virtuoso, an
    Oxigraph started with ``--union-default-graph``, or an empty store), else
    the first of :data:`OXIGRAPH_UNION` and :data:`FUSEKI_UNION` under which it does.
    """
    store = RemoteStore(query_endpoint, client=client)
    if not store.query(_PROBE_NAMED).askAnswer or store.query(_PROBE_DEFAULT).askAnswer:
        return {}
    for params in (OXIGRAPH_UNION, FUSEKI_UNION):
        store.union_params = dict(params)
        if store.query(_PROBE_DEFAULT).askAnswer:
            return params
    raise MifRdfError(
        f"{query_endpoint}: the named graphs hold data but the default graph is empty, and neither Oxigraph's nor "
        "Fuseki's union parameter changes that; pass union_params (the store's parameter that makes the default graph "
        "the union of the named graphs), or configure the store so"
    )
