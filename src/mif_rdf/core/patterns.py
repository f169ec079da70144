"""Regular expressions that come from data, run with a bound on time.

A pattern written in an ontology (a discovery ``content_pattern``, a field
``pattern`` or ``format``) or a shapes graph (``sh:pattern``, which the SHACL
engine translates from XPath) is untrusted: with a backtracking
engine such as Python's ``re``, ``^(a+)+$`` on forty ``a`` and a ``b`` runs for
hours, and ``re`` cannot be interrupted from another thread.  So:

* a pattern that RE2 accepts (``google-re2``: no backreferences, no
  lookaround) runs on RE2, whose time is linear in the text, always;
* any other pattern runs on the ``regex`` package, whose ``timeout`` the
  engine itself checks while it backtracks: a search that passes the time
  limit stops there and raises :class:`PatternTimeout`.  (Measured on two
  cores: a 0.3 s limit stops ``^(a|aa)+(?=.)$`` on 40 ``a`` after 0.3-0.5 s.)
  A worker process running ``re`` would also bound the time, but costs a
  round trip per text and cannot start in every sandbox.

One dialect for both engines: ``\\w \\d \\s \\b`` are ASCII (as in RE2 and in
the ECMA-262 patterns of JSON Schema), so which engine runs a pattern does not
change what it matches.  What remains different is documented in
docs/ontology.md (RE2's ``$`` is the end of the text, the fallback's ``$`` also
matches before a final newline; RE2's ``\\s`` has no ``\\v``).

Positions are character offsets into the ``str`` searched.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import re2
import regex

from mif_rdf.core.errors import MifRdfError

#: Seconds one pattern may spend on one text with the fallback engine (RE2 needs no limit).
DEFAULT_TIME_LIMIT = 0.25
#: Which regular-expression engine compiled a pattern: RE2 (linear time) or the time-limited fallback.
RegexEngine = Literal["re2", "regex"]
_FLAGS = {"i": "i", "m": "m", "s": "s", "x": "x"}


class PatternError(MifRdfError):
    """A pattern that does not compile in either engine (``reason`` says why)."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"pattern {source!r} is not a valid regular expression ({reason})")
        self.source, self.reason = source, reason


class PatternTimeout(MifRdfError):
    """A fallback-engine search stopped at its time limit (the text would have taken longer)."""

    def __init__(self, source: str, seconds: float) -> None:
        super().__init__(f"pattern {source!r} passed its time limit of {seconds:g} s and was stopped")
        self.source, self.seconds = source, seconds


@dataclass(frozen=True)
class Match:
    """One match: character offsets ``[start, end)`` and the text matched."""

    start: int
    end: int
    text: str


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 logs each refused pattern to stderr; the refusal is handled here
    return options


_RE2_OPTIONS = _re2_options()


def _re2_first_match_options() -> re2.Options:
    options = _re2_options()
    options.never_capture = True  # only where the whole match is: no group spans to compute
    return options


_RE2_FIRST_MATCH = _re2_first_match_options()


