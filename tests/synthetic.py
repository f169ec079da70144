"""Deterministic synthetic MIF bundles for benchmarks and property tests.

Real MIF bundles are small and hand-written, so they neither stress the loader
nor exercise every field family at once.  This module writes arbitrarily large
bundles whose memories carry every frontmatter family of MIF v1.0 (spec 4-12,
Appendix A) at realistic frequencies, with cross-links that really resolve.

Everything is driven by a seeded :class:`random.Random` passed in explicitly
(no module-level random state), so the same seed always yields byte-identical
files -- benchmarks are comparable across runs and failing property tests can
be reproduced from the seed alone.

Invariants the generated data guarantees (and the tests check):

* ids are unique UUIDv4 strings; ``created`` grows strictly with the memory
  index, so "created earlier" is simply "smaller index" (derived-from and
  supersedes always point backwards in time);
* every relationship target is either another generated memory (as a
  bundle-absolute path, a ``urn:mif:<id>`` or a document-relative path) or an
  entity URN whose ``.mif/entities/<type>/<slug>.yaml`` file exists -- except
  the ``broken_links`` extra links, which point to paths that do not exist;
* the body ``## Relationships`` section mirrors the frontmatter
  ``relationships[]`` line by line (spec 5.3);
* floats have at most 3 decimals; timestamps appear both quoted and unquoted.

Usage::

    python tests/synthetic.py OUT_DIR --count 1000 --seed 42 [--broken-links 3]
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from mif_rdf.source.integrity import content_hash

__all__ = [
    "CORE_RELATIONSHIP_TYPES",
    "CUSTOM_RELATIONSHIP_TYPE",
    "ENTITY_POOL",
    "created_at",
    "dump_yaml",
    "generate_bundle",
    "generate_ids",
    "generate_memory",
    "generate_paths",
    "main",
    "title_for_path",
]

# --------------------------------------------------------------------------
# YAML emission
# --------------------------------------------------------------------------
# ``yaml.safe_dump`` spends ~0.3 ms per memory in PyYAML's pure-Python
# representer/resolver even with the C emitter, which alone would eat most of
# the 10k-memory time budget.  The frontmatter only contains dicts, lists and
# scalars, so we emit block YAML ourselves in safe_dump's house style
# (``sort_keys=False, allow_unicode=True``: block mappings, indentless
# sequences, plain scalars where safe, single quotes otherwise, double quotes
# with escapes for unprintables).  tests/test_synthetic.py checks by property
# test that ``yaml.safe_load`` reads back exactly what ``yaml.safe_dump`` would.


class _PlainTimestamp(str):
    """A timestamp string emitted *unquoted* (so YAML parsers see a timestamp).

    ``safe_dump`` quotes ISO strings ('2026-01-15T10:30:00Z') because they
    would otherwise resolve to timestamps; hand-written MIF files mostly do
    not quote them.  Loaders must cope with both, so we emit both.
    """

    __slots__ = ()


class _Quoted(str):
    """A string emitted in double quotes, as in the spec (``version: "1.0.0"``)."""

    __slots__ = ()


_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
# Conservative plain-scalar alphabet: word characters plus harmless punctuation.
# Anything else (indicators, '#', ',', brackets, quotes, odd spaces) is quoted.
_PLAIN_RE = re.compile(r"\w[\w /.:+@()=;-]*")
# Characters that force double quotes: outside YAML's printable set, YAML 1.1
# line breaks (NEL, LS, PS), tab/CR/LF and the BOM.
_NEEDS_ESCAPE_RE = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_DQ_ESCAPE_RE = re.compile(
    '[\\\\"]|[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]'
)
_DQ_SHORT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}


def _dq_escape(match: re.Match[str]) -> str:
    ch = match.group()
    short = _DQ_SHORT.get(ch)
    if short is not None:
        return short
    cp = ord(ch)
    if cp <= 0xFF:
        return f"\\x{cp:02X}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04X}"
    return f"\\U{cp:08X}"


def _double_quoted(text: str) -> str:
    return '"' + _DQ_ESCAPE_RE.sub(_dq_escape, text) + '"'


@functools.lru_cache(maxsize=8192)
def _str_scalar(text: str) -> str:
    """Render a string the way safe_dump would *mean* it: plain if that reads
    back as the same string, else single-quoted, else double-quoted."""
    if (
        _PLAIN_RE.fullmatch(text)
        and not text.endswith((" ", ":"))
        and ": " not in text
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG
    ):
        return text
    if _NEEDS_ESCAPE_RE.search(text) is None:
        return "'" + text.replace("'", "''") + "'"
    return _double_quoted(text)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value).lower()
        if "." not in text and "e" in text:  # same fix-up as PyYAML: 1e+20 -> 1.0e+20
            text = text.replace("e", ".0e", 1)
        return text
    if isinstance(value, _PlainTimestamp):
        return str(value)
    if isinstance(value, _Quoted):
        return _double_quoted(value)
    if isinstance(value, str):
        return _str_scalar(value)
    raise TypeError(f"cannot emit {type(value).__name__} as a YAML scalar")


def _emit_mapping(data: dict[Any, Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for key, value in data.items():
        k = _scalar(key)
        if isinstance(value, dict):
            if value:
                out.append(f"{pad}{k}:")
                _emit_mapping(value, indent + 2, out)
            else:
                out.append(f"{pad}{k}: {{}}")
        elif isinstance(value, list):
            if value:
                out.append(f"{pad}{k}:")
                _emit_sequence(value, indent, out)  # indentless, like PyYAML
            else:
                out.append(f"{pad}{k}: []")
        else:
            out.append(f"{pad}{k}: {_scalar(value)}")


def _emit_sequence(items: list[Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, (dict, list)) and item:
            sub: list[str] = []
            if isinstance(item, dict):
                _emit_mapping(item, indent + 2, sub)
            else:
                _emit_sequence(item, indent + 2, sub)
            sub[0] = f"{pad}- {sub[0][indent + 2 :]}"
            out.extend(sub)
        elif isinstance(item, dict):
            out.append(f"{pad}- {{}}")
        elif isinstance(item, list):
            out.append(f"{pad}- []")
        else:
            out.append(f"{pad}- {_scalar(item)}")


def dump_yaml(data: dict[Any, Any]) -> str:
    """Block-style YAML for a mapping, read back by ``yaml.safe_load`` exactly
    as ``yaml.safe_dump(data, sort_keys=False, allow_unicode=True)`` would be
    (no anchors, no line folding), but several times faster."""
    if not data:
        return "{}\n"
    out: list[str] = []
    _emit_mapping(data, 0, out)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Static vocabulary (immutable; all randomness comes from the caller's rng)
# --------------------------------------------------------------------------
# (base type, category folder, weight, topic nouns used in file slugs)
_FOLDERS: tuple[tuple[str, str, int, tuple[str, ...]], ...] = (
    ("semantic", "policies", 12, ("policy", "limit", "rule", "standard")),
    ("semantic", "decisions", 14, ("decision", "choice", "adoption", "tradeoff")),
    ("semantic", "knowledge", 12, ("fact", "overview", "model", "glossary")),
    ("semantic", "preferences", 7, ("preference", "convention", "setting")),
    ("episodic", "incidents", 12, ("incident", "outage", "spike", "regression")),
    ("episodic", "sessions", 13, ("session", "pairing", "review", "debug")),
    ("episodic", "blockers", 5, ("blocker", "escalation", "delay")),
    ("episodic", "meetings", 5, ("meeting", "retro", "standup", "sync")),
    ("procedural", "runbooks", 10, ("runbook", "rotation", "failover", "restore")),
    ("procedural", "patterns", 6, ("pattern", "recipe", "checklist")),
    ("procedural", "migrations", 4, ("migration", "upgrade", "cutover")),
)
_FOLDER_CUM_WEIGHTS: tuple[int, ...] = tuple(sum(f[2] for f in _FOLDERS[: i + 1]) for i in range(len(_FOLDERS)))

_QUALIFIERS: tuple[str, ...] = (
    "api",
    "cache",
    "billing",
    "search",
    "auth",
    "gateway",
    "queue",
    "storage",
    "frontend",
    "dashboard",
    "ingest",
    "export",
    "schema",
    "token",
    "backup",
    "metrics",
    "alerting",
    "deploy",
    "network",
    "dns",
    "tls",
    "quota",
    "rate",
    "session",
    "payment",
    "report",
    "index",
    "audit",
    "privacy",
    "retention",
)

_PROSE_WORDS: tuple[str, ...] = (
    "the",
    "a",
    "team",
    "service",
    "gateway",
    "cache",
    "latency",
    "request",
    "budget",
    "limit",
    "policy",
    "decision",
    "rollout",
    "incident",
    "review",
    "deploy",
    "config",
    "customer",
    "traffic",
    "queue",
    "error",
    "retry",
    "window",
    "threshold",
    "owner",
    "runbook",
    "metric",
    "alert",
    "schema",
    "index",
    "backup",
    "restore",
    "token",
    "quota",
    "region",
    "cluster",
    "agreed",
    "observed",
    "reduced",
    "increased",
    "documented",
    "migrated",
    "after",
    "before",
    "during",
    "because",
    "while",
    "with",
    "without",
    "for",
    "stable",
    "noisy",
    "slow",
    "fast",
    "critical",
    "minor",
    "shared",
    "legacy",
    "café",
    "naïve",
    "façade",
    "Zürich",
    "résumé",
    "über",
    "déjà-vu",
)

_TAGS: tuple[str, ...] = (
    "api",
    "policy",
    "gateway",
    "incident",
    "security",
    "frontend",
    "backend",
    "architecture",
    "ops",
    "data",
    "performance",
    "reliability",
    "ux",
    "compliance",
    "cost",
    "on-call",
    "migration",
    "testing",
    "docs",
    "ai",
)

_ORG_NAMESPACES: tuple[str, ...] = (
    "acme/team-a",
    "acme/team-b",
    "acme/platform/project-x",
    "acme-corp/jane-doe/preferences",
    "acme-corp/team-frontend/patterns",
    "globex/sre",
    "globex/data_eng/pipelines",
)
_SHARED_NAMESPACES: tuple[str, ...] = (
    "_public/python/async-patterns",
    "_public/security/owasp-top-10",
    "_shared/acme-globex/integration-api",
    "_shared/cncf/kubernetes/patterns",
)
_LOCAL_NAMESPACES: tuple[str, ...] = ("_local/scratch", "_local/drafts/wip")

# (entity dir/type slug, slug, entityType, display name, aliases, properties)
ENTITY_POOL: tuple[tuple[str, str, str, str, tuple[str, ...], tuple[tuple[str, Any], ...]], ...] = (
    (
        "person",
        "jane-doe",
        "Person",
        "Jane Doe",
        ("J. Doe", "jdoe"),
        (("email", "jane@example.com"), ("role", "Engineer")),
    ),
    ("person", "alice-chen", "Person", "Alice Chen", ("achen",), (("email", "alice@example.com"), ("role", "SRE"))),
    (
        "person",
        "jose-nunez",
        "Person",
        "José Núñez",
        ("Pepe",),
        (("email", "jose@example.com"), ("role", "Product Manager")),
    ),
    ("person", "raj-patel", "Person", "Raj Patel", (), (("role", "Architect"),)),
    ("organization", "acme-corp", "Organization", "Acme Corp", ("ACME",), (("industry", "logistics"),)),
    ("organization", "platform-team", "Organization", "Platform Team", (), (("size", 8),)),
    ("organization", "globex", "Organization", "Globex", ("Globex Corporation",), ()),
    ("technology", "python", "Technology", "Python", ("CPython",), (("version", "3.11"),)),
    ("technology", "postgresql", "Technology", "PostgreSQL", ("Postgres", "pg"), ()),
    ("technology", "kubernetes", "Technology", "Kubernetes", ("k8s",), ()),
    ("technology", "redis", "Technology", "Redis", (), ()),
    ("technology", "react", "Technology", "React", ("React.js",), ()),
    ("concept", "rate-limiting", "Concept", "Rate Limiting", ("throttling",), ()),
    ("concept", "dark-mode", "Concept", "Dark Mode", (), ()),
    ("concept", "observability", "Concept", "Observability", ("o11y",), ()),
    ("file", "src-main-py", "File", "src/main.py", (), (("language", "python"),)),
    ("file", "deploy-yaml", "File", "deploy.yaml", (), ()),
)
_ENTITIES_BY_DIR: dict[str, tuple[int, ...]] = {}
for _i, _e in enumerate(ENTITY_POOL):
    _ENTITIES_BY_DIR.setdefault(_e[0], ())
    _ENTITIES_BY_DIR[_e[0]] += (_i,)
del _i, _e

CORE_RELATIONSHIP_TYPES: tuple[str, ...] = (
    "relates-to",
    "derived-from",
    "supersedes",
    "conflicts-with",
    "part-of",
    "implements",
    "uses",
    "created-by",
    "mentioned-in",
)
CUSTOM_RELATIONSHIP_TYPE = "team:reinforces"
_REL_TYPES: tuple[str, ...] = CORE_RELATIONSHIP_TYPES + (CUSTOM_RELATIONSHIP_TYPE,)
_REL_CUM_WEIGHTS: tuple[int, ...] = tuple(
    sum((30, 12, 8, 5, 10, 8, 8, 6, 8, 5)[: i + 1]) for i in range(len(_REL_TYPES))
)
# Relationship types whose target may sensibly be an entity rather than a memory.
_ENTITY_TARGET_DIRS: dict[str, tuple[str, ...]] = {
    "uses": ("technology",),
    "created-by": ("person", "organization"),
    "implements": ("concept",),
    "relates-to": ("concept", "file"),
}
# Config entries for spec 8.2 (name, description, inverse, symmetric).
_CONFIG_REL_TYPES: tuple[tuple[str, str, str | None, bool], ...] = (  # inverse None = self
    ("RelatesTo", "General semantic relationship", None, True),
    ("DerivedFrom", "Memory created based on source", "Derives", False),
    ("Supersedes", "Replaces an older memory", "SupersededBy", False),
    ("ConflictsWith", "Contradicts another memory", None, True),
    ("PartOf", "Component of a larger whole", "Contains", False),
    ("Implements", "Realizes a concept or pattern", "ImplementedBy", False),
    ("Uses", "Utilizes a technology or tool", "UsedBy", False),
    ("Created", "Authored by an entity", "CreatedBy", False),
    ("MentionedIn", "Referenced within a memory", "Mentions", False),
)

_SOURCE_TYPES: tuple[tuple[str, int, int], ...] = (  # (type, confidence range in 1/1000)
    ("user_explicit", 900, 1000),
    ("user_implicit", 700, 890),
    ("agent_inferred", 500, 690),
    ("external_import", 300, 700),
    ("system_generated", 200, 500),
)
_TRUST_LEVELS: tuple[str, ...] = (
    "verified",
    "user_stated",
    "high_confidence",
    "moderate_confidence",
    "low_confidence",
    "uncertain",
)
_AGENTS: tuple[str, ...] = ("claude-3-opus", "gpt-4o", "subcog-extractor", "mem0-sync")
_EMBED_MODELS: tuple[tuple[str, int], ...] = (
    ("text-embedding-3-small", 1536),
    ("text-embedding-3-large", 3072),
    ("nomic-embed-text", 768),
    ("all-MiniLM-L6-v2", 384),
)
_CITATION_TYPES: tuple[str, ...] = (
    "article",
    "book",
    "paper",
    "website",
    "documentation",
    "repository",
    "video",
    "podcast",
    "specification",
    "dataset",
    "tool",
    "other",
    "acme:internal-memo",
)
_CITATION_ROLES: tuple[str, ...] = (
    "supports",
    "refutes",
    "background",
    "methodology",
    "contradicts",
    "extends",
    "derived",
    "source",
    "example",
    "review",
    "research:replicates",
)
_CITATION_URLS: tuple[str, ...] = (
    "https://arxiv.org/abs/2024.{n:05d}",
    "https://github.com/acme/{q}-service",
    "https://docs.acme.example/{q}/guide-{n}",
    "https://www.w3.org/TR/json-ld11/",
    "https://example.com/blog/{q}-{n}",
    "https://www.rfc-editor.org/rfc/rfc{n}",
)
_DOC_TYPES: tuple[tuple[str, str], ...] = (
    ("pdf", "application/pdf"),
    ("html", "text/html"),
    ("markdown", "text/markdown"),
    ("transcript", "text/plain"),
    ("spreadsheet", "text/csv"),
    ("email", "message/rfc822"),
)
_PROPERTY_KEYS: tuple[str, ...] = (
    "status",
    "priority",
    "score",
    "archived",
    "retired_on",
    "owner_team",
    "sla_hours",
    "error_rate",
    "reviewed",
    "ticket",
)

# Probability that a memory carries each optional field family.  Tuned so a
# memory averages roughly 40-45 triples once loaded -- dense enough to exercise
# every mapping, sparse enough to look like real, uneven hand-written data.
_RATES: dict[str, float] = {
    "modified": 0.85,
    "namespace": 0.97,
    "title": 0.95,
    "summary": 0.08,  # with compressed_at
    "tags": 0.9,
    "aliases": 0.3,
    "ontology": 0.7,
    "entity": 0.05,  # ontology-typed entity payload
    "entities": 0.45,
    "relationships": 0.88,
    "temporal": 0.45,
    "provenance": 0.5,
    "embedding": 0.3,
    "citations": 0.12,
    "documents": 0.06,
    "properties": 0.15,
    "extensions": 0.3,
}

_BASE_TIME = datetime(2024, 1, 1, 8, 0, 0)
_STEP_SECONDS = 2820  # 47 minutes between consecutive memories ...
_JITTER_SECONDS = 1800  # ... plus up to 30 minutes of index-derived jitter


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------
def created_at(index: int) -> datetime:
    """Creation time (naive UTC) of memory ``index``.

    It is a pure function of the index and strictly increasing in it (the
    jitter is smaller than the step), so any memory can compute the creation
    time of any other -- which is how derived-from/supersedes targets are
    guaranteed to be older than their source without a second pass.
    """
    jitter = (index * 7919) % _JITTER_SECONDS
    return _BASE_TIME + timedelta(seconds=index * _STEP_SECONDS + jitter)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds") + "Z"


def _f3(rng: random.Random, lo: float, hi: float) -> float:
    """A float in [lo, hi] with at most 3 decimals (exact decimal repr)."""
    return rng.randint(round(lo * 1000), round(hi * 1000)) / 1000


def _hex(rng: random.Random, nbytes: int) -> str:
    return f"{rng.getrandbits(nbytes * 8):0{nbytes * 2}x}"


def title_for_path(path: str) -> str:
    """Title of the memory stored at bundle-relative ``path``.

    Titles are derived from the file name so that a memory can label its
    body link to another memory (``[Title](target)``) from the path list
    alone, without generating that other memory first.
    """
    stem = path.rsplit("/", 1)[-1]
    if stem.endswith(".md"):
        stem = stem[:-3]
    return " ".join(w.capitalize() for w in stem.split("-"))


def _relative(src: str, dst: str) -> str:
    """Document-relative reference from file ``src`` to file ``dst``.

    Pure string arithmetic (``posixpath.relpath`` consults the CWD).
    """
    s = src.split("/")[:-1]
    d = dst.split("/")
    common = 0
    while common < len(s) and common < len(d) - 1 and s[common] == d[common]:
        common += 1
    up = len(s) - common
    rest = "/".join(d[common:])
    return ("../" * up + rest) if up else "./" + rest


def _entity_urn(idx: int) -> str:
    e = ENTITY_POOL[idx]
    return f"urn:mif:entity:{e[0]}:{e[1]}"


def _entity_ref(rng: random.Random, idx: int, role: str | None) -> dict[str, Any]:
    e = ENTITY_POOL[idx]
    ref: dict[str, Any] = {
        "@type": "EntityReference",
        "entity": {"@id": _entity_urn(idx)},
        "entityType": e[2],
    }
    if rng.random() < 0.95:
        ref["name"] = e[3]
    if role is not None:
        ref["role"] = role
    return ref


def _sentence(rng: random.Random) -> str:
    words = rng.choices(_PROSE_WORDS, k=rng.randint(6, 14))
    first = words[0]
    words[0] = first[:1].upper() + first[1:]
    return " ".join(words) + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(1, 3)))


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------
def generate_ids(rng: random.Random, count: int) -> list[str]:
    """``count`` unique UUIDv4 strings drawn from ``rng`` (not from the OS).

    Drawing from the seeded rng is what makes whole bundles reproducible.
    """
    ids: list[str] = []
    seen: set[str] = set()
    while len(ids) < count:
        value = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if value not in seen:
            seen.add(value)
            ids.append(value)
    return ids


def generate_paths(rng: random.Random, count: int) -> list[str]:
    """Bundle-relative memory paths ``<type>/<category>/<slug>-<n>.md``.

    ``n`` is the memory index, so paths are unique and a path with
    ``n >= count`` is guaranteed not to exist (used for broken links).
    """
    paths: list[str] = []
    folders = rng.choices(_FOLDERS, cum_weights=_FOLDER_CUM_WEIGHTS, k=count)
    for n, (base, cat, _w, nouns) in enumerate(folders):
        slug = f"{rng.choice(_QUALIFIERS)}-{rng.choice(nouns)}"
        paths.append(f"{base}/{cat}/{slug}-{n}.md")
    return paths


def generate_memory(
    rng: random.Random,
    index: int,
    ids: list[str],
    paths: list[str],
    *,
    broken_link: bool = False,
    domain_ontology: str = "ai-memory",
) -> tuple[str, str]:
    """Return (bundle-relative path, full markdown text) of memory number `index`.

    ``ids`` and ``paths`` describe the whole bundle so the memory can link to
    its siblings; creation times come from :func:`created_at`.  With
    ``broken_link=True`` one extra relates-to link (and its body mirror) to a
    non-existent path is appended, to exercise dangling-link handling.
    """
    count = len(paths)
    path = paths[index]
    base_type, category = path.split("/", 2)[:2]
    title = title_for_path(path)
    created = created_at(index)

    # Timestamp quoting style for this memory: all quoted (as safe_dump does),
    # all plain (as humans write), or mixed field by field.
    style = rng.random()

    def ts(dt: datetime, frac: bool = False) -> str:
        text = _iso(dt)
        if frac:
            text = text[:-1] + f".{rng.randrange(1000):03d}Z"
        if style < 0.4:
            return text
        if style < 0.8 or rng.random() < 0.5:
            return _PlainTimestamp(text)
        return text

    def day(dt: datetime) -> str:
        text = dt.date().isoformat()
        return _PlainTimestamp(text) if style >= 0.4 and rng.random() < 0.7 else text

    fm: dict[str, Any] = {"id": ids[index], "type": base_type, "created": ts(created)}
    modified = created + timedelta(minutes=rng.randint(5, 60 * 24 * 30))
    if rng.random() < _RATES["modified"]:
        fm["modified"] = ts(modified)

    r = rng.random()
    if r < 0.02:
        namespace = rng.choice(_LOCAL_NAMESPACES)
    elif r < 0.08:
        namespace = rng.choice(_SHARED_NAMESPACES)
    elif r < 0.33:
        namespace = rng.choice(_ORG_NAMESPACES)
    else:
        namespace = f"_{base_type}/{category}"
    if rng.random() < _RATES["namespace"]:
        fm["namespace"] = namespace
    if rng.random() < _RATES["title"]:
        fm["title"] = title

    if rng.random() < _RATES["summary"]:
        fm["summary"] = " ".join(_sentence(rng) for _ in range(rng.randint(2, 3)))[:480]
        fm["compressed_at"] = ts(modified + timedelta(days=rng.randint(30, 90)))

    if rng.random() < _RATES["tags"]:
        fm["tags"] = rng.sample(_TAGS, rng.choice((1, 1, 2, 2, 3, 3, 4, 5)))
    if rng.random() < _RATES["aliases"]:
        aliases = [f"{title.rsplit(' ', 1)[0]} Note"]
        if rng.random() < 0.5:
            aliases.append(path.rsplit("/", 1)[-1][:-3])
        fm["aliases"] = aliases
    if rng.random() < _RATES["ontology"]:
        onto: dict[str, Any] = {}
        if rng.random() < 0.8:
            onto["id"] = "mif-base"
            onto["version"] = _Quoted("1.0.0")
            if rng.random() < 0.3:
                onto["uri"] = "https://mif-spec.dev/ontologies/mif-base"
        else:
            onto["id"] = domain_ontology
            onto["version"] = _Quoted("1.0.0")
        fm["ontology"] = onto

    if rng.random() < _RATES["entity"]:
        fm["entity"] = {
            "name": f"{title} Record",
            "entity_type": rng.choice(("component", "service", "grazing-plan")),
            "entity_id": f"ent-{index:05d}",
            "owner": rng.choice(("team-a", "team-b", "sre")),
            "tier": rng.randint(1, 3),
        }

    # ---- entities ------------------------------------------------------
    if rng.random() < _RATES["entities"]:
        picks = rng.sample(range(len(ENTITY_POOL)), rng.randint(1, 3))
        fm["entities"] = [
            _entity_ref(
                rng,
                i,
                rng.choice(("mentions", "uses", "author", "subject", "topic")) if rng.random() < 0.6 else None,
            )
            for i in picks
        ]

    # ---- relationships -------------------------------------------------
    rels: list[dict[str, Any]] = []
    mirror: list[str] = []
    seen_pairs: set[tuple[str, str]] = set()
    n_rels = rng.randint(1, 4) if rng.random() < _RATES["relationships"] else 0
    attempts = 0
    while len(rels) < n_rels and attempts < n_rels * 4:
        attempts += 1
        rtype = rng.choices(_REL_TYPES, cum_weights=_REL_CUM_WEIGHTS)[0]
        backwards = rtype in ("derived-from", "supersedes")
        entity_dirs = _ENTITY_TARGET_DIRS.get(rtype)
        if entity_dirs is not None and (count < 2 or rng.random() < 0.35):
            eidx = rng.choice(_ENTITIES_BY_DIR[rng.choice(entity_dirs)])
            target, label = _entity_urn(eidx), ENTITY_POOL[eidx][3]
        else:
            if backwards:
                if index == 0:
                    continue
                j = rng.randrange(index)
            else:
                if count < 2:
                    continue
                j = rng.randrange(count - 1)
                if j >= index:
                    j += 1
            form = rng.random()
            if form < 0.6:
                target = "/" + paths[j]
            elif form < 0.8:
                target = f"urn:mif:{ids[j]}"
            else:
                target = _relative(path, paths[j])
            label = title_for_path(paths[j])
        if (rtype, target) in seen_pairs:
            continue
        seen_pairs.add((rtype, target))
        rel: dict[str, Any] = {"type": rtype, "target": target}
        if rng.random() < 0.55:
            rel["strength"] = _f3(rng, 0.3, 1.0)
        if rng.random() < 0.12:
            rel["metadata"] = {
                "reason": rng.choice(
                    (
                        "Extracted key insight",
                        "Same root cause",
                        "Mentioned in review",
                        "Reinforced by repeated access",
                    )
                ),
                "extractedAt": ts(created + timedelta(minutes=rng.randint(0, 600))),
            }
        rels.append(rel)
        mirror.append(f"- {rtype} [{label}]({target})")
    if broken_link:
        nouns = next(f[3] for f in _FOLDERS if f[1] == category)
        ghost = f"{base_type}/{category}/removed-{rng.choice(nouns)}-{count + index}.md"
        rels.append({"type": "relates-to", "target": "/" + ghost})
        mirror.append(f"- relates-to [{title_for_path(ghost)}](/{ghost})")
    if rels:
        fm["relationships"] = rels

    # ---- temporal ------------------------------------------------------
    if rng.random() < _RATES["temporal"]:
        temporal: dict[str, Any] = {}
        if rng.random() < 0.4:
            temporal["@type"] = "TemporalMetadata"
        valid_from = created.replace(hour=0, minute=0, second=0)
        temporal["validFrom"] = ts(valid_from)
        if base_type == "episodic" or rng.random() < 0.3:
            temporal["validUntil"] = ts(valid_from + timedelta(hours=rng.randint(2, 24 * 60)))
        else:
            temporal["validUntil"] = None
        temporal["recordedAt"] = ts(created)
        if rng.random() < 0.7:
            temporal["ttl"] = rng.choice(("P30D", "P90D", "P365D", "P730D", "PT12H"))
        if rng.random() < 0.7:
            model = rng.choice(("none", "linear", "exponential", "step"))
            decay: dict[str, Any] = {"model": model}
            if model != "none":
                decay["halfLife"] = rng.choice(("P7D", "P14D", "P30D"))
            key = "currentStrength" if rng.random() < 0.5 else "strength"
            decay[key] = 1.0 if model == "none" else _f3(rng, 0.05, 1.0)
            if rng.random() < 0.5:
                decay["lastReinforced"] = ts(created + timedelta(hours=rng.randint(1, 24 * 20)))
            temporal["decay"] = decay
        if rng.random() < 0.8:
            temporal["accessCount"] = rng.randint(0, 250)
        if rng.random() < 0.8:
            temporal["lastAccessed"] = ts(
                created + timedelta(seconds=rng.randint(60, 86400 * 40)),
                frac=rng.random() < 0.1,
            )
        fm["temporal"] = temporal

    # ---- provenance ----------------------------------------------------
    if rng.random() < _RATES["provenance"]:
        stype, clo, chi = rng.choice(_SOURCE_TYPES)
        prov: dict[str, Any] = {}
        with_prov_layer = rng.random() < 0.2
        if with_prov_layer:
            prov["@type"] = "prov:Entity"
        prov["sourceType"] = stype
        conv = f"conv-{rng.randint(1, 9999)}"
        if rng.random() < 0.7:
            prov["sourceRef"] = rng.choice(
                (
                    f"conversation:{conv}",
                    f"ticket:OPS-{rng.randint(1, 999)}",
                    f"meeting:arch-review-{created.date().isoformat()}",
                )
            )
        agent = rng.choice(_AGENTS)
        if rng.random() < 0.7:
            prov["agent"] = agent
            if rng.random() < 0.6:
                prov["agentVersion"] = _Quoted(rng.choice(("20240229", "20240513", "20250115")))
        prov["confidence"] = _f3(rng, clo / 1000, chi / 1000)
        prov["trustLevel"] = rng.choice(_TRUST_LEVELS)
        if with_prov_layer:
            person = rng.choice(_ENTITIES_BY_DIR["person"])
            prov["wasGeneratedBy"] = {
                "@id": f"urn:mif:activity:extraction:{conv}",
                "@type": "prov:Activity",
                "wasAssociatedWith": {
                    "@id": f"urn:mif:agent:{agent}",
                    "@type": "prov:SoftwareAgent",
                },
            }
            prov["wasAttributedTo"] = {"@id": _entity_urn(person)}
            prov["wasDerivedFrom"] = {"@id": f"urn:mif:conversation:{conv}"}
        fm["provenance"] = prov

    # ---- embedding -----------------------------------------------------
    if rng.random() < _RATES["embedding"]:
        model_name, dims = rng.choice(_EMBED_MODELS)
        emb: dict[str, Any] = {}
        if rng.random() < 0.5:
            emb["@type"] = "EmbeddingReference"
        emb["model"] = model_name
        if rng.random() < 0.8:
            emb["modelVersion"] = _Quoted(rng.choice(("2024-01", "2024-05", "v1.5")))
        emb["dimensions"] = dims
        emb["sourceText"] = f"{title}: {_sentence(rng)}"
        if rng.random() < 0.7:
            emb["normalized"] = rng.random() < 0.8
        if rng.random() < 0.5:
            emb["vectorUri"] = f"urn:mif:vector:{ids[index]}"
        fm["embedding"] = emb

    # ---- citations -----------------------------------------------------
    citation_lines: list[str] = []
    if rng.random() < _RATES["citations"]:
        cites: list[dict[str, Any]] = []
        for _ in range(rng.randint(1, 3)):
            q = rng.choice(_QUALIFIERS)
            ctitle = f"{q.capitalize()} {rng.choice(('Patterns', 'Handbook', 'Study', 'Notes', 'Primer'))}"
            url = rng.choice(_CITATION_URLS).format(q=q, n=rng.randint(1000, 9999))
            c: dict[str, Any] = {
                "@type": "Citation",
                "citationType": rng.choice(_CITATION_TYPES),
                "title": ctitle,
                "url": url,
                "citationRole": rng.choice(_CITATION_ROLES),
            }
            a = rng.random()
            author_text: str | None
            if a < 0.45:
                author_text = rng.choice(("Jane Smith", "Jane Smith et al.", "W3C", "Research Group"))
                c["author"] = author_text
            elif a < 0.7:
                e = rng.choice(_ENTITIES_BY_DIR["person"] + _ENTITIES_BY_DIR["organization"])
                c["author"] = _entity_ref(rng, e, None)
                author_text = ENTITY_POOL[e][3]
            elif a < 0.9:
                es = rng.sample(_ENTITIES_BY_DIR["person"], 2)
                c["author"] = [_entity_ref(rng, e, None) for e in es]
                author_text = ", ".join(ENTITY_POOL[e][3] for e in es)
            else:
                author_text = None
            pub = created - timedelta(days=rng.randint(30, 900))
            if rng.random() < 0.7:
                c["date"] = day(pub)
            if rng.random() < 0.6:
                c["accessed"] = day(created - timedelta(days=rng.randint(0, 10)))
            if rng.random() < 0.7:
                c["relevance"] = _f3(rng, 0.4, 1.0)
            if rng.random() < 0.5:
                c["note"] = _sentence(rng)
            cites.append(c)
            line = f"- [{ctitle}]({url})"
            if author_text:
                line += f" by {author_text}"
            if "date" in c:
                line += f" ({pub.year})"
            citation_lines.append(line)
            citation_lines.append(f"  - **Type**: {c['citationType']}")
            citation_lines.append(f"  - **Role**: {c['citationRole']}")
        fm["citations"] = cites

    # ---- documents -----------------------------------------------------
    if rng.random() < _RATES["documents"]:
        docs: list[dict[str, Any]] = []
        for _ in range(rng.randint(1, 2)):
            dtype, ctype = rng.choice(_DOC_TYPES)
            q = rng.choice(_QUALIFIERS)
            doc: dict[str, Any] = {
                "@type": "DocumentReference",
                "documentType": dtype,
                "title": f"{q.capitalize()} Source Document",
                "url": f"https://files.acme.example/{q}/{_hex(rng, 4)}.{dtype}",
                "contentType": ctype,
                "byteLength": rng.randint(512, 5_000_000),
            }
            if rng.random() < 0.7:
                doc["version"] = _hex(rng, 20)
            doc["hash"] = {"algorithm": "sha256", "value": _hex(rng, 32)}
            doc["retrievedAt"] = ts(created - timedelta(minutes=rng.randint(1, 600)))
            docs.append(doc)
        fm["documents"] = docs

    # ---- properties ----------------------------------------------------
    if rng.random() < _RATES["properties"]:
        props: dict[str, Any] = {}
        for key in rng.sample(_PROPERTY_KEYS, rng.randint(2, 5)):
            if key in ("status", "owner_team", "ticket"):
                props[key] = rng.choice(("active", "team-a", "OPS-17", "draft"))
            elif key in ("priority", "sla_hours"):
                props[key] = rng.randint(0, 48)
            elif key in ("score", "error_rate"):
                props[key] = _f3(rng, 0.0, 1.0)
            elif key in ("archived", "reviewed"):
                props[key] = rng.random() < 0.5
            else:
                props[key] = None
        fm["properties"] = props

    # ---- extensions ----------------------------------------------------
    if rng.random() < _RATES["extensions"]:
        ext: dict[str, Any] = {}
        for provider in rng.sample(("subcog", "tracker"), rng.randint(1, 2)):
            if provider == "subcog":
                ext["subcog"] = {
                    "domain": rng.choice(("user", "project", "architecture")),
                    "hash": "sha256:" + _hex(rng, 32),
                }
            else:
                ext["tracker"] = {
                    "ticket": f"OPS-{rng.randint(1, 999)}",
                    "labels": rng.sample(_TAGS, rng.randint(1, 3)),
                    "estimate": rng.choice((0.5, 1.0, 2.0, 3.5, 5.0, 8.0)),
                    "done": rng.random() < 0.3,
                }
        fm["extensions"] = ext

    # ---- body ----------------------------------------------------------
    parts = [f"# {title}", ""]
    for _ in range(rng.randint(2, 6)):
        parts.append(_paragraph(rng))
        parts.append("")
    if mirror:
        parts.append("## Relationships")
        parts.append("")
        parts.extend(mirror)
        parts.append("")
    if citation_lines and rng.random() < 0.5:
        parts.append("## Citations")
        parts.append("")
        parts.extend(citation_lines)
        parts.append("")
    body = "\n" + "\n".join(parts)
    if isinstance(fm.get("extensions", {}).get("subcog"), dict):  # a real digest of the body (spec 18.2)
        fm["extensions"]["subcog"]["hash"] = content_hash(body)
    return path, f"---\n{dump_yaml(fm)}---\n{body}"


def _config_yaml() -> str:
    entity_types = [
        {"name": n, "description": d}
        for n, d in (
            ("Person", "Human individual"),
            ("Organization", "Company, team, or group"),
            ("Technology", "Tool, language, or framework"),
            ("Concept", "Abstract idea or topic"),
            ("File", "Document or code file"),
        )
    ]
    rel_types: list[dict[str, Any]] = []
    for name, desc, inverse, symmetric in _CONFIG_REL_TYPES:
        rel_types.append(
            {
                "name": name,
                "description": desc,
                "inverse": inverse or name,  # symmetric types are their own inverse
                "symmetric": symmetric,
            }
        )
    rel_types.append(
        {
            "name": "Reinforces",
            "namespace": "team",
            "description": "Strengthens confidence in another memory",
            "inverse": "ReinforcedBy",
            "symmetric": False,
        }
    )
    config = {
        "mif_version": _Quoted("1.0.0"),
        "conformance_level": 3,
        "extensions": ["subcog", "tracker"],
        "entity_types": entity_types,
        "relationship_types": rel_types,
    }
    return dump_yaml(config)


def _entity_yaml(idx: int) -> str:
    d, slug, etype, name, aliases, props = ENTITY_POOL[idx]
    data: dict[str, Any] = {"id": slug, "type": etype, "name": name}
    if aliases:
        data["aliases"] = list(aliases)
    if props:
        data["properties"] = dict(props)
    return dump_yaml(data)


def _index_md(paths: list[str], count: int, seed: int) -> str:
    groups: dict[str, list[str]] = {}
    for p in paths:
        groups.setdefault(p.rsplit("/", 1)[0], []).append(p)
    lines = [
        "# Synthetic MIF Bundle",
        "",
        f"Generated by `tests/synthetic.py` ({count} memories, seed {seed}).",
        "`index.md` is an OKF reserved file for progressive disclosure and is",
        "not itself a concept document.",
        "",
    ]
    for folder in sorted(groups):
        members = groups[folder]
        lines.append(f"## {folder}/ ({len(members)})")
        lines.append("")
        for p in members[:3]:
            lines.append(f"- [{title_for_path(p)}](/{p})")
        lines.append("")
    return "\n".join(lines)


#: ``generate_bundle(..., discovery=True)``: the ``ai-memory`` ontology the memories name, with discovery
#: patterns in the spec's form over the generated prose and paths (mif-base's own patterns run as shipped).
DISCOVERY_ONTOLOGY = """\
ontology:
  id: ai-memory
  version: "1.0.0"
  extends: [mif-base]
