"""``export_nquads``: a bundle's N-Quads written by a Dask cluster, one gzipped file per partition.

The memory files, in path order, are cut into partitions; each partition is
read, projected and written by one task, and the cross-memory parts (which
file keeps a duplicated id or location, the links graph's edges) are two
shuffles of small keyed records (:mod:`mif_rdf.distributed.tasks`), never a
collect of the bundle into one process.  The client keeps what the
single-machine stream keeps too: the withheld memories' IRIs, the entity
files (``.mif/entities``, read here), the problems and the classes used.

The union of the files is the set of quads ``mif-rdf export --stream``
writes (tests compare them graph by graph on every fixture).
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.core.outputs import replacing, write_file
from mif_rdf.core.statements import Triple
from mif_rdf.distributed.cluster import check_address, connected
from mif_rdf.distributed.location import local_folder, opened
from mif_rdf.distributed.shuffles import collected, partitioned, spooled_settled
from mif_rdf.distributed.spool import SPOOL, remove_spools
from mif_rdf.distributed.tasks import (
    Settings,
    ShuffledIndex,
    Verdicts,
    Written,
    join_links,
    packed,
    unpack,
    write_partition,
)
from mif_rdf.load.loader import memory_files, open_bundle
from mif_rdf.load.pipeline import ToRdfEngine
from mif_rdf.nsmodel.access import Withheld
from mif_rdf.nsmodel.audience import Audience
from mif_rdf.nsmodel.reading import read_namespace_model
from mif_rdf.output.stream_export import StreamReport
from mif_rdf.source.parse import parse_entity

if TYPE_CHECKING:
    from distributed import Client, Future

#: The manifest beside the partition files.
MANIFEST = "manifest.json"
#: The file names an export writes into its folder (and the only ones it replaces or removes there).
OUR_FILES = ("part-", "links-", "bundle.nq.gz", MANIFEST, SPOOL)


@dataclass
class DistributedReport:
    """What a distributed export wrote and found."""

    out_dir: Path
    #: file name -> quads, in the order written (memory partitions, the bundle's own file, links buckets)
    files: dict[str, int] = field(default_factory=dict)
    graphs: int = 0
    memories: int = 0
    partitions: int = 0
    withheld: dict[str, Withheld] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    dashboard: str | None = None

    @property
    def quads(self) -> int:
        return sum(self.files.values())

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == Severity.ERROR)

    def manifest(self) -> dict[str, Any]:
        severities = Counter(p.severity.value for p in self.problems)
        return {
            "files": [{"name": name, "quads": quads} for name, quads in self.files.items()],
            "quads": self.quads,
            "graphs": self.graphs,
            "memories": self.memories,
            "partitions": self.partitions,
            "withheld": sorted(self.withheld),
            "problems": {"count": dict(sorted(severities.items())), "items": [p.to_dict() for p in self.problems]},
        }


def export_nquads(
    bundle_url: str | Path,
    out_url: str | Path,
    client: Client | str | None = None,
    *,
    base_iri: str | None = None,
    partitions: int | None = None,
    engine: ToRdfEngine = "fast",
    limits: Limits = DEFAULT_LIMITS,
    with_hashes: bool = False,
    audience: Audience | None = None,
    ontology_dirs: Iterable[Path | str] | None = None,
    workers: int | None = None,
    on_start: Callable[[Client], None] | None = None,
) -> DistributedReport:
    """Write the bundle at ``bundle_url`` into the folder ``out_url`` as gzipped N-Quads, on a Dask cluster.

    ``bundle_url``: a folder every worker sees, or any URL fsspec reads
    (:mod:`mif_rdf.distributed.location`); ``out_url``: a local or shared folder.

    ``client``: a ``distributed.Client``, a scheduler address, or None for a
    ``LocalCluster`` of ``workers`` processes made for this export.  The
    folder gets ``part-NNNNN.nq.gz`` (the memories of each partition),
    ``bundle.nq.gz`` (namespaces, entities, class hierarchy),
    ``links-NNNNN.nq.gz`` (the links graph's edges, by bucket) and
    ``manifest.json``; each file is written atomically.  ``on_start`` is
    called with the client before any work (the command line prints the
    dashboard link there).  The other options are those of
    :func:`~mif_rdf.output.stream_nquads`.
    """
    out_dir = local_folder(out_url, "output folder")
    check_address(client)
    with opened(bundle_url) as (root, source):
        bundle = open_bundle(root, base_iri=base_iri, engine=engine, limits=limits)
        _prepare_output(out_dir, bundle.root)
        files = memory_files(bundle)
        model = read_namespace_model(bundle.root, bundle.config, limits)
        report = DistributedReport(out_dir, memories=len(files.memories))
        settings = Settings(
            bundle.root,
            bundle.base_iri,
            engine,
            limits,
            frozenset(files.projections),
            model,
            out_dir.resolve(),
            with_hashes,
            audience,
            None if ontology_dirs is None else tuple(str(d) for d in ontology_dirs),
            source,
        )
        with connected(client, workers) as dask:
            if on_start is not None:
                on_start(dask)
            chunks = partitioned(dask, files.memories, partitions)
            report.partitions = len(chunks)
            written, problems = _run(dask, settings, chunks, files.entities)
        for item in written:
            report.files[item.file] = item.quads
            report.graphs += item.graphs
            report.withheld.update(item.withheld)
        report.graphs += len(set().union(*(item.shared for item in written)))
        report.problems = list(bundle.problems) + model.problems + problems.ordered()
        _remove_stale(out_dir, report.files)
        write_file(out_dir / MANIFEST, (json.dumps(report.manifest(), indent=1, sort_keys=True) + "\n").encode("utf-8"))
        return report


@dataclass
class _Found:
    """The problems of the three kinds of task, in the stream's order: memories, entity files, links."""

    memories: list[tuple[int, Problem]] = field(default_factory=list)
    entities: list[Problem] = field(default_factory=list)
    links: list[tuple[int, Problem]] = field(default_factory=list)

    def ordered(self) -> list[Problem]:
        return (
            [p for _, p in sorted(self.memories, key=_first)]
            + self.entities
            + [p for _, p in sorted(self.links, key=_first)]
        )


def _first(item: tuple[int, Problem]) -> int:
    return item[0]


def _run(
    dask: Client, settings: Settings, chunks: list[list[str]], entities: list[str]
) -> tuple[list[Written], _Found]:
    """The task graph: write every partition, settle ids and locations (two shuffles of claims), write again the
    partitions a file of which loses, the entity files here, then the links graph (targets and edges through the
    spool files, joined per bucket)."""
    buckets = len(chunks)
    firsts = [sum(len(c) for c in chunks[:i]) for i in range(buckets)]
    entity_keys = frozenset(_entity_iris(settings, entities))

    def write(i: int, lost: Verdicts) -> Future:
        return dask.submit(write_partition, settings, i, chunks[i], firsts[i], lost, entity_keys, buckets, pure=False)

    try:
        summaries: list[bytes] = collected([write(i, {}) for i in range(buckets)])
        lost = spooled_settled(dask, settings.out_dir, buckets)
        again = sorted({bisect.bisect_right(firsts, order) - 1 for order in lost})
        rewritten = [
            write(i, {o: v for o, v in lost.items() if firsts[i] <= o < firsts[i] + len(chunks[i])}) for i in again
        ]
        for i, summary in zip(again, collected(rewritten), strict=True):
            summaries[i] = summary
        written: list[Written] = unpack(summaries)
        del summaries
        found = _Found(memories=[item for w in written for item in w.problems])
        own, entity_targets, found.entities = _bundle_file(settings, written, entities, buckets, sum(map(len, chunks)))
        joins = [dask.submit(join_links, settings, j, buckets, entity_targets[j], pure=False) for j in range(buckets)]
        links: list[Written] = collected(joins)
    finally:
        remove_spools(settings.out_dir)
    found.links = [item for w in links for item in w.problems]
    return [*written, own, *links], found


def _entity_iris(settings: Settings, entities: list[str]) -> Iterable[str]:
    """The IRIs the entity files claim (their problems are reported when they are written)."""
    for relpath in entities:
        parsed, _ = parse_entity(settings.root, relpath, settings.limits)
        if parsed is not None:
            yield parsed.iri


def _bundle_file(
    settings: Settings, written: list[Written], entities: list[str], buckets: int, memories: int
) -> tuple[Written, list[bytes], list[Problem]]:
    """``bundle.nq.gz``, written here: the namespaces graph, the entity files, the classes' hierarchy.

    Entity files come after every memory, as on one machine: an entity whose
    IRI a memory holds is a duplicate, and one that names a withheld memory
    loses that triple.
    """
    claimed: dict[str, tuple[int, str]] = {}
    for w in written:
        for key, held in w.claimed.items():
            claimed[key] = min(claimed.get(key, held), held)
    index = ShuffledIndex(buckets, taken={key: relpath for key, (_, relpath) in claimed.items()}, first_entity=memories)
    report = StreamReport()
    own = Written("bundle.nq.gz")
    with replacing(settings.out_dir / own.file, gzipped=True) as out:
        writer = settings.writer(out, report, index)
        writer.hidden.update(*(w.hidden for w in written))
        writer.namespaces(settings.model)
        for relpath in entities:
            writer.entity(relpath)
        hierarchy: dict[Triple, None] = {}
        for w in written:
            hierarchy.update(dict.fromkeys(w.hierarchy))
        writer.write_triples(list(hierarchy), writer.types)
    own.quads, own.graphs, own.shared, own.withheld = report.quads, writer.graphs, writer.shared, report.withheld
    return own, packed(index.targets), list(writer.bundle.problems)


def _prepare_output(out_dir: Path, root: Path) -> None:
    """The output folder, made if missing; one with other files than an export's is refused (nothing is lost)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise MifRdfError(f"output folder {str(out_dir)!r} is a file; give a folder")
    if out_dir.resolve() == root:
        raise MifRdfError(f"output folder {str(out_dir)!r} is the bundle folder; give another folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    others = sorted(p.name for p in out_dir.iterdir() if not p.name.startswith(OUR_FILES))
    if others:
        raise MifRdfError(
            f"output folder {str(out_dir)!r} holds files an export does not write ({', '.join(others[:3])}"
            f"{', ...' if len(others) > 3 else ''}); give an empty folder or one an earlier export wrote"
        )


def _remove_stale(out_dir: Path, written: dict[str, int]) -> None:
    """Partition files an earlier export with more partitions left: the manifest must list every file there is."""
    for path in out_dir.iterdir():
        if (
            path.name.startswith(OUR_FILES)
            and path.name != MANIFEST
            and path.name not in written
            and path.name.endswith(".nq.gz")
        ):
            path.unlink()
