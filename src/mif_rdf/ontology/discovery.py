"""Discovery patterns (spec 10.8.4): entity types and namespaces suggested for each memory.

An ontology's ``discovery`` section holds patterns in two shapes, both in the
published corpus and both in the upstream ontology schema:

* ``patterns:`` (the spec's form): each entry a ``content_pattern`` (a regular
  expression searched in the memory body) or a ``file_pattern`` (a glob matched
  against the whole bundle-relative path), suggesting ``suggest_entity`` and/or
  ``suggest_namespace``;
* ``content_patterns:`` / ``file_patterns:`` (mif-base's form): each entry a
  ``pattern`` (a regular expression, searched in the body or in the path)
  suggesting ``namespace`` or ``namespaces`` (and ``suggest_entity``), with a
  ``context`` hint.

``enabled`` defaults to false and ``confidence_threshold`` to 0.8, as the
schema says.  A pattern's confidence is its own ``confidence`` key when it has
one, else 1 (a match is the evidence its author asked for); patterns below
their ontology's threshold do not run.  Every pattern runs through
:mod:`mif_rdf.core.patterns`, so no pattern from a file can hang the run.

Running the patterns over memories is :mod:`mif_rdf.ontology.suggester`'s,
the suggestions they make :mod:`mif_rdf.ontology.suggestions`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, PatternError, SafePattern, compile_pattern
from mif_rdf.ontology.binding import BoundOntologies
from mif_rdf.ontology.model import OntologyFile

Kind = Literal["content", "file"]
DEFAULT_THRESHOLD = 0.8
RULE = "discovery"


@dataclass(frozen=True)
class DiscoveryPattern:
    """One runnable pattern of an ontology's ``discovery`` section."""

    ontology: str
    file: Path
    key: str  # where it is written: ``discovery.patterns[2].content_pattern``
    kind: Kind
    source: str  # as written (a glob for a ``file_pattern``)
    compiled: SafePattern
    entity_type: str | None
    namespaces: tuple[str, ...]
    context: str | None
    confidence: float


# -- reading a discovery section -----------------------------------------------------------------------
def discovery_patterns(
    onto: OntologyFile, time_limit: float = DEFAULT_TIME_LIMIT
) -> tuple[list[DiscoveryPattern], list[Problem]]:
    """The patterns of ``onto`` that run (enabled, at or above the threshold, compiled), and warnings for the rest."""
    problems: list[Problem] = []
    section = onto.discovery
    if not section:
        return [], problems

    def warn(key: str, message: str, severity: Severity = Severity.WARNING) -> None:
        problems.append(
            Problem(str(onto.path), f"ontology '{onto.id}', {key}: {message}", severity, key=key, rule=RULE)
        )

    entries = [
        (kind_key, index, entry)
        for kind_key in ("patterns", "content_patterns", "file_patterns")
        for index, entry in enumerate(_listed(section.get(kind_key), f"discovery.{kind_key}", warn))
    ]
    enabled = section.get("enabled", False)
    if enabled is not True:
        if enabled is not False:
            warn("discovery.enabled", f"must be true or false, not {enabled!r}; discovery stays off")
        elif entries:
            why = "enabled: false" if "enabled" in section else "'enabled' is not set (the schema's default is false)"
            warn(
                "discovery.enabled",
                f"{len(entries)} pattern{'s do' if len(entries) > 1 else ' does'} not run: {why}",
                Severity.INFO,
            )
        return [], problems
    threshold = section.get("confidence_threshold", DEFAULT_THRESHOLD)
    if not _unit_number(threshold):
        warn(
            "discovery.confidence_threshold",
            f"must be a number from 0 to 1, not {threshold!r}; {DEFAULT_THRESHOLD} is used",
        )
        threshold = DEFAULT_THRESHOLD
    found = []
    for kind_key, index, entry in entries:
        pattern = _pattern(onto, kind_key, index, entry, time_limit, warn)
        if pattern is not None and pattern.confidence >= threshold:
            found.append(pattern)
    return found, problems