entity_types:
  - {name: service-record, base: semantic}
  - {name: incident-report, base: episodic}
  - {name: runbook, base: procedural}
discovery:
  enabled: true
  confidence_threshold: 0.8
  patterns:
    - content_pattern: "\\\\b(gateway|cluster|region)\\\\b"
      suggest_entity: service-record
      suggest_namespace: _semantic/entities
    - content_pattern: "\\\\b(incident|alert)\\\\b.*\\\\b(critical|noisy)\\\\b"
      suggest_entity: incident-report
      suggest_namespace: _episodic/incidents
    - content_pattern: "(?i)\\\\bz\\u00fcrich\\\\b|caf\\u00e9"
      suggest_namespace: _semantic/places
    - content_pattern: "(?<=the )runbook"
      suggest_entity: runbook
    - file_pattern: "procedural/runbooks/*.md"
      suggest_entity: runbook
    - file_pattern: "episodic/**/*-outage-*.md"
      suggest_entity: incident-report
"""


SYNTHETIC_ONTOLOGY_ID = "synthetic-ops"
#: The domain ontology of ``generate_bundle(..., ontologies=True)``: the generated folders as its namespace
#: tree, and the entity types of the generated ``entity:`` payloads with schemas they mostly meet.
SYNTHETIC_ONTOLOGY = """ontology:
  id: synthetic-ops
  version: "1.0.0"
  extends: [mif-base]
