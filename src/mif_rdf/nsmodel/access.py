"""What may leave the machine, judged per namespace: ``_local`` (spec 10.2) and a party's audience (10.4).

The one place a namespace is judged: the export policy
(:mod:`mif_rdf.output.policy`), the streamed export, ``serve``, ``convert``
and discovery all ask :func:`withheld_reason`.  A namespace that is not a
string, or that only looks like ``_local`` once normalized, is withheld too:
withholding by mistake is fixable, leaking is not.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mif_rdf.nsmodel.audience import Audience

LOCAL_SEGMENT = "_local"


@dataclass(frozen=True)
class Withheld:
    """A graph that stays on this machine, and why."""

    graph: str
    label: str
    reason: str

    @classmethod
    def namespaces_graph(cls, name: str, party: str) -> Withheld:
        """The ``#namespaces`` graph, which an export for one party leaves out."""
        return cls(
            name, name, f"it describes every party's agreements and namespaces; an export for {party} leaves it out"
        )


def withheld_reason(namespace: object, audience: Audience | None = None, *, include_local: bool = False) -> str | None:
    """Why a memory or entity in ``namespace`` stays on this machine, or None when it may leave.

    ``_local`` (:func:`local_only`) always, unless ``include_local`` and no
    audience (an audience never reads ``_local``); with an ``audience``, also
    whatever that party may not read.
    """
    reason = None if include_local and audience is None else local_only(namespace)
    if reason is None and audience is not None:
        why = audience.withholds(namespace)
        reason = f"not for {audience.party}: {why}" if why else None
    return reason


def local_only(namespace: object) -> str | None:
    """Why a ``namespace`` value keeps a memory on this machine, or None when it may leave."""
    if namespace is None:
        return None
    if not isinstance(namespace, str):
        return f"namespace {namespace!r} is not a string, so it cannot be shown not to be local-only"
    if any(part.strip().casefold() == LOCAL_SEGMENT for part in namespace.split("/")):
        return f"namespace {namespace!r} is local-only ({LOCAL_SEGMENT}, spec 10.2): never exported"
    if LOCAL_SEGMENT in _SEPARATORS.split(_normalized(namespace)):
        return (
            f"namespace {namespace!r} looks like {LOCAL_SEGMENT} once normalized (width, invisible characters, "
            "separators): withheld as local-only"
        )
    return None


#: What else may separate namespace segments once normalized: a backslash, a colon, any whitespace.
_SEPARATORS = re.compile(r"[/\\:\s]+")


def _normalized(namespace: str) -> str:
    """NFKC (full-width to plain), without format characters (zero-width, soft hyphen, BOM), case-folded."""
    folded = unicodedata.normalize("NFKC", namespace)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf").casefold()
