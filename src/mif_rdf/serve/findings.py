"""What the page may show of the findings about a served bundle: which files it may name, and messages
without a withheld file's path or the bundle's folder on disk."""

from __future__ import annotations

import re
from typing import Any

from mif_rdf.core.errors import Problem
from mif_rdf.nsmodel.access import local_only
from mif_rdf.serve.snapshot import Snapshot
from mif_rdf.source.bundle_files import loadable


def shown(snapshot: Snapshot, relpath: str) -> bool:
    """Whether findings about this file may be shown (it is not a withheld memory)."""
    record = snapshot.memory_by_path(relpath)
    return record is None or snapshot.allows(record.iri)


_NAMESPACE = re.compile(r"^namespace:[ \t]*['\"]?([^'\"\r\n#]*)", re.M)


def _says_local(root: Any, relpath: str) -> bool:
    """Whether a memory file that did not load declares a ``_local`` namespace (read as text: it may not parse)."""
    if not relpath.endswith(".md") or not loadable(root, relpath):
        return False
    try:
        with open(root / relpath, "rb") as handle:
            head = handle.read(65536).decode("utf-8", errors="replace")
    except OSError:
        return False
    return any(local_only(found.strip()) for found in _NAMESPACE.findall(head.split("\n---", 1)[0]))


def _redacted(problem: Problem, root: str, withheld: list[str]) -> Problem:
    """``problem`` without the bundle's absolute folder or a withheld file's path in its message or value."""

    def clean(text: str) -> str:
        text = text.replace(root + "/", "").replace(root, ".")
        for path in withheld:
            text = text.replace(path, "(a file that is not served)")
        return text

    message = clean(problem.message)
    value = clean(problem.value) if isinstance(problem.value, str) else problem.value
    if message == problem.message and value == problem.value:
        return problem
    return Problem(
        problem.path,
        message,
        problem.severity,
        key=problem.key,
        line=problem.line,
        rule=problem.rule,
        value=value,
        level=problem.level,
    )
