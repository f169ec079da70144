"""Frontmatter equality as JSON-LD sees it, for round-trip checks.

Two frontmatters are *equivalent* when their projections mean the same
graph, that is when they differ only in ways JSON-LD itself does not record:
the order of lists (other than ``@list`` terms) and duplicates in them, one
value versus a one-element list, ``null`` versus no key, the index keys of an
``@index`` map (``extensions`` provider names), ``id``/``@id`` and
``type``/``@type`` key spellings, ``"x"`` versus ``{"@id": "x"}`` for an
IRI-valued key, spellings that denote the same IRI, and the projection's
mirror keys (``timestamp``, ``description``) when they equal what they mirror.
Everything else (values, value types, nesting) must match exactly.

This is the criterion for a graph read back *without* the layout graph;
with it (:mod:`mif_rdf.rdf.layout`) the round trip gives the frontmatter back
identical.
"""

from __future__ import annotations

import json
from typing import Any

from mif_rdf.core.context import ActiveContext, Term, is_absolute_iri, mif_context, property_values

_MIRRORS = (("timestamp", ("modified", "created")), ("description", ("summary",)))


def canonical_frontmatter(fm: dict[str, Any], *, doc_iri: str) -> Any:
    """A comparable form of a frontmatter mapping (see the module docstring)."""
    fm = dict(fm)
    for mirror, sources in _MIRRORS:
        source = next((fm[s] for s in sources if fm.get(s)), None)
        if mirror in fm and fm[mirror] == source:
            del fm[mirror]
    return _Canon(doc_iri).node(fm, mif_context(), top=True)


def equivalent(a: dict[str, Any], b: dict[str, Any], *, doc_iri: str) -> bool:
    return canonical_frontmatter(a, doc_iri=doc_iri) == canonical_frontmatter(b, doc_iri=doc_iri)


def differences(a: dict[str, Any], b: dict[str, Any], *, doc_iri: str) -> list[str]:
    """Top-level keys whose values are not equivalent, with both sides, for reports."""
    ca = canonical_frontmatter(a, doc_iri=doc_iri)
    cb = canonical_frontmatter(b, doc_iri=doc_iri)
    return [
        f"{key}: {json.dumps(ca.get(key), default=str)} != {json.dumps(cb.get(key), default=str)}"
        for key in sorted(set(ca) | set(cb))
        if ca.get(key) != cb.get(key)
    ]


class _Canon:
    def __init__(self, doc_iri: str) -> None:
        self.doc_iri = doc_iri

    def node(self, obj: dict[Any, Any], ctx: ActiveContext, top: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if not isinstance(key, str):
                out[repr(key)] = value
                continue
            iri, term = (key, None) if top and key in ("id", "type") else ctx.expand_key(key)
            iri = iri or key
            if iri == "@id":
                out[iri] = ctx.expand_iri(value, base=self.doc_iri) if isinstance(value, str) else value
            elif iri == "@type":
                values = value if isinstance(value, list) else [value]
                out[iri] = sorted(
                    str(ctx.expand_iri(v, vocab=True, base=self.doc_iri)) if isinstance(v, str) else repr(v)
                    for v in values
                )
            else:
                canon = self.value(value, term, ctx.child(term))
                if canon != _NOTHING:
                    out[iri] = canon
        return out

    def value(self, value: Any, term: Term | None, ctx: ActiveContext) -> Any:
        coerce = term.coerce if term else None
        if coerce == "@json":
            return ("json", json.dumps(value, sort_keys=True, default=str))
        container = term.container if term else None
        if container == "@list" and isinstance(value, list):
            return ("list", self.items(value, coerce, ctx))
        if container == "@index" and isinstance(value, dict):
            value = list(value.values())  # JSON-LD keeps an index map's values, not its keys
        canon = self.items(property_values(value), coerce, ctx)
        return (
            "set",
            sorted({json.dumps(c, sort_keys=True, default=str) for c in canon}),
        )  # RDF keeps one of duplicates

    def items(self, values: list[Any], coerce: str | None, ctx: ActiveContext) -> list[Any]:
        """The canonical items JSON-LD keeps: no ``null``, no string that makes no IRI where an IRI belongs."""
        return [c for c in (self.item(v, coerce, ctx) for v in values if v is not None) if c is not None]

    def item(self, value: Any, coerce: str | None, ctx: ActiveContext) -> Any:
        if isinstance(value, dict):
            if coerce == "@id" and set(value) <= {"@id", "id"} and len(value) == 1:
                value = next(iter(value.values()))
            else:
                return self.node(value, ctx)
        if isinstance(value, str) and coerce in ("@id", "@vocab"):
            iri = ctx.expand_iri(value, vocab=coerce == "@vocab", base=self.doc_iri)
            return ("iri", iri) if iri is not None and is_absolute_iri(iri) else None  # JSON-LD drops what makes no IRI
        if isinstance(value, list):  # a list inside a @list term
            return ("list", self.items(value, coerce, ctx))
        if isinstance(value, str):
            return str(value)
        return (type(value).__name__, value)


#: What ``null`` and ``[]`` make in JSON-LD: no value, as if the key were absent.
_NOTHING: tuple[str, list[Any]] = ("set", [])
