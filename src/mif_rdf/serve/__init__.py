"""``mif-rdf serve``: a bundle as a live, read-only SPARQL endpoint with a page for people.

* :mod:`.served` -- the bundle behind the server: the working load, the store
  queries read, incremental reloads published at once, last good versions;
  :mod:`.snapshot` -- what one published change serves; :mod:`.findings` --
  what the page may show of the findings.
* :mod:`.watch` -- the folder watcher that feeds file changes to it.
* :mod:`.protocol` -- what is answered: SPARQL 1.1 Protocol, Graph Store
  Protocol reads, service description, the page and its JSON (:mod:`.views`).
* :mod:`.http` -- the ASGI application: limits and workers; :mod:`.stream` carries
  an answer from its worker to the connection.
* :mod:`.server` -- the server: the application on uvicorn, in a thread of its own.
* :mod:`.update_route` -- ``--writable``: SPARQL Update on ``/update`` written back to the files.
* :mod:`.access` -- who may read: the ``Host`` allow-list and the ``Origin`` check.
* :mod:`.negotiate` -- content negotiation over the formats Oxigraph writes.

In Python::

    from mif_rdf import load_bundle
    from mif_rdf.serve import start

    server, watcher = start(load_bundle("examples", store="oxigraph"), port=0)
    print(server.url)          # http://127.0.0.1:<port>/
    ...
    stop(server, watcher)
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.serve.access import Access
from mif_rdf.serve.http import ServerLimits
from mif_rdf.serve.protocol import QueryOptions
from mif_rdf.serve.served import ServedBundle
from mif_rdf.serve.server import BundleServer
from mif_rdf.serve.update_route import Writer
from mif_rdf.serve.watch import Watcher
from mif_rdf.validation.user_shapes import ShapesSource

LOOPBACK = "127.0.0.1"


def start(
    bundle: LoadedBundle,
    *,
    bind: str = LOOPBACK,
    port: int = 0,
    include_local: bool = False,
    allow_service: bool = False,
    watch: bool = True,
    quiet: bool = True,
    limits: ServerLimits = ServerLimits(),
    allow_hosts: Iterable[str] = (),
    cors: Iterable[str] = (),
    audience: Audience | None = None,
    shapes: Sequence[ShapesSource] = (),
    as_of: str | None = None,
    writable: bool = False,
) -> tuple[BundleServer, Watcher | None]:
    """Serve ``bundle`` (loaded with ``store="oxigraph"``) in background threads; ``port=0`` picks a free port.

    With ``audience`` only what that party may read is served, on every route.
    ``shapes``: the user's own SHACL shapes, applied beside the level shapes
    wherever the page shows findings (as ``mif-rdf validate --shapes``).
    With ``as_of`` (an ISO 8601 date or date-time) only the memories valid then are served, and the links
    between them, on every route, as edits come and go (``--as-of`` of ``query`` and ``export``).
    ``writable``: SPARQL Update on ``/update`` is written back to the files
    (:mod:`.update_route`); clients send ``server.app.writer.token``.
    """
    if writable and audience is not None:
        raise MifRdfError(
            "a writable server serves the whole bundle: an update could copy what the audience may not read into "
            "what it may; give either writable or audience"
        )
    served = ServedBundle(bundle, include_local=include_local, audience=audience, shapes=shapes, as_of=as_of)
    access = Access(bind=bind, hosts=frozenset(h.lower() for h in allow_hosts), cors=frozenset(cors))
    server = BundleServer(
        (bind, port),
        served,
        options=QueryOptions(allow_service=allow_service),
        limits=limits,
        access=access,
        quiet=quiet,
    )
    if writable:
        server.app.writer = Writer(served, allow_service=allow_service)
    watcher = Watcher(served).start() if watch else None
    server.serve_in_background()
    return server, watcher


def stop(server: BundleServer, watcher: Watcher | None) -> None:
    """Stop answering (requests in flight get a few seconds), stop watching, release the port."""
    server.shutdown()
    if watcher is not None:
        watcher.stop()


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


#: The name :class:`ServerLimits` was imported by before it had a name of its own (``Limits`` is also the input
#: bounds of :mod:`mif_rdf.core.limits`).
Limits = ServerLimits

__all__ = [
    "Access",
    "BundleServer",
    "Limits",
    "ServerLimits",
    "ServedBundle",
    "Watcher",
    "is_loopback",
    "start",
    "stop",
]
