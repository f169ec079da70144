"""Fast JSON-LD -> RDF for projection documents, walking the precompiled context.

This is JSON-LD 1.1 toRdf (expansion folded in) for the shapes the projection
produces, much faster than pyld's general algorithm (docs/performance.md)
because it skips expansion, flattening and the node map.  Its output is checked against pyld,
memory by memory, in the test suite (tests/test_equivalence.py).  Two
deliberate differences, both equal by value: an ``xsd:decimal`` is written as
the canonical decimal of the author's number (pyld writes ``0.94`` as
``9.399999999999999E-1``), and a float with no fractional part stays an
``xsd:double`` (pyld makes ``3.0`` an ``xsd:integer``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD

from mif_rdf.core.bounded_cache import BoundedCache
from mif_rdf.core.context import ActiveContext, Term, is_absolute_iri, mif_context, projection_context, property_values

#: A triple the walker writes: rdflib terms, or N-Triples term text under :class:`NQuadsTerms`.
WalkedTriple = tuple[Any, Any, Any]
_XSD_DECIMAL, _XSD_DOUBLE, _XSD_STRING = str(XSD.decimal), str(XSD.double), str(XSD.string)
_XSD_BOOLEAN, _XSD_INTEGER = str(XSD.boolean), str(XSD.integer)
_RDF_JSON_IRI = str(RDF) + "JSON"
#: Strings longer than this are not looked up in the walker's literal cache.
CACHED_LENGTH = 120
#: One URIRef per IRI: a bundle's properties, types and datatypes come back in every memory.
_uri_cache: BoundedCache[str, URIRef] = BoundedCache(4 << 20)


def _uri(iri: str) -> URIRef:
    found = _uri_cache.get(iri)
    if found is None:
        found = _uri_cache.keep(iri, URIRef(iri))
    return found


class RdflibTerms:
    """The walker's output as rdflib nodes: what rdflib stores hold and every rdflib API takes."""

    TYPE, FIRST, REST, NIL = RDF.type, RDF.first, RDF.rest, RDF.nil
    #: One Literal per distinct (type, value, datatype): two thirds of a bundle's literals repeat
    #: (enums, flags, names), and building an rdflib Literal is the walker's largest cost.  8 MiB (about 14,000
    #: entries) keeps 91 % of the hits an unbounded memo has over 100,000 memories (docs/scale.md, "Memos bounded
    #: by bytes").
    literals: BoundedCache[tuple[Any, ...], Any] = BoundedCache(8 << 20)

    iri = staticmethod(_uri)

    @staticmethod
    def blank() -> BNode:
        return BNode()

    @staticmethod
    def literal(lexical: str, datatype: str | None) -> Literal:
        if datatype is None:  # a plain string (lexical_form turns xsd:string into None)
            return Literal(lexical)
        return Literal(lexical, datatype=_uri(datatype), normalize=False)


class NQuadsTerms:
    """The walker's output as N-Triples term text, for loading into Oxigraph in one parse.

    Building rdflib terms and converting them to pyoxigraph terms in Python
    cost more than the rest of an Oxigraph load; Oxigraph parses this text in
    Rust.  Literals are escaped with ``json.dumps``, whose escapes (quote,
    backslash, ``\\n``, ``\\uXXXX`` ...) are all valid N-Triples.  Oxigraph gives the
    blank nodes of each parse new names, so labels only need to be unique
    within one load: a random prefix per document and a counter.
    """

    TYPE, FIRST, REST, NIL = (f"<{iri}>" for iri in (RDF.type, RDF.first, RDF.rest, RDF.nil))
    #: The one pass (:mod:`mif_rdf.rdf.memory_nquads`) writes the plain strings and numbers itself: what reaches
    #: this memo seldom repeats (8 % hits even unbounded), so it stays small.
    literals: BoundedCache[tuple[Any, ...], Any] = BoundedCache(2 << 20)

    def __init__(self) -> None:
        # 64 random bits a document (``random`` is reseeded in a forked worker, so workers never share labels)
        self.prefix = f"_:b{random.getrandbits(64):016x}x"
        self.count = 0

    @staticmethod
    def iri(iri: str) -> str:
        return "<" + iri + ">"

    def blank(self) -> str:
        self.count += 1
        return self.prefix + str(self.count)

    @staticmethod
    def literal(lexical: str, datatype: str | None) -> str:
        text = quoted(lexical)
        if datatype is None:  # a plain string (lexical_form turns xsd:string into None)
            return text
        return text + "^^<" + datatype + ">"


#: What ``json.dumps`` escapes in a string (with ``ensure_ascii=False``): controls, the quote and the backslash.
_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


