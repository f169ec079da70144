"""Who may read a served bundle: the ``Host`` allow-list (DNS rebinding) and the ``Origin`` check (cross-origin reads).

A web page the user visits can make the browser send requests to
127.0.0.1; two things keep it from reading the answers.  A page that rebinds
its own name to 127.0.0.1 still sends its own name as ``Host``: only loopback
names and addresses, the ``--bind`` address and ``--allow-host`` names are
answered.  A page of another origin sends its ``Origin``: only the server's
own and ``--cors`` origins are answered (before any work is done), the
latter with the ``Access-Control-*`` headers browsers need.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from http import HTTPStatus

from mif_rdf.serve.protocol import HttpError

HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?")
LOOPBACK_NAMES = frozenset({"localhost"})


@dataclass(frozen=True)
class Access:
    """Who may read: the ``Host`` names and the cross-origin ``Origin`` values allowed."""

    bind: str = "127.0.0.1"
    hosts: frozenset[str] = frozenset()  # --allow-host names ("*": any)
    cors: frozenset[str] = frozenset()  # --cors origins

    def host_allowed(self, host: str) -> bool:
        """Whether a request naming ``host`` (``name[:port]``) may be answered: the DNS-rebinding guard."""
        if "*" in self.hosts:
            return True
        match = HOST.fullmatch(host.strip())
        if match is None:
            return False
        name = match.group(1).lower().rstrip(".")
        if name in LOOPBACK_NAMES or name in self.hosts or name == self.bind.lower().strip("[]"):
            return True
        try:
            address = ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return False
        bind = ipaddress.ip_address(self.bind.strip("[]")) if _is_ip(self.bind) else None
        return address.is_loopback or address == bind or (bind is not None and bind.is_unspecified)

    def check(self, host: str | None, origin: str | None) -> dict[str, str]:
        """Refuse a foreign ``Host`` or ``Origin`` (403); the CORS headers an allowed cross-origin request gets."""
        if host is not None and not self.host_allowed(host):
            raise HttpError(
                HTTPStatus.FORBIDDEN,
                f"Host {host!r} is not one this server answers to (a guard against DNS rebinding); "
                "a name a reverse proxy uses can be added with --allow-host",
            )
        if origin is None:
            return {}
        if origin in self.cors:
            return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
        if host is not None and origin.lower() in (
            f"http://{host.lower()}",
            f"https://{host.lower()}",
        ):  # https: behind a TLS proxy
            return {}
        raise HttpError(
            HTTPStatus.FORBIDDEN,
            f"cross-origin request from {origin!r} refused: the server can allow an origin with --cors ORIGIN",
        )


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
        return True
    except ValueError:
        return False
