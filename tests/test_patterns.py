"""Patterns from data run with a bound on time (mif_rdf.core.patterns): RE2 where it can, a time limit elsewhere.

The oracle for what a pattern matches is Python's ``re`` with ``re.ASCII`` (the
dialect mif_rdf.core.patterns promises), on inputs short enough for ``re`` to
finish; the bound is shown on inputs where backtracking takes hours.
"""

from __future__ import annotations

import re
import time

import pytest

from mif_rdf.core.patterns import PatternError, PatternSet, PatternTimeout, compile_pattern

#: Nested quantifiers: exponential for a backtracking engine on ``a`` * n + one character that fails.
HOSTILE_RE2 = [r"^(a+)+$", r"^(a|aa)+$", r"^(a|a?)+$", r"^(a*)*$", r"(x+x+)+y", r"^(\w+\s?)+$", r"^([a-z]+)*[0-9]$"]
#: The same shapes with a lookaround, which RE2 refuses: they run on the fallback engine.
HOSTILE_FALLBACK = [r"^(a|aa)+(?=.)$", r"^(a|aa)+(?<=!)$", r"^(aa|a)+(?!a)b", r"^(\w|\w\w)+(?=!)$", r"(?=a)(a|aa)+$"]
VALUE = "a" * 40 + "!"


@pytest.mark.parametrize("source", HOSTILE_RE2)
def test_hostile_patterns_run_on_re2_in_linear_time(source: str) -> None:
    pattern = compile_pattern(source)
    assert pattern.engine == "re2"
    start = time.perf_counter()
    for value in (VALUE, "a" * 4000 + "!", "word " * 2000 + "!"):
        found = pattern.search(value)
        assert found is None or re.search(source, value[:30], re.ASCII) is not None or found.start() >= 0
    assert time.perf_counter() - start < 1.0  # a backtracking engine needs hours for the first value alone
    for short in ("aaaa!", "aaaa", "xxxy", "ab cd", "abc1"):  # where re finishes: the same answer
        oracle = re.search(source, short, re.ASCII)
        found = pattern.search(short)
        assert (found and (found.start, found.end)) == (oracle and oracle.span())


@pytest.mark.parametrize("source", HOSTILE_FALLBACK)
def test_hostile_patterns_re2_refuses_are_stopped_at_the_time_limit(source: str) -> None:
    pattern = compile_pattern(source, time_limit=0.2)
    assert pattern.engine == "regex"
    start = time.perf_counter()
    with pytest.raises(PatternTimeout) as caught:
        pattern.search(VALUE)
    elapsed = time.perf_counter() - start
    assert 0.2 <= elapsed < 2.0, elapsed  # it ran past the limit (really hostile) and was stopped near it
    assert caught.value.source == source and repr(source) in str(caught.value) and "0.2 s" in str(caught.value)
    for short in ("aaaa!", "aaaa", "ab cd!", "ab cd"):  # the limit is not a wrong answer where the engine finishes
        oracle = re.search(source, short, re.ASCII)
        found = pattern.search(short)
        assert (found and (found.start, found.end)) == (oracle and oracle.span())


def test_a_set_scans_like_its_patterns_one_by_one_and_a_timeout_spoils_only_its_own_pattern() -> None:
    sources = [r"\b(PostgreSQL|MySQL)\b", r"(?<=on-call )rotation", r"(?i)incident", r"^(a|aa)+(?=.)$", r"\d+"]
    patterns = [compile_pattern(s, time_limit=0.2) for s in sources]
    texts = ["MySQL — café PostgreSQL 16, on-call rotation", "Incident 42: no INCIDENT", "a" * 40 + "!", "", "naïve"]
    scans = [PatternSet(patterns).scan(text) for text in texts]
    for text, scan in zip(texts, scans):
        hits = {h.pattern: h for h in scan.hits}
        for index, source in enumerate(sources):
            if index in scan.timed_out:
                continue
            oracle = list(re.finditer(source, text, re.ASCII))
            assert (index in hits) == bool(oracle), (source, text)
            if oracle:
                first = hits[index].first
                assert (first.start, first.end, first.text) == (
                    *oracle[0].span(),
                    oracle[0].group(),
                )  # character offsets
    assert scans[2].timed_out == [3]
    assert [h.pattern for h in scans[2].hits] == []  # \d+ and the others do not match there; the scan went on


def test_both_engines_read_word_classes_as_ascii() -> None:
    """Which engine runs a pattern does not change what it matches: \\b and \\w are ASCII in both."""
    on_re2, on_fallback = compile_pattern(r"\bna\b"), compile_pattern(r"(?=n)\bna\b")
    assert (on_re2.engine, on_fallback.engine) == ("re2", "regex")
    for text in ("naïve", "na", "xna", "é na é"):
        assert (
            (on_re2.search(text) is None)
            == (on_fallback.search(text) is None)
            == (re.search(r"\bna\b", text, re.ASCII) is None)
        )


def test_flags_and_errors() -> None:
    assert compile_pattern("postgres", "i").search("PostgreSQL") is not None
    assert compile_pattern("a b", "x").engine == "regex" and compile_pattern("a b", "x").search("ab") is not None
    with pytest.raises(PatternError) as caught:
        compile_pattern("(unclosed")
    assert caught.value.source == "(unclosed" and "missing )" in caught.value.reason
    with pytest.raises(PatternError):
        compile_pattern("a", "q")


def test_matches_says_what_search_finds() -> None:
    """``matches`` (a one-pattern RE2 set, for SHACL's yes or no) agrees with ``search`` on both engines."""
    sources = [*HOSTILE_RE2, r"(?<=a)b", r"^\p{Lu}", r"é$", r"^$", r"(a)\1"]
    texts = ["", "aaaa!", "ab", "Éa", "café", "x\ny", "aa"]
    for source in sources:
        for flags in ("", "i", "m", "s"):
            pattern = compile_pattern(source, flags, ascii=False)
            for text in texts:
                assert pattern.matches(text) == (pattern.search(text) is not None), (source, flags, text)
    assert compile_pattern("a$").matches("\ud800a") and not compile_pattern("^a").matches(
        "\ud800a"
    )  # a lone surrogate is a character too
