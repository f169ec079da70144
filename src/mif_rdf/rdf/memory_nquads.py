"""One memory's frontmatter straight to N-Quads text, in one pass, with no projection document.

A load into Oxigraph and the streamed export need a memory's graph as N-Quads
text, not its JSON-LD document.  Building the document
(:func:`~mif_rdf.rdf.projection.project_memory`) and then walking it
(:func:`~mif_rdf.rdf.tordf.document_nquads`) visits every value twice and
copies every node; this walks the frontmatter once, making the projection's
checks (:class:`~mif_rdf.rdf.projection.Encoder`: its ill-typed warnings) and
writing the walker's triples (:class:`~mif_rdf.rdf.tordf.Walker`: the same
terms, in the same order, with the same blank node labels) as it goes.

It takes the memories the projection has nothing to say about, which is
nearly every memory of a real bundle.  Where the projection would leave
something out or warn (a key that makes no IRI, a value JSON has no form
for ...), or the frontmatter has a shape whose document the walker reads in a
way of its own (a list inside a list, an index map keyed by a term),
:func:`memory_nquads` gives None and the caller builds the document and walks
it: those notes and quads stay the projection's.  tests/test_memory_nquads.py
checks the text, line for line, against the two passes on every fixture and
generated bundles.
"""

from __future__ import annotations

from typing import Any

from mif_rdf.core.bounded_cache import BoundedCache
from mif_rdf.core.context import ActiveContext, Term, is_absolute_iri, is_valid_iri, mif_context
from mif_rdf.core.errors import Problem
from mif_rdf.rdf.projection import (
    LEFT_OUT,
    LEXICAL_FORMS,
    XSD,
    Encoder,
    good_property,
    memory_rest,
    memory_tail,
    memory_types,
)
from mif_rdf.rdf.tordf import CACHED_LENGTH, NQuadsTerms, Walker, each_line_once, quoted
from mif_rdf.source.identity import memory_iri, surely_valid_iri

#: How the one pass takes a node's key (by context and key, :func:`_plan`).
_PLAIN, _VALUE, _REFERENCE, _OTHER = range(4)
#: (how, predicate text, term, context of the values) of a node's key.
_Plan = tuple[int, str, Term | None, ActiveContext]
_plans: dict[ActiveContext, tuple[dict[str, _Plan], frozenset[str]]] = {}
#: The N-Triples text of plain strings: a bundle's short strings repeat (tags, names, enums).  Each memo holds a
#: few MiB (:class:`BoundedCache`): what repeats comes back soon (docs/scale.md, "Memos bounded by bytes").
_plain: BoundedCache[str, str] = BoundedCache(4 << 20)
#: The literal text of a (type, value, datatype) that the projection takes without a word (numbers, flags).
_scalars: BoundedCache[tuple[Any, ...], str] = BoundedCache(2 << 20)
#: The IRI text of an ``@vocab`` value or a type, by context and value (with a vocabulary, the base takes no part).
_vocab: BoundedCache[tuple[ActiveContext, str], str] = BoundedCache(1 << 20)
_XSD_STRING = XSD + "string"


class _NeedsProjection(Exception):
    """The memory has something the one pass does not take: build its projection document instead."""


def memory_nquads(
    frontmatter: dict[str, Any], body: str, *, path: str, doc_iri: str, graph: str
) -> tuple[str, list[Problem]] | None:
    """The memory's graph as N-Quads lines in ``graph`` and its ill-typed literal warnings, or None.

    Equal to ``document_nquads(project_memory(...).document, doc_iri, graph)`` (each line
    once, :func:`~mif_rdf.rdf.tordf.each_line_once`) and that projection's ``ill_typed`` when
    the projection has no notes; None when it has (or may have) some, so that the caller
    projects the memory.
    """
    one = _OnePass(path, doc_iri, graph)
    try:
        one.memory(frontmatter, body)
    except _NeedsProjection:
        return None
    if one.enc.notes:
        return None
    return each_line_once(one.lines), one.enc.ill_typed


