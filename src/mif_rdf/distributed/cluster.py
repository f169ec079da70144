"""The Dask client an export runs on: the caller's, one at an address, or a ``LocalCluster`` of its own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from distributed import Client


@contextlib.contextmanager
def connected(client: Client | str | None, workers: int | None = None) -> Iterator[Client]:
    """``client`` as given, a client of the scheduler at that address, or a new ``LocalCluster``
    (``workers`` processes, one thread each: the per-file work holds the GIL); what this made is closed at the end."""
    from distributed import Client, LocalCluster

    if isinstance(client, Client):
        yield client
        return
    if client is not None:
        with Client(client) as remote:
            yield remote
        return
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        Client(cluster) as local,
    ):
        yield local


def dashboard(client: Client) -> str | None:
    """The link to the scheduler's dashboard, when it serves one (it needs bokeh)."""
    services = client.scheduler_info().get("services", {})
    return client.dashboard_link if "dashboard" in services else None
