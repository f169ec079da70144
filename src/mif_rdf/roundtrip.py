"""Frontmatter equality as JSON-LD sees it, for round-trip checks.

Two frontmatters are *equivalent* when they differ only in ways the RDF graph
cannot record (and JSON-LD itself treats as the same): the order of ``@set``
lists, one value versus a one-element ``@set`` list, ``id``/``@id`` and
``type``/``@type`` key spellings, ``"x"`` versus ``{"@id": "x"}`` for an
IRI-valued key, spellings that denote the same IRI, and the projection's
mirror keys (``timestamp``, ``description``) when they equal what they mirror.
Everything else (values, value types, list order, nesting) must match exactly.
"""
from __future__ import annotations

import json
from typing import Any

from .context import ActiveContext, Term, mif_context
from .identity import resolve_target

_MIRRORS = (("timestamp", ("modified", "created")), ("description", ("summary",)))


def canonical_frontmatter(fm: dict[str, Any], *, doc_iri: str, base: str) -> Any:
    """A comparable form of a frontmatter mapping (see the module docstring)."""
    fm = dict(fm)
    for mirror, sources in _MIRRORS:
        source = next((fm[s] for s in sources if fm.get(s)), None)
        if mirror in fm and fm[mirror] == source:
            del fm[mirror]
    return _Canon(doc_iri, base).node(fm, mif_context(), top=True)


def equivalent(a: dict[str, Any], b: dict[str, Any], *, doc_iri: str, base: str) -> bool:
    return canonical_frontmatter(a, doc_iri=doc_iri, base=base) == canonical_frontmatter(b, doc_iri=doc_iri, base=base)


def differences(a: dict[str, Any], b: dict[str, Any], *, doc_iri: str, base: str) -> list[str]:
    """Top-level keys whose values are not equivalent, with both sides, for reports."""
    ca = canonical_frontmatter(a, doc_iri=doc_iri, base=base)
    cb = canonical_frontmatter(b, doc_iri=doc_iri, base=base)
    return [
        f"{key}: {json.dumps(ca.get(key), default=str)} != {json.dumps(cb.get(key), default=str)}"
        for key in sorted(set(ca) | set(cb))
        if ca.get(key) != cb.get(key)
    ]


class _Canon:
    def __init__(self, doc_iri: str, base: str) -> None:
        self.doc_iri, self.base = doc_iri, base

    def node(self, obj: dict[Any, Any], ctx: ActiveContext, top: bool = False, in_relationship: bool = False) -> dict[str, Any]:
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
                out[iri] = sorted(str(ctx.expand_iri(v, vocab=True, base=self.doc_iri)) if isinstance(v, str) else repr(v) for v in values)
            elif in_relationship and key == "target" and isinstance(value, str):
                out[iri] = resolve_target(value, self.doc_iri, self.base)
            else:
                out[iri] = self.value(value, term, ctx.child(term), relationships=key == "relationships")
        return out

    def value(self, value: Any, term: Term | None, ctx: ActiveContext, relationships: bool = False) -> Any:
        coerce = term.coerce if term else None
        if coerce == "@json":
            return ("json", json.dumps(value, sort_keys=True, default=str))
        if term is not None and term.container == "@set":
            items = value if isinstance(value, list) else [value]
            canon = [self.item(v, coerce, ctx, relationships) for v in items]
            return ("set", sorted({json.dumps(c, sort_keys=True, default=str) for c in canon}))  # RDF keeps one of duplicates
        if isinstance(value, list):
            return [self.item(v, coerce, ctx, False) for v in value]
        return self.item(value, coerce, ctx, False)

    def item(self, value: Any, coerce: str | None, ctx: ActiveContext, relationship: bool) -> Any:
        if isinstance(value, dict):
            if coerce == "@id" and set(value) <= {"@id", "id"} and len(value) == 1:
                value = next(iter(value.values()))
            else:
                return self.node(value, ctx, in_relationship=relationship)
        if isinstance(value, str) and coerce in ("@id", "@vocab"):
            return ("iri", ctx.expand_iri(value, vocab=coerce == "@vocab", base=self.doc_iri))
        if isinstance(value, list):
            return [self.item(v, coerce, ctx, False) for v in value]
        if isinstance(value, str):
            return str(value)
        return (type(value).__name__, value)
