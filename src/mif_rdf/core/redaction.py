"""Secrets out of every line mif-rdf prints or logs.

An endpoint URL may carry a token in its query string (``?token=...``,
``?api_key=...``) and, if a user wrote one, a password in its userinfo.
Endpoints with userinfo are refused outright (:func:`mif_rdf.remote.gsp.check_endpoint`);
what remains is shown through :func:`redacted`: every query-string value and
any userinfo replaced by ``***``, the rest as written so a person still sees
which store and which path.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
#: A URL in prose: up to white space or a quote, less the punctuation that ends a sentence or a clause.
_URL = re.compile(r"\bhttps?://[^\s<>\"'`]*[^\s<>\"'`.,:;!?)\]]", re.I)
_VALUE = re.compile(r"=[^&#;]*")


def redacted(url: str) -> str:
    """``url`` with its userinfo and every query-string value masked (a URL that does not
    parse is masked whole after its scheme)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return url.split("://", 1)[0] + "://" + MASK
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = f"{MASK}@{host}{port}" if "@" in parts.netloc else parts.netloc
    query = _VALUE.sub("=" + MASK, parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Every http(s) URL in free text (an error message) through :func:`redacted`."""
    return _URL.sub(lambda match: redacted(match.group()), text)
