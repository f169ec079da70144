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

A suggestion names only what the memory does not have yet: a namespace the
memory's ``namespace`` is neither equal to nor below, an entity type that
neither ``entity.entity_type`` nor any ``entities[].entityType`` names.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rdflib import Graph, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.namespace import RDF, XSD

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.namespaces import MIF, bind_prefixes
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, PatternError, PatternSet, SafePattern, Scan, compile_pattern
from mif_rdf.ontology.binding import BoundOntologies, bundle_ontologies, memory_references
from mif_rdf.ontology.iris import MIFO
from mif_rdf.ontology.model import OntologyFile
from mif_rdf.source.identity import memory_iri

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle
    from mif_rdf.nsmodel.audience import Audience

Kind = Literal["content", "file"]
DEFAULT_THRESHOLD = 0.8
RULE = "discovery"
GRAPH_SUGGESTIONS = "suggestions"


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


@dataclass(frozen=True)
class Suggestion:
    """A pattern matched a memory and names an entity type and/or namespaces the memory lacks.

    ``line``/``column`` (1-based, in characters) locate ``match`` in the memory
    file for a content pattern and in the path for a file pattern (``line`` is
    then None).
    """

    memory: str  # bundle-relative path
    memory_id: str
    ontology: str
    ontology_file: str
    pattern: str
    pattern_key: str
    kind: Kind
    entity_type: str | None
    namespaces: tuple[str, ...]
    context: str | None
    confidence: float
    match: str
    line: int | None
    column: int | None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["namespaces"] = list(self.namespaces)
        return data


@dataclass
class SuggestionReport:
    """What :func:`suggest` found: suggestions in memory order, and the problems met on the way."""

    suggestions: list[Suggestion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ontologies: list[str] = field(default_factory=list)  # the ids whose discovery ran
    patterns: int = 0
    memories: int = 0

    def by_memory(self) -> dict[str, list[Suggestion]]:
        grouped: dict[str, list[Suggestion]] = {}
        for item in self.suggestions:
            grouped.setdefault(item.memory, []).append(item)
        return grouped

    def to_json(self) -> str:
        return json.dumps(
            {
                "memories": self.memories,
                "ontologies": self.ontologies,
                "patterns": self.patterns,
                "suggested": len(self.by_memory()),
                "suggestions": [s.to_dict() for s in self.suggestions],
                "problems": [p.to_dict() for p in self.problems],
            },
            indent=2,
            default=str,
        )

    def to_text(self) -> str:
        lines = []
        for relpath, items in self.by_memory().items():
            lines.append(relpath)
            for item in items:
                what = ", ".join(
                    ([f"entity type {item.entity_type}"] if item.entity_type else [])
                    + [f"namespace {n}" for n in item.namespaces]
                )
                where = (
                    f"line {item.line}, column {item.column}"
                    if item.line is not None
                    else f"path column {item.column}"
                    if item.column is not None
                    else "position unknown"
                )
                hint = f" [{item.context}]" if item.context else ""
                lines.append(
                    f"  {what}: {item.match!r} at {where}; {item.kind} pattern {item.pattern!r} of {item.ontology}{hint}"
                )
        lines.append(
            f"{len(self.suggestions)} suggestions for {len(self.by_memory())} of {self.memories} memories "
            f"({self.patterns} patterns of {len(self.ontologies)} {'ontology' if len(self.ontologies) == 1 else 'ontologies'}: {', '.join(self.ontologies) or 'none'})"
        )
        return "\n".join(lines)

    def graph(self, base_iri: str) -> Graph:
        """The suggestions as RDF, for ``<base>#suggestions`` (terms in docs/mapping.md).

        The pattern and what it suggests use the terms the ontology compiler
        writes for the ontology's own discovery section (``mif:contentPattern``,
        ``mif:suggestsNamespace`` ...), so a suggestion joins its pattern there.
        """
        graph = bind_prefixes(Graph())
        for item in self.suggestions:
            node = URIRef(f"{base_iri}#suggestion-{_digest(item)}")
            graph.add((node, RDF.type, MIF.Suggestion))
            graph.add((node, MIF.suggestionFor, URIRef(memory_iri(item.memory_id))))
            graph.add((node, MIF.sourceOntology, RdfLiteral(item.ontology)))
            graph.add(
                (node, MIF.contentPattern if item.kind == "content" else MIF.filePattern, RdfLiteral(item.pattern))
            )
            graph.add((node, MIF.matchedText, RdfLiteral(item.match)))
            graph.add(
                (
                    node,
                    MIF.confidence,
                    RdfLiteral(format(item.confidence, "f").rstrip("0").rstrip(".") or "0", datatype=XSD.decimal),
                )
            )
            if item.entity_type:
                graph.add((node, MIF.suggestsEntityType, RdfLiteral(item.entity_type)))
            for namespace in item.namespaces:
                graph.add((node, MIF.suggestsNamespace, RdfLiteral(namespace)))
            if item.context:
                graph.add((node, MIFO.context, RdfLiteral(item.context)))
            if item.line is not None:
                graph.add((node, MIF.matchLine, RdfLiteral(item.line, datatype=XSD.integer)))
            if item.column is not None:
                graph.add((node, MIF.matchColumn, RdfLiteral(item.column, datatype=XSD.integer)))
        return graph


def _digest(item: Suggestion) -> str:
    key = "\0".join((item.memory, item.ontology_file, item.pattern_key))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def suggestions_graph_iri(base_iri: str) -> str:
    return f"{base_iri}#{GRAPH_SUGGESTIONS}"


def add_suggestions(bundle: LoadedBundle, report: SuggestionReport, audience: Audience | None = None) -> URIRef:
    """Put ``report`` into the bundle's ``<base>#suggestions`` graph (replacing what was there).

    The graph travels with export and push, and a suggestion carries text of
    its memory's body: suggestions of memories that must stay on this machine
    (``_local`` namespaces, spec 10.2), or that ``audience`` may not read, are
    never put into it (the export policy drops only triples naming a withheld
    memory, and a suggestion's text names none).
    """
    from mif_rdf.nsmodel.access import withheld_reason

    local = {r.relpath for r in bundle.memories.values() if withheld_reason(r.frontmatter.get("namespace"), audience)}
    shared = SuggestionReport([s for s in report.suggestions if s.memory not in local])
    name = URIRef(suggestions_graph_iri(bundle.base_iri))
    target = bundle.dataset.graph(name)
    target.remove((None, None, None))
    target.addN((s, p, o, target) for s, p, o in shared.graph(bundle.base_iri))
    return name


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


# -- running the patterns ------------------------------------------------------------------------------
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
                f"({pattern.file}, {pattern.key}) passed its time limit of {time_limit:g} s on this memory and was stopped",
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
    from mif_rdf.source.discover import discover
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
