"""The namespace model of spec section 10 as data: agreements, namespace files, reserved prefixes, and inheritance.

:func:`mif_rdf.nsmodel.reading.read_namespace_model` reads and checks it from
a bundle's ``.mif`` folder; this module holds what it reads into and the
questions later stages ask of it (which agreements cover a namespace, what a
namespace gives its memories).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mif_rdf.core.errors import Problem

AGREEMENTS_DIR = ".mif/shared-agreements"
NAMESPACES_DIR = ".mif/namespaces"
#: The spec's reserved prefixes (10.2): a config may not redefine them.
VISIBILITY_PREFIXES = ("_public", "_shared", "_local", "_system")
BASE_TYPE_PREFIXES = ("_semantic", "_episodic", "_procedural")
SPEC_PREFIXES = VISIBILITY_PREFIXES + BASE_TYPE_PREFIXES
#: ``access`` values of a custom reserved prefix that mif-rdf understands.
PREFIX_ACCESS = ("read-only", "read-write")
#: ``access.read`` words that stand for a list of the agreement's own names.
READ_WORDS = {"members": "members", "parties": "parties"}
#: The config keys mif-rdf reads besides ``reserved_prefixes``.
SYSTEM_KEY, AUTHORITY_KEY = "allow_system_namespace", "authority"
#: The authority of namespace URIs when the config names none (spec 10.6's own example for local data).
DEFAULT_AUTHORITY = "local"
#: At most this many agreement or namespace files are read (each is small; more is not a real bundle).
MAX_MODEL_FILES = 10_000


def segments(namespace: object) -> list[str] | None:
    """The segments of a well-formed namespace, or None.

    Well formed: a string of non-empty ``/``-separated segments, none of
    them ``.`` or ``..``, with no whitespace, control or format characters,
    and unchanged by NFKC normalization (so ``_ｓhared`` in full width is
    not ``_shared`` in disguise).  Anything else cannot be matched safely.
    """
    if not isinstance(namespace, str) or not namespace or namespace != unicodedata.normalize("NFKC", namespace):
        return None
    parts = namespace.split("/")
    for part in parts:
        if part in ("", ".", "..") or any(c.isspace() or unicodedata.category(c)[0] == "C" for c in part):
            return None
    return parts


def pattern_matches(pattern: str, namespace: str) -> bool:
    """Whether an agreement's namespace entry covers ``namespace`` (spec 10.4).

    The entry covers itself and everything below it; a ``*`` segment at the
    end stands for one or more segments (``_shared/cncf/*`` covers
    ``_shared/cncf/kubernetes/patterns``), elsewhere a ``*`` matches within
    one segment.  Segments compare exactly: no case folding, no trimming.
    """
    wanted, parts = pattern.split("/"), segments(namespace)
    if parts is None:
        return False
    if wanted[-1] == "*":
        wanted = wanted[:-1]
        if len(parts) <= len(wanted):
            return False
    elif len(parts) < len(wanted):
        return False
    return all(_segment_matches(w, p) for w, p in zip(wanted, parts))


def _segment_matches(wanted: str, part: str) -> bool:
    if "*" not in wanted:
        return wanted == part
    return re.fullmatch(".*".join(map(re.escape, wanted.split("*"))), part) is not None


@dataclass(frozen=True)
class Agreement:
    """One shared agreement (10.4), as far as it is well formed."""

    relpath: str
    id: str
    type: str | None = None
    parties: tuple[str, ...] = ()
    admin: str | None = None
    members: tuple[str, ...] = ()
    created: str | None = None
    namespaces: tuple[str, ...] = ()
    #: ``access.read`` / ``access.write`` as written: a word (``members``) or a tuple of names
    read: str | tuple[str, ...] | None = None
    write: str | tuple[str, ...] | None = None

    def readers(self) -> frozenset[str]:
        """Who may read what this agreement covers: the ``access.read`` names, or the list its word names."""
        return self._access(self.read)

    def writers(self) -> frozenset[str]:
        return self._access(self.write)

    def _access(self, value: str | tuple[str, ...] | None) -> frozenset[str]:
        if isinstance(value, tuple):
            return frozenset(value)
        if value == "members":
            return frozenset(self.members)
        if value == "parties":
            return frozenset(self.parties)
        return frozenset()  # missing or a word mif-rdf does not know: nobody (reported when read)

    def names(self) -> set[str]:
        """Every organization this agreement names."""
        return {
            *self.parties,
            *self.members,
            *([self.admin] if self.admin else []),
            *(self.read if isinstance(self.read, tuple) else ()),
            *(self.write if isinstance(self.write, tuple) else ()),
        }

    def covers(self, namespace: str) -> bool:
        return any(pattern_matches(p, namespace) for p in self.namespaces)


@dataclass(frozen=True)
class NamespaceFile:
    """One namespace file (10.7): the defaults a namespace gives its memories and its children."""

    relpath: str
    path: str  # the namespace, from the file's place below .mif/namespaces
    id: str | None = None
    type: str | None = None
    parent: str | None = None  # the parent namespace (its path)
    default_ttl: str | None = None
    default_visibility: str | None = None
    default_tags: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ReservedPrefix:
    """One custom reserved prefix of ``.mif/config.yaml`` (10.5)."""

    name: str
    description: str | None = None
    access: str | None = None
    ttl: str | None = None
    provenance_required: bool = False

    @property
    def read_only(self) -> bool:
        return self.access == "read-only"


@dataclass(frozen=True)
class Inherited:
    """What a memory's namespace gives it (10.7), and where each value comes from (a namespace path or a prefix)."""

    ttl: tuple[str, str] | None = None
    visibility: tuple[str, str] | None = None
    tags: tuple[tuple[str, ...], str] | None = None


@dataclass
class NamespaceModel:
    """A bundle's agreements, namespace files and reserved prefixes, with the problems met reading them."""

    agreements: list[Agreement] = field(default_factory=list)
    namespaces: dict[str, NamespaceFile] = field(default_factory=dict)
    prefixes: dict[str, ReservedPrefix] = field(default_factory=dict)
    allow_system: bool = False
    authority: str = DEFAULT_AUTHORITY
    config_path: str | None = None
    problems: list[Problem] = field(default_factory=list)
    #: namespace -> what it gives (asked once per memory; a bundle has few namespaces)
    _inherited: dict[str, Inherited] = field(default_factory=dict, repr=False, compare=False)

    def __bool__(self) -> bool:
        return bool(self.agreements or self.namespaces or self.prefixes)

    def parties(self) -> set[str]:
        """Every organization the model names: in agreements, and namespace files of type ``organization``."""
        names = {name for agreement in self.agreements for name in agreement.names()}
        return names | {ns.path for ns in self.namespaces.values() if ns.type == "organization" and "/" not in ns.path}

    def covering(self, namespace: str) -> list[Agreement]:
        """The agreements whose namespaces cover ``namespace``."""
        return [a for a in self.agreements if a.covers(namespace)]

    def prefix_of(self, namespace: object) -> ReservedPrefix | None:
        """The custom reserved prefix ``namespace`` sits under (its first segment, exactly), if any."""
        parts = segments(namespace)
        return self.prefixes.get(parts[0]) if parts else None

    def inherited(self, namespace: object) -> Inherited:
        """The defaults ``namespace`` gives a memory: the nearest namespace file that sets each, then its prefix's ttl.

        The namespace itself, then each ancestor (``a/b/c``, ``a/b``, ``a``),
        following a file's ``parent`` where it names another namespace; the
        first value found wins (child over parent, spec 10.7).
        """
        if not isinstance(namespace, str):
            return Inherited()
        if namespace not in self._inherited:
            self._inherited[namespace] = self._inherit(namespace)
        return self._inherited[namespace]

    def _inherit(self, namespace: str) -> Inherited:
        parts = segments(namespace)
        if not parts:
            return Inherited()
        found: dict[str, Any] = {}
        for ns in self._chain(parts):
            for key, value in (
                ("ttl", ns.default_ttl),
                ("visibility", ns.default_visibility),
                ("tags", ns.default_tags),
            ):
                if value is not None and key not in found:
                    found[key] = (value, ns.path)
        prefix = self.prefixes.get(parts[0])
        if prefix is not None and prefix.ttl and "ttl" not in found:
            found["ttl"] = (prefix.ttl, prefix.name)
        return Inherited(**found)

    def _chain(self, parts: list[str]) -> Iterable[NamespaceFile]:
        """The namespace files from ``parts`` up: the deepest existing one, then its parents (a cycle stops)."""
        seen: set[str] = set()
        for depth in range(len(parts), 0, -1):
            path = "/".join(parts[:depth])
            if path in self.namespaces:
                break
        else:
            return
        while path in self.namespaces and path not in seen:
            seen.add(path)
            ns = self.namespaces[path]
            yield ns
            path = ns.parent if ns.parent is not None else path.rpartition("/")[0]
