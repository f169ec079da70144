"""Running discovery patterns (spec 10.8.4) over a bundle's memories: :func:`suggest`.

Which patterns run is :mod:`mif_rdf.ontology.discovery`'s; this module reads
the memories (from a loaded bundle, or parsed from a folder without building
RDF), scans each body and path once per pattern set, and keeps only what a
memory lacks: a namespace its ``namespace`` is neither equal to nor below, an
entity type that neither ``entity.entity_type`` nor any
``entities[].entityType`` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, PatternSet, Scan
from mif_rdf.ontology.binding import bundle_ontologies, memory_references
from mif_rdf.ontology.discovery import RULE, DiscoveryPattern, discovery_ontologies, discovery_patterns
from mif_rdf.ontology.suggestions import Suggestion, SuggestionReport

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle


@dataclass(frozen=True)
class _Memory:
    relpath: str
    id: str
    frontmatter: Mapping[str, Any]
    body: str
    body_line: int  # 0: not known (a loaded bundle's records): looked up in the file when needed


def suggest(
    bundle: LoadedBundle | str | Path,
    *,
    ontologies: Sequence[str | Path] = (),
    search_path: Sequence[str | Path] = (),
    user_dirs: Sequence[str | Path] | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    limits: Limits = DEFAULT_LIMITS,
) -> SuggestionReport:
    """Run every resolved ontology's discovery patterns on every memory of ``bundle``.

    ``bundle`` is a loaded :class:`~mif_rdf.bundle.Bundle` or a bundle folder
    (then the files are only read and parsed, no RDF is built: that is what
    makes ``mif-rdf suggest`` fast).  ``ontologies`` adds ontologies (ids or
    files) to those the memories name; ``search_path`` adds folders to look
    for ids in (``--path``), ``user_dirs`` the user ontology folders (None:
    ``MIF_RDF_ONTOLOGY_PATH``), as for a load.  ``time_limit``: seconds a pattern RE2 cannot run may spend on
    one memory (see :mod:`mif_rdf.core.patterns`).
    """
    root, memories, problems = _memories(bundle, limits)
    bound = bundle_ontologies(
        root, memory_references(memories), user_dirs=user_dirs, path_dirs=search_path, extra=ontologies
    )
    files = discovery_ontologies(bound)
    report = SuggestionReport(problems=problems + list(bound.problems), memories=len(memories))
    patterns: list[DiscoveryPattern] = []
    for onto in files:
        found, warnings = discovery_patterns(onto, time_limit)
        patterns += found
        report.problems += warnings
        if found:
            report.ontologies.append(onto.id)
    report.patterns = len(patterns)
    sets = [(kind, [p for p in patterns if p.kind == kind]) for kind in ("content", "file")]
    runs = [(found, PatternSet([p.compiled for p in found]), kind == "content") for kind, found in sets if found]
    for memory in memories:
        for found, pattern_set, in_body in runs:
            _run(memory, found, pattern_set.scan(memory.body if in_body else memory.relpath), root, time_limit, report)
    return report


def _run(
    memory: _Memory,
    patterns: list[DiscoveryPattern],
    scan: Scan,
    root: Path,
    time_limit: float,
    report: SuggestionReport,
) -> None:
    """What one scan of a memory's body or path suggests, and the patterns its time limit stopped, into ``report``."""
    for index in scan.timed_out:
        pattern = patterns[index]
        report.problems.append(
            Problem(
                memory.relpath,
                f"{pattern.kind} pattern {pattern.source!r} of ontology '{pattern.ontology}' "
                f"({pattern.file}, {pattern.key}) passed its time limit of {time_limit:g} s on this memory and was "
                "stopped",
                Severity.WARNING,
                rule=RULE,
            )
        )
    have_types, have_namespace = _has(memory.frontmatter)
    first_line = memory.body_line or None
    for hit in scan.hits:
        pattern = patterns[hit.pattern]
        entity = pattern.entity_type if pattern.entity_type and _norm(pattern.entity_type) not in have_types else None
        namespaces = tuple(n for n in pattern.namespaces if not _within(have_namespace, n))
        if not entity and not namespaces:
            continue
        if pattern.kind == "content":
            first_line = first_line or _body_first_line(root, memory)
            line, column = _position(memory.body, hit.first.start, first_line)
        else:
            line, column = None, hit.first.start + 1
        report.suggestions.append(
            Suggestion(
                memory.relpath,
                memory.id,
                pattern.ontology,
                str(pattern.file),
                pattern.source,
                pattern.key,
                pattern.kind,
                entity,
                namespaces,
                pattern.context,
                pattern.confidence,
                hit.first.text,
                line,
                column,
            )
        )


