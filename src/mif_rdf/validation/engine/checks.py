"""The value checks of SHACL Core's constraint components, one per component kind, compiled for one :class:`Data`.

Each check answers for one value node alone (``sh:class``, ``sh:datatype``,
``sh:nodeKind``, ranges, lengths, ``sh:pattern`` translated from XPath,
``sh:languageIn``, ``sh:in``); what it cannot read as XPath does it refuses
with :class:`Unsupported`, so pyshacl runs instead.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, SH, XSD

from mif_rdf.core.patterns import PatternError, PatternTimeout, compile_pattern, note_stopped
from mif_rdf.validation.engine.compiled import Check, Unsupported
from mif_rdf.validation.engine.data import _LANG_STRING, _NONE, _STRING, Data
from mif_rdf.validation.order import compare

_NODE_KINDS = {
    SH.IRI: (URIRef,),
    SH.BlankNode: (BNode,),
    SH.Literal: (Literal,),
    SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal),
    SH.IRIOrLiteral: (URIRef, Literal),
}
#: The Python type rdflib gives a well-formed literal of each datatype; others are not checked further.
_VALUE_TYPES: dict[Any, type | tuple[type, ...]] = {
    XSD.string: str,
    RDF.langString: str,
    XSD.integer: int,
    XSD.decimal: Decimal,
    XSD.float: float,
    XSD.boolean: bool,
    XSD.date: date,
    XSD.time: time,
    XSD.dateTime: datetime,
}


def _rdf11(term: Any) -> Any:
    """``"x"^^xsd:string`` as the plain ``"x"``: one term in RDF 1.1, two to rdflib (oxrdflib gives the typed form,
    the loader and Turtle the plain one), so ``sh:in`` and ``sh:hasValue`` compare them as one."""
    if type(term) is Literal and term.datatype == XSD.string:
        return Literal(str(term))
    return term


def _class_check(data: Data, cls: Any) -> Check:
    """``sh:class``: a value is a SHACL instance of ``cls`` (rdf:type, then rdfs:subClassOf any number of times).

    Reads the evaluator's type and subclass columns, bound after the scans (:meth:`Evaluator.bind_classes`).
    """
    wanted = data.native(cls)
    holder: dict[str, Any] = {}

    def check(value: Any) -> bool:
        classes = holder.get("classes")
        if classes is None:
            classes = holder["classes"] = data.subclasses(wanted)
        return any(t in classes for t in data.types.get(value, _NONE))

    return check


def _language_in(value: Any, ranges: list[str]) -> bool:
    """SPARQL's ``langMatches`` (basic filtering, RFC 4647) against any of ``ranges``."""
    if not isinstance(value, Literal) or not value.language:
        return False
    tag = value.language.lower()
    return any(r == "*" or tag == r or tag.startswith(r + "-") for r in ranges)


def _datatype_check(data: Data, datatype: Any) -> Check:
    """``sh:datatype``: a literal of that datatype whose lexical form is well formed (rdflib's reading, as pyshacl's).

    A literal of another datatype fails without conversion; strings have no ill-formed lexical form.
    """
    wanted = str(datatype)
    if wanted in (_STRING, _LANG_STRING):
        return lambda v: data.datatype(v) == wanted
    parse = _LEXICAL_PARSERS.get(wanted)
    if parse is not None:
        return lambda v: data.datatype(v) == wanted and _parses(parse, data.text(v))
    return lambda v: data.datatype(v) == wanted and _has_datatype(data.term(v), datatype)


#: Datatypes whose well-formedness rdflib (7, on Python 3.11+) decides with exactly these parsers: a
#: literal is well formed when the parser accepts its lexical form.  Calling them directly spares an
#: rdflib Literal per value, and timestamps are mostly distinct (docs/performance.md).
#: ``tests/test_validation_engine.py`` holds them to rdflib's reading.
_LEXICAL_PARSERS: dict[str, Callable[[str], Any]] = {
    str(XSD.dateTime): datetime.fromisoformat,
    str(XSD.time): time.fromisoformat,
}