def _listed(value: Any, key: str, warn: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        warn(key, f"must be a list of patterns, not {type(value).__name__}; ignored")
        return []
    return value


def _unit_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


def _pattern(
    onto: OntologyFile, kind_key: str, index: int, entry: Any, time_limit: float, warn: Any
) -> DiscoveryPattern | None:
    where = f"discovery.{kind_key}[{index}]"
    if not isinstance(entry, dict):
        warn(where, f"must be a mapping with a pattern, not {entry!r}; ignored")
        return None
    if kind_key == "patterns":
        written = [k for k in ("content_pattern", "file_pattern") if k in entry]
        if len(written) != 1:
            warn(where, "needs exactly one of content_pattern and file_pattern; ignored")
            return None
        key = written[0]
        kind: Kind = "content" if key == "content_pattern" else "file"
        namespaces = _strings(entry.get("suggest_namespace"))
    else:
        key = "pattern"
        kind = "content" if kind_key == "content_patterns" else "file"
        one, many = _strings(entry.get("namespace")), _strings(entry.get("namespaces"))
        namespaces = None if one is None or many is None else one + many
    source, entity = entry.get(key), entry.get("suggest_entity")
    if not isinstance(source, str) or not source:
        warn(f"{where}.{key}", f"must be a non-empty string, not {source!r}; ignored")
        return None
    if namespaces is None or not (entity is None or isinstance(entity, str)):
        warn(where, "suggest_entity and the namespaces must be strings; ignored")
        return None
    if not entity and not namespaces:
        warn(where, f"pattern {source!r} suggests nothing (no suggest_entity, no namespace); ignored")
        return None
    confidence = entry.get("confidence", 1.0)
    if not _unit_number(confidence):
        warn(f"{where}.confidence", f"must be a number from 0 to 1, not {confidence!r}; ignored")
        return None
    regex = glob_regex(source) if kind_key == "patterns" and kind == "file" else source
    try:
        compiled = compile_pattern(regex, time_limit=time_limit)
    except PatternError as exc:
        warn(f"{where}.{key}", f"{exc}; ignored")
        return None
    context = entry.get("context")
    return DiscoveryPattern(
        onto.id,
        onto.path,
        f"{where}.{key}",
        kind,
        source,
        compiled,
        entity or None,
        tuple(dict.fromkeys(namespaces)),
        context if isinstance(context, str) else None,
        float(confidence),
    )


def _strings(value: Any) -> tuple[str, ...] | None:
    """A string or a list of strings as a tuple; None when it is something else."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def glob_regex(glob: str) -> str:
    """A path glob as an anchored regular expression: ``*`` and ``?`` stay inside one folder, ``**`` spans folders.

    ``**/`` is zero or more folders (``**/runbooks/*.md`` matches
    ``runbooks/a.md``), ``[...]`` a character class (``[!...]`` negated); the
    glob matches the whole bundle-relative path.
    """
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            start = i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1
            end = glob.find("]", start + 1)  # a ']' first in the class is a member
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            members = glob[start:end].replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
            out.append("[" + ("^" if start > i + 1 else "") + members + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "^" + "".join(out) + "$"


# -- which ontologies run ------------------------------------------------------------------------------
def discovery_ontologies(bound: BoundOntologies) -> list[OntologyFile]:
    """The ontology files whose patterns run: every ontology the bundle resolved, and everything each extends.

    The binding (:func:`mif_rdf.ontology.binding.bundle_ontologies`) is the
    one resolution a load, its validation and ``suggest`` share, so a memory's
    ontology is found the same way by all three.
    """
    chosen: dict[Path, OntologyFile] = {}
    for view in bound.ontologies.values():
        for node in [*reversed(view.ancestors()), view]:  # what an ontology extends first, as it is read
            chosen.setdefault(node.file.path.resolve(), node.file)
    return list(chosen.values())