@dataclass(frozen=True, eq=False)
class SafePattern:
    """A compiled pattern with its engine; searches never run unbounded."""

    source: str
    flags: str
    engine: RegexEngine
    time_limit: float
    _compiled: Any = field(repr=False)  # an re2 or a regex pattern (neither library is annotated)

    def search(self, text: str) -> Match | None:
        """The first match, or None; :class:`PatternTimeout` when the time limit passes."""
        if self.engine == "re2":
            found = self._compiled.search(text)
        else:
            try:
                found = self._compiled.search(text, timeout=self.time_limit)
            except TimeoutError:
                raise PatternTimeout(self.source, self.time_limit) from None
        return None if found is None else Match(found.start(), found.end(), found.group())

    def matches(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (:class:`PatternTimeout` as for :meth:`search`).

        For a yes or no the RE2 side asks a one-pattern ``re2.Set``: about
        1.4 µs a short text, where :meth:`search` pays about 16 µs in the
        wrapper's offset bookkeeping (Python's ``re`` takes 0.5 µs).  SHACL's
        ``sh:pattern`` runs this on every value of the shipped shapes.
        """
        if self.engine == "re2":
            return bool(_yes_or_no(self.source, self.flags).Match(text.encode("utf-8", "surrogatepass")))
        return self.search(text) is not None


def compile_pattern(
    source: str, flags: str = "", *, time_limit: float = DEFAULT_TIME_LIMIT, ascii: bool = True
) -> SafePattern:
    """``source`` compiled on RE2 when RE2 accepts it, else on the time-limited fallback.

    ``flags``: any of ``i`` (ignore case), ``m`` (``^``/``$`` at line ends),
    ``s`` (``.`` matches a newline), ``x`` (free spacing), as in XPath and
    ECMA-262 regular expressions.  Raises :class:`PatternError` when neither
    engine accepts the pattern.  ``ascii=False`` lets the fallback engine fold
    case over all of Unicode, as RE2 does (a caller that translates another
    dialect, such as the SHACL engine's XPath, spells its classes itself).
    """
    if not isinstance(source, str):
        raise PatternError(repr(source), "a pattern must be a string")
    if any(f not in _FLAGS for f in flags):
        raise PatternError(source, f"unknown flag in {flags!r} (known: {''.join(_FLAGS)})")
    if time_limit <= 0:
        raise ValueError("time_limit must be positive")
    return _compiled(source, "".join(sorted(set(flags))), time_limit, ascii)


@lru_cache(maxsize=1024)
def _compiled(source: str, flags: str, time_limit: float, ascii: bool = True) -> SafePattern:
    inline = f"(?{flags})" if flags else ""
    if "x" not in flags:  # RE2 has no free-spacing mode
        try:
            return SafePattern(source, flags, "re2", time_limit, re2.compile(inline + source, _RE2_OPTIONS))
        except re2.error:
            pass
    try:
        compiled = regex.compile(inline + source, (regex.ASCII if ascii else 0) | regex.VERSION0)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise PatternError(source, str(exc)) from None
    return SafePattern(source, flags, "regex", time_limit, compiled)


#: Searches a validation gave up at the time limit, in this thread: (pattern, the text's first 80 characters).
_stopped = threading.local()
_MAX_STOPPED = 100  # a report names the first ones; more would only repeat the same pattern


def note_stopped(source: str, text: str) -> None:
    """Remember that ``source`` was stopped on ``text`` (read back, once, by :func:`take_stopped`)."""
    items = _stopped.__dict__.setdefault("items", [])
    if len(items) < _MAX_STOPPED:
        items.append((source, text[:80]))


def take_stopped() -> list[tuple[str, str]]:
    """The searches noted since the last call, in this thread (and forget them)."""
    items, _stopped.items = _stopped.__dict__.get("items", []), []
    return items


@lru_cache(maxsize=1024)
def _yes_or_no(source: str, flags: str) -> re2.Set:
    found = re2.Set.SearchSet(_RE2_FIRST_MATCH)
    found.Add((f"(?{flags})" + source if flags else source).encode("utf-8"))
    found.Compile()
    return found


@dataclass(frozen=True)
class Hit:
    """Pattern ``pattern`` (an index into the set) matched a text; ``first`` is its first match."""

    pattern: int
    first: Match


@dataclass
class Scan:
    """What a :class:`PatternSet` found in one text; ``timed_out`` lists the patterns stopped by the time limit."""

    hits: list[Hit] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)


class PatternSet:
    """Many patterns over many texts: the RE2 patterns are tried together, in one pass over a text.

    Most texts match few patterns, so one RE2 set match says which patterns
    to run on their own (for the first match's position); the fallback
    patterns run one by one.  Measured: the 51 content patterns of the
    published ontologies over 2,000 memories, 3 µs a memory for the set
    against 180 µs for one search each.  The RE2 patterns search the text
    encoded once as UTF-8 (the wrapper would encode it again for every
    pattern and map every group's offsets back to characters): only the
    first match is taken and converted.
    """

    def __init__(self, patterns: Sequence[SafePattern]) -> None:
        self.patterns = list(patterns)
        self._set_members = [i for i, p in enumerate(self.patterns) if p.engine == "re2"]
        self._fallback = [i for i, p in enumerate(self.patterns) if p.engine != "re2"]
        self._set: re2.Set | None = None
        self._bytes: dict[int, Any] = {}
        if self._set_members:
            self._set = re2.Set.SearchSet(_RE2_OPTIONS)
            for i in self._set_members:
                pattern = self.patterns[i]
                source = (f"(?{pattern.flags})" + pattern.source if pattern.flags else pattern.source).encode("utf-8")
                self._set.Add(source)
                self._bytes[i] = re2.compile(source, _RE2_FIRST_MATCH)
            self._set.Compile()

    def scan(self, text: str) -> Scan:
        result = Scan()
        candidates: list[int] = []
        if self._set is not None:
            data = text.encode("utf-8", "surrogatepass")
            candidates = sorted(self._set_members[k] for k in (self._set.Match(data) or ()))
            for index in candidates:
                found = self._bytes[index].search(data)
                if found is not None:  # the set said so; a None would be an RE2 bug, and is no hit
                    start = len(data[: found.start()].decode("utf-8", "surrogatepass"))
                    matched = data[found.start() : found.end()].decode("utf-8", "surrogatepass")
                    result.hits.append(Hit(index, Match(start, start + len(matched), matched)))
        for index in self._fallback:
            try:
                found = self.patterns[index].search(text)
            except PatternTimeout:
                result.timed_out.append(index)
                continue
            if found is not None:
                result.hits.append(Hit(index, found))
        result.hits.sort(key=lambda hit: hit.pattern)
        return result