def _parses(parse: Callable[[str], Any], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


_RANGES: dict[Any, tuple[URIRef, Callable[[int], bool]]] = {
    SH.minInclusive: (SH.MinInclusiveConstraintComponent, lambda order: order >= 0),
    SH.maxInclusive: (SH.MaxInclusiveConstraintComponent, lambda order: order <= 0),
    SH.minExclusive: (SH.MinExclusiveConstraintComponent, lambda order: order > 0),
    SH.maxExclusive: (SH.MaxExclusiveConstraintComponent, lambda order: order < 0),
}
_FLAGS = frozenset("imsxq")
#: Escapes Python's ``re`` and RE2 read otherwise than XPath (``\w``: XPath's takes symbols such as ``+``; ``\s``:
#: XPath's is four characters) or that XPath does not have (Python's anchors and word boundaries).
_NOT_XPATH_ESCAPES = frozenset("wWsSAZbBgG")
#: Letter escapes read alike by XPath, Python's ``re`` and RE2 (``\d``, ``\D`` are spelled as Unicode categories).
_ESCAPES = {"n": "\\n", "r": "\\r", "t": "\\t", "d": "\\p{Nd}", "D": "\\P{Nd}"}
_SPACES = frozenset("\t\n\r ")  # what the x flag removes outside character classes (XPath 3.1, 5.6.1)
_META = frozenset(".\\?*+{}()[]|^$")


def _pattern_check(pattern: str, flags: str, kind: Callable[[Any], Any], text: Callable[[Any], str]) -> Check:
    """The check of one ``sh:pattern``: the XPath pattern translated, run by :mod:`mif_rdf.core.patterns` (linear time).

    RE2 runs every pattern but one with a back-reference (``(a)\\1``), which
    the time-limited fallback runs; a value the limit stops fails the pattern
    (a validator that could not confirm a value does not pass it).
    """
    source, backreference = _xpath_regex(pattern, flags)
    try:
        compiled = compile_pattern(
            source, "".join(f for f in "ims" if f in flags and (f == "i" or "q" not in flags)), ascii=False
        )
    except PatternError as error:
        raise Unsupported(f"sh:pattern {pattern!r}: {error.reason}") from None
    if compiled.engine != "re2" and not backreference:
        raise Unsupported(f"sh:pattern {pattern!r}: not in the dialect RE2 and XPath share")

    def matches(v: Any) -> bool:
        if kind(v) is BNode:
            return False
        try:
            return compiled.matches(text(v))
        except PatternTimeout:
            note_stopped(pattern, text(v))
            return False

    return matches


def _xpath_regex(pattern: str, flags: str) -> tuple[str, bool]:
    """An XPath regular expression (``sh:pattern``, SHACL 4.4.3) as RE2 (and the fallback)
    must read it to match the same.

    Returns the translation and whether it has a back-reference.  Without
    the ``m`` flag XPath's ``$`` is the end of the string, where Python's
    also matches before a final newline: it becomes ``\\z``.  ``\\d`` is
    Unicode's decimal digits (``\\p{Nd}``), as in XPath.  The ``x`` flag
    drops whitespace outside classes; the ``q`` flag makes every character
    itself.  What the readers read differently, or only one reads (``(?``
    groups other than ``(?:``, class subtraction ``[a-z-[aeiou]]``, a ``[``
    inside a class (RE2's ``[[:alpha:]]``), ``{,n}``, the escapes of
    :data:`_NOT_XPATH_ESCAPES` and letter escapes other than ``\\n \\r \\t
    \\d \\D \\p{..} \\P{..}`` and back-references), is refused;
    what RE2 refuses is refused by the caller.
    """
    if "q" in flags:
        return "".join("\\" + char if char in _META else char for char in pattern), False
    out: list[str] = []
    in_class = False
    backreference = False
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\" and at + 1 < len(pattern):
            escaped = pattern[at + 1]
            if escaped in _NOT_XPATH_ESCAPES:
                raise Unsupported(f"sh:pattern {pattern!r}: \\{escaped} means another thing in XPath")
            if escaped in "pP" and pattern[at + 2 : at + 3] == "{" and "}" in pattern[at + 3 :]:
                close = pattern.index("}", at + 3)
                out.append(pattern[at : close + 1])
                at = close + 1
                continue
            if escaped in "123456789" and not in_class:
                backreference = True
                out.append(pattern[at : at + 2])
            elif escaped in _ESCAPES:
                out.append(_ESCAPES[escaped])
            elif escaped.isascii() and not escaped.isalnum():
                out.append(pattern[at : at + 2])
            else:
                raise Unsupported(f"sh:pattern {pattern!r}: \\{escaped} is not read alike by XPath and RE2")
            at += 2
            continue
        if in_class:
            if char == "[":
                raise Unsupported(
                    f"sh:pattern {pattern!r}: [ inside a class (XPath's class subtraction, RE2's [:alpha:])"
                )
            in_class = char != "]"
        elif char == "[":
            in_class = True
            opening = "[^" if pattern[at + 1 : at + 2] == "^" else "["
            at += len(opening)
            out.append(opening)
            if pattern[at : at + 1] == "]":  # a first ] is itself (Python's and RE2's reading)
                out.append("\\]")
                at += 1
            continue
        elif char == "(" and pattern[at + 1 : at + 2] == "?" and pattern[at + 2 : at + 3] != ":":
            raise Unsupported(f"sh:pattern {pattern!r}: (? is not XPath")
        elif char == "{" and pattern[at + 1 : at + 2] == ",":
            raise Unsupported(f"sh:pattern {pattern!r}: {{,n}} is not XPath")
        elif char in _SPACES and "x" in flags:
            at += 1
            continue
        elif char == "$" and "m" not in flags:
            out.append("\\z")
            at += 1
            continue
        out.append(char)
        at += 1
    return "".join(out), backreference


def _has_datatype(value: Any, datatype: Any) -> bool:
    if not isinstance(value, Literal):
        return False
    actual = value.datatype or (None if value.language else XSD.string)
    if value.language and datatype == RDF.langString:
        actual = RDF.langString
    if actual != datatype or getattr(value, "ill_typed", False):
        return False
    expected = _VALUE_TYPES.get(datatype)
    return expected is None or isinstance(value.value, expected)


def _in_range(value: Any, bound: Literal, test: Callable[[int], bool]) -> bool:
    """Whether ``value`` compared with ``bound`` passes ``test``; a type error or an indeterminate order fails."""
    order = compare(value, bound)
    return order is not None and test(order)