def _plan(ctx: ActiveContext, key: str) -> _Plan:
    """How a node's ``key`` is taken, from :meth:`ActiveContext.plan` and what the projection checks of it.

    ``_PLAIN``: a property whose plain string values are plain literals; ``_VALUE``: any other
    property; ``_REFERENCE``: ``@id`` or ``@type``; ``_OTHER``: a key the projection leaves out or
    warns about.  Memoized by context (contexts are themselves memoized) and key.
    """
    plans = _plans_of(ctx)[0]
    found = plans.get(key)
    if found is None:
        role, term, child = ctx.plan(key)
        if role == "@id" or role == "@type":
            found = (_REFERENCE, role, term, child)
        elif not (role and role[0] != "@" and good_property(role)):
            found = (_OTHER, role, term, child)
        elif term is None or (term.coerce is None and term.container is None):
            found = (_PLAIN, "<" + role + ">", term, child)
        else:
            found = (_VALUE, "<" + role + ">", term, child)
        if len(plans) < 10_000:  # the keys of one bundle's frontmatter, not every key ever seen
            plans[key] = found
    return found


def _plans_of(ctx: ActiveContext) -> tuple[dict[str, _Plan], frozenset[str]]:
    """The plans of ``ctx`` known so far (:func:`_plan`) and the keys that are its ``@id`` or ``@type``."""
    found = _plans.get(ctx)
    if found is None:
        references = {"@id", "@type"} | {name for name in ctx.terms if ctx.plan(name)[0] in ("@id", "@type")}
        found = _plans[ctx] = ({}, frozenset(references))
    return found


def _plain_literal(value: str) -> str:
    """The N-Triples text of a plain string (:meth:`NQuadsTerms.literal` without a datatype), short ones kept."""
    found = _plain.get(value)
    if found is None:
        found = quoted(value)
        if len(value) <= CACHED_LENGTH:
            _plain.keep(value, found)
    return found


