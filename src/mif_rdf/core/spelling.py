"""The one "did you mean": the known name nearest a misspelled one, when it is near enough to be a typo.

Every suggestion mif-rdf makes goes through :func:`closest`: a misspelled
option, command or format name on the command line, a SPARQL keyword or
prefix in a syntax error, an ontology namespace, entity or relationship
type in a validation finding.  One measure (Levenshtein distance, case
ignored) and one idea of "near enough" means the same typo gets the same
answer wherever it is made.  This module imports nothing: the command line
uses it when it builds its usage errors.
"""

from __future__ import annotations

from collections.abc import Iterable


def edit_distance(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: insert, delete, substitute, or swap two neighbours, one each.

    (Levenshtein with adjacent transpositions, "optimal string alignment":
    ``SELCET`` is one slip from ``SELECT``, as a person sees it, not two.)
    """
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, previous = previous, current
    return previous[-1]


def typo_distance(word: str) -> int:
    """How many edits still read as a typo of ``word``: one for a word of up to four letters,
    else a third of its letters, at least two.

    A short word two edits from a name is as likely another word (``FOO`` is
    not a slip of ``MOD``, ``foo:`` not of ``geo:``).
    """
    return 1 if len(word) <= 4 else max(2, len(word) // 3)


def closest(word: str, known: Iterable[str], *, max_distance: int | None = None) -> str | None:
    """The name of ``known`` nearest ``word`` (case ignored), or None when none is within ``max_distance`` edits.

    ``max_distance`` defaults to :func:`typo_distance`; ties go to the name
    that sorts first, so the answer never depends on the order of ``known``.
    ``word`` itself is not a suggestion (the same name in another case is).
    """
    limit = typo_distance(word) if max_distance is None else max_distance
    lowered = word.lower()
    best: tuple[int, str] | None = None
    for candidate in known:
        if not candidate or candidate == word:
            continue
        distance = edit_distance(lowered, candidate.lower())
        if distance <= limit and (best is None or (distance, candidate) < best):
            best = (distance, candidate)
    return best[1] if best is not None else None
