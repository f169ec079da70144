"""The namespace model of spec section 10: shared agreements, namespace files, reserved prefixes, audiences.

(Not :mod:`mif_rdf.core.namespaces`, which holds the RDF prefixes ``mif:``, ``dc:`` ...)

* :mod:`.model` -- the model as data; inheritance of namespace defaults (10.7);
* :mod:`.reading` -- read and check ``.mif/shared-agreements`` (:mod:`.agreements`),
  ``.mif/namespaces`` (:mod:`.namespace_files`) and the config's ``reserved_prefixes``
  (:mod:`.config`);
* :mod:`.audience` -- what one party may read (10.2, 10.4): the rules every
  export asks through :func:`mif_rdf.nsmodel.access.withheld_reason`;
* :mod:`.graphs` -- the ``#namespaces`` and ``#inherited`` graphs, namespace URIs (10.6);
* :mod:`.rules` -- validation findings about memories' namespaces.

In Python::

    from mif_rdf import load_bundle
    from mif_rdf.nsmodel import audience_for
    from mif_rdf.push import export_bundle, export_policy

    bundle = load_bundle("tests/fixtures/bundles/namespaces")
    policy = export_policy(bundle, audience_for(bundle, "bigcorp-inc"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from mif_rdf.core.limits import Limits
from mif_rdf.nsmodel.access import Withheld as Withheld
from mif_rdf.nsmodel.access import withheld_reason as withheld_reason
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.nsmodel.graphs import GRAPH_INHERITED, GRAPH_NAMESPACES, model_graphs, namespace_uri
from mif_rdf.nsmodel.model import (
    Agreement,
    Inherited,
    NamespaceFile,
    NamespaceModel,
    ReservedPrefix,
)
from mif_rdf.nsmodel.reading import read_namespace_model


class _BundleFolder(Protocol):
    """What :func:`audience_for` reads of a loaded bundle (this package sits below the loader)."""

    root: Path
    config: dict[str, Any]
    limits: Limits


def audience_for(bundle: _BundleFolder | str | Path, party: str, *, include_system: bool = False) -> Audience:
    """The audience ``party`` of a loaded bundle (or a bundle folder);
    :class:`~mif_rdf.core.errors.MifRdfError` for an unknown party."""
    if isinstance(bundle, (str, Path)):
        return Audience.of(read_namespace_model(bundle), party, include_system)
    return Audience.of(read_namespace_model(bundle.root, bundle.config, bundle.limits), party, include_system)


__all__ = [
    "Withheld",
    "withheld_reason",
    "GRAPH_INHERITED",
    "GRAPH_NAMESPACES",
    "Agreement",
    "Audience",
    "Inherited",
    "NamespaceFile",
    "NamespaceModel",
    "ReservedPrefix",
    "audience_for",
    "model_graphs",
    "namespace_uri",
    "read_namespace_model",
]
