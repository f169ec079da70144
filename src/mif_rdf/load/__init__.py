"""The loader: running the pipeline over a bundle into a store (memory or Oxigraph), the cache, git revisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.load.bundle import CacheReport as CacheReport
    from mif_rdf.load.cache import default_cache_dir as default_cache_dir
    from mif_rdf.load.cache_view import QueryView as QueryView
    from mif_rdf.load.cache_view import cached_query_view as cached_query_view
    from mif_rdf.load.cache_view import keep_query_view as keep_query_view
    from mif_rdf.load.revisions import load_at_revision as load_at_revision
    from mif_rdf.load.revisions import resolve as resolve
    from mif_rdf.load.revisions import revision_loader as revision_loader
    from mif_rdf.load.stores import oxigraph_installed as oxigraph_installed

#: public name -> the module that defines it (this package's public face: what the command line and users import)
_HOMES = {
    "CacheReport": "mif_rdf.load.bundle",
    "default_cache_dir": "mif_rdf.load.cache",
    "QueryView": "mif_rdf.load.cache_view",
    "cached_query_view": "mif_rdf.load.cache_view",
    "keep_query_view": "mif_rdf.load.cache_view",
    "load_at_revision": "mif_rdf.load.revisions",
    "oxigraph_installed": "mif_rdf.load.stores",
    "resolve": "mif_rdf.load.revisions",
    "revision_loader": "mif_rdf.load.revisions",
}
__all__ = [
    "CacheReport",
    "QueryView",
    "cached_query_view",
    "default_cache_dir",
    "keep_query_view",
    "load_at_revision",
    "oxigraph_installed",
    "resolve",
    "revision_loader",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
