"""Identity: the IRIs of memories, entities, bundle documents and graphs.

* memory IRI ``urn:mif:<id>`` (spec 15.1); entity IRI ``urn:mif:entity:<type>:<slug>``;
* every bundle has a base IRI, by default ``mif://<bundle identity>/``: the
  bundle is the authority, so ``/x.md`` resolves inside the bundle under plain
  RFC 3986 (and so JSON-LD) rules, and two bundles never share graph names; a
  memory's *document IRI* is the base plus its bundle-relative path and is the
  JSON-LD base for that memory's relative references;
* relationship targets are bundle-absolute paths (``/semantic/x.md``, relative
  to the bundle root whatever the base IRI), document-relative paths, or IRIs.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from mif_rdf.core.bounded_cache import bounded_cache
from mif_rdf.core.context import MIF_NS, iri_problem, is_absolute_iri, is_valid_iri, resolve_iri
from mif_rdf.core.errors import MifRdfError

MEMORY_PREFIX = "urn:mif:"
ENTITY_PREFIX = "urn:mif:entity:"
BASE_TYPES = ("semantic", "episodic", "procedural")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_SAFE_PATH = "/:@!$&'()*+,;=%~-._#?"
#: The named graphs besides one per memory and per entity, as fragments of the base IRI.
GRAPH_LINKS, GRAPH_LAYOUT, GRAPH_ONTOLOGY, GRAPH_INFERENCES = "links", "layout", "ontology", "inferences"
#: The ontology-extended types of memories (mif_rdf.ontology.extended_types), never in a memory's own graph.
GRAPH_TYPES = "types"


#: IRIs of the plainest shape, which RFC 3987 certainly allows: a scheme, then ``//`` and a host of unreserved
#: characters with an optional port, or a first segment that is not ``/``; path segments of unreserved characters,
#: sub-delimiters, ``:`` and ``@``; no user, query, fragment, percent escape or character beyond ASCII.
_PLAIN_IRI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*:"
    r"(?://[A-Za-z0-9._~-]+(?::[0-9]+)?(?:/[A-Za-z0-9._~!$&'()*+,;=:@-]*)*"
    r"|[A-Za-z0-9._~!$&'()*+,;=@-][A-Za-z0-9._~!$&'()*+,;=:@-]*(?:/[A-Za-z0-9._~!$&'()*+,;=:@-]*)*)"
)


def surely_valid_iri(value: str) -> bool:
    """True when ``value`` certainly is an absolute IRI that :func:`~mif_rdf.core.context.is_valid_iri` and
    :func:`~mif_rdf.core.context.is_absolute_iri` take; False: ask them.

    A memory's own IRI and its links' targets are mostly new to the memos of those
    checks, and RFC 3987's full expression reads an IRI at several microseconds (a
    few per cent of a memory's preparation); this one reads the plain shape at a
    fraction of that.  tests/test_identity_fast_paths.py holds it to RFC 3987's verdict and Oxigraph's.
    """
    return _PLAIN_IRI.fullmatch(value) is not None


def memory_iri(memory_id: str) -> str:
    return MEMORY_PREFIX + memory_id


def id_from_memory_iri(iri: str) -> str:
    if not iri.startswith(MEMORY_PREFIX):
        raise MifRdfError(f"{iri!r} is not a MIF memory IRI (urn:mif:<id>)")
    return iri[len(MEMORY_PREFIX) :]


def id_problem(memory_id: object) -> str | None:
    """Why ``memory_id`` cannot name a memory, or None when it can."""
    if not isinstance(memory_id, str) or not memory_id.strip():
        return "must be a non-empty string"
    iri = memory_iri(memory_id)
    why = None if surely_valid_iri(iri) else iri_problem(iri)
    if why is not None:
        return f"{memory_id!r} does not make a valid IRI (urn:mif:<id> {why})"
    return None


def entity_iri(entity_type: str, slug: str) -> str:
    if slug.startswith(ENTITY_PREFIX):
        return slug
    return f"{ENTITY_PREFIX}{entity_type.lower()}:{slug}"


#: The ``.mif/config.yaml`` key that names a bundle for good (its base IRI authority).
BUNDLE_ID_KEY = "bundle_id"
#: A bundle identity is a DNS-like label list: it is the authority of ``mif://<identity>/``.
_BUNDLE_ID_RE = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,126}[a-z0-9])?$")


def bundle_id_problem(value: object) -> str | None:
    """Why a configured ``bundle_id`` cannot be the base IRI authority, or None when it can."""
    if isinstance(value, str) and _BUNDLE_ID_RE.match(value) and ".." not in value:
        return None
    return (
        f"{BUNDLE_ID_KEY} {value!r} cannot name the bundle: use 1-128 lower-case letters, digits, '-' "
        "and '.', starting and ending with a letter or digit; the identity derived from the folder path is used"
    )


def path_identity(root: Path) -> str:
    """The identity of a bundle without a configured one: its folder name plus a hash of its absolute path.

    Readable (``examples-1f2e3d4c5b6a``) and unique per folder; moving the
    folder changes it, which is what ``bundle_id`` in the config is for.
    """
    absolute = root.resolve()
    name = re.sub(r"[^a-z0-9]+", "-", absolute.name.lower()).strip("-")[:48].strip("-") or "bundle"
    digest = hashlib.sha256(str(absolute).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{name}-{digest}"


def default_base_iri(root: Path, config: dict[str, Any]) -> str:
    """``mif://<identity>/``: the configured ``bundle_id``, else :func:`path_identity`.

    The bundle is the IRI's authority, so a bundle-absolute target ``/x.md``
    resolves to ``mif://<identity>/x.md`` under standard JSON-LD rules.
    ``config`` is the parsed ``.mif/config.yaml``
    (:func:`mif_rdf.source.parse.bundle_base_iri` reads it from ``root``).
    """
    configured = config.get(BUNDLE_ID_KEY)
    identity = configured if bundle_id_problem(configured) is None else path_identity(root)
    return f"mif://{identity}/"


def normalize_base_iri(base: str) -> str:
    """Check a user-given base IRI and make it end with '/' (a folder)."""
    if not is_absolute_iri(base):
        raise MifRdfError(f"base IRI {base!r} is not an absolute IRI (it needs a scheme, as in mif://local/name/)")
    if not is_valid_iri(base):
        raise MifRdfError(f"base IRI {base!r} {iri_problem(base)}")
    return base if base.endswith("/") else base + "/"


def document_iri(base: str, relpath: str) -> str:
    return base + quote(relpath, safe=_SAFE_PATH)


def graph_iri(base: str, name: str) -> str:
    return f"{base}#{name}"


#: A target that starts with a scheme is an IRI already.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def resolve_target(target: str, doc_iri: str, base: str) -> str:
    """The IRI a relationship target denotes.

    ``/x`` is relative to the bundle root (not to the host, as RFC 3986 would
    have it), so it resolves the same under any base IRI.  A target that is
    an IRI is itself, at once (a third of a generated bundle's targets: the
    memo of the paths cost more than the answer).
    """
    if _SCHEME.match(target):
        return target
    return _resolve_path(target, doc_iri, base)


@bounded_cache(8 << 20)  # the links are resolved again by each reload (every link of 10,000 memories)
def _resolve_path(target: str, doc_iri: str, base: str) -> str:
    """:func:`resolve_target` of a path: ``/x`` from the bundle root, anything else from the document."""
    if target.startswith("/"):
        return resolve_iri(quote(target.lstrip("/"), safe=_SAFE_PATH), base) if target.strip("/") else base
    return resolve_iri(quote(target, safe=_SAFE_PATH), doc_iri)


def target_spelling(iri: str, base: str) -> str:
    """How the reverse path writes a target IRI: ``/path`` inside the bundle, else the IRI."""
    if iri.startswith(base):
        return "/" + unquote(iri[len(base) :])
    return iri


def relativize(iri: str, doc_iri: str) -> str:
    """A relative reference for ``iri`` when it sits below the document's folder."""
    folder = doc_iri[: doc_iri.rfind("/") + 1]
    if iri.startswith(folder) and len(iri) > len(folder):
        rel = iri[len(folder) :]
        if ":" not in rel.split("/", 1)[0] and resolve_iri(rel, doc_iri) == iri:
            return rel
    return iri


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@lru_cache(maxsize=4096)  # called for every relationship a rule looks at: 880,000 times validating 100,000 memories
def canonical_relationship_name(name: str) -> str:
    """kebab-case form of a relationship type: RelatesTo, relates_to, relates-to -> relates-to.

    A namespace prefix (``team:Reinforces``) is kept and only the local part changes.
    """
    prefix, sep, local = name.rpartition(":")
    kebab = _CAMEL.sub("-", local).replace("_", "-").replace(" ", "-").lower()
    kebab = re.sub(r"-{2,}", "-", kebab).strip("-")
    return f"{prefix}{sep}{kebab}"


@lru_cache(maxsize=4096)  # a bundle spells a few dozen types, once per relationship
def relationship_iri(name: str) -> str:
    """The IRI of a relationship type, the same for all three spellings."""
    canonical = canonical_relationship_name(name)
    if ":" in canonical:
        prefix, local = canonical.split(":", 1)
        return MIF_NS + local if prefix == "mif" else canonical
    return MIF_NS + canonical
