"""Markdown frontmatter -> the JSON-LD projection document (spec section 15).

The projection follows spec 15.1 (``id`` -> ``@id`` ``urn:mif:<id>``, ``type``
-> ``conceptType``, the body verbatim as ``content``, the ``timestamp`` and
``description`` mirrors, everything else passed through under the context),
with a few encodings that keep JSON-LD from losing data (docs/decisions.md):

* ``null`` becomes a JSON literal ``{"@value": null, "@type": "@json"}``;
* an array under a term with no container becomes an ``@list`` (order and
  one-element arrays survive); an empty ``@set`` array is named by the
  ``mif:emptySet`` marker of the node holding it;
* relationship targets are resolved against the bundle (``/x`` is
  bundle-absolute) and, when the reverse path would not spell them the same,
  the author's spelling is kept in ``authoredTarget``;
* each ``extensions`` provider becomes a node in its own vocabulary
  (``mif:ext/<provider>/``) that names its provider, because ``@index`` keys
  do not survive toRdf;
* a value JSON-LD cannot express (a key that makes no IRI, a JSON-LD keyword
  as a key, an ``@id`` that is not a string) is kept whole as a JSON literal,
  and an ``@id``/``@vocab`` value that makes no valid IRI is kept as text;
  each case is reported as a note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .context import (
    CONTEXT_URLS,
    EXTENSION_NS,
    MIF_NS,
    ActiveContext,
    Term,
    is_valid_iri,
    mif_context,
)
from .errors import Problem, Severity
from .identity import memory_iri, resolve_target, target_spelling

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_DOUBLE = XSD + "double"
_NUMERIC = {XSD + name for name in ("integer", "decimal", "double", "float", "int", "long", "short", "nonNegativeInteger")}
#: The coerced datatypes whose lexical forms give a YAML scalar of each type back unchanged.
_FITS = {bool: {XSD + "boolean"}, int: _NUMERIC, float: _NUMERIC - {XSD + "integer", XSD + "int", XSD + "long", XSD + "short", XSD + "nonNegativeInteger"}}
EXT_PROVIDER = MIF_NS + "extensionProvider"
EXT_VALUE = MIF_NS + "extensionValue"
#: Keys of a memory's frontmatter the projection handles itself.
_RESERVED = {"id", "type", "@id", "@context", "conceptType", "content"}


@dataclass
class Projection:
    """One memory's JSON-LD document and what the projection had to say about it."""

    document: dict[str, Any]
    doc_iri: str
    notes: list[Problem] = field(default_factory=list)


def json_literal(value: Any) -> dict[str, Any]:
    return {"@value": value, "@type": "@json"}


#: An empty ``@set`` list makes no triple, so the node that holds it names the
#: key under this property instead (``<m> mif:emptySet "tags"``).
EMPTY_SET_KEY = MIF_NS + "emptySet"
_EMPTY = object()  # what value() returns for an empty @set list


def _with_empty_sets(encoded: dict[str, Any]) -> dict[str, Any]:
    """Move keys whose value is an empty ``@set`` list into the EMPTY_SET_KEY marker."""
    empty = [key for key, value in encoded.items() if value is _EMPTY]
    if not empty:
        return encoded
    kept = {key: value for key, value in encoded.items() if value is not _EMPTY}
    kept[EMPTY_SET_KEY] = empty
    return kept


def extension_vocab(provider: str) -> str:
    return EXTENSION_NS + quote(provider, safe="") + "/"


