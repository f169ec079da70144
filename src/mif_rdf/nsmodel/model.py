"""The namespace model of spec section 10, read from a bundle's ``.mif`` folder.

Three sources, each file read with the rules memories are read with (the
size and YAML limits of :mod:`mif_rdf.core.limits`, symlinks not followed, only
regular files, a problem naming file and key instead of an exception):

* ``.mif/shared-agreements/*.yaml`` -- who may read which ``_shared``
  namespaces (10.4);
* ``.mif/namespaces/**.yaml`` -- namespace files with defaults a memory
  inherits (10.7); a file's namespace is its path below the folder minus
  the extension (``acme-corp/project-x.yaml`` is ``acme-corp/project-x``);
* ``reserved_prefixes`` of ``.mif/config.yaml`` -- custom reserved prefixes
  (10.5), plus ``allow_system_namespace`` and ``authority`` (mif-rdf keys).

What is malformed is reported and left out, so a broken agreement grants
nothing (access fails closed); it never makes a memory leave.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.freshness import parse_duration
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.source.identity import BUNDLE_ID_KEY, bundle_id_problem
from mif_rdf.source.parse import BundleFiles, _walk, config_file, parse_config, parse_yaml_mapping, read_text

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

#: A party (organization) name: ASCII letters, digits, ``. _ + -``; no spaces, no lookalike characters.
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9])?$")
#: One segment of a namespace an agreement names; ``*`` is a wildcard.
_PATTERN_SEGMENT = re.compile(r"^[A-Za-z0-9_*](?:[A-Za-z0-9._+*-]*[A-Za-z0-9_*])?$")
_PREFIX = re.compile(r"^_[a-z0-9][a-z0-9_-]*$")
_AUTHORITY = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?$")


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


def read_namespace_model(
    root: str | Path, config: dict[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS
) -> NamespaceModel:
    """Read and check the namespace model of the bundle at ``root``; never raises for what the files say.

    ``config`` is the parsed ``.mif/config.yaml`` when the caller has it
    (a load does); read here otherwise.
    """
    root = Path(root).resolve()
    model = NamespaceModel()
    model.config_path = config_file(root, [])
    if config is None:
        config = parse_config(root, model.config_path, limits)[0] if model.config_path else {}
    _read_config(config, model)
    mif = root / ".mif"
    if not mif.is_dir() or mif.is_symlink():
        return model
    for relpath in _files(root, AGREEMENTS_DIR, model.problems):
        data = _mapping(root, relpath, limits, model.problems)
        if data is not None:
            agreement = _agreement(relpath, data, model.problems)
            if agreement is not None:
                model.agreements.append(agreement)
    _check_agreement_ids(model)
    for relpath in _files(root, NAMESPACES_DIR, model.problems):
        data = _mapping(root, relpath, limits, model.problems)
        if data is not None:
            ns = _namespace_file(relpath, data, model.problems)
            if ns is not None:
                model.namespaces[ns.path] = ns
    _check_parents(model)
    return model


def _files(root: Path, folder: str, problems: list[Problem]) -> list[str]:
    """The YAML files below ``folder`` (discovery's rules: no symlinks followed, regular files only), in path order."""
    path = root / folder
    if path.is_symlink():
        problems.append(Problem(folder, "symlinked folder is not followed", Severity.WARNING, rule="discovery"))
        return []
    if not path.is_dir():
        return []
    found = BundleFiles()
    files: list[str] = []
    _walk(root, folder + "/", found, files, lambda name: name.endswith((".yaml", ".yml")), skip_hidden=True)
    problems.extend(found.problems)
    if len(files) > MAX_MODEL_FILES:
        problems.append(
            Problem(
                folder,
                f"{len(files):,} files, over the limit of {MAX_MODEL_FILES:,}; files after {sorted(files)[MAX_MODEL_FILES - 1]} are not read",
                rule="limit",
            )
        )
    return sorted(files)[:MAX_MODEL_FILES]


def _mapping(root: Path, relpath: str, limits: Limits, problems: list[Problem]) -> dict[str, Any] | None:
    text = read_text(root / relpath, relpath, problems, limits)
    return None if text is None else parse_yaml_mapping(text, relpath, problems, limits=limits)


def _problem(
    problems: list[Problem],
    relpath: str,
    key: str,
    value: Any,
    message: str,
    rule: str,
    severity: Severity = Severity.ERROR,
) -> None:
    problems.append(Problem(relpath, message, severity, key=key, value=_shown(value), rule=rule))


def _shown(value: Any) -> Any:
    """A value for a problem record: scalars as they are, anything larger as short text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value if not isinstance(value, str) or len(value) <= 200 else value[:200] + "..."
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _name(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and _NAME.match(value) is not None


def _names(relpath: str, key: str, value: Any, problems: list[Problem], rule: str) -> tuple[str, ...]:
    """A list of organization names; a malformed entry is reported and left out."""
    if value is None:
        return ()
    if not isinstance(value, list):
        _problem(problems, relpath, key, value, f"{key} must be a list of organization names", rule)
        return ()
    kept = []
    for index, item in enumerate(value):
        if _name(item):
            kept.append(item)
        else:
            _problem(
                problems,
                relpath,
                f"{key}[{index}]",
                item,
                f"{item!r} is not an organization name (letters, digits, '.', '_', '+' and '-', no spaces); left out",
                rule,
            )
    return tuple(kept)


def _text(relpath: str, key: str, value: Any, problems: list[Problem], rule: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    _problem(problems, relpath, key, value, f"{key} must be text", rule)
    return None


def _agreement(relpath: str, data: dict[str, Any], problems: list[Problem]) -> Agreement | None:
    """An agreement from its YAML, or None (reported) when it cannot grant anything safely."""
    rule = "agreement"
    ident = data.get("id")
    if not _name(ident):
        _problem(
            problems,
            relpath,
            "id",
            ident,
            "an agreement needs an id (letters, digits, '.', '_', '+' and '-'); this agreement is not used",
            rule,
        )
        return None
    stem = relpath.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if ident != stem:
        _problem(
            problems,
            relpath,
            "id",
            ident,
            f"id {ident!r} differs from the file name {stem!r} (spec 10.4 names the file after the agreement)",
            rule,
            Severity.WARNING,
        )
    kind = _text(relpath, "type", data.get("type"), problems, rule)
    if kind is not None and kind not in ("bilateral", "consortium"):
        _problem(
            problems,
            relpath,
            "type",
            kind,
            f"type {kind!r} is not one spec 10.4 shows (bilateral, consortium); read as written",
            rule,
            Severity.WARNING,
        )
    admin = data.get("admin")
    if admin is not None and not _name(admin):
        _problem(problems, relpath, "admin", admin, "admin must be an organization name", rule)
        admin = None
    patterns = _patterns(relpath, data.get("namespaces"), problems)
    access = data.get("access")
    if access is not None and not isinstance(access, dict):
        _problem(problems, relpath, "access", access, "access must be a mapping with read and write", rule)
        access = None
    access = access or {}
    agreement = Agreement(
        relpath,
        ident,
        kind,
        _names(relpath, "parties", data.get("parties"), problems, rule),
        admin,
        _names(relpath, "members", data.get("members"), problems, rule),
        _created(relpath, data.get("created"), problems),
        patterns,
        _access(relpath, "access.read", access.get("read"), problems),
        _access(relpath, "access.write", access.get("write"), problems),
    )
    if agreement.read is None:
        _problem(
            problems,
            relpath,
            "access.read",
            None,
            "no access.read: nobody may read what this agreement covers (access fails closed)",
            rule,
            Severity.WARNING,
        )
    elif isinstance(agreement.read, str) and not agreement.readers():
        _problem(
            problems,
            relpath,
            "access.read",
            agreement.read,
            f"read: {agreement.read} names nobody (the agreement has no {agreement.read})",
            rule,
            Severity.WARNING,
        )
    if kind == "bilateral" and len(agreement.parties) != 2:
        _problem(
            problems,
            relpath,
            "parties",
            data.get("parties"),
            "a bilateral agreement has two parties",
            rule,
            Severity.WARNING,
        )
    return agreement


def _created(relpath: str, value: Any, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else None
    if text is None:
        _problem(problems, relpath, "created", value, "created must be an ISO 8601 date-time", "agreement")
    return text


def _patterns(relpath: str, value: Any, problems: list[Problem]) -> tuple[str, ...]:
    """The ``namespaces`` an agreement covers: ``_shared/...`` paths, with ``*`` wildcards."""
    if not isinstance(value, list) or not value:
        _problem(
            problems,
            relpath,
            "namespaces",
            value,
            "an agreement needs a list of the _shared namespaces it covers; it covers nothing",
            "agreement",
        )
        return ()
    kept = []
    for index, item in enumerate(value):
        parts = item.split("/") if isinstance(item, str) else []
        if (
            len(parts) < 2
            or parts[0] != "_shared"
            or not all(_PATTERN_SEGMENT.match(p) and p not in (".", "..") for p in parts[1:])
        ):
            _problem(
                problems,
                relpath,
                f"namespaces[{index}]",
                item,
                f"{item!r} is not a _shared namespace (as in _shared/acme+bigcorp/api or _shared/cncf/*); left out",
                "agreement-namespace",
            )
        else:
            kept.append(item)
    return tuple(kept)


def _access(relpath: str, key: str, value: Any, problems: list[Problem]) -> str | tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value in READ_WORDS:
            return value
        if _name(value):  # one name written without brackets
            return (value,)
        _problem(
            problems,
            relpath,
            key,
            value,
            f"{key} must be a list of organization names or one of {', '.join(READ_WORDS)}; nobody is granted it",
            "agreement",
        )
        return ""
    return _names(relpath, key, value, problems, "agreement")


def _check_agreement_ids(model: NamespaceModel) -> None:
    seen: dict[str, str] = {}
    kept = []
    for agreement in model.agreements:
        if agreement.id in seen:
            _problem(
                model.problems,
                agreement.relpath,
                "id",
                agreement.id,
                f"agreement id {agreement.id!r} is already used by {seen[agreement.id]}; this one is not used",
                "agreement",
            )
            continue
        seen[agreement.id] = agreement.relpath
        kept.append(agreement)
    model.agreements = kept


def _namespace_file(relpath: str, data: dict[str, Any], problems: list[Problem]) -> NamespaceFile | None:
    rule = "namespace-file"
    path = relpath[len(NAMESPACES_DIR) + 1 :].rsplit(".", 1)[0]
    if segments(path) is None or any(not _NAME.match(p) for p in path.split("/") if not p.startswith("_")):
        _problem(
            problems, relpath, "id", path, f"{path!r} (from the file's place) is not a namespace name; not used", rule
        )
        return None
    ident = _text(relpath, "id", data.get("id"), problems, rule)
    if ident is not None and ident != path.rsplit("/", 1)[-1]:
        _problem(
            problems,
            relpath,
            "id",
            ident,
            f"id {ident!r} differs from the file name {path.rsplit('/', 1)[-1]!r}; the file's place decides the namespace ({path})",
            rule,
            Severity.WARNING,
        )
    parent = _text(relpath, "parent", data.get("parent"), problems, rule)
    folder = path.rpartition("/")[0] or None
    if parent is not None and segments(parent) is None:
        _problem(problems, relpath, "parent", parent, "parent is not a namespace name; the file's folder is used", rule)
        parent = None
    if parent is not None and folder is not None and parent != folder and parent != folder.rsplit("/", 1)[-1]:
        _problem(
            problems,
            relpath,
            "parent",
            parent,
            f"parent {parent!r} is not the folder the file is in ({folder}); the folder is used",
            rule,
        )
    parent = folder if folder is not None else parent
    ttl = _text(relpath, "default_ttl", data.get("default_ttl"), problems, rule)
    if ttl is not None and not _duration(ttl):
        _problem(
            problems,
            relpath,
            "default_ttl",
            ttl,
            f"default_ttl {ttl!r} is not an ISO 8601 duration (as in P365D); not inherited",
            rule,
        )
        ttl = None
    visibility = _text(relpath, "default_visibility", data.get("default_visibility"), problems, rule)
    tags = data.get("default_tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) and t for t in tags)):
        _problem(
            problems, relpath, "default_tags", tags, "default_tags must be a list of tags (text); not inherited", rule
        )
        tags = None
    return NamespaceFile(
        relpath,
        path,
        ident,
        _text(relpath, "type", data.get("type"), problems, rule),
        parent,
        ttl,
        visibility,
        tuple(tags) if tags is not None else None,
    )


def _check_parents(model: NamespaceModel) -> None:
    for ns in model.namespaces.values():
        if ns.parent is not None and ns.parent not in model.namespaces:
            _problem(
                model.problems,
                ns.relpath,
                "parent",
                ns.parent,
                f"parent namespace {ns.parent!r} has no namespace file; nothing is inherited from it",
                "namespace-file",
                Severity.WARNING,
            )


def _duration(text: str) -> bool:
    try:
        parse_duration(text)
    except MifRdfError:
        return False
    return True


def _read_config(config: dict[str, Any], model: NamespaceModel) -> None:
    """``reserved_prefixes``, ``allow_system_namespace`` and ``authority`` of ``.mif/config.yaml``."""
    relpath = model.config_path or ".mif/config.yaml"
    problems, rule = model.problems, "reserved-prefix"
    declared = config.get("reserved_prefixes")
    if declared is not None and not isinstance(declared, dict):
        _problem(
            problems,
            relpath,
            "reserved_prefixes",
            declared,
            "reserved_prefixes must map each prefix to its rules",
            rule,
        )
        declared = None
    for name, rules in (declared or {}).items():
        key = f"reserved_prefixes.{name}"
        if not isinstance(name, str) or not _PREFIX.match(name):
            _problem(
                problems,
                relpath,
                key,
                name,
                "a reserved prefix starts with '_' then lower-case letters, digits, '_' or '-' (spec 10.5); not used",
                rule,
            )
            continue
        if name in SPEC_PREFIXES:
            _problem(
                problems,
                relpath,
                key,
                name,
                f"{name} is reserved by the spec (10.2) and keeps the spec's meaning; this entry is not used",
                rule,
            )
            continue
        if rules is None:
            rules = {}
        if not isinstance(rules, dict):
            _problem(
                problems,
                relpath,
                key,
                rules,
                "a reserved prefix's rules are a mapping (description, access, ttl, provenance_required); not used",
                rule,
            )
            continue
        access = rules.get("access")
        if access is not None and access not in PREFIX_ACCESS:
            _problem(
                problems,
                relpath,
                f"{key}.access",
                access,
                f"access must be one of {', '.join(PREFIX_ACCESS)}; read as read-only (the safer reading)",
                rule,
            )
            access = "read-only"
        ttl = rules.get("ttl")
        if ttl is not None and not (isinstance(ttl, str) and _duration(ttl)):
            _problem(
                problems,
                relpath,
                f"{key}.ttl",
                ttl,
                "ttl must be an ISO 8601 duration (as in P30D); not inherited",
                rule,
            )
            ttl = None
        required = rules.get("provenance_required", False)
        if not isinstance(required, bool):
            _problem(
                problems,
                relpath,
                f"{key}.provenance_required",
                required,
                "provenance_required must be true or false; read as true (the stricter reading)",
                rule,
            )
            required = True
        description = rules.get("description")
        model.prefixes[name] = ReservedPrefix(
            name, description if isinstance(description, str) else None, access, ttl, required
        )
    allow = config.get(SYSTEM_KEY, False)
    if not isinstance(allow, bool):
        _problem(
            problems,
            relpath,
            SYSTEM_KEY,
            allow,
            f"{SYSTEM_KEY} must be true or false; read as false",
            "system-namespace",
        )
        allow = False
    model.allow_system = allow
    model.authority = authority_of(config)
    if config.get(AUTHORITY_KEY) is not None and model.authority != config[AUTHORITY_KEY]:
        _problem(
            problems,
            relpath,
            AUTHORITY_KEY,
            config[AUTHORITY_KEY],
            f"{AUTHORITY_KEY} must be a host name (as in github.com or registry); {model.authority!r} is used",
            "authority",
        )


def authority_of(config: dict[str, Any]) -> str:
    """The authority of the bundle's namespace URIs (spec 10.6): ``authority`` of the config, else its ``bundle_id``, else ``local``."""
    authority = config.get(AUTHORITY_KEY)
    if isinstance(authority, str) and _AUTHORITY.match(authority):
        return authority
    bundle_id = config.get(BUNDLE_ID_KEY)
    return bundle_id if isinstance(bundle_id, str) and bundle_id_problem(bundle_id) is None else DEFAULT_AUTHORITY
