"""Markdown frontmatter -> the JSON-LD projection document (spec section 15).

The projection follows spec 15.1 and 15.4 to the letter: ``id`` -> ``@id``
``urn:mif:<id>``, ``type`` -> ``conceptType``, the body verbatim as
``content``, the ``timestamp`` and ``description`` mirrors, and every other
field passed through *as written*: relationship targets, ``null``, lists in
their order, ``extensions`` and citations unchanged, no key renamed or added.
The context is the published MIF URL plus the mif-rdf extension terms inline
(:func:`~mif_rdf.core.context.projection_context`), so any JSON-LD 1.1 processor
reads the document.

What JSON-LD then does not keep (a ``null``, the order of a list, the
provider names of ``extensions``, the author's spelling of a target) is not
encoded here: the loader keeps the authored frontmatter in the bundle's
*layout* graph (:mod:`mif_rdf.rdf.layout`), apart from the projection.

Only what would make the document invalid JSON-LD, or what JSON-LD would drop
without a word, is touched, and each case is reported as a note naming the
file and key path:

* left out of the projection (error), because it would break the document or
  change its meaning: a key that is not a string, a key inside a nested object
  that is a JSON-LD keyword other than ``@id``/``@type`` (``@context``,
  ``@value`` ...), an ``@id``/``@type`` whose value names no node or type, and
  a key or IRI-valued string that makes an IRI with characters no IRI may hold
  (``{``, ``"`` ...: stores refuse such IRIs);
* kept in the document, with a warning that JSON-LD drops it from the graph:
  a key or IRI-valued string that makes no absolute IRI (a space in it);
* a value JSON has no form for (``.inf``, ``.nan``, binary) is written as text.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from mif_rdf.core.context import (
    ActiveContext,
    Term,
    iri_problem,
    is_absolute_iri,
    is_valid_iri,
    mif_context,
    projection_context,
)
from mif_rdf.core.errors import Problem, Severity
from mif_rdf.source.identity import memory_iri

#: What :meth:`Encoder.value` gives for a value the projection cannot hold (always with a note).
LEFT_OUT = object()
XSD = "http://www.w3.org/2001/XMLSchema#"
#: datatypes a huge integer keeps when its term declares one (any other gets xsd:integer)
_INTEGERS = {XSD + name for name in ("integer", "decimal", "int", "long", "nonNegativeInteger")}
_ZONE = r"(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)?"
_DATE = r"-?[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
#: Lexical spaces of the datatypes the contexts coerce strings to (XSD 1.1): a string outside its
#: datatype's makes an ill-typed literal, which every JSON-LD processor writes as it is.
LEXICAL_FORMS = {
    XSD + "dateTime": re.compile(
        rf"^{_DATE}T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?){_ZONE}$"
    ),
    XSD + "date": re.compile(rf"^{_DATE}{_ZONE}$"),
    XSD + "duration": re.compile(
        r"^-?P(?=[0-9T])([0-9]+Y)?([0-9]+M)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$"
    ),
    XSD + "decimal": re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"),
    XSD + "integer": re.compile(r"^[+-]?[0-9]+$"),
    XSD + "boolean": re.compile(r"^(true|false|1|0)$"),
}
#: The rule of the warning for a value that makes an ill-typed literal.
ILL_TYPED = "ill-typed-literal"
#: Keys of a memory's frontmatter the projection derives itself.
_RESERVED = {"id", "type", "@id", "@context", "conceptType", "content"}
#: The reserved keys the projection derives from something else, which clash when written, in order.
_CLASHING = sorted(_RESERVED - {"id", "type"})


@dataclass
class Projection:
    """One memory's JSON-LD document and what the projection had to say about it."""

    document: dict[str, Any]
    doc_iri: str
    notes: list[Problem] = field(default_factory=list)
    #: (key path, property IRI, value) of each value that should name a node or IRI and is not in the
    #: graph: validation reports it under the rule that asks for an IRI there (the graph cannot show it).
    unusable: list[tuple[str, str, Any]] = field(default_factory=list)
    #: a warning for each value that makes an ill-typed literal (``accessed: 2026-01-24`` under a
    #: date-time term); reported where the graph leaves the machine (export, push), not at load
    ill_typed: list[Problem] = field(default_factory=list)


