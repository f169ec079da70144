"""Errors and per-file problem records.

A bundle load never raises for one bad file: each problem becomes a
:class:`Problem` record, collected in a :class:`ProblemLog`, so a pipeline sees
every issue of a bundle in one run.  :class:`MifRdfError` is the single root of
the exceptions the library does raise (bad arguments, unreadable bundle root).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any


class MifRdfError(Exception):
    """Root of every exception mif-rdf raises on purpose."""


class Severity(str, enum.Enum):
    """How bad a problem is; ordered so that ``max()`` gives the worst."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True)
class Problem:
    """One finding about one file: enough for a person to go and fix it."""

    path: str
    message: str
    severity: Severity = Severity.ERROR
    key: str | None = None
    line: int | None = None
    rule: str | None = None
    value: Any = None
    level: int | None = None  # the conformance level of the rule (0 = OKF), when it has one

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return {k: v for k, v in data.items() if v is not None}

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line else "")
        key = f" [{self.key}]" if self.key else ""
        return f"{where}: {self.severity.value}{key}: {self.message}"


@dataclass
class ProblemLog:
    """An append-only list of problems with the queries reports need."""

    items: list[Problem] = field(default_factory=list)

    def add(self, path: str, message: str, severity: Severity = Severity.ERROR, **extra: Any) -> Problem:
        problem = Problem(path=path, message=message, severity=severity, **extra)
        self.items.append(problem)
        return problem

    def extend(self, problems: Iterable[Problem]) -> None:
        self.items.extend(problems)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def by_severity(self, severity: Severity) -> list[Problem]:
        return [p for p in self.items if p.severity == severity]

    def for_path(self, path: str) -> list[Problem]:
        return [p for p in self.items if p.path == path]

    def drop_path(self, path: str) -> None:
        self.items = [p for p in self.items if p.path != path]

    @property
    def has_errors(self) -> bool:
        return any(p.severity == Severity.ERROR for p in self.items)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``1 warning``, ``2 warnings``, ``1 memory``, ``3 memories``: a count with its noun in the right number."""
    return f"{n} {one if n == 1 else many or one + 's'}"
