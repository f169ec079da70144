"""Rules SHACL over the graph cannot state well: they need the markdown body
(Invariant 3's mirror), compare memories (derivation in time), look at files
the loader does not read (reserved names below the root), concern the form
of the frontmatter, which the graph does not keep (a string where the schema
wants an array makes the same triple as a one-element array; a key outside
an object the schema closes is one more triple), or concern values JSON-LD
leaves out of the graph (an IRI-valued key whose value makes no IRI: the
shape that asks for an IRI there cannot see it).

The rule names match the comment in ``shapes/okf.ttl``.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from rdflib import Graph, URIRef
from rdflib.namespace import SH

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.load.bundle import LoadedBundle, MemoryRecord
from mif_rdf.rdf.projection import project_memory
from mif_rdf.source.identity import canonical_relationship_name
from mif_rdf.source.markdown import split_frontmatter
from mif_rdf.validation.shapes import Rule

_SECTION = re.compile(r"^##\s+Relationships\s*$")
_HEADING = re.compile(r"^#{1,2}\s")
_LINK_LINE = re.compile(r"^\s*[-*+]\s+(\S+)\s+\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)\s*$")
_WIKI_LINE = re.compile(r"^\s*[-*+]\s+(\S+)\s+\[\[([^\]]+)\]\]")
#: Relationship types whose target must exist before the source (spec 8.2; `cites` as the upstream validator has it).
TEMPORAL_TYPES = frozenset({"derived-from", "supersedes", "cites"})
#: OKF file names that are never concept files (okf-conformance 1.3): at the root they are the
#: bundle's index and log, below it they MUST NOT appear.
RESERVED_FILE_NAMES = ("index.md", "log.md")
#: Keys the upstream JSON Schema allows in the objects it closes (``additionalProperties: false``).
RELATIONSHIP_KEYS = ("type", "target", "strength", "metadata")
EMBEDDING_KEYS = ("@type", "model", "modelVersion", "dimensions", "sourceText", "vectorUri", "normalized")


def bundle_problems(bundle: LoadedBundle, *, strict_temporal: bool = False) -> list[Problem]:
    problems: list[Problem] = []
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        problems.extend(mirror_problems(bundle, record))
        problems.extend(schema_problems(record))
    problems.extend(temporal_problems(bundle, strict=strict_temporal))
    problems.extend(reserved_name_problems(bundle.root))
    problems.extend(namespace_rule_problems(bundle))
    return problems


def namespace_rule_problems(bundle: LoadedBundle) -> list[Problem]:
    """The namespace rules of :mod:`mif_rdf.nsmodel.rules` (agreements, ``_system``, reserved prefixes)."""
    from mif_rdf.nsmodel import read_namespace_model
    from mif_rdf.nsmodel.rules import namespace_problems

    model = read_namespace_model(bundle.root, bundle.config, bundle.limits)
    return namespace_problems(
        model, ((r.relpath, r.frontmatter) for r in sorted(bundle.memories.values(), key=lambda r: r.relpath))
    )


def schema_problems(record: MemoryRecord) -> list[Problem]:
    """Frontmatter forms the upstream JSON Schema rejects and the graph cannot show."""
    fm = record.frontmatter
    problems: list[Problem] = []

    def add(key: str, message: str, rule: str, level: int, value: Any) -> None:
        problems.append(Problem(record.relpath, message, Severity.ERROR, key=key, value=value, rule=rule, level=level))

    tags = fm.get("tags")
    if isinstance(tags, str):  # other non-lists are not strings either: rule tags-text says so
        add(
            "tags",
            "tags must be a list of strings, one tag each (as in tags: [a, b]), not one string",
            "tags-list",
            2,
            tags,
        )
    relationships = fm.get("relationships")
    for index, rel in enumerate(relationships if isinstance(relationships, list) else []):
        extra = [k for k in rel if k not in RELATIONSHIP_KEYS] if isinstance(rel, dict) else []
        if extra:
            add(
                f"relationships[{index}]",
                f"relationship keys {', '.join(map(str, extra))} are not allowed: a relationship has "
                f"{', '.join(RELATIONSHIP_KEYS)} only (put other data in metadata)",
                "relationship-keys",
                2,
                rel,
            )
    entity = fm.get("entity")
    if isinstance(entity, dict) and not isinstance(
        entity.get("name"), str
    ):  # a warning: ontology payloads often go by entity_id
        problems.append(
            Problem(
                record.relpath,
                "the entity payload has no name (the upstream schema's EntityData requires one)",
                Severity.WARNING,
                key="entity",
                value=entity,
                rule="entity-name",
                level=2,
            )
        )
    ontology = fm.get("ontology")
    if isinstance(ontology, dict) and "id" not in ontology:
        add(
            "ontology",
            "an ontology reference needs its id (spec 4.3), as in ontology: {id: mif-base}",
            "ontology-id",
            2,
            ontology,
        )
    embedding = fm.get("embedding")
    extra = [k for k in embedding if k not in EMBEDDING_KEYS] if isinstance(embedding, dict) else []
    if extra:
        add(
            "embedding",
            f"embedding keys {', '.join(map(str, extra))} are not allowed: an embedding reference has "
            f"{', '.join(EMBEDDING_KEYS)} only",
            "embedding-keys",
            3,
            embedding,
        )
    return problems


def reserved_name_problems(root: Path) -> list[Problem]:
    """``index.md``/``log.md`` below the root: OKF reserves the names,
    so such a file is neither a concept nor the bundle's index."""
    problems = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if Path(folder) == root:
            continue
        for name in sorted(set(files) & set(RESERVED_FILE_NAMES)):
            relpath = (Path(folder) / name).relative_to(root).as_posix()
            problems.append(
                Problem(
                    relpath,
                    f"{name} is reserved for the bundle root (OKF 1.3): below it, it MUST NOT be used; this file is "
                    "not loaded as a memory",
                    Severity.ERROR,
                    rule="okf-reserved-name",
                    level=0,
                )
            )
    return problems


