"""An entity field in RDF: the property the loader uses for it and the values it writes.

Shapes must describe the data the loader actually produces, so nothing here
guesses: the property IRI is what ``mif_context().expand_key`` gives for the
key, and every value is described through the same context term (type
coercion, containers).  Facts about the JSON-LD encoding that matter:

* a payload field with no term gets ``mif:<key>`` and an *uncoerced* value: a
  string is an ``xsd:string`` literal even when the schema says
  ``format: date`` (so shapes check the lexical form), an integer is
  ``xsd:integer``, a float ``xsd:double``;
* an array is one value per item (JSON-LD; the projection passes arrays
  through as written), nested arrays flattened; only under an ``@list`` term
  (``reinforcementHistory``) is it one RDF list (``rdf:first``/``rdf:rest``).
  So one value and a one-item array are the same triples: shapes cannot tell
  them apart, and "must be a list" is not a rule;
* a key that is a context term keeps the term's coercion (``created`` is an
  ``xsd:dateTime``, ``uri`` an IRI) and a key meaning ``@type`` becomes
  ``rdf:type`` with vocabulary IRIs;
* a term's datatype applies whatever the value: ``strength`` is an
  ``xsd:decimal`` term, so an entity field ``strength: weak`` is loaded as the
  ill-typed ``"weak"^^xsd:decimal`` (JSON-LD does the same).  When the
  declared type does not fit the term's datatype (or an enum value is not a
  valid lexical form of it), shapes check the text (``sh:pattern``) and OWL
  uses the declared type: no compiled literal is ill-typed.

OWL states the schema's intent (``format: uri`` -> ``xsd:anyURI``), the way an
ontology engineer reads a JSON Schema, within the OWL 2 datatype map
(:data:`OWL2_DATATYPES`): a ``date`` or ``duration`` field gets no OWL range,
its SHACL shape checks it; see docs/ontology.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rdflib import URIRef
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import Node

from mif_rdf.core.context import ActiveContext, Term, mif_context
from mif_rdf.rdf.tordf import Walker, lexical_form

RDF_JSON = URIRef(str(RDF) + "JSON")
#: Formats with an XSD datatype; others stay ``xsd:string``.
FORMAT_DATATYPES = {
    "date-time": XSD.dateTime,
    "date": XSD.date,
    "time": XSD.time,
    "duration": XSD.duration,
    "uri": XSD.anyURI,
    "uri-reference": XSD.anyURI,
    "iri": XSD.anyURI,
    "iri-reference": XSD.anyURI,
}
#: The characters Python's ``re`` reads as ``\s`` (``str.isspace``), spelled out: XPath's ``\s`` is only four of them,
#: and a class read alike by XPath, RE2 and Python keeps the formats' verdicts what they were under pySHACL.
_SPACE = "\\t-\\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: Lexical forms checked for formatted strings (Python and XPath regex alike; none nests quantifiers, and the
#: ``email`` domain splits at its first dot after the first character, so a backtracking engine runs it in
#: linear time: the earlier ``^[^@\s]+@[^@\s]+\.[^@\s]+$`` was quadratic on hostile values and matched the same).
FORMAT_PATTERNS = {
    "date-time": r"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$",
    "date": r"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}$",
    "time": r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$",
    "duration": r"^-?P([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$",
    "uri": f"^[A-Za-z][A-Za-z0-9+.\\-]*:[^{_SPACE}]*$",
    "iri": f"^[A-Za-z][A-Za-z0-9+.\\-]*:[^{_SPACE}]*$",
    "email": f"^[^@{_SPACE}]+@[^@{_SPACE}][^@.{_SPACE}]*\\.[^@{_SPACE}]+$",
    "uuid": r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
}
_EXAMPLES = {
    "date-time": "2026-01-15T10:30:00Z",
    "date": "2026-01-15",
    "time": "10:30:00",
    "duration": "P30D",
    "uri": "https://example.org/x",
    "iri": "https://example.org/x",
    "email": "name@example.org",
}
_JSON_DATATYPES = {
    "string": (XSD.string,),
    "integer": (XSD.integer,),
    "number": (XSD.integer, XSD.decimal, XSD.double),
    "boolean": (XSD.boolean,),
    "null": (RDF_JSON,),
}
_OWL_RANGES = {"string": XSD.string, "integer": XSD.integer, "number": XSD.decimal, "boolean": XSD.boolean}
_LABELS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}
_DATATYPE_LABELS = {
    XSD.dateTime: f"a date-time such as {_EXAMPLES['date-time']}",
    XSD.date: f"a date such as {_EXAMPLES['date']}",
    XSD.duration: f"a duration such as {_EXAMPLES['duration']}",
    XSD.integer: _LABELS["integer"],
    XSD.decimal: "a decimal number",
    XSD.boolean: _LABELS["boolean"],
    XSD.string: _LABELS["string"],
}
#: The OWL 2 datatype map (OWL 2 Structural Specification 4): the only datatypes an OWL 2 DL
#: axiom may use.  ``xsd:date``, ``xsd:time``, ``xsd:duration`` and ``rdf:JSON`` are not in it
#: (HermiT refuses ontologies that use them), so OWL leaves them out and SHACL checks them.
OWL2_DATATYPES = frozenset(
    [
        RDF.PlainLiteral,
        RDF.XMLLiteral,
        URIRef("http://www.w3.org/2000/01/rdf-schema#Literal"),
        URIRef(str(RDF) + "langString"),
    ]
    + [
        XSD[n]
        for n in (
            "decimal",
            "integer",
            "nonNegativeInteger",
            "nonPositiveInteger",
            "positiveInteger",
            "negativeInteger",
            "long",
            "int",
            "short",
            "byte",
            "unsignedLong",
            "unsignedInt",
            "unsignedShort",
            "unsignedByte",
            "double",
            "float",
            "string",
            "normalizedString",
            "token",
            "language",
            "Name",
            "NCName",
            "NMTOKEN",
            "boolean",
            "hexBinary",
            "base64Binary",
            "anyURI",
            "dateTime",
            "dateTimeStamp",
        )
    ]
)
_walker = Walker("urn:mif-rdf:enum")
#: JSON types whose values fit a term's datatype (types not listed: text, checked by _LEXICAL where it has a form).
_DATATYPE_KINDS = {XSD.decimal: ("number", "integer"), XSD.integer: ("integer",), XSD.boolean: ("boolean",)}
_LEXICAL = {
    XSD.dateTime: FORMAT_PATTERNS["date-time"],
    XSD.date: FORMAT_PATTERNS["date"],
    XSD.duration: FORMAT_PATTERNS["duration"],
}
_PYTHON_KINDS = {"number": (int, float), "integer": (int,), "boolean": (bool,)}


@dataclass(frozen=True)
class ValueSpec:
    """One JSON value of a field: the RDF term the loader writes for it, and its OWL range."""

    label: str
    datatypes: tuple[URIRef, ...] = ()  # a literal with one of these datatypes ...
    node_kind: URIRef | None = None  # ... or a node of this kind
    pattern: str | None = None  # lexical form of the literal
    format_datatype: URIRef | None = None  # also accepted: a literal already typed by its format
    enum: tuple[Node, ...] = ()
    owl_range: URIRef | None = None
    owl_enum: tuple[Node, ...] | None = None  # the enum as OWL states it, when not ``enum``
    written_as: URIRef | None = None  # the context term's datatype, when the declared type does not fit it
    nested: tuple[FieldSpec, ...] = ()  # an object's own fields
    nested_required: tuple[str, ...] = ()

    @property
    def ontology_enum(self) -> tuple[Node, ...]:
        """The allowed values for ``owl:oneOf``: typed by the declared type, never ill-typed."""
        return self.enum if self.owl_enum is None else self.owl_enum


@dataclass(frozen=True)
class FieldSpec:
    """A field: its property and how its JSON value is encoded."""

    name: str
    predicate: URIRef | None  # None: the key is JSON-LD's @id (or maps to nothing) and cannot be checked
    core: bool  # the key is a term of the MIF contexts (its IRI is already defined elsewhere)
    array: bool  # a JSON array: repeatable
    encoding: str  # "value" (one RDF value per JSON value), "list" (one RDF list), "json" (one rdf:JSON literal)
    value: ValueSpec  # for arrays, one item


def field_spec(name: str, schema: dict[str, Any], ctx: ActiveContext | None = None) -> FieldSpec:
    """How the field ``name`` with JSON Schema ``schema`` looks in the loaded graph."""
    ctx = ctx if ctx is not None else mif_context()
    iri, term = ctx.expand_key(name)
    child = ctx.child(term)
    array = _types(schema) == ["array"] or (not _types(schema) and "items" in schema)
    if iri == "@type":
        item = _iris(schema.get("items", {}) if array else schema, child, vocab=True)
        return FieldSpec(name, RDF.type, True, array, "value", item)
    if iri is None or iri.startswith("@"):
        return FieldSpec(name, None, True, array, "value", ValueSpec("anything"))
    coerce = term.coerce if term else None
    container = term.container if term else None
    if coerce == "@json":
        return FieldSpec(name, URIRef(iri), term is not None, array, "json", ValueSpec("any JSON value", (RDF_JSON,)))
    if array:
        item = value_spec(schema.get("items") or {}, term, child)
        encoding = "list" if container == "@list" else "value"
        return FieldSpec(name, URIRef(iri), term is not None, True, encoding, item)
    return FieldSpec(name, URIRef(iri), term is not None, False, "value", value_spec(schema, term, child))


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return list(kind) if isinstance(kind, list) else [kind] if isinstance(kind, str) else []


def _enum(schema: dict[str, Any], coerce: str | None, ctx: ActiveContext) -> tuple[Node, ...]:
    """The RDF terms the loader writes for the enum's values (so ``sh:in`` compares like for like)."""
    values = schema.get("enum") or []
    return tuple(
        t for t in (_walker.object(v, coerce, ctx) for v in values if not isinstance(v, (dict, list))) if t is not None
    )