def _memories(bundle: LoadedBundle | str | Path, limits: Limits) -> tuple[Path, list[_Memory], list[Problem]]:
    """The memories of a loaded bundle, or read from a folder (with the problems of files that could not be read)."""
    if not isinstance(bundle, (str, Path)):
        records = sorted(bundle.memories.values(), key=lambda r: r.relpath)
        return bundle.root, [_Memory(r.relpath, r.id, r.frontmatter, r.body, 0) for r in records], []
    from mif_rdf.rdf.jsonld_source import read_memory
    from mif_rdf.source.bundle_files import discover
    from mif_rdf.source.parse import bundle_base_iri

    root = Path(bundle)
    if not root.is_dir():
        raise MifRdfError(f"bundle folder {str(root)!r} does not exist")
    problems: list[Problem] = []
    memories = []
    base = bundle_base_iri(root.resolve())  # once: it reads the bundle's config
    for relpath in discover(root).memories[: limits.max_memories]:
        parsed, found = read_memory(root, relpath, base, limits)  # .md or .jsonld
        if parsed is None:
            problems += [p for p in found if p.severity == Severity.ERROR]
        else:
            memories.append(_Memory(relpath, parsed.id, parsed.frontmatter, parsed.body, parsed.body_line))
    return root, memories, problems


def _has(frontmatter: Mapping[str, Any]) -> tuple[set[str], str | None]:
    """The entity types a memory names (normalized) and its namespace."""
    types = set()
    entity = frontmatter.get("entity")
    if isinstance(entity, Mapping) and isinstance(entity.get("entity_type"), str):
        types.add(_norm(entity["entity_type"]))
    refs = frontmatter.get("entities")
    for ref in refs if isinstance(refs, list) else ():
        if isinstance(ref, Mapping):
            for key in ("entityType", "entity_type"):
                if isinstance(ref.get(key), str):
                    types.add(_norm(ref[key]))
    namespace = frontmatter.get("namespace")
    return types, namespace.strip("/") if isinstance(namespace, str) else None


def _norm(name: str) -> str:
    """``Technology``, ``technology`` and ``data_platform`` / ``data-platform`` name one type."""
    return name.strip().lower().replace("_", "-").replace(" ", "-")


def _within(namespace: str | None, suggested: str) -> bool:
    suggested = suggested.strip("/")
    return namespace is not None and (namespace == suggested or namespace.startswith(suggested + "/"))


def _body_first_line(root: Path, memory: _Memory) -> int | None:
    """The file line the body starts on: the file ends with the verbatim body; None when it changed since."""
    try:
        text = (root / memory.relpath).read_bytes().decode("utf-8-sig")  # newlines as written, as the parser reads them
    except (OSError, UnicodeDecodeError):
        return None
    if not text.endswith(memory.body):
        return None
    return text[: len(text) - len(memory.body)].count("\n") + 1


def _position(body: str, offset: int, first_line: int | None) -> tuple[int | None, int | None]:
    if first_line is None:
        return None, None
    line_start = body.rfind("\n", 0, offset) + 1
    return first_line + body.count("\n", 0, offset), offset - line_start + 1
