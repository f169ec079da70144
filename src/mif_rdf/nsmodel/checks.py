"""How a malformed value of an agreement, a namespace file or the config is reported: a problem naming file and key.

The checks every reader of :mod:`mif_rdf.nsmodel.reading` shares (names,
text, durations); what is malformed is reported and left out, never raised.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.freshness import parse_duration

#: A party (organization) name: ASCII letters, digits, ``. _ + -``; no spaces, no lookalike characters.
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9])?$")


def _problem(
    problems: list[Problem],
    relpath: str,
    key: str,
    value: Any,
    message: str,
    rule: str,
    severity: Severity = Severity.ERROR,
) -> None:
    problems.append(Problem(relpath, message, severity, key=key, value=_shown(value), rule=rule))


def _shown(value: Any) -> Any:
    """A value for a problem record: scalars as they are, anything larger as short text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value if not isinstance(value, str) or len(value) <= 200 else value[:200] + "..."
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _name(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and _NAME.match(value) is not None


def _names(relpath: str, key: str, value: Any, problems: list[Problem], rule: str) -> tuple[str, ...]:
    """A list of organization names; a malformed entry is reported and left out."""
    if value is None:
        return ()
    if not isinstance(value, list):
        _problem(problems, relpath, key, value, f"{key} must be a list of organization names", rule)
        return ()
    kept = []
    for index, item in enumerate(value):
        if _name(item):
            kept.append(item)
        else:
            _problem(
                problems,
                relpath,
                f"{key}[{index}]",
                item,
                f"{item!r} is not an organization name (letters, digits, '.', '_', '+' and '-', no spaces); left out",
                rule,
            )
    return tuple(kept)


def _text(relpath: str, key: str, value: Any, problems: list[Problem], rule: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    _problem(problems, relpath, key, value, f"{key} must be text", rule)
    return None


def _duration(text: str) -> bool:
    try:
        parse_duration(text)
    except MifRdfError:
        return False
    return True