class _Encoder:
    """Turns YAML values into JSON-LD values for one document."""

    def __init__(self, path: str, doc_iri: str, base: str) -> None:
        self.path, self.doc_iri, self.base = path, doc_iri, base
        self.notes: list[Problem] = []

    def note(self, keypath: str, message: str, severity: Severity = Severity.WARNING, value: Any = None) -> None:
        self.notes.append(Problem(self.path, message, severity, key=keypath or None, value=value, rule="projection"))

    # -- nodes ------------------------------------------------------------------
    def node_problem(self, obj: dict[Any, Any], ctx: ActiveContext) -> str | None:
        """Why ``obj`` cannot be a JSON-LD node object, or None."""
        for key, value in obj.items():
            if not isinstance(key, str):
                return f"key {key!r} is not a string"
            iri, _ = ctx.expand_key(key)
            if iri in ("@id",):
                if not isinstance(value, str) or not is_valid_iri(ctx.expand_iri(value, base=self.doc_iri) or ""):
                    return f"{key!r} must be a string that makes a valid IRI"
            elif iri == "@type":
                values = value if isinstance(value, list) else [value]
                if not values or not all(isinstance(v, str) and is_valid_iri(ctx.expand_iri(v, vocab=True, base=self.doc_iri) or "") for v in values):
                    return f"{key!r} must be a string (or list of strings) naming a type"
            elif iri is None or iri.startswith("@"):
                return f"key {key!r} is a JSON-LD keyword or maps to none"
            elif not is_valid_iri(iri):
                return f"key {key!r} does not make a valid IRI"
        return None

    def node(self, obj: dict[Any, Any], ctx: ActiveContext, keypath: str) -> dict[str, Any]:
        why = self.node_problem(obj, ctx)
        if why is not None:
            return self.as_json(obj, keypath, why)
        return _with_empty_sets({key: self.entry(key, value, ctx, keypath) for key, value in obj.items()})

    def entry(self, key: str, value: Any, ctx: ActiveContext, keypath: str) -> Any:
        iri, term = ctx.expand_key(key)
        if iri in ("@id", "@type"):
            return value
        return self.value(value, term, ctx.child(term), f"{keypath}.{key}" if keypath else key)

    def as_json(self, value: Any, keypath: str, why: str) -> dict[str, Any]:
        self.note(keypath, f"kept as a JSON literal in RDF: {why}", Severity.INFO)
        return json_literal(_jsonable(value))

    # -- values -------------------------------------------------------------------
    def value(self, value: Any, term: Term | None, ctx: ActiveContext, keypath: str) -> Any:
        coerce = term.coerce if term else None
        container = term.container if term else None
        if coerce == "@json":  # the term takes any JSON value verbatim
            return _jsonable(value)
        if isinstance(value, list):
            items = [self.item(v, coerce, ctx, f"{keypath}[{i}]") for i, v in enumerate(value)]
            if container == "@set":
                return items or _EMPTY
            encoded = {"@list": items}
        else:
            encoded = self.item(value, coerce, ctx, keypath)
        if container == "@index" and isinstance(encoded, dict):
            return [encoded]  # under an @index term every map is an index map: an array is not
        return encoded

    def item(self, value: Any, coerce: str | None, ctx: ActiveContext, keypath: str) -> Any:
        if value is None:
            return json_literal(None)
        if type(value) is int and abs(value) >= 10**21:
            # JSON-LD toRdf writes a number this large as an xsd:double ("1.0E21"), losing digits (issue 15)
            return {"@value": str(value), "@type": coerce if coerce in _NUMERIC else XSD + "integer"}
        if isinstance(value, (bool, int, float)) and coerce not in (None, "@id", "@vocab") and coerce not in _FITS[type(value)]:
            # `created: 2026` or `modified: false`: JSON-LD would write "false"^^xsd:dateTime and the
            # reverse path could not tell it from the string "false"; the value keeps its own type.
            return {"@value": value} if not isinstance(value, float) or math.isfinite(value) else self.item(value, None, ctx, keypath)
        if isinstance(value, bool) or isinstance(value, int):
            return value
        if isinstance(value, float):
            if math.isfinite(value):
                return value
            return {"@value": "NaN" if math.isnan(value) else ("INF" if value > 0 else "-INF"), "@type": XSD_DOUBLE}
        if isinstance(value, str):
            return self.string(value, coerce, ctx, keypath)
        if isinstance(value, dict):
            return self.node(value, ctx, keypath)
        if isinstance(value, list):
            return {"@list": [self.item(v, coerce, ctx, f"{keypath}[{i}]") for i, v in enumerate(value)]}
        self.note(keypath, f"YAML value of type {type(value).__name__} has no JSON form; kept as text", Severity.ERROR)
        return str(value)

    def string(self, value: str, coerce: str | None, ctx: ActiveContext, keypath: str) -> Any:
        if coerce in ("@id", "@vocab"):
            iri = ctx.expand_iri(value, vocab=coerce == "@vocab", base=self.doc_iri)
            if iri is None or not is_valid_iri(iri):
                self.note(keypath, f"{value!r} does not make a valid IRI; kept as text", value=value)
                return {"@value": value}
        return value

    # -- MIF-specific shapes -----------------------------------------------------------
    def relationships(self, value: Any, term: Term | None, ctx: ActiveContext) -> Any:
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            return self.value(value, term, ctx.child(term), "relationships")
        rctx = ctx.child(term)
        out = []
        for index, rel in enumerate(value):
            keypath = f"relationships[{index}]"
            why = self.node_problem(rel, rctx)
            if why is not None:
                out.append(self.as_json(rel, keypath, why))
                continue
            rel = dict(rel)
            target = rel.get("target")
            if isinstance(target, str) and "authoredTarget" not in rel:
                resolved = resolve_target(target, self.doc_iri, self.base)
                if is_valid_iri(resolved):
                    rel["target"] = resolved
                    if target_spelling(resolved, self.base) != target:
                        rel["authoredTarget"] = target
            out.append(self.node(rel, rctx, keypath))
        return out or _EMPTY

    def extensions(self, value: Any, term: Term | None, ctx: ActiveContext) -> Any:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            return self.value(value, term, ctx.child(term), "extensions")
        if not value:  # an empty @index map makes no triples at all
            return [json_literal({})]
        out: dict[str, Any] = {}
        for provider, payload in value.items():
            keypath = f"extensions.{provider}"
            local = [None, {"@vocab": extension_vocab(provider)}]
            pctx = ctx.embedded(local)
            node: dict[str, Any] = {"@context": local, EXT_PROVIDER: provider}
            if isinstance(payload, dict) and self.node_problem(payload, pctx) is None:
                node.update({k: self.entry(k, v, pctx, keypath) for k, v in payload.items()})
            elif isinstance(payload, dict):
                node[EXT_VALUE] = self.as_json(payload, keypath, self.node_problem(payload, pctx) or "")
            else:
                node[EXT_VALUE] = self.value(payload, None, pctx, keypath)
            out[provider] = node
        return out