namespaces:
  _semantic:
    type_hint: semantic
    children:
      policies: {type_hint: semantic}
  _episodic:
    type_hint: episodic
    children:
      meetings: {type_hint: episodic}
traits:
  owned:
    fields:
      owner: {type: string, enum: [team-a, team-b, sre]}
entity_types:
  - name: component
    base: semantic
    traits: [owned]
    schema:
      required: [name, owner]
      properties:
        name: {type: string}
        tier: {type: integer, enum: [1, 2]}
  - name: service
    base: semantic
    traits: [owned]
    schema:
      required: [name]
      properties:
        name: {type: string}
        tier: {type: integer}
"""


def generate_bundle(
    root: Path, count: int, seed: int = 0, *, broken_links: int = 0, discovery: bool = False, ontologies: bool = False
) -> list[Path]:
    """Write a bundle of `count` memories under root (plus .mif/config.yaml, a few .mif/entities/<type>/<slug>.yaml,
    index.md); return the memory paths.

    With ``ontologies`` the bundle also carries :data:`SYNTHETIC_ONTOLOGY` in
    ``.mif/ontologies/`` and the memories that would name ``ai-memory`` (which
    a generated bundle cannot resolve) name it instead, so the ontology rules
    and the entity schemas have work to do (the benchmark's ontology row).

    One ``random.Random(seed)`` drives ids, paths, the choice of the
    ``broken_links`` memories that receive a dangling link, and every memory in
    index order -- so the bundle is a pure function of (count, seed,
    broken_links).  Files are written as UTF-8 with LF line endings.
    ``discovery=True`` also writes ``.mif/ontologies/ai-memory.ontology.yaml``
    (:data:`DISCOVERY_ONTOLOGY`), so that every ontology the memories name
    resolves and has discovery patterns; the memory files are the same.  With
    both, :data:`SYNTHETIC_ONTOLOGY` extends ``ai-memory``, so the patterns
    still belong to an ontology the memories reach.
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    if not 0 <= broken_links <= count:
        raise ValueError("broken_links must be between 0 and count")
    root = Path(root)
    rng = random.Random(seed)
    ids = generate_ids(rng, count)
    paths = generate_paths(rng, count)
    broken = set(rng.sample(range(count), broken_links))

    mif_dir = root / ".mif"
    (mif_dir / "entities").mkdir(parents=True, exist_ok=True)
    (mif_dir / "config.yaml").write_bytes(_config_yaml().encode("utf-8"))
    if discovery:
        (mif_dir / "ontologies").mkdir(exist_ok=True)
        (mif_dir / "ontologies" / "ai-memory.ontology.yaml").write_bytes(DISCOVERY_ONTOLOGY.encode("utf-8"))
    if ontologies:
        (mif_dir / "ontologies").mkdir(exist_ok=True)
        text = (
            SYNTHETIC_ONTOLOGY.replace("extends: [mif-base]", "extends: [ai-memory]")
            if discovery
            else SYNTHETIC_ONTOLOGY
        )
        (mif_dir / "ontologies" / f"{SYNTHETIC_ONTOLOGY_ID}.ontology.yaml").write_bytes(text.encode("utf-8"))
    for idx, entity in enumerate(ENTITY_POOL):
        edir = mif_dir / "entities" / entity[0]
        edir.mkdir(exist_ok=True)
        (edir / f"{entity[1]}.yaml").write_bytes(_entity_yaml(idx).encode("utf-8"))

    made_dirs: set[str] = set()
    written: list[Path] = []
    for index in range(count):
        rel, text = generate_memory(
            rng,
            index,
            ids,
            paths,
            broken_link=index in broken,
            domain_ontology=SYNTHETIC_ONTOLOGY_ID if ontologies else "ai-memory",
        )
        folder = rel.rsplit("/", 1)[0]
        if folder not in made_dirs:
            (root / folder).mkdir(parents=True, exist_ok=True)
            made_dirs.add(folder)
        target = root / rel
        target.write_bytes(text.encode("utf-8"))
        written.append(target)

    (root / "index.md").write_bytes(_index_md(paths, count, seed).encode("utf-8"))
    return written


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python tests/synthetic.py OUT_DIR --count N --seed S``."""
    parser = argparse.ArgumentParser(
        prog="python tests/synthetic.py",
        description="Write a deterministic synthetic MIF bundle.",
    )
    parser.add_argument("out_dir", type=Path, help="bundle root to write into")
    parser.add_argument("--count", type=int, default=100, help="number of memories")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument(
        "--broken-links",
        type=int,
        default=0,
        help="number of memories that get one dangling relationship",
    )
    parser.add_argument(
        "--ontologies",
        action="store_true",
        help="also write a domain ontology into .mif/ontologies/ that the memories name",
    )
    args = parser.parse_args(argv)
    try:
        written = generate_bundle(
            args.out_dir, args.count, args.seed, broken_links=args.broken_links, ontologies=args.ontologies
        )
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {len(written)} memories to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
