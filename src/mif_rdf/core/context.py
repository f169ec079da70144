"""The MIF JSON-LD contexts, served offline, and a precompiled model of them.

Two contexts apply to every projection document, in this order:

* the MIF v1.0.0 context, pinned term for term from upstream and identified by
  its published URL (documents keep that URL);
* the mif-rdf extension context, which only *adds* terms (and a default
  ``@vocab``) so that no frontmatter key is silently dropped by JSON-LD.  It has
  no published home, so it travels *inline* in every document
  (:data:`PROJECTION_CONTEXT`): any JSON-LD 1.1 processor that knows the
  published URL reads a projection, with no private context URL to resolve.

:func:`document_loader` serves the MIF context from the installed file, so
nothing is ever fetched from the network.  :class:`ActiveContext` is a small, precompiled
implementation of the JSON-LD 1.1 context rules these two contexts use (term
definitions, prefixes, type coercion, containers, property-scoped and
embedded contexts); the projection, the fast triple walker and the reverse
path all read term definitions from it, so the three agree by construction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from mif_rdf.core.bounded_cache import bounded_cache
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.resources import data_file

MIF_CONTEXT_URL = "https://mif-spec.dev/schema/context.jsonld"
MIF_NS = "https://mif-spec.dev/ns/"
PROPERTY_NS = MIF_NS + "property/"
EXTENSION_FILE = "mif-rdf-extension.jsonld"

_FILES = {MIF_CONTEXT_URL: "mif-context.jsonld"}
_KEYWORDS = frozenset(
    "@base @container @context @direction @graph @id @import @included @index @json @language "
    "@list @nest @none @prefix @propagate @protected @reverse @set @type @value @version @vocab".split()
)
_GEN_DELIMS = tuple(":/?#[]@")
#: pyld's notion of an absolute IRI; mirrored so both engines keep the same triples.
_ABSOLUTE_IRI = re.compile(r"^([A-Za-z][A-Za-z0-9+-.]*|_):[^\s]*$")
#: Characters RFC 3987 never allows in an IRI; such IRIs break N-Triples and stores.
_BAD_IRI_CHARS = re.compile(r'[\x00-\x20<>"{}|\\^`\x7f]')


@bounded_cache(4 << 20)  # the same few hundred term and type IRIs are checked for every memory
def is_absolute_iri(value: str) -> bool:
    return bool(_ABSOLUTE_IRI.match(value))


@bounded_cache(8 << 20)  # the IRIs many memories link to, checked again for each
def is_valid_iri(value: str) -> bool:
    """An absolute IRI by RFC 3987, as Oxigraph enforces it (rdflib accepts more: see :func:`iri_problem`)."""
    return iri_problem(value) is None


# RFC 3987's character classes.  Oxigraph refuses an IRI outside this grammar (a bare ``%``, ``[`` in a
# path, a second ``#``, a private-use or non-character code point outside the query), and refuses the
# whole load or request that holds it; rdflib accepts most of those, so rdflib's word is not enough.
_UCS = "".join(
    f"{chr(low)}-{chr(high)}"
    for low, high in (
        (0xA0, 0xD7FF),
        (0xF900, 0xFDCF),
        (0xFDF0, 0xFFEF),
        *((p << 16, (p << 16) + 0xFFFD) for p in range(1, 14)),
        (0xE1000, 0xEFFFD),
    )
)
_PRIVATE = "".join(
    f"{chr(low)}-{chr(high)}" for low, high in ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
)
_UNRESERVED = rf"A-Za-z0-9\-._~{_UCS}"
_SUB_DELIMS = "!$&'()*+,;="
_PCHAR = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|%[0-9A-Fa-f]{{2}})"
_RFC3987 = re.compile(
    rf"(?P<scheme>[A-Za-z][A-Za-z0-9+\-.]*):"
    rf"(?://(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|%[0-9A-Fa-f]{{2}})*@)?"  # userinfo
    rf"(?:\[(?P<ip>[^\]]*)\]|(?:[{_UNRESERVED}{_SUB_DELIMS}]|%[0-9A-Fa-f]{{2}})*)(?::[0-9]*)?"  # host, port
    rf"(?:/{_PCHAR}*)*"  # path after an authority
    rf"|/?(?:{_PCHAR}+(?:/{_PCHAR}*)*)?)"  # path without one
    rf"(?:\?(?:{_PCHAR}|[/?{_PRIVATE}])*)?"  # query
    rf"(?:#(?:{_PCHAR}|[/?])*)?"  # fragment
)


def iri_problem(value: str) -> str | None:
    """Why ``value`` is not an absolute IRI the stores take,
    naming the first character at fault; None when it is one."""
    if not is_absolute_iri(value) or value.startswith("_:"):
        return "is not an absolute IRI (scheme:...)"
    match = _RFC3987.match(value)
    if match is not None and match.end() == len(value) and _ip_literal_ok(match.group("ip")):
        return None
    at = match.end() if match is not None and match.end() < len(value) else _first_bad(value)
    return f"has {_shown(value[at])} at position {at + 1}, which no IRI may hold there (RFC 3987)"


def _ip_literal_ok(text: str | None) -> bool:
    if text is None:
        return True
    if text[:1] in ("v", "V"):
        return bool(re.fullmatch(rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED[: -len(_UCS)]}{_SUB_DELIMS}:]+", text))
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _first_bad(value: str) -> int:
    """Where an IRI the grammar refuses first goes wrong, for the message (the longest prefix that still matches)."""
    low, high = 0, len(value)
    while low < high:  # a prefix of a valid IRI is nearly always valid: find the longest one that is
        middle = (low + high + 1) // 2
        found = _RFC3987.match(value[:middle])
        if found is not None and found.end() == middle:
            low = middle
        else:
            high = middle - 1
    return min(low, len(value) - 1)


def _shown(char: str) -> str:
    """A character as a person can read it in a message: printable ones quoted, the others as U+XXXX."""
    return repr(char) if char.isprintable() and not char.isspace() else f"U+{ord(char):04X}"


def _resolve_iri(reference: str, base: str) -> str:
    """pyld's own resolution, for the references :func:`resolve_iri` does not join itself."""
    return _pyld_resolve()(reference, base)


