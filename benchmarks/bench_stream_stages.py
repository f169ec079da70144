"""Where the streamed export's time goes, stage by stage, in one process (CPU seconds).

``export --stream`` (:mod:`mif_rdf.output.stream_export`) does, for every
memory file: read it, split the frontmatter, parse the YAML, check it, project
it and write its N-Quads text (one pass, :mod:`mif_rdf.rdf.memory_nquads`), shape what the writer needs
(layout, inherited and links lines, keys), move it from a worker to the main
process (its text into a spool file, the rest pickled and unpickled), and write
it (the links index, the text copied from the spool file to the output).
This script runs those stages one after the other over a bundle's memory
files with the package's own functions, timing each with the CPU clock (the
cyclic collector off, as in the workers), so
the split does not depend on what else shares the machine; then the stream
itself, in one process, as the check that the stages add up, and with two
workers (CPU of the whole process tree).

    python benchmarks/bench_stream_stages.py BUNDLE [--limit N]
    python benchmarks/bench_stream_stages.py BUNDLE --steady N    # a worker's chunks, steady state

docs/performance.md ("The streamed export, stage by stage") has the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import pickle
import resource
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from mif_rdf.load import termpickle
from mif_rdf.load.loader import memory_files, open_bundle
from mif_rdf.load.pipeline import CHUNK, PreparedMemory, prepare_memory
from mif_rdf.nsmodel.reading import read_namespace_model
from mif_rdf.ontology.extended_types import Typer
from mif_rdf.output.stream_export import StreamReport, StreamWriter, memory_shape, spool_text, stream_nquads
from mif_rdf.output.stream_index import StreamIndex
from mif_rdf.rdf.jsonld_source import markdown_path
from mif_rdf.rdf.lexical import ill_typed_values
from mif_rdf.rdf.memory_nquads import memory_nquads
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.tordf import document_nquads
from mif_rdf.source.fastyaml import load_yaml  # what parse_memory reads YAML with
from mif_rdf.source.identity import document_iri, memory_iri
from mif_rdf.source.integrity import hash_problems
from mif_rdf.source.markdown import split_frontmatter
from mif_rdf.source.parse import parse_memory, read_text


class Clock(defaultdict[str, float]):
    """CPU seconds by stage."""

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.process_time()
        yield
        self[name] += time.process_time() - start


def stages(root: Path, limit: int | None) -> tuple[Clock, int]:
    """Every stage over the bundle's memory files, each timed on its own; the number of memories."""
    bundle = open_bundle(root)
    files = memory_files(bundle)
    relpaths = [p for p in files.memories if p.endswith(".md")][:limit]
    model = read_namespace_model(bundle.root, bundle.config, bundle.limits)
    shape = memory_shape(bundle, files.projections, model)
    clock = Clock(float)
    shaped = []
    for relpath in relpaths:
        with clock.stage("1 read the file"):
            text = read_text(root / relpath, relpath, [])
        with clock.stage("2 split the frontmatter"):
            split = split_frontmatter(text or "")
        with clock.stage("3 YAML"):
            load_yaml(split.frontmatter)
        with clock.stage("1-4 parse_memory (read, split, YAML, checks)"):
            parsed, found = parse_memory(root, relpath)
        if parsed is None:
            continue
        with clock.stage("5 hash and ill-typed checks"):
            hash_problems(parsed.relpath, parsed.frontmatter, parsed.body)
            ill_typed_values(parsed.relpath, parsed.frontmatter)
        doc_iri = document_iri(bundle.base_iri, markdown_path(relpath))
        with clock.stage("6-7 frontmatter to N-Quads text (one pass)"):
            graph = memory_iri(parsed.id)
            one_pass = memory_nquads(parsed.frontmatter, parsed.body, path=relpath, doc_iri=doc_iri, graph=graph)
            if one_pass is None:  # the projection has notes: the document and its walk, as complete() does
                projection = project_memory(parsed.frontmatter, parsed.body, path=relpath, doc_iri=doc_iri)
                one_pass = document_nquads(projection.document, doc_iri, graph), projection.ill_typed
        prepared = PreparedMemory(relpath, found, parsed, [], doc_iri, nquads=one_pass[0], ill_typed=one_pass[1])
        with clock.stage("8 shape for the writer (stream_export)"):
            shaped.append(shape(prepared))
    chunks = [shaped[i : i + CHUNK] for i in range(0, len(shaped), CHUNK)]
    with tempfile.TemporaryDirectory(prefix="mif-stages-") as folder:
        with clock.stage("9a spool the text, pickle the rest (worker)"):
            payloads = [termpickle.dumps(spool_text(chunk, folder)) for chunk in chunks]
        with clock.stage("9b unpickle in the main process"):
            moved = [item for payload in payloads for item in pickle.loads(payload)]
        with open(Path(folder) / "out.nq", "wb") as out, _TemporaryIndex() as index:
            writer = StreamWriter(bundle, out, StreamReport(), index, Typer(bundle.root))
            with clock.stage("10 write (links index, copy to the output)"):
                for item in moved:
                    writer.memory(item)
                writer.flush()
            writer.close_spool()
    return clock, len(shaped)