class Encoder:
    """Copies YAML values into a JSON-LD document, checking what JSON-LD would refuse or drop."""

    def __init__(self, path: str, doc_iri: str) -> None:
        self.path, self.doc_iri = path, doc_iri
        self.notes: list[Problem] = []
        self.unusable: list[tuple[str, str, Any]] = []
        self.ill_typed: list[Problem] = []

    def note(self, keypath: str, message: str, severity: Severity = Severity.WARNING, value: Any = None) -> None:
        self.notes.append(Problem(self.path, message, severity, key=keypath or None, value=value, rule="projection"))

    def node(self, obj: dict[Any, Any], ctx: ActiveContext, keypath: str, owner: str | None = None) -> dict[str, Any]:
        """``obj`` checked key by key; ``owner`` is the IRI of the property whose value it is."""
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if not isinstance(key, str):
                self.note(
                    f"{keypath}.{key}" if keypath else str(key),
                    f"key {key!r} is not a string; left out of the JSON-LD projection",
                    Severity.ERROR,
                    value,
                )
                continue
            role, term, child = ctx.plan(key)
            if role and role[0] != "@" and good_property(role):  # a property with a good IRI: nothing to note
                if type(value) is str and (term is None or term.coerce is None):
                    out[key] = value  # what value() gives such a value, without joining its key path
                    continue
                encoded = self.value(value, term, child, f"{keypath}.{key}" if keypath else str(key))
                if encoded is not LEFT_OUT:
                    out[key] = encoded
                continue
            path = f"{keypath}.{key}" if keypath else str(key)
            iri = ctx.expand_key(key)[0]
            if iri in ("@id", "@type"):
                why = self.reference_problem(iri, value, ctx)
                if why is None:
                    out[key] = value
                else:
                    self.note(path, f"{key!r} {why}; left out of the JSON-LD projection", Severity.ERROR, value)
                continue
            if key.startswith("@") or (iri or "").startswith("@"):
                self.note(
                    path, f"key {key!r} is a JSON-LD keyword; left out of the JSON-LD projection", Severity.ERROR, value
                )
                continue
            if iri is not None and is_absolute_iri(iri) and not is_valid_iri(iri):
                self.note(
                    path,
                    f"key {key!r} makes an IRI that {iri_problem(iri)}; left out of the JSON-LD projection",
                    Severity.ERROR,
                    value,
                )
                continue
            if iri is None or not is_absolute_iri(iri):
                self.note(path, f"key {key!r} makes no RDF property IRI; JSON-LD drops it from the graph")
            encoded = self.value(value, term, ctx.child(term), path)
            if encoded is not LEFT_OUT:
                out[key] = encoded
        if obj and not out:  # nothing of it is left: it names nothing (`{"@value": "x"}` where a node belongs)
            self.unusable_value(keypath, owner, obj)
        return out

    def unusable_value(self, keypath: str, iri: str | None, value: Any) -> None:
        if keypath and iri is not None:
            self.unusable.append((keypath, iri, value))

    def reference_problem(self, keyword: str, value: Any, ctx: ActiveContext) -> str | None:
        """Why ``value`` cannot be the ``@id`` (or ``@type``) of a node, or None."""
        if keyword == "@id":
            ok = isinstance(value, str) and is_valid_iri(ctx.expand_iri(value, base=self.doc_iri) or "")
            return None if ok else "must be a string that makes a valid IRI"
        values = value if isinstance(value, list) else [value]
        ok = bool(values) and all(
            isinstance(v, str) and is_valid_iri(ctx.expand_iri(v, vocab=True, base=self.doc_iri) or "") for v in values
        )
        return None if ok else "must be a string (or list of strings) naming a type"

    def value(self, value: Any, term: Term | None, ctx: ActiveContext, keypath: str) -> Any:
        coerce = term.coerce if term else None
        if coerce is None and type(value) is str:  # most values: no check applies, and JSON has the string as it is
            return value
        if coerce == "@json":  # the term takes any JSON value verbatim
            return _jsonable(value)
        if isinstance(value, dict):
            return self.node(value, ctx, keypath, term.iri if term else None)
        if isinstance(value, list):
            items = []
            for i, v in enumerate(value):
                # a string with no coercion is itself (the first line above), without joining its key path
                item = v if coerce is None and type(v) is str else self.value(v, term, ctx, f"{keypath}[{i}]")
                if item is not LEFT_OUT:
                    items.append(item)
            return items
        if isinstance(value, str) and coerce in ("@id", "@vocab"):
            iri = ctx.expand_iri(value, vocab=coerce == "@vocab", base=self.doc_iri)
            if iri is not None and is_absolute_iri(iri) and not is_valid_iri(iri):
                self.note(
                    keypath,
                    f"{value!r} makes an IRI that {iri_problem(iri)}; left out of the JSON-LD projection",
                    Severity.ERROR,
                    value,
                )
                self.unusable_value(keypath, term.iri if term else None, value)
                return LEFT_OUT
            if iri is None or not is_absolute_iri(iri):
                self.note(keypath, f"{value!r} does not make an IRI; JSON-LD drops it from the graph", value=value)
                self.unusable_value(keypath, term.iri if term else None, value)
        elif coerce in LEXICAL_FORMS and not _in_lexical_space(value, coerce):
            name = coerce[len(XSD) :]
            # a date under a dateTime term is the spec's own form (``accessed: 2026-01-20``): a note, nothing to fix
            as_spec = (
                coerce == XSD + "dateTime" and isinstance(value, str) and bool(LEXICAL_FORMS[XSD + "date"].match(value))
            )
            self.ill_typed.append(
                Problem(
                    self.path,
                    f"{value!r} is not an xsd:{name} (the context types {keypath.rsplit('.', 1)[-1]!r} so): the "
                    "graph holds "
                    f'the ill-typed literal "{_jsonable(value)}"^^xsd:{name}, as every JSON-LD processor writes it; '
                    "stores may read it differently" + ("; the spec writes a date here" if as_spec else ""),
                    Severity.INFO if as_spec else Severity.WARNING,
                    key=keypath,
                    value=value,
                    rule=ILL_TYPED,
                )
            )
        elif type(value) is int and abs(value) >= 10**21:
            # JSON-LD toRdf writes a number this large as an xsd:double ("1.0E21"), losing digits (issue 15)
            return {"@value": str(value), "@type": coerce if coerce in _INTEGERS else XSD + "integer"}
        elif isinstance(value, float) and not math.isfinite(value):
            self.note(keypath, f"{value!r} has no JSON form; written as the text {_jsonable(value)!r}", value=value)
        elif value is not None and not isinstance(value, (bool, int, float, str)):
            self.note(
                keypath, f"YAML value of type {type(value).__name__} has no JSON form; written as text", Severity.ERROR
            )
        return _jsonable(value)


