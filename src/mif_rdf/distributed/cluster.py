"""The Dask client an export runs on: the caller's, one at an address, or a ``LocalCluster`` of its own.

An address is asked who answers there before a ``Client`` is made: Dask's own client waits with no end
when something else listens on the port (its connect timeout leaves out the handshake), and reads the
first bytes of another protocol's answer as a frame length (a ``MemoryError`` for exabytes). The question
is Dask's: its ``connect`` and handshake, then the ``identity`` every Dask server answers, all within Dask's
connect timeout (``distributed.comm.timeouts.connect``, 30 s unless configured).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from mif_rdf.core.errors import MifRdfError

if TYPE_CHECKING:
    from distributed import Client

#: The share of the time Dask's ``connect`` may retry a refused or unresolved address (the rest is the handshake's).
CONNECTING = 0.5
#: What an address must be, said in every refusal.
EXPECTED = "a Dask scheduler's address, e.g. tcp://scheduler:8786 (the port `dask scheduler` prints, not its dashboard)"


#: Dask's statistical profiler of a worker's tasks, off in the cluster an export makes: it keeps a profile of each
#: second of the last 1,000 (``distributed.admin.low-level-log-length``), so a worker's memory grew with the time
#: it had run, about 2 MiB a partition of 5,000 memories (docs/scale.md, "Memos bounded by bytes").
PROFILER = "distributed.worker.profile.enabled"


@contextlib.contextmanager
def connected(client: Client | str | None, workers: int | None = None) -> Iterator[Client]:
    """``client`` as given, a client of the scheduler at that address, or a new ``LocalCluster``
    (``workers`` processes, one thread each: the per-file work holds the GIL; no profiler: :data:`PROFILER`); what
    this made is closed at the end."""
    from distributed import Client, LocalCluster

    if isinstance(client, Client):
        yield _quieted(client)
        return
    if client is not None:  # asked by check_address before anything was read or made
        with Client(client) as remote:
            yield _quieted(remote)
        return
    import dask

    with (
        dask.config.set({PROFILER: False}),  # the workers take the configuration they are made with
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        Client(cluster) as local,
    ):
        yield _quieted(local)


def _quieted(client: Client) -> Client:
    """``client``, its workers told to drop the traceback of Dask's heartbeat race at close (:mod:`.quiet`)."""
    from mif_rdf.distributed.quiet import NAME, QuietHeartbeat

    client.register_plugin(QuietHeartbeat(), name=NAME)
    return client


def connect_seconds() -> float:
    """How long an address has to answer: Dask's connect timeout (``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT``)."""
    import dask
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds"))


def check_address(client: Client | str | None) -> None:
    """When ``client`` is an address, that a Dask scheduler answers there (:func:`ensure_scheduler`); called
    before a run reads the bundle or makes its output folder, so a wrong address leaves nothing behind."""
    if isinstance(client, str):
        ensure_scheduler(client)


def ensure_scheduler(address: str) -> None:
    """A :class:`MifRdfError` naming ``address`` unless a Dask scheduler answers there within
    :func:`connect_seconds`. Asked from a thread of its own, so a caller's running event loop (Jupyter) is no matter."""
    from distributed.comm import CommClosedError

    seconds = connect_seconds()
    with ThreadPoolExecutor(1, thread_name_prefix="mif-rdf-dask-probe") as pool:
        try:
            who = pool.submit(asyncio.run, _identity(address, seconds)).result()
        except (ValueError, TypeError) as exc:  # no scheme Dask knows, no port, no host
            raise MifRdfError(f"{address!r} is not a scheduler address ({exc}): give {EXPECTED}") from None
        except TimeoutError:
            raise MifRdfError(
                f"{address}: no Dask scheduler answered within {seconds:g} s (something other than a Dask scheduler "
                f"may listen there, or it is stalled); give {EXPECTED}, or a longer "
                "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"
            ) from None
        except CommClosedError:  # connected, then closed by the other side in the handshake
            raise MifRdfError(
                f"{address} closed the connection in Dask's handshake (not a Dask scheduler, or one that wants "
                f"TLS); give {EXPECTED}"
            ) from None
        except OSError as exc:  # refused, unreachable, unknown host: Dask retried them for most of the time
            raise MifRdfError(
                f"{address}: cannot connect within {seconds * CONNECTING:.2g} s ({_cause(exc)}); give {EXPECTED}"
            ) from None
        except Exception as exc:  # noqa: BLE001  -- whatever another protocol's bytes make Dask's reader raise
            raise MifRdfError(
                f"{address} answered, but not in Dask's protocol ({type(exc).__name__}); give {EXPECTED}"
            ) from None
    kind = str(who.get("type", "")) if isinstance(who, dict) else ""
    if kind in ("Worker", "Nanny"):
        raise MifRdfError(f"{address} is a Dask {kind.lower()}, not a scheduler: give {EXPECTED}")


async def _identity(address: str, seconds: float) -> Any:
    """What the server at ``address`` says it is, within ``seconds`` in all. Dask retries a refused or unresolved
    address for :data:`CONNECTING` of them (a scheduler may be starting), so that error, with its cause, comes first;
    the handshake and the reply have what is left."""
    from distributed.comm import connect
    from distributed.security import Security

    async def ask() -> Any:
        comm = await connect(address, timeout=seconds * CONNECTING, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(ask(), seconds)


def _cause(exc: OSError) -> str:
    """The system's reason under Dask's "timed out trying to connect" (refused, no such host), when its last
    attempt had one (an attempt cut short by the deadline has none)."""
    reason: BaseException | None = exc
    while reason is not None:
        if isinstance(reason, OSError) and reason.strerror:
            return reason.strerror
        reason = reason.__cause__ or reason.__context__
    return "no connection accepted"


def dashboard(client: Client) -> str | None:
    """The link to the scheduler's dashboard, when it serves one (it needs bokeh)."""
    services = client.scheduler_info().get("services", {})
    return client.dashboard_link if "dashboard" in services else None