def _iris(schema: dict[str, Any], ctx: ActiveContext, *, vocab: bool) -> ValueSpec:
    enum = tuple(
        URIRef(i) for i in (ctx.expand_iri(v, vocab=vocab) for v in schema.get("enum") or [] if isinstance(v, str)) if i
    )
    return ValueSpec("an IRI", node_kind=SH.IRI, enum=enum)


def value_spec(schema: dict[str, Any], term: Term | None, ctx: ActiveContext) -> ValueSpec:
    """One JSON value with schema ``schema`` under ``term``."""
    coerce = term.coerce if term else None
    if coerce in ("@id", "@vocab"):
        return _iris(schema, ctx, vocab=coerce == "@vocab")
    if coerce == "@json":
        return ValueSpec("any JSON value", (RDF_JSON,))
    types = _types(schema)
    fmt = schema.get("format")
    if coerce is not None and types != ["object"]:  # a typed term: every scalar becomes a literal of that datatype
        datatype = URIRef(coerce)
        if not fits(types, schema.get("enum") or [], datatype):
            return _text_of(schema, datatype, ctx)
        label = _DATATYPE_LABELS.get(datatype, f"a value of type xsd:{datatype.split('#')[-1]}")
        return ValueSpec(label, (datatype,), enum=_enum(schema, coerce, ctx), owl_range=datatype)
    if types == ["object"]:
        nested = tuple(field_spec(k, v or {}, ctx) for k, v in (schema.get("properties") or {}).items())
        return ValueSpec(
            "a mapping", node_kind=SH.BlankNodeOrIRI, nested=nested, nested_required=tuple(schema.get("required") or ())
        )
    if types == ["array"]:  # an array inside an array: JSON-LD flattens it into the outer one
        return value_spec(schema.get("items") or {}, None, ctx)
    if len(types) != 1:  # no type, or several: a datatype check only when all are scalars
        scalar = bool(types) and all(t in _JSON_DATATYPES for t in types)
        datatypes = tuple(d for t in types for d in _JSON_DATATYPES[t]) if scalar else ()
        label = " or ".join(_LABELS[t] for t in types) if types else "any value"
        return ValueSpec(label, datatypes, enum=_enum(schema, None, ctx))
    kind = types[0]
    label = _LABELS[kind]
    pattern = schema.get("pattern")
    format_datatype = None
    if kind == "string" and isinstance(fmt, str):
        format_datatype = FORMAT_DATATYPES.get(fmt)
        if fmt in FORMAT_PATTERNS:
            label = f"a {fmt}" + (f" such as {_EXAMPLES[fmt]}" if fmt in _EXAMPLES else "")
            pattern = pattern or FORMAT_PATTERNS[fmt]
    if kind == "string" and isinstance(schema.get("pattern"), str):
        label = f"text matching {pattern}"  # the author's own pattern: say which, "text" alone would puzzle
    return ValueSpec(
        label,
        _JSON_DATATYPES[kind],
        pattern=pattern,
        format_datatype=format_datatype,
        enum=_enum(schema, None, ctx),
        owl_range=format_datatype or _OWL_RANGES.get(kind),
    )


