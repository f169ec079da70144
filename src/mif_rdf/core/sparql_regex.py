"""rdflib's SPARQL ``REGEX`` and ``REPLACE`` with a time limit per value, as pySHACL's ``sh:pattern`` has.

rdflib evaluates ``REGEX(text, pattern, flags)`` with Python's ``re``, so a
user's query or a user's SHACL-SPARQL constraint (pySHACL runs ``sh:sparql``
through rdflib's engine) with ``REGEX(?v, "^(a+)+$")`` on forty ``a`` and a
``!`` runs for hours, and ``re`` cannot be interrupted.  :func:`bound_sparql_regex`
registers, process-wide, a ``REGEX`` that reads the pattern exactly as rdflib
does (Python's ``re`` dialect, flags ``i``, ``s``, ``m``; others ignored) but
searches on the ``regex`` package (``VERSION0``: ``re``'s reading) with
:data:`~mif_rdf.core.patterns.DEFAULT_TIME_LIMIT` per value.  A value the limit
stops does not match (``REGEX`` is false), as a stopped ``sh:pattern`` value
fails its pattern: a constraint ``FILTER (!REGEX(...))`` reports it.  The stop is
noted (:func:`~mif_rdf.core.patterns.note_stopped`) for a validation report.

rdflib binds an expression's function when it parses the query, so the
bounded function is set on the parser's ``REGEX`` rule (and on
``operators.Builtin_REGEX`` for code reading it by name): queries parsed after
the call are bounded.  A pattern ``re`` refuses raises ``re``'s own error, as
before; values that finish within the limit give exactly ``re``'s answer.

``REPLACE(text, pattern, replacement, flags)`` is bounded the same way (set on
the parser's ``REPLACE`` rule): within the limit it gives ``re.sub``'s answer
with rdflib's ``$1`` to ``\\1`` reading of the replacement; a value the limit
stops is an expression error (the variable stays unbound), and is noted.
"""

from __future__ import annotations

import re
from functools import lru_cache, reduce
from operator import or_
from typing import Any

import regex
from rdflib import Literal

from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, note_stopped

_FLAGS = {"i": (re.IGNORECASE, regex.IGNORECASE), "s": (re.DOTALL, regex.DOTALL), "m": (re.MULTILINE, regex.MULTILINE)}
_time_limit = [DEFAULT_TIME_LIMIT]


@lru_cache(maxsize=1024)
def _compiled(pattern: str, flags: str) -> Any:
    """``pattern`` on the ``regex`` package (``re`` first, for ``re``'s error on a pattern it refuses)."""
    re.compile(pattern, reduce(or_, (_FLAGS[f][0] for f in flags if f in _FLAGS), 0))
    return regex.compile(pattern, reduce(or_, (_FLAGS[f][1] for f in flags if f in _FLAGS), 0) | regex.VERSION0)


def bounded_regex(expr: Any, ctx: Any) -> Literal:
    """SPARQL ``REGEX`` as rdflib evaluates it, with the search stopped at the time limit (then false)."""
    from rdflib.plugins.sparql.operators import string  # rdflib's own argument check (a string literal)

    text = string(expr.text)
    pattern = str(string(expr.pattern))
    compiled = _compiled(pattern, str(expr.flags or ""))
    try:
        return Literal(compiled.search(str(text), timeout=_time_limit[0]) is not None)
    except TimeoutError:
        note_stopped(pattern, str(text))
        return Literal(False)


def bounded_replace(expr: Any, ctx: Any) -> Literal:
    """SPARQL ``REPLACE`` as rdflib evaluates it, with the substitution stopped at the time limit (an error)."""
    from rdflib.plugins.sparql.operators import string
    from rdflib.plugins.sparql.sparql import SPARQLError

    text = string(expr.arg)
    pattern = str(string(expr.pattern))
    replacement = re.sub("\\$([0-9]*)", r"\\\1", str(string(expr.replacement)))  # XPath's $1 is re's \1
    compiled = _compiled(pattern, str(expr.flags or ""))
    try:
        replaced = compiled.sub(replacement, str(text), timeout=_time_limit[0])
    except TimeoutError:
        note_stopped(pattern, str(text))
        raise SPARQLError(f"REPLACE: the pattern {pattern!r} ran past its time limit on one value") from None
    return Literal(replaced, datatype=text.datatype, lang=text.language)


def bound_sparql_regex(time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Make rdflib's SPARQL ``REGEX`` stop after ``time_limit`` seconds per value, process-wide (idempotent)."""
    from rdflib.plugins.sparql import operators, parser

    if time_limit <= 0:
        raise ValueError("time_limit must be positive")
    _time_limit[0] = time_limit
    if parser.RegexExpression.evalfn is bounded_regex:
        return
    if parser.RegexExpression.evalfn is not operators.Builtin_REGEX or (
        parser.StrReplaceExpression.evalfn is not operators.Builtin_REPLACE
    ):
        raise RuntimeError("rdflib's REGEX or REPLACE is no longer its own: mif_rdf's time limit cannot apply")
    operators.Builtin_REGEX = bounded_regex
    parser.RegexExpression.setEvalFn(bounded_regex)
    operators.Builtin_REPLACE = bounded_replace
    parser.StrReplaceExpression.setEvalFn(bounded_replace)
