"""The validation's tasks: a partition's files checked as a bundle of their own, and the cross-memory joins.

Every rule about one file (the load's problems, SHACL at the level, the
bundle rules of one memory, the ontology rules, ill-typed literals) is the
validator's own (:func:`mif_rdf.validation.validate`), run in the worker on
a folder that holds the partition's memory files beside a copy of the
bundle's ``.mif`` (config, entities, ontologies, namespace files).  The
rules that need other memories are taken from those results and judged by
the shuffles instead (:data:`CROSS_MEMORY`): duplicate ids and locations
(the claims of :mod:`mif_rdf.distributed.tasks`), broken links and the
derivation order in time (a join of each relationship with its target).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from pathlib import Path

from mif_rdf.core.errors import Problem
from mif_rdf.core.outputs import temporary_folder
from mif_rdf.distributed.tasks import IdClaim, Settings, Verdicts, bucket, pack, packed, unpack
from mif_rdf.load.bundle import LoadedBundle, target_keys
from mif_rdf.load.links import broken_link, expects_bundle_target
from mif_rdf.load.loader import load
from mif_rdf.load.stages import duplicate_id, duplicate_location
from mif_rdf.ontology.binding import RULE_COMPILE, RULE_UNKNOWN, RULE_VERSION, OntologyReference, memory_references
from mif_rdf.rdf.jsonld_source import markdown_path, read_memory
from mif_rdf.source.identity import canonical_relationship_name, document_iri
from mif_rdf.validation.bundle_rules import TEMPORAL_TYPES, derivation_problem
from mif_rdf.validation.run import validate

#: The rules a partition cannot judge alone: the shuffles judge them, or (the ontology binding's warnings, one per
#: ontology id naming every memory that names it) the client, from every partition's ontology references.
CROSS_MEMORY = frozenset(
    {"duplicate-id", "duplicate-path", "link", "temporal-derivation", "empty", RULE_UNKNOWN, RULE_VERSION, RULE_COMPILE}
)
#: (key, order, iri, relpath, created): what a link target key points at, with its creation time.
Target = tuple[str, int, str, str, object]
#: (key, order, relpath, created, index, type, target as written): one relationship of a memory.
Edge = tuple[str, int, str, object, int, str, str]


def claims_of(settings: Settings, relpaths: list[str], first: int, buckets: int) -> list[bytes]:
    """Each readable memory file's claim on its id (with its location), bucketed by id and packed: frontmatter
    only."""
    out: list[list[IdClaim]] = [[] for _ in range(buckets)]
    with settings.local(relpaths) as here:
        read = [read_memory(here.root, relpath, settings.base_iri, settings.limits)[0] for relpath in relpaths]
    for offset, (relpath, parsed) in enumerate(zip(relpaths, read, strict=True)):
        if parsed is not None:
            doc_iri = document_iri(settings.base_iri, markdown_path(relpath))
            out[bucket(parsed.id, buckets)].append((parsed.id, first + offset, relpath, doc_iri))
    return packed(out)


def check_partition(
    settings: Settings,
    relpaths: list[str],
    first: int,
    lost: Verdicts,
    level: int,
    strict_temporal: bool,
    buckets: int,
) -> tuple[list[tuple[int, Problem]], list[bytes], list[bytes], int, list[OntologyReference]]:
    """The findings about the partition's files, its memories' link targets and relationships (bucketed and
    packed: :func:`~mif_rdf.distributed.tasks.pack`), how many memories it loaded and the ontologies they name.

    A file that loses its id or location to an earlier one is not loaded,
    as on one machine: it gets its read problems and the duplicate error.
    """
    home = settings.home
    with settings.local(relpaths) as here:
        order = {relpath: first + offset for offset, relpath in enumerate(relpaths)}
        order.update({_twin(r): o for r, o in order.items() if _twin(r) in here.projections})  # stale projections
        findings: list[tuple[int, Problem]] = []
        kept = []
        for relpath in relpaths:
            verdict = lost.get(order[relpath])
            if verdict is None:
                kept.append(relpath)
                continue
            parsed, problems = read_memory(here.root, relpath, here.base_iri, here.limits)
            assert parsed is not None  # it made a claim
            why, other = verdict
            doc_iri = document_iri(here.base_iri, markdown_path(relpath))
            problem = (
                duplicate_id(relpath, parsed.id, other) if why == "id" else duplicate_location(relpath, doc_iri, other)
            )
            findings += [(order[relpath], p) for p in [*problems, problem]]
        with temporary_folder("dask") as folder:
            staged = _staged(here, kept, Path(folder) / "bundle")
            report = validate(staged, level, strict_temporal=strict_temporal, user_dirs=_dirs(settings))
        findings += [
            (order[p.path], _at_home(p, staged.root, home))
            for p in report.results
            if p.path in order and p.rule not in CROSS_MEMORY
        ]
        targets: list[list[Target]] = [[] for _ in range(buckets)]
        edges: list[list[Edge]] = [[] for _ in range(buckets)]
        for record in staged.memories.values():
            created, place = record.frontmatter.get("created"), order[record.relpath]
            for key in (record.doc_iri, record.iri):
                targets[bucket(key, buckets)].append((key, place, record.iri, record.relpath, created))
            for index, rel, key in target_keys(record.frontmatter, record.doc_iri, here.base_iri):
                edges[bucket(key, buckets)].append(
                    (key, place, record.relpath, created, index, rel["type"], rel["target"])
                )
        references = memory_references(staged.memories.values())
        return findings, packed(targets), packed(edges), len(staged.memories), references


def bundle_level(settings: Settings, level: int, strict_temporal: bool, memories: int) -> tuple[list[Problem], bytes]:
    """The findings about the bundle's own files (config, entities, namespace files), from its ``.mif`` alone,
    and the entities as link targets, packed (after every memory, which keep a key they share)."""
    with temporary_folder("dask") as folder:
        staged = _staged(settings, [], Path(folder) / "bundle")
        report = validate(staged, level, strict_temporal=strict_temporal, user_dirs=_dirs(settings))
    own = [
        _at_home(p, staged.root, settings.home)
        for p in report.results
        if p.rule not in CROSS_MEMORY or p.path.startswith(".mif/")  # an entity's duplicate: all entities are here
    ]
    entities: list[Target] = [
        (e.iri, memories + n, e.iri, e.relpath, None) for n, e in enumerate(staged.entities.values())
    ]
    return own, pack(entities)


def join_checks(targets: list[bytes], edges: list[bytes], strict_temporal: bool) -> list[tuple[int, Problem]]:
    """Per bucket of keys: each relationship joined with its target; broken links and derivations out of time."""
    found: dict[str, Target] = {}
    held: list[Target] = unpack(targets)
    for each in sorted(held, key=lambda t: t[1]):
        found.setdefault(each[0], each)
    links: list[Edge] = unpack(edges)
    findings = []
    for key, order, relpath, created, index, kind, written in sorted(links, key=lambda e: (e[1], e[4])):
        target = found.get(key)
        if target is None:
            if expects_bundle_target(written):
                findings.append((order, broken_link(relpath, index, written)))
            continue
        if canonical_relationship_name(kind) in TEMPORAL_TYPES:  # an entity's creation time is None: no finding
            problem = derivation_problem(
                relpath, created, kind, index, written, target[3], target[4], strict=strict_temporal
            )
            if problem is not None:
                findings.append((order, problem))
    return findings


def _at_home(problem: Problem, staged: Path, home: str) -> Problem:
    """A finding as the bundle's own folder would give it: a message that names a file of the staging folder
    (the ontology file a rule comes from) names the bundle's."""
    if str(staged) not in problem.message:
        return problem
    return dataclasses.replace(problem, message=problem.message.replace(str(staged), home))


def _twin(relpath: str) -> str:
    """Where a memory's JSON-LD projection sits (a ``.jsonld`` beside its ``.md``)."""
    return relpath[: -len(".md")] + ".jsonld"


def _dirs(settings: Settings) -> Sequence[str] | None:
    return None if settings.ontology_dirs is None else list(settings.ontology_dirs)


def _staged(settings: Settings, relpaths: list[str], folder: Path) -> LoadedBundle:
    """``relpaths`` (and their ``.jsonld`` projections) beside a copy of ``.mif``, loaded under the bundle's base."""
    mif = settings.root / ".mif"
    if mif.is_dir() and not mif.is_symlink():
        shutil.copytree(mif, folder / ".mif", symlinks=True)
    folder.mkdir(parents=True, exist_ok=True)
    for relpath in relpaths:
        twin = _twin(relpath)
        for name in (relpath, twin) if twin in settings.projections else (relpath,):
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(settings.root / name, target)
    return load(
        folder, base_iri=settings.base_iri, engine=settings.engine, limits=settings.limits, progress=False, workers=0
    )
