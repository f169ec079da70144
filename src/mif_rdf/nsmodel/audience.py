"""Who an export is for: the audience rules of spec 10.2 and 10.4.

With an audience (``--audience PARTY``), exactly these memories leave:

* ``_public/...``;
* ``_shared/...`` where PARTY reads the agreement that covers it
  (``access.read`` names it, or ``read: members`` and it is a member);
* PARTY's own organization root (``PARTY/...``);
* ``_system/...`` only when asked (``include_system``).

Never ``_local`` (:func:`mif_rdf.nsmodel.access.local_only` decides that, for
every export), never another organization's root, never a custom reserved
prefix, never a memory without a namespace.  Names compare exactly: a
namespace that is not well formed (:func:`.model.segments`: whitespace,
invisible or full-width characters) or whose root is a lookalike
(``_Shared``, ``_shared `` with a space, a Cyrillic ``ѕ``) matches nothing,
so it is withheld.  Every rule says why it withholds.
"""

from __future__ import annotations

from dataclasses import dataclass

from mif_rdf.core.errors import MifRdfError
from mif_rdf.nsmodel.model import NamespaceModel, segments


@dataclass(frozen=True)
class Audience:
    """One party an export is for, with the bundle's namespace model that says what it may read."""

    party: str
    model: NamespaceModel
    include_system: bool = False

    @classmethod
    def of(cls, model: NamespaceModel, party: str, include_system: bool = False) -> Audience:
        """The audience ``party``; raises :class:`MifRdfError` when the bundle names no such organization."""
        known = model.parties()
        if party not in known:
            named = (
                f"the organizations it names: {', '.join(sorted(known))}"
                if known
                else "it names none (no .mif/shared-agreements, no organization namespace files)"
            )
            raise MifRdfError(f"--audience {party!r}: not an organization of this bundle; {named}")
        return cls(party, model, include_system)

    def withholds(self, namespace: object) -> str | None:
        """Why a memory or entity in ``namespace`` may not go to this audience, or None when it may."""
        party = self.party
        if namespace is None:
            return f"it has no namespace, so it cannot be shown to be for {party}"
        parts = segments(namespace)
        if parts is None:
            return (
                f"namespace {namespace!r} is not well formed (empty segments, whitespace, invisible or "
                "non-normalized characters): it matches no audience rule"
            )
        root = parts[0]
        if root == "_public":
            return None
        if root == party:
            return None
        if root == "_shared":
            covering = self.model.covering(namespace)  # type: ignore[arg-type]
            if not covering:
                return f"namespace {namespace!r}: no shared agreement covers it (spec 10.4)"
            if any(party in agreement.readers() for agreement in covering):
                return None
            return f"namespace {namespace!r}: {party} is not a reader of {', '.join(a.id for a in covering)}"
        if root == "_system":
            return (
                None
                if self.include_system
                else f"namespace {namespace!r} is _system (implementation use): left out unless asked for "
                "(--include-system)"
            )
        if root.startswith("_"):
            return f"namespace {namespace!r} is under the reserved prefix {root}, which is not for an audience"
        return f"namespace {namespace!r} belongs to the organization {root!r}, not to {party}"