def body_relationships(body: str) -> Iterator[tuple[int, str, str | None, str | None]]:
    """(body line number, the line, type, target) for each list line of ``## Relationships``.

    type/target are None for a line that is not ``- <type> [text](<target>)``;
    a ``[[wiki-link]]`` line gives its type and the link text prefixed ``[[``.
    """
    inside = False
    for number, line in enumerate(body.split("\n"), start=1):
        if _SECTION.match(line):
            inside = True
            continue
        if inside and _HEADING.match(line):
            inside = False
        if not inside or not line.strip():
            continue
        link, wiki = _LINK_LINE.match(line), _WIKI_LINE.match(line)
        if link:
            yield number, line, link.group(1), link.group(2)
        elif wiki:
            yield number, line, wiki.group(1), "[[" + wiki.group(2)


def _body_offset(bundle: LoadedBundle, record: MemoryRecord) -> int:
    """File line number of the body's first line (lines before it, plus one)."""
    try:
        text = (bundle.root / record.relpath).read_text(encoding="utf-8")
        body = split_frontmatter(text).body
        return text[: len(text) - len(body)].count("\n") + 1
    except (OSError, UnicodeDecodeError, ValueError):
        return 1


def mirror_problems(bundle: LoadedBundle, record: MemoryRecord) -> list[Problem]:
    """Invariant 3: frontmatter relationships and the body's markdown links list the same edges."""
    relationships = record.frontmatter.get("relationships")
    front: dict[tuple[str, str], int] = {}
    if isinstance(relationships, list):
        for index, rel in enumerate(relationships):
            if isinstance(rel, dict) and isinstance(rel.get("type"), str) and isinstance(rel.get("target"), str):
                front.setdefault((canonical_relationship_name(rel["type"]), rel["target"]), index)
    body_lines = list(body_relationships(record.body))
    if not front and not body_lines:
        return []
    offset = functools.cache(lambda: _body_offset(bundle, record) - 1)  # read the file again only to name a line
    problems: list[Problem] = []
    mirrored = set()
    for number, line, kind, target in body_lines:
        if target is not None and target.startswith("[["):
            problems.append(
                Problem(
                    record.relpath,
                    f"'## Relationships' line {line.strip()!r} is a MIF 0.1 wiki-link; MIF 1.0 needs a markdown link "
                    f"'- {kind} [Title](/path.md)' mirrored in the frontmatter relationships",
                    Severity.ERROR,
                    key="content",
                    line=offset() + number,
                    value=line.strip(),
                    rule="okf-wiki-link",
                    level=0,
                )
            )
            continue
        if (
            canonical_relationship_name(kind or ""),
            target,
        ) in front:  # relatesTo and relates-to are one type, as for the loader
            mirrored.add((canonical_relationship_name(kind or ""), target))
            continue
        problems.append(
            Problem(
                record.relpath,
                f"body line {line.strip()!r} has no frontmatter relationship {{type: {kind}, target: {target}}} "
                "(Invariant 3: frontmatter is authoritative, the body mirrors it)",
                Severity.ERROR,
                key="relationships",
                line=offset() + number,
                value=line.strip(),
                rule="okf-relationship-mirror",
                level=0,
            )
        )
    for (canonical, target), index in sorted(front.items(), key=lambda item: item[1]):
        if (canonical, target) not in mirrored:
            kind = relationships[index]["type"]  # type: ignore[index]  # the author's spelling
            problems.append(
                Problem(
                    record.relpath,
                    f"frontmatter relationship {kind} -> {target} has no mirror line '- {kind} [Title]({target})' in "
                    "the body's ## Relationships section (Invariant 3)",
                    Severity.ERROR,
                    key=f"relationships[{index}]",
                    value={"type": kind, "target": target},
                    rule="okf-relationship-mirror",
                    level=0,
                )
            )
    return problems


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 date or date-time as an aware datetime (UTC when no zone is given)."""
    if not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        try:
            moment = datetime.combine(date.fromisoformat(text), datetime.min.time())
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def temporal_problems(bundle: LoadedBundle, *, strict: bool = False) -> list[Problem]:
    """A derived-from/supersedes target must not be created after its source."""
    problems = []
    for link in bundle.relationships(TEMPORAL_TYPES):
        if link.resolved is None:
            continue
        target = bundle.memories.get(link.resolved[len("urn:mif:") :]) if link.resolved.startswith("urn:mif:") else None
        if target is None:
            continue
        problem = derivation_problem(
            link.source.relpath,
            link.source.frontmatter.get("created"),
            link.type,
            link.index,
            link.target,
            target.relpath,
            target.frontmatter.get("created"),
            strict=strict,
        )
        if problem is not None:
            problems.append(problem)
    return problems


def derivation_problem(
    relpath: str,
    created: object,
    kind: str,
    index: int,
    target: str,
    target_relpath: str,
    target_created: object,
    *,
    strict: bool = False,
) -> Problem | None:
    """The finding for one derived-from/supersedes link whose target was created after its source, else None
    (one link at a time: :mod:`mif_rdf.distributed` judges the links a join brings together)."""
    source_time, target_time = parse_time(created), parse_time(target_created)
    if source_time is None or target_time is None or source_time >= target_time:
        return None
    return Problem(
        relpath,
        f"{kind} target {target_relpath} was created {target_created}, after this memory "
        f"({created}): a source cannot postdate what derives from it",
        Severity.ERROR if strict else Severity.WARNING,
        key=f"relationships[{index}].target",
        value=target,
        rule="temporal-derivation",
        level=2,
    )


def unusable_iri_problems(bundle: LoadedBundle, shapes: Graph, known: dict[URIRef, Rule]) -> list[Problem]:
    """Values that must name an IRI or a node and do not, under the rule that asks for one there.

    The projection passes them through and JSON-LD drops them (or the
    projection leaves them out, when they would break the document), so the
    graph SHACL validates does not hold them. Only memories with projection
    notes are projected again.
    """
    wanted: dict[URIRef, tuple[Rule, str]] = {}
    for shape, rule in known.items():
        path = shapes.value(shape, SH.path)
        if isinstance(path, URIRef) and shapes.value(shape, SH.nodeKind) in (SH.IRI, SH.BlankNodeOrIRI):
            wanted[path] = (rule, str(shapes.value(shape, SH.message) or f"must name an IRI ({rule.name})"))
    noted = {p.path for p in bundle.problems if p.rule == "projection"}
    problems = []
    for record in sorted((m for m in bundle.memories.values() if m.relpath in noted), key=lambda m: m.relpath):
        projection = project_memory(record.frontmatter, record.body, path=record.relpath, doc_iri=record.doc_iri)
        for keypath, iri, value in projection.unusable:
            found = wanted.get(URIRef(iri))
            if found is not None:
                rule, message = found
                problems.append(
                    Problem(
                        record.relpath,
                        message,
                        rule.severity,
                        key=keypath,
                        value=value,
                        rule=rule.name,
                        level=rule.level,
                    )
                )
    return problems


def unindexed(key: str | None) -> str:
    """A key path with its list positions blanked (``citations[0].url`` -> ``citations[].url``)."""
    return re.sub(r"\[\d*\]", "[]", key or "")
