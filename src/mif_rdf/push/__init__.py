"""Sending a bundle to a triple store, and deciding what may leave the machine.

* :mod:`.access` -- the export policy (spec 10.2 ``_local``, spec 18, and
  audiences of spec 10.4): what may leave, what is withheld and why; also
  used by ``mif-rdf export``;
* :mod:`.gsp` -- the HTTP client: Graph Store Protocol and SPARQL Update,
  credentials, timeouts, bounded retries, one error class per kind of fault;
* :mod:`.manifest` -- the per-graph content hashes kept in the store itself;
* :mod:`.sync` -- plan (send / delete / keep / withhold, with reasons) and
  execute, keeping the manifest true of the store even when a push dies.

Typical use::

    from mif_rdf import load_bundle
    from mif_rdf.push import GraphStore, push_bundle

    result = push_bundle(load_bundle("examples"), GraphStore("http://localhost:7878/store"))
    print("\\n".join(result.plan.lines()), result.summary(), sep="\\n")
"""

from __future__ import annotations

from mif_rdf.nsmodel.access import Withheld, local_only, withheld_reason
from mif_rdf.output.policy import ExportPolicy, export_bundle, export_policy
from mif_rdf.push.manifest import Manifest, graph_hash, read_manifest
from mif_rdf.push.sync import Action, Plan, PushResult, execute, plan_push, push_bundle
from mif_rdf.remote.gsp import (
    Credentials,
    GraphStore,
    HttpClient,
    RetryPolicy,
    StoreAuthError,
    StoreError,
    StoreFailed,
    StoreRejected,
    StoreTimeout,
    StoreUnreachable,
)

__all__ = [
    "Action",
    "Credentials",
    "ExportPolicy",
    "GraphStore",
    "HttpClient",
    "Manifest",
    "Plan",
    "PushResult",
    "RetryPolicy",
    "StoreAuthError",
    "StoreError",
    "StoreFailed",
    "StoreRejected",
    "StoreTimeout",
    "StoreUnreachable",
    "Withheld",
    "execute",
    "export_bundle",
    "export_policy",
    "graph_hash",
    "local_only",
    "plan_push",
    "push_bundle",
    "read_manifest",
    "withheld_reason",
]