def project_memory(
    frontmatter: dict[str, Any], body: str, *, path: str, doc_iri: str, base: str
) -> Projection:
    """The JSON-LD projection document of one memory (spec 15.1)."""
    ctx = mif_context()
    enc = _Encoder(path, doc_iri, base)
    types: list[Any] = ["Concept"]
    extra_types = frontmatter.get("@type")
    if extra_types is not None:
        types.extend(extra_types if isinstance(extra_types, list) else [extra_types])
    doc: dict[str, Any] = {
        "@context": list(CONTEXT_URLS),
        "@id": memory_iri(str(frontmatter["id"])),
        "@type": types if len(types) > 1 else "Concept",
    }
    if "type" in frontmatter:
        doc["conceptType"] = enc.value(frontmatter["type"], ctx.terms["conceptType"], ctx, "type")
    for key in sorted(_RESERVED - {"id", "type"}):
        if key in frontmatter:
            enc.note(key, f"frontmatter key {key!r} clashes with what the projection derives; it is not kept in RDF", Severity.ERROR)
    for key, value in frontmatter.items():
        if key in _RESERVED or key == "@type":
            continue
        if not isinstance(key, str):
            enc.note(str(key), f"frontmatter key {key!r} is not a string; it is not kept in RDF", Severity.ERROR)
            continue
        iri, term = ctx.expand_key(key)
        if iri is None or iri.startswith("@") or not is_valid_iri(iri):
            enc.note(key, f"frontmatter key {key!r} makes no valid RDF property IRI; it is not kept in RDF", Severity.ERROR)
            continue
        if key == "relationships":
            doc[key] = enc.relationships(value, term, ctx)
        elif key == "extensions":
            doc[key] = enc.extensions(value, term, ctx)
        else:
            doc[key] = enc.value(value, term, ctx.child(term), key)
    doc = _with_empty_sets(doc)
    doc["content"] = body
    mirror = frontmatter.get("modified") or frontmatter.get("created")
    if "timestamp" not in frontmatter and isinstance(mirror, str):
        doc["timestamp"] = mirror
    if "description" not in frontmatter and isinstance(frontmatter.get("summary"), str):
        doc["description"] = frontmatter["summary"]
    return Projection(doc, doc_iri, enc.notes)


def project_entity(data: dict[str, Any], *, iri: str, path: str, doc_iri: str, base: str) -> Projection:
    """The JSON-LD document of an entity file (spec 7.4): ``id`` -> ``@id``, ``type`` -> ``@type``."""
    ctx = mif_context()
    enc = _Encoder(path, doc_iri, base)
    doc: dict[str, Any] = {"@context": list(CONTEXT_URLS), "@id": iri}
    if isinstance(data.get("type"), str) and is_valid_iri(ctx.expand_iri(data["type"], vocab=True) or ""):
        doc["@type"] = data["type"]
    body = {k: v for k, v in data.items() if k not in ("id", "type")}
    encoded = enc.node(body, ctx, "")
    if "@value" in encoded:  # the entity as a whole is not a node: keep it as JSON
        doc[MIF_NS + "entityData"] = encoded
    else:
        doc.update(encoded)
    return Projection(doc, doc_iri, enc.notes)


def _jsonable(value: Any) -> Any:
    """The JSON value of a YAML value (timestamps are already strings)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or type(value) in (bool, int, float, str):
        return value
    return str(value)  # YamlTimestamp and other str subclasses, or types JSON lacks