def project_memory(frontmatter: dict[str, Any], body: str, *, path: str, doc_iri: str) -> Projection:
    """The JSON-LD projection document of one memory (spec 15.1)."""
    ctx = mif_context()
    enc = Encoder(path, doc_iri)
    types = memory_types(frontmatter, enc, ctx)
    doc: dict[str, Any] = {
        "@context": projection_context(),
        "@type": types if len(types) > 1 else "Concept",
        "@id": memory_iri(str(frontmatter["id"])),
    }
    if "type" in frontmatter:
        doc["conceptType"] = enc.value(frontmatter["type"], ctx.terms["conceptType"], ctx, "type")
    doc.update(enc.node(memory_rest(frontmatter, enc), ctx, ""))
    doc.update(memory_tail(frontmatter, body))
    return Projection(doc, doc_iri, enc.notes, enc.unusable, enc.ill_typed)


def memory_types(frontmatter: dict[str, Any], enc: Encoder, ctx: ActiveContext) -> list[Any]:
    """The memory's types: ``Concept`` and a usable ``@type`` of the frontmatter (else a note)."""
    types: list[Any] = ["Concept"]
    extra_types = frontmatter.get("@type")
    if extra_types is not None and enc.reference_problem("@type", extra_types, ctx) is None:
        types.extend(extra_types if isinstance(extra_types, list) else [extra_types])
    elif extra_types is not None:
        enc.note(
            "@type",
            "'@type' must be a string (or list of strings) naming a type; left out of the JSON-LD projection",
            Severity.ERROR,
            extra_types,
        )
    return types


def memory_rest(frontmatter: dict[str, Any], enc: Encoder) -> dict[Any, Any]:
    """The frontmatter fields passed through as written (a note for each key that clashes with a derived one)."""
    for key in _CLASHING:
        if key in frontmatter:
            enc.note(
                key,
                f"frontmatter key {key!r} clashes with what the projection derives; it is not kept in RDF",
                Severity.ERROR,
            )
    return {key: value for key, value in frontmatter.items() if key not in _RESERVED and key != "@type"}


def memory_tail(frontmatter: dict[str, Any], body: str) -> dict[str, str]:
    """The document's last keys: the body as ``content``, and the ``timestamp`` and ``description`` mirrors."""
    tail = {"content": body}
    mirror = frontmatter.get("modified") or frontmatter.get("created")
    if "timestamp" not in frontmatter and isinstance(mirror, str):
        tail["timestamp"] = mirror
    if "description" not in frontmatter and isinstance(frontmatter.get("summary"), str):
        tail["description"] = frontmatter["summary"]
    return tail


def project_entity(data: dict[str, Any], *, iri: str, path: str, doc_iri: str) -> Projection:
    """The JSON-LD document of an entity file (spec 7.4): ``id`` -> ``@id``, ``type`` -> ``@type``."""
    ctx = mif_context()
    enc = Encoder(path, doc_iri)
    doc: dict[str, Any] = {"@context": projection_context(), "@id": iri}
    if isinstance(data.get("type"), str) and is_valid_iri(ctx.expand_iri(data["type"], vocab=True) or ""):
        doc["@type"] = data["type"]
    doc.update(enc.node({k: v for k, v in data.items() if k not in ("id", "type")}, ctx, ""))
    return Projection(doc, doc_iri, enc.notes, enc.unusable, enc.ill_typed)


@functools.lru_cache(maxsize=4096)
def good_property(iri: str) -> bool:
    """:func:`is_valid_iri` of a property IRI, checked once: a bundle has a few hundred properties, each on
    thousands of memories."""
    return is_valid_iri(iri)


def _in_lexical_space(value: Any, datatype: str) -> bool:
    """Whether JSON-LD makes a well-typed literal of ``value`` under a term coerced to ``datatype``."""
    if isinstance(value, bool):
        return datatype == XSD + "boolean"
    if isinstance(value, (int, float)):
        return datatype in (XSD + "decimal", XSD + "integer") and (
            isinstance(value, int) or datatype == XSD + "decimal"
        )
    return not isinstance(value, str) or bool(LEXICAL_FORMS[datatype].match(value))


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