@cache
def _pyld_resolve() -> Callable[[str, str], str]:
    """pyld's resolver, imported on first use: importing pyld imports its network document loaders
    (requests, urllib3, asyncio), 0.08 s of CPU at the start of every command that may never need it."""
    from pyld.iri_resolver import resolve

    return resolve


def resolve_iri(reference: str, base: str) -> str:
    """RFC 3986 resolution exactly as pyld does it (so both engines agree).

    Most references a bundle holds are relative paths (``decisions/x.md``,
    ``../../semantic/x.md``, ``/episodic/y.md``) against a base with a path and no
    query or fragment.  Those are joined here, with the dot segments removed
    segment by segment (1.3 instead of 7.8 us for a ``../..`` reference; a
    10,000-memory load resolves some 40,000); every other reference (a colon,
    ``?``, ``#``, ``//``, a leading ``.name`` that pyld shortens) goes to pyld.
    tests/test_equivalence.py compares the two on generated references and bases.
    """
    parts = _base_parts(base)
    if parts is None or not reference or ":" in reference or "?" in reference or "#" in reference:
        return _resolve_iri(reference, base)
    origin, folder = parts
    if reference[0] == "/":
        if reference.startswith("//"):
            return _resolve_iri(reference, base)
        path = reference
    elif reference[0] == "." and not reference.startswith(("./", "../")) and reference not in (".", ".."):
        return _resolve_iri(reference, base)  # pyld drops the dot of `.name` against a base naming a file
    else:
        path = folder + reference
    if "/." not in path:
        return origin + path
    return origin + _without_dot_segments(path)


def _without_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4 on a path that starts with ``/`` and holds no ``?`` or ``#``, as pyld removes them."""
    kept: list[str] = []
    segments = path[1:].split("/")
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
            continue
        if index == last:  # `/a/..` and `/a/.` end in a folder
            kept.append("")
    return "/" + "/".join(kept)


@lru_cache(maxsize=1024)
def _base_parts(base: str) -> tuple[str, str] | None:
    """``(scheme and authority, path to its last /)`` of a base with no query or fragment, as pyld splits it."""
    colon = base.find(":")
    if colon < 0 or "#" in base or "?" in base:
        return None
    authority = base.find("//", colon) == colon + 1
    slash = base.find("/", colon + 3 if authority else colon + 1)
    if slash < 0:
        return None
    path = base[slash:]
    return base[:slash], path[: path.rfind("/") + 1]


@cache
def context_document(url: str) -> dict[str, Any]:
    """The parsed JSON of the pinned MIF context, the only context with a URL."""
    try:
        name = _FILES[url]
    except KeyError:
        raise MifRdfError(f"unknown JSON-LD context {url!r}: mif-rdf never fetches contexts from the network") from None
    return _shipped(name)


@cache
def _shipped(name: str) -> dict[str, Any]:
    with open(data_file("context", name), encoding="utf-8") as handle:
        return json.load(handle)


def extension_context() -> dict[str, Any]:
    """The mif-rdf extension context: the local context object every projection carries inline."""
    return _shipped(EXTENSION_FILE)["@context"]


#: :meth:`ActiveContext.embedded`'s memo key of the projection context (no JSON text is this).
_PROJECTION_KEY = "projection context"