def quoted(lexical: str) -> str:
    """``lexical`` as a quoted N-Triples string: ``json.dumps``'s text, without its call for the many strings
    it would leave as they are (no control character, quote or backslash)."""
    if _ESCAPED.search(lexical) is None:
        return '"' + lexical + '"'
    return json.dumps(lexical, ensure_ascii=False)


def nt_string(text: str) -> str:
    """A plain N-Triples string: ``text`` quoted, with backslash, quote, newline and return escaped (the rest as is).

    Four ``str.replace`` passes run at memory speed where ``str.translate``
    looks every character up in a table: 10 against 150 us for a 1,300-character
    literal, a memory's layout line."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


Terms = RdflibTerms | NQuadsTerms


def canonical_double(value: float) -> str:
    """xsd:double in canonical form (``1.5E0``) with the shortest digits that give ``value`` back.

    pyld keeps 16 significant digits, which changes some doubles; this keeps them all.
    """
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits)) or "0"
    scale = len(text) - 1 + int(exponent)
    mantissa = text[0] + "." + (text[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{scale}"


def canonical_decimal(value: float | int) -> str:
    """The author's number as an xsd:decimal lexical form (no exponent)."""
    if isinstance(value, int):
        return str(value)
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


def json_lexical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Walker:
    """Collects the triples of one JSON-LD document, as rdflib nodes or as N-Triples term text."""

    def __init__(self, base: str, terms: Terms | None = None) -> None:
        self.base = base
        self.terms = terms if terms is not None else RdflibTerms()
        self.triples: list[WalkedTriple] = []
        self.labels: dict[str, Any] = {}  # the document's own blank node labels: scoped to it, as in JSON-LD

    def node(self, obj: dict[str, Any], ctx: ActiveContext) -> Any:
        local = obj.get("@context")
        if local is not None:
            ctx = ctx.embedded(local)
        terms = self.terms
        plan = ctx.plan
        subject = None
        types: list[str] = []
        props: list[tuple[str, Term | None, Any, ActiveContext]] = []
        for key, value in obj.items():
            role, term, child = plan(key)
            if not role:
                continue
            if role == "@id":
                subject = self.reference(ctx.expand_iri(value, base=self.base) or "")
            elif role == "@type":
                types.extend(value if isinstance(value, list) else [value])
            else:
                props.append((role, term, value, child))
        if subject is None:
            subject = terms.blank()
        add = self.triples.append
        for t in types:
            add((subject, terms.TYPE, terms.iri(ctx.expand_iri(t, vocab=True, base=self.base) or "")))
        for iri, term, value, child in props:
            self.values(subject, terms.iri(iri), value, term, child)
        return subject

    def reference(self, iri: str) -> Any:
        """The node an expanded ``@id`` names: a blank node for ``_:label``, else the IRI."""
        if iri.startswith("_:"):
            found = self.labels.get(iri)
            if found is None:
                found = self.labels[iri] = self.terms.blank()
            return found
        return self.terms.iri(iri)

    def values(self, subject: Any, predicate: Any, value: Any, term: Term | None, ctx: ActiveContext) -> None:
        coerce = term.coerce if term else None
        container = term.container if term else None
        if type(value) is str and container is None and coerce != "@id" and coerce != "@vocab" and coerce != "@json":
            self.triples.append((subject, predicate, self.literal(value, coerce)))  # most values: one string
            return
        if coerce == "@json":
            self.triples.append((subject, predicate, self.json_literal(value)))
            return
        if term and container == "@index" and isinstance(value, dict):  # always an index map, as in JSON-LD
            for item in value.values():
                self.values(subject, predicate, item, Term(term.name, term.iri, coerce), ctx)
            return
        if container == "@list" and value is not None and not (isinstance(value, dict) and "@list" in value):
            # a list container makes a list of any value, a lone one included (JSON-LD 1.1 expansion; pyld agrees)
            items = value if isinstance(value, list) else [value]
            self.triples.append((subject, predicate, self.list(items, coerce, ctx)))
            return
        for item in property_values(value):
            obj = self.object(item, coerce, ctx)
            if obj is not None:
                self.triples.append((subject, predicate, obj))

    def list(self, items: list[Any], coerce: str | None, ctx: ActiveContext) -> Any:
        return self.chain([o for o in (self.object(i, coerce, ctx) for i in items) if o is not None])

    def chain(self, objects: Sequence[Any]) -> Any:
        """The head of an RDF list of ``objects`` (``rdf:nil`` when there are none), its cells added."""
        terms = self.terms
        if not objects:
            return terms.NIL
        head: Any = terms.blank()
        node: Any = head
        add = self.triples.append
        for index, obj in enumerate(objects):
            add((node, terms.FIRST, obj))
            nxt = terms.blank() if index + 1 < len(objects) else terms.NIL
            add((node, terms.REST, nxt))
            node = nxt
        return head

    def object(self, item: Any, coerce: str | None, ctx: ActiveContext) -> Any:
        if item is None:
            return None
        if isinstance(item, dict):
            if "@value" in item:
                datatype = item.get("@type")
                if datatype == "@json":
                    return self.json_literal(item["@value"])
                if item["@value"] is None:
                    return None
                return self.literal(item["@value"], ctx.expand_iri(datatype, vocab=True) if datatype else None)
            if "@list" in item:
                return self.list(item["@list"], coerce, ctx)
            return self.node(item, ctx)
        if isinstance(item, list):  # a list inside a list
            return self.list(item, coerce, ctx)
        if isinstance(item, str):
            if coerce == "@id" or coerce == "@vocab":
                iri = ctx.expand_iri(item, vocab=coerce == "@vocab", base=self.base)
                if iri is None:
                    return None
                return self.reference(iri) if iri.startswith("_:") or is_absolute_iri(iri) else None
            return self.literal(item, coerce)
        datatype = coerce if coerce not in (None, "@id", "@vocab", "@json") else None
        return self.literal(item, datatype)

    def literal(self, value: Any, datatype: str | None) -> Any:
        """The literal of a JSON value, built once per distinct (type, value, datatype).

        Long strings (a memory's body, its summary) are built each time: they seldom repeat, and looking
        them up would hash every one and keep it in the cache.
        """
        if type(value) is str and len(value) > CACHED_LENGTH:
            return self.terms.literal(*lexical_form(value, datatype))
        key = (
            type(value),
            repr(value) if isinstance(value, float) else value,
            datatype,
        )  # -0.0 == 0.0, but their literals differ
        cache = self.terms.literals
        found = cache.get(key)
        if found is None:
            found = cache.keep(key, self.terms.literal(*lexical_form(value, datatype)))
        return found

    def json_literal(self, value: Any) -> Any:
        return self.terms.literal(json_lexical(value), _RDF_JSON_IRI)