class _OnePass:
    """The projection's checks and the walker's lines in one visit of the frontmatter.

    Each method mirrors the projection's (:class:`Encoder`) and the walker's
    (:class:`Walker`) handling of the same value.  Plain strings, the most
    values, are written here; every other term is the walker's own
    (:meth:`Walker.literal`, :meth:`Walker.object` ...), whose triples are
    turned into lines as soon as it adds them (:meth:`flush`), so the lines
    come in the walker's order.
    """

    def __init__(self, path: str, doc_iri: str, graph: str) -> None:
        self.enc = Encoder(path, doc_iri)
        self.walker = Walker(doc_iri, NQuadsTerms())
        self.base = doc_iri
        self.tail = " <" + graph + "> .\n"
        self.lines: list[str] = []

    def flush(self) -> None:
        """The walker's triples so far as lines, in their order."""
        triples, tail = self.walker.triples, self.tail
        if triples:
            self.lines.extend([f"{s} {p} {o}{tail}" for s, p, o in triples])
            triples.clear()

    def memory(self, frontmatter: dict[str, Any], body: str) -> None:
        """The document :func:`project_memory` makes, walked as :meth:`Walker.node` walks it."""
        enc, walker, ctx = self.enc, self.walker, mif_context()
        types = memory_types(frontmatter, enc, ctx)
        subject = walker.reference(ctx.expand_iri(memory_iri(str(frontmatter["id"])), base=self.base) or "")
        self.types(subject, self.type_texts(types, ctx))
        if "type" in frontmatter:
            encoded = enc.value(frontmatter["type"], ctx.terms["conceptType"], ctx, "type")
            if encoded is LEFT_OUT:
                raise _NeedsProjection
            self.walked("conceptType", encoded, subject, ctx)
        self.properties(subject, memory_rest(frontmatter, enc), ctx, "")
        for key, value in memory_tail(frontmatter, body).items():
            self.walked(key, value, subject, ctx)

    def walked(self, key: str, value: Any, subject: str, ctx: ActiveContext) -> None:
        """A value already in its document form, under ``key`` of the top node: the walker's own step."""
        how, predicate, term, child = _plan(ctx, key)
        if how == _OTHER or how == _REFERENCE:  # the walker writes any key with a role, even one the projection refuses
            if not predicate or how == _REFERENCE:
                return
            predicate = "<" + predicate + ">"
        coerce = term.coerce if term else None
        if type(value) is str and (term is None or term.container is None) and (coerce is None or coerce[0] != "@"):
            self.lines.append(f"{subject} {predicate} {self.walker.literal(value, coerce)}{self.tail}")
            return
        self.walker.values(subject, predicate, value, term, child)
        self.flush()

    def type_texts(self, value: Any, ctx: ActiveContext) -> list[str]:
        """The IRI texts of a node's ``@type`` (a string or a list of them), as the walker writes them.

        What :meth:`Encoder.reference_problem` refuses goes to the projection.
        """
        values = value if isinstance(value, list) else [value]
        if not values:
            raise _NeedsProjection
        texts = []
        for t in values:
            if not isinstance(t, str):
                raise _NeedsProjection
            text = _vocab.get((ctx, t)) if ctx.vocab is not None else None
            if text is None:
                iri = ctx.expand_iri(t, vocab=True, base=self.base)
                if not iri or not is_valid_iri(iri):
                    raise _NeedsProjection
                text = "<" + iri + ">"
                if ctx.vocab is not None:  # then the base takes no part in it
                    _vocab.keep((ctx, t), text)
            texts.append(text)
        return texts

    def types(self, subject: str, texts: list[str]) -> None:
        """The ``rdf:type`` lines of a node."""
        type_text, tail = self.walker.terms.TYPE, self.tail
        self.lines.extend([f"{subject} {type_text} {text}{tail}" for text in texts])

    def node(self, obj: dict[Any, Any], ctx: ActiveContext, keypath: str) -> str:
        """A nested node: its subject (``@id`` or a new blank node), its types, then its properties."""
        walker = self.walker
        subject = None
        types: list[str] = []
        references = _plans_of(ctx)[1]
        if not references.isdisjoint(obj):
            for key in [key for key in obj if key in references]:  # in the node's order, as the walker reads them
                value = obj[key]
                if ctx.plan(key)[0] == "@type":
                    types.extend(self.type_texts(value, ctx))
                    continue
                iri = ctx.expand_iri(value, base=self.base) if isinstance(value, str) else None
                if not iri or not is_valid_iri(iri):
                    raise _NeedsProjection  # what :meth:`Encoder.reference_problem` refuses
                subject = walker.reference(iri)
        if subject is None:
            subject = walker.terms.blank()
        if types:
            self.types(subject, types)
        self.properties(subject, obj, ctx, keypath)
        return subject

    def properties(self, subject: str, obj: dict[Any, Any], ctx: ActiveContext, keypath: str) -> None:
        """The lines of a node's properties, in their order (``@id`` and ``@type`` are the caller's)."""
        lines, tail = self.lines, self.tail
        plans = _plans_of(ctx)[0]
        for key, value in obj.items():
            found = plans.get(key)  # only string keys are planned
            if found is None:
                if not isinstance(key, str):
                    raise _NeedsProjection
                found = _plan(ctx, key)
            how, predicate, term, child = found
            if how == _PLAIN:
                if type(value) is str:  # most values: a plain string
                    lines.append(f"{subject} {predicate} {_plain_literal(value)}{tail}")
                    continue
            elif how == _REFERENCE:
                if not keypath:  # a second @id or @type in the memory's own node: the walker takes the last
                    raise _NeedsProjection
                continue
            elif how == _OTHER:
                raise _NeedsProjection  # left out, or kept with a warning: the projection's notes
            self.values(subject, predicate, value, term, child, f"{keypath}.{key}" if keypath else key)

    def values(
        self, subject: str, predicate: str, value: Any, term: Term | None, ctx: ActiveContext, keypath: str
    ) -> None:
        """The lines of one property's value: :meth:`Encoder.value` and :meth:`Walker.values` in one step."""
        coerce = term.coerce if term else None
        container = term.container if term else None
        lines, tail = self.lines, self.tail
        if coerce == "@json" or not isinstance(value, (dict, list)):
            if container is None and coerce != "@json":
                text = self.scalar(value, term, coerce, ctx, keypath)
                if text is not None:
                    if text:
                        lines.append(f"{subject} {predicate} {text}{tail}")
                    return
            encoded = self.enc.value(value, term, ctx, keypath)
            if encoded is LEFT_OUT:
                raise _NeedsProjection
            self.walker.values(subject, predicate, encoded, term, ctx)
            self.flush()
        elif isinstance(value, dict):
            if container == "@index":  # an index map: the walker drops its keys and walks each value
                self.index_map(subject, predicate, value, coerce, ctx, keypath)
            elif container == "@list":
                head = self.walker.chain([self.node(value, ctx, keypath)])
                self.flush()
                lines.append(f"{subject} {predicate} {head}{tail}")
            else:
                lines.append(f"{subject} {predicate} {self.node(value, ctx, keypath)}{tail}")
        elif container == "@list":
            objects = [self.item(v, term, coerce, ctx, keypath, i) for i, v in enumerate(value)]
            head = self.walker.chain([o for o in objects if o is not None])
            self.flush()
            lines.append(f"{subject} {predicate} {head}{tail}")
        else:
            for i, v in enumerate(value):
                obj = (
                    _plain_literal(v)
                    if coerce is None and type(v) is str
                    else self.item(v, term, coerce, ctx, keypath, i)
                )
                if obj is not None:
                    lines.append(f"{subject} {predicate} {obj}{tail}")

    def scalar(self, value: Any, term: Term | None, coerce: str | None, ctx: ActiveContext, keypath: str) -> str | None:
        """The object text of a scalar outside any container, "" for none, or None: ask the projection and walker.

        The common cases of :meth:`Encoder.value` followed by :meth:`Walker.values`: a string
        in its datatype's lexical space (an ill-typed one is the projection's to report), an
        ``@id`` or ``@vocab`` string that makes a good IRI (not a blank node), and any other
        scalar the projection took without a word before.
        """
        if value is None:
            return ""
        if isinstance(value, str):
            if coerce is None or coerce[0] != "@":
                if coerce is not None and coerce in LEXICAL_FORMS and not LEXICAL_FORMS[coerce].match(value):
                    return None
                text = quoted(str(value))
                return text if coerce is None or coerce == _XSD_STRING else text + "^^<" + coerce + ">"
            vocab = coerce == "@vocab"
            if vocab:
                found = _vocab.get((ctx, value))
                if found is not None:
                    return found
            iri = ctx.expand_iri(value, vocab=vocab, base=self.base)
            if iri is None or not (
                surely_valid_iri(iri) or (iri[:2] != "_:" and is_absolute_iri(iri) and is_valid_iri(iri))
            ):
                return None  # a blank node, or the projection's note
            text = "<" + iri + ">"
            if vocab and ctx.vocab is not None:  # then the base takes no part in it
                _vocab.keep((ctx, value), text)
            return text
        if coerce is not None and coerce[0] == "@":
            return None
        key = (type(value), repr(value) if isinstance(value, float) else value, coerce)
        found = _scalars.get(key)
        if found is None:
            said = len(self.enc.ill_typed)
            encoded = self.enc.value(value, term, ctx, keypath)
            if encoded is LEFT_OUT or self.enc.notes:
                raise _NeedsProjection
            if type(encoded) is dict:  # a number too large for a double: the walker reads its @value object
                self.enc.ill_typed[said:] = []  # asked again by the caller
                return None
            found = self.walker.literal(encoded, coerce)
            if len(self.enc.ill_typed) == said:  # nothing to say about it: the same text without asking next time
                _scalars.keep(key, found)
        return found

    def index_map(
        self, subject: str, predicate: str, value: dict[Any, Any], coerce: str | None, ctx: ActiveContext, keypath: str
    ) -> None:
        """Each value of an index map (``extensions``), checked as the projection checks a node's properties."""
        if coerce is not None:
            raise _NeedsProjection  # the projection checks each value without the map's coercion, the walker with it
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NeedsProjection
            how, _, term, _ = _plan(ctx, key)
            if term is not None or how == _REFERENCE or how == _OTHER:
                raise _NeedsProjection  # a key that is a term of its own is checked under that term
            self.values(subject, predicate, item, None, ctx, f"{keypath}.{key}" if keypath else key)

    def item(self, value: Any, term: Term | None, coerce: str | None, ctx: ActiveContext, keypath: str, i: int) -> Any:
        """The object one list item makes (None: none), as :meth:`Walker.object` makes it of the encoded item."""
        if coerce is None and type(value) is str:
            return _plain_literal(value)
        if isinstance(value, dict):
            return self.node(value, ctx, f"{keypath}[{i}]")
        if isinstance(value, list):
            raise _NeedsProjection  # a list inside a list: flattened or nested by the walker, rare in frontmatter
        encoded = self.enc.value(value, term, ctx, f"{keypath}[{i}]")
        if encoded is LEFT_OUT:
            raise _NeedsProjection
        found = self.walker.object(encoded, coerce, ctx)
        self.flush()  # a big number's literal or a reference adds no triple; kept for any that would
        return found