def fits(types: list[str], enum: list[Any], datatype: URIRef) -> bool:
    """Whether values of the declared ``types`` (and each ``enum`` value) make valid literals of ``datatype``."""
    kinds = _DATATYPE_KINDS.get(datatype, ("string",))
    if not set(types) - {"null"} <= set(kinds):
        return False
    for value in enum:
        if isinstance(value, (dict, list)) or value is None:
            continue
        if kinds[0] in _PYTHON_KINDS:  # bool is an int to Python, not to JSON
            if not isinstance(value, _PYTHON_KINDS[kinds[0]]) or isinstance(value, bool) != (kinds[0] == "boolean"):
                return False
        elif datatype in _LEXICAL and not (isinstance(value, str) and re.match(_LEXICAL[datatype], value)):
            return False
    return True


def _text_of(schema: dict[str, Any], datatype: URIRef, ctx: ActiveContext) -> ValueSpec:
    """A field whose declared type does not fit its term's datatype.

    The loader writes the author's text with the term's datatype (an
    ill-typed literal), so shapes check a literal's text: its enum values or
    the declared pattern.  OWL states the declared type and enum.
    """
    declared = value_spec(schema, None, ctx)  # as if the key had no term
    values = [v for v in schema.get("enum") or [] if not isinstance(v, (dict, list)) and v is not None]
    if values:
        texts = [lexical_form(v, str(datatype))[0] for v in values]
        alternatives = "|".join(_escape(t) for t in texts)
        return ValueSpec(
            f"one of: {', '.join(texts)}",
            node_kind=SH.Literal,
            pattern=f"^({alternatives})$",
            owl_range=declared.owl_range,
            owl_enum=declared.enum,
            written_as=datatype,
        )
    return ValueSpec(
        declared.label,
        node_kind=SH.Literal,
        pattern=declared.pattern,
        owl_range=declared.owl_range,
        written_as=datatype,
    )


def _escape(text: str) -> str:
    """``text`` as a regular expression that XPath (SHACL) and Python read alike."""
    return re.sub(r"([\\|.?*+(){}\[\]^$-])", r"\\\1", text)