def worker_steady(root: Path, count: int) -> dict[str, float]:
    """CPU seconds a memory of a worker's chunks, as a worker runs them, in a steady state: the memos warmed
    on the bundle's first ``count`` memory files, then the next ``count`` timed by chunk (prepare, shape, spool
    and pickle, and the main process's unpickling), the cyclic collector off as in a worker.

    Each memory is read once, as in the stream, so what a memo cannot hold is paid for; the stage loop above
    reads each file in several stages, and the whole stream's CPU moves with the pipe and the machine.
    """
    bundle = open_bundle(root)
    files = memory_files(bundle)
    relpaths = [p for p in files.memories if p.endswith(".md")]
    model = read_namespace_model(bundle.root, bundle.config, bundle.limits)
    shape = memory_shape(bundle, files.projections, model)
    clock = Clock(float)

    def run(paths: list[str]) -> None:
        with tempfile.TemporaryDirectory(prefix="mif-stages-") as folder:
            for start in range(0, len(paths), CHUNK):
                with clock.stage("prepare (read, split, YAML, checks, one pass)"):
                    prepared = [
                        prepare_memory(root, p, bundle.base_iri, bundle.limits, "fast", "nquads")
                        for p in paths[start : start + CHUNK]
                    ]
                with clock.stage("shape for the writer"):
                    shaped = [shape(item) for item in prepared]
                with clock.stage("spool the text, pickle the rest"):
                    payload = termpickle.dumps(spool_text(shaped, folder))
                with clock.stage("unpickle (main process)"):
                    pickle.loads(payload)

    run(relpaths[:count])
    clock.clear()
    run(relpaths[count : 2 * count])
    return {stage: seconds / count for stage, seconds in clock.items()}


class _TemporaryIndex:
    def __enter__(self) -> StreamIndex:
        self.folder = tempfile.TemporaryDirectory(prefix="mif-stages-")
        self.index = StreamIndex(Path(self.folder.name))
        return self.index

    def __exit__(self, *exc: object) -> None:
        self.index.close()
        self.folder.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--limit", type=int, help="only the first N memory files")
    parser.add_argument("--steady", type=int, metavar="N", help="instead: a worker's chunks, memos warmed on N files")
    args = parser.parse_args()
    gc.collect()
    if args.steady:
        gc.disable()
        figures = worker_steady(args.bundle, args.steady)
        print(f"{args.steady:,} memories after {args.steady:,} to warm the memos, a worker's CPU; us a memory")
        for stage, seconds in figures.items():
            print(f"  {stage:48} {seconds * 1e6:7.1f} us")
        print(f"  {'all':48} {sum(figures.values()) * 1e6:7.1f} us")
        return
    gc.disable()  # as in the stream's workers: the memories this script keeps would make each collection longer
    try:
        clock, count = stages(args.bundle, args.limit)
    finally:
        gc.enable()
    print(f"{count:,} memories, CPU seconds per stage (one process); us a memory")
    for stage in sorted(clock):
        print(f"  {stage:48} {clock[stage]:7.2f} s  {clock[stage] * 1e6 / count:7.1f} us")
    stream = [s for s in clock if s[0] in "5678" or s.startswith(("1-4", "9", "10"))]
    total = sum(clock[s] for s in stream)
    print(f"  {'sum of 1-4, 5-10':48} {total:7.2f} s  {total * 1e6 / count:7.1f} us")
    if args.limit is None:
        start = time.process_time()
        with open(os.devnull, "wb") as out:
            stream_nquads(args.bundle, out, workers=0, progress=False, on_problem=lambda problem: None)
        whole = time.process_time() - start
        print(f"  {'the stream, one process (workers=0)':48} {whole:7.2f} s  {whole * 1e6 / count:7.1f} us")
        start, children = time.process_time(), _children_cpu()
        with tempfile.TemporaryDirectory(prefix="mif-stages-") as folder, open(Path(folder) / "out.nq", "wb") as out:
            stream_nquads(args.bundle, out, workers=2, progress=False, on_problem=lambda problem: None)
        tree = time.process_time() - start + _children_cpu() - children
        print(f"  {'the stream, 2 workers (CPU of the whole tree)':48} {tree:7.2f} s  {tree * 1e6 / count:7.1f} us")


def _children_cpu() -> float:
    """CPU seconds of this process's ended children (the stream's workers once their pool is shut down)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    main()
