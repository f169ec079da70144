"""A bundle on a Dask cluster (``pip install 'mif-rdf[dask]'``): the streamed export's steps, run by partition.

* :mod:`.export` -- :func:`export_nquads`: one gzipped N-Quads file per partition plus a manifest;
* :mod:`.validation` -- :func:`validate`: the findings of ``mif-rdf validate``, the cross-memory rules as joins;
* :mod:`.checks` -- the validation's tasks;
* :mod:`.tasks` -- what each worker runs, and the two shuffles (ids and locations; the links graph);
* :mod:`.shuffles` -- partitions, buckets, the claims settled (both runs);
* :mod:`.spool` -- the export's shuffle records between the steps, a file per partition in the output folder;
* :mod:`.cluster` -- the client: given, at an address, or a ``LocalCluster``;
* :mod:`.quiet` -- the worker plugin that keeps Dask's heartbeat race at close from printing a traceback;
* :mod:`.location` -- bundle and output URLs (files go through :func:`mif_rdf.core.outputs.replacing`).

Dask and fsspec are imported only when a cluster is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.distributed.cluster import dashboard as dashboard
    from mif_rdf.distributed.export import DistributedReport as DistributedReport
    from mif_rdf.distributed.export import export_nquads as export_nquads
    from mif_rdf.distributed.validation import validate as validate

#: public name -> the module that defines it (this package's public face)
_HOMES = {
    "dashboard": "mif_rdf.distributed.cluster",
    "DistributedReport": "mif_rdf.distributed.export",
    "export_nquads": "mif_rdf.distributed.export",
    "validate": "mif_rdf.distributed.validation",
}
__all__ = ["DistributedReport", "dashboard", "export_nquads", "validate"]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
