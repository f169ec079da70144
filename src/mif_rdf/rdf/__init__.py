"""From parsed memories to RDF: the JSON-LD projection, the fast walker, the pyld reference path,
the layout graph and the way back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.rdf.projection import ILL_TYPED as ILL_TYPED

#: public name -> the module that defines it (this package's public face: what the command line and users import)
_HOMES = {
    "ILL_TYPED": "mif_rdf.rdf.projection",
}
__all__ = [
    "ILL_TYPED",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