def projection_context() -> list[Any]:
    """The ``@context`` of every projection document: the published MIF URL, then the extension inline."""
    return [MIF_CONTEXT_URL, extension_context()]


def document_loader(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pyld document loader that serves the pinned MIF context and refuses everything else."""
    return {"contextUrl": None, "documentUrl": url, "document": context_document(url)}


def property_values(value: Any) -> list[Any]:
    """The values of a JSON-LD property outside a ``@list``: nested arrays are one flat set, as expansion makes them.

    The walker that writes triples and the canonical form round trips compare
    must read a value alike, so both ask here.
    """
    if not isinstance(value, list):
        return [value]
    out: list[Any] = []
    for item in value:
        out.extend(property_values(item))
    return out


@dataclass(frozen=True)
class Term:
    """One precompiled term definition."""

    name: str
    iri: str | None  # None: the term is mapped to null (its key is dropped)
    coerce: str | None = None  # '@id', '@vocab', '@json' or a datatype IRI
    container: str | None = None  # '@set', '@list' or '@index'
    scoped: Any = None  # the raw property-scoped context, if any
    prefix: bool = False

    @property
    def keyword(self) -> str | None:
        return self.iri if self.iri in _KEYWORDS else None


class ActiveContext:
    """An immutable JSON-LD active context restricted to what MIF needs.

    Only features the two shipped contexts use are implemented; anything else
    raises :class:`MifRdfError` at compile time rather than being misread.
    """

    def __init__(self, terms: dict[str, Term], vocab: str | None) -> None:
        self.terms = terms
        self.vocab = vocab
        self._children: dict[str, ActiveContext] = {}
        self._embedded: dict[str, ActiveContext] = {}
        self._inverse: dict[str, str] | None = None
        self._key_cache: dict[str, tuple[str | None, Term | None]] = {}
        self._plans: dict[str, tuple[str, Term | None, ActiveContext]] = {}

    # -- building -------------------------------------------------------
    def with_context(self, local: Any) -> ActiveContext:
        """Process a local context (dict, list, or None meaning reset)."""
        ctx: ActiveContext = self
        for item in local if isinstance(local, list) else [local]:
            if item is None:
                ctx = ActiveContext({}, None)
            elif isinstance(item, str):
                ctx = ctx.with_context(context_document(item)["@context"])
            elif isinstance(item, dict):
                ctx = ctx._define(item)
            else:
                raise MifRdfError(f"unsupported JSON-LD context entry {item!r}")
        return ctx

    def _define(self, local: dict[str, Any]) -> ActiveContext:
        for key in local:
            if key in ("@base", "@import", "@propagate", "@protected", "@direction", "@language"):
                raise MifRdfError(f"JSON-LD context keyword {key} is not supported by the mif-rdf context model")
        terms = dict(self.terms)
        vocab = self.vocab
        if "@vocab" in local:
            vocab = (
                None if local["@vocab"] is None else ActiveContext(terms, vocab).expand_iri(local["@vocab"], vocab=True)
            )
        pending = {k: v for k, v in local.items() if not k.startswith("@")}
        building = ActiveContext(terms, vocab)

        def define(name: str, seen: frozenset[str] = frozenset()) -> None:
            if name not in pending:
                return
            if name in seen:
                raise MifRdfError(f"cyclic JSON-LD term definition for {name!r}")
            value = pending.pop(name)
            terms.pop(name, None)  # re-insert so that later definitions come last
            terms[name] = self._term(name, value, building, lambda dep: define(dep, seen | {name}))
            building._key_cache.clear()

        for name in list(pending):
            define(name)
        return ActiveContext(terms, vocab)

    @staticmethod
    def _term(name: str, value: Any, ctx: ActiveContext, need: Callable[[str], None]) -> Term:
        if value is None:
            return Term(name, None)
        simple = isinstance(value, str)
        spec: dict[str, Any] = {"@id": value} if simple else dict(value)
        unsupported = set(spec) - {"@id", "@type", "@container", "@context", "@prefix"}
        if unsupported:
            raise MifRdfError(f"term {name!r} uses unsupported JSON-LD features {sorted(unsupported)}")
        raw_id = spec.get("@id")
        for dep in (raw_id, spec.get("@type")):
            if isinstance(dep, str) and ":" in dep and not dep.startswith("@"):
                need(dep.split(":", 1)[0])
        if raw_id is None:
            iri = ctx.expand_iri(name, vocab=True)
        elif raw_id in _KEYWORDS:
            iri = raw_id
        else:
            iri = ctx.expand_iri(raw_id, vocab=True)
        coerce = spec.get("@type")
        if coerce is not None and coerce not in ("@id", "@vocab", "@json"):
            coerce = ctx.expand_iri(coerce, vocab=True)
        container = spec.get("@container")
        if container not in (None, "@set", "@list", "@index"):
            raise MifRdfError(f"term {name!r}: container {container!r} is not supported")
        prefix = bool(
            spec.get(
                "@prefix",
                simple and ":" not in name and "/" not in name and iri is not None and iri.endswith(_GEN_DELIMS),
            )
        )
        return Term(name, iri, coerce, container, spec.get("@context"), prefix)

    def child(self, term: Term | None) -> ActiveContext:
        """Active context for the values of ``term`` (applies its scoped context)."""
        if term is None or term.scoped is None:
            return self
        found = self._children.get(term.name)
        if found is None:
            found = self._children[term.name] = self.with_context(term.scoped)
        return found

    def embedded(self, local: Any) -> ActiveContext:
        """Active context after a node object's own ``@context`` (memoized).

        A projection's own context (:func:`projection_context`: the URL and the shipped extension object
        itself) is known without writing it out as JSON, which every document of a load would pay for.
        """
        if type(local) is list and len(local) == 2 and local[1] is extension_context() and local[0] == MIF_CONTEXT_URL:
            key = _PROJECTION_KEY
        else:
            key = json.dumps(local, sort_keys=True)
        found = self._embedded.get(key)
        if found is None:
            found = self._embedded[key] = self.with_context(local)
        return found

    # -- expansion --------------------------------------------------------
    def expand_iri(self, value: str, *, vocab: bool = False, base: str | None = None) -> str | None:
        """JSON-LD 1.1 IRI expansion; ``None`` when JSON-LD would drop the value."""
        if value in _KEYWORDS:
            return value
        if value.startswith("@"):
            return None
        if vocab and value in self.terms:
            return self.terms[value].iri
        colon = value.find(":")
        if colon > 0:
            prefix, suffix = value[:colon], value[colon + 1 :]
            if prefix == "_" or suffix.startswith("//"):
                return value
            term = self.terms.get(prefix)
            if term is not None and term.prefix and term.iri is not None:
                return term.iri + suffix
            if is_absolute_iri(value):
                return value
        if vocab and self.vocab is not None:
            return self.vocab + value
        if base is not None:
            return resolve_iri(value, base)
        return value

    def expand_key(self, key: str) -> tuple[str | None, Term | None]:
        """Map a JSON key to (IRI or keyword, its term definition if any)."""
        found = self._key_cache.get(key)
        if found is None:
            term = self.terms.get(key)
            found = (term.iri, term) if term is not None else (self.expand_iri(key, vocab=True), None)
            self._key_cache[key] = found
        return found

    def plan(self, key: str) -> tuple[str, Term | None, ActiveContext]:
        """What a node object's ``key`` makes in toRdf: ``(role, term, context of its values)``.

        ``role`` is ``"@id"``, ``"@type"``, the property IRI, or ``""`` for a key that makes
        no triple (another keyword, a term mapped to null, no absolute IRI).  Memoized: the
        walker asks for every key of every node, and the answer depends on the key alone.
        """
        found = self._plans.get(key)
        if found is None:
            iri, term = self.expand_key(key)
            if iri == "@id" or iri == "@type":
                found = (iri, term, self)
            elif iri is not None and not iri.startswith("@") and is_absolute_iri(iri):
                found = (iri, term, self.child(term))
            else:
                found = ("", term, self)
            self._plans[key] = found
        return found

    # -- compaction (for the reverse path) ---------------------------------
    def _inverse_terms(self) -> dict[str, str]:
        if self._inverse is None:
            inverse: dict[str, str] = {}
            for name, term in self.terms.items():  # later definitions win (scoped over outer)
                if term.iri is not None and term.keyword is None:
                    inverse[term.iri] = name
            self._inverse = inverse
        return self._inverse

    def compact_iri(self, iri: str) -> str:
        """Shortest JSON key/value that expands (vocab-relative) back to ``iri``."""
        name = self._inverse_terms().get(iri)
        if name is not None:
            return name
        if self.vocab and iri.startswith(self.vocab):
            suffix = iri[len(self.vocab) :]
            if suffix and ":" not in suffix and not suffix.startswith("@") and suffix not in self.terms:
                return suffix
        for name, term in self.terms.items():
            if term.prefix and term.iri and iri.startswith(term.iri) and len(iri) > len(term.iri):
                candidate = f"{name}:{iri[len(term.iri) :]}"
                if candidate not in self.terms and not candidate[len(name) + 1 :].startswith("//"):
                    return candidate
        return iri


@cache
def mif_context() -> ActiveContext:
    """The active context of every MIF projection document (MIF + extension)."""
    return ActiveContext({}, None).with_context(projection_context())
