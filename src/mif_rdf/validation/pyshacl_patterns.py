"""pySHACL's ``sh:pattern`` with a time limit per value: a catastrophic pattern cannot hold a validation.

The fast engine runs ``sh:pattern`` on RE2 (linear time).  A shapes graph it
refuses goes to pySHACL, which compiles each ``sh:pattern`` with Python's
``re`` when it loads the shape and runs ``match`` then ``search`` on every
value node: ``^(a+)+$`` on 29 ``a`` and a ``!`` takes 38 s there, doubling
per character, and ``re`` cannot be interrupted.  :func:`bound` gives
pySHACL's pattern module a ``re`` whose ``compile`` returns the same pattern
on the ``regex`` package (``VERSION0``: Python's ``re`` reading, Unicode
classes, pySHACL's ``i`` and ``m`` flags), searched with
:data:`~mif_rdf.core.patterns.DEFAULT_TIME_LIMIT` per value.  A value the limit
stops does not match: pySHACL reports it as its ordinary
``sh:PatternConstraintComponent`` result ("Value does not match pattern"),
so validation goes on and fails on that value instead of hanging
(:func:`~mif_rdf.core.patterns.note_stopped` keeps it for the report's warning).

Why not the alternatives: a worker process with a time limit bounds the
whole validation, not a pattern (a large bundle legitimately takes minutes
in pySHACL), and costs a process start; checking the patterns beforehand on
the data's values cannot keep pySHACL from running the same search after.
A pattern the ``regex`` package does not read (none known among the ones
``re`` compiles) keeps pySHACL's ``re``; a pattern ``re`` refuses keeps
pySHACL's own error.
"""

from __future__ import annotations

import re
from typing import Any

import regex

from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, note_stopped
from mif_rdf.core.sparql_regex import bound_sparql_regex


class _Bounded:
    """A compiled pattern whose ``match`` and ``search`` give up at the time limit (as no match)."""

    def __init__(self, source: str, compiled: Any, time_limit: float) -> None:
        self.pattern, self._compiled, self._limit = source, compiled, time_limit
        self._given_up: str | None = None  # pySHACL runs match, then search, on one value: one limit for both

    def _run(self, how: str, text: str) -> Any:
        if text is self._given_up:
            return None
        try:
            return getattr(self._compiled, how)(text, timeout=self._limit)
        except TimeoutError:
            self._given_up = text
            note_stopped(self.pattern, text)
            return None

    def match(self, text: str) -> Any:
        return self._run("match", text)

    def search(self, text: str) -> Any:
        return self._run("search", text)


class _BoundedRe:
    """What pySHACL's pattern module sees as ``re``: Python's, but ``compile`` is bounded."""

    def __init__(self, time_limit: float) -> None:
        self.time_limit = time_limit

    def __getattr__(self, name: str) -> Any:  # re.I, re.M, re.error, ...: Python's own
        return getattr(re, name)

    def compile(self, source: str, flags: int = 0) -> Any:
        plain = re.compile(source, flags)  # pySHACL's own error for a pattern re refuses
        wanted = (regex.IGNORECASE if flags & re.IGNORECASE else 0) | (regex.MULTILINE if flags & re.MULTILINE else 0)
        try:
            return _Bounded(source, regex.compile(source, wanted | regex.VERSION0), self.time_limit)
        except (regex.error, OverflowError, RecursionError):
            return plain


def bound(time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Make pySHACL's ``sh:pattern`` searches stop after ``time_limit`` seconds per value (idempotent).

    ``REGEX`` in a SHACL-SPARQL constraint (rdflib's engine) gets the same limit
    (:func:`~mif_rdf.core.sparql_regex.bound_sparql_regex`).
    """
    bound_sparql_regex(time_limit)
    from pyshacl.constraints.core import string_based_constraints as module

    current = getattr(module, "re", None)
    if isinstance(current, _BoundedRe):
        current.time_limit = time_limit
        return
    if current is not re:
        raise RuntimeError("pySHACL's pattern module no longer uses Python's re: mif_rdf's time limit cannot apply")
    module.re = _BoundedRe(time_limit)  # type: ignore[assignment]  # not a module: re's two functions, bounded