def lexical_form(value: Any, datatype: str | None) -> tuple[str, str | None]:
    """The lexical form and datatype JSON-LD toRdf gives a JSON value; None (a plain string) for ``xsd:string``."""
    lexical, datatype = _typed_lexical(value, datatype)
    return lexical, None if datatype == _XSD_STRING else datatype


def _typed_lexical(value: Any, datatype: str | None) -> tuple[str, str | None]:
    if isinstance(value, bool):
        return ("true" if value else "false"), datatype or _XSD_BOOLEAN
    if isinstance(value, int):
        if abs(value) >= 10**21:
            return canonical_double(float(value)), datatype or _XSD_DOUBLE
        return str(value), datatype or _XSD_INTEGER
    if isinstance(value, float):
        if datatype == _XSD_DECIMAL:
            return canonical_decimal(value), _XSD_DECIMAL
        return canonical_double(value), datatype or _XSD_DOUBLE
    return str(value), datatype


def document_triples(document: dict[str, Any], base: str, terms: Terms | None = None) -> list[WalkedTriple]:
    """Triples of one projection document (the graph pyld's toRdf gives, by value), as rdflib nodes by default."""
    local = document.get("@context")
    ctx = mif_context() if local == projection_context() else ActiveContext({}, None).with_context(local)
    walker = Walker(base, terms)
    walker.node(document, ctx)
    return walker.triples


def document_nquads(document: dict[str, Any], base: str, graph: str) -> str:
    """The triples of one projection document as N-Quads lines in the named graph ``graph``, each line once."""
    return nquads_text(document_triples(document, base, NQuadsTerms()), graph)


def nquads_text(triples: list[WalkedTriple], graph: str) -> str:
    """Triples of N-Triples term text (:class:`NQuadsTerms`) as N-Quads lines in the named graph ``graph``,
    each line once (:func:`each_line_once`)."""
    tail = " <" + graph + "> .\n"
    return each_line_once([f"{s} {p} {o}{tail}" for s, p, o in triples])


def each_line_once(lines: list[str]) -> str:
    """N-Quads lines (each one line, newline included) joined, a repeated one only where it first came.

    A store holds each quad once, and the streamed export writes what a store
    holds: a memory's text says each quad once, so the export writes it as it
    comes, with its lines counted by their newlines, not split again (splitting
    each memory's text to find repeats was 2 % of the export's CPU).  Repeats
    are rare (a tag written twice); finding none costs a set of the lines.
    """
    return "".join(lines if len(set(lines)) == len(lines) else dict.fromkeys(lines))
