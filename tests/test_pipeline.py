"""Worker processes change the speed of a load, never its result."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from rdflib import Graph, Literal

import mif_rdf.load.pipeline
from conftest import EXAMPLES, FIXTURES, isomorphic
from mif_rdf import load_bundle
from mif_rdf.load.bundle import MemoryRecord
from mif_rdf.load.pipeline import CHUNK, PARALLEL_THRESHOLD, worker_count
from mif_rdf.source.yamlio import YamlTimestamp
from synthetic import generate_bundle


@pytest.fixture(scope="module")
def mixed_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """More memories than three worker tasks, with bad files and a duplicate id between the tasks."""
    root = tmp_path_factory.mktemp("mixed") / "bundle"
    generate_bundle(root, 3 * CHUNK + 10, seed=11)
    shutil.copytree(EXAMPLES / ".mif" / "entities", root / ".mif" / "entities", dirs_exist_ok=True)
    (root / "aaa-broken.md").write_text("---\nid: [unclosed\n---\nBody\n", encoding="utf-8")
    (root / "zzz-no-frontmatter.md").write_text("just text\n", encoding="utf-8")
    first = sorted(root.rglob("*.md"))[5]
    shutil.copy(first, root / "zzz-duplicate.md")  # same id as a memory prepared by another task
    head = "---\nid: {}\ntype: semantic\ncreated: 2026-01-15T10:00:00Z\n"
    (root / "zzz-notes.md").write_text(  # a key the projection notes: the memory takes the two passes
        head.format("7d1f0c6e-5a4b-4c3d-8e2f-1a0b9c8d7e61") + "bad key: 1\n---\nBody\n", encoding="utf-8"
    )
    (root / "zzz-ill-typed.md").write_text(  # ill-typed literals, which every export warns about
        head.format("7d1f0c6e-5a4b-4c3d-8e2f-1a0b9c8d7e62") + "confidence: high\nexpires: 2026-13-45\n---\nBody\n",
        encoding="utf-8",
    )
    for name, memory_id in (
        ("zzz a.md", "7d1f0c6e-5a4b-4c3d-8e2f-1a0b9c8d7e63"),
        ("zzz%20a.md", "7d1f0c6e-5a4b-4c3d-8e2f-1a0b9c8d7e64"),
    ):
        (root / name).write_text(head.format(memory_id) + "---\nBody\n", encoding="utf-8")  # one location: refused
    shutil.copy(FIXTURES / "jsonld" / "spec-6.2-full-example.jsonld", root / "zzz-spec.jsonld")  # keys: JSON pointers
    (root / "zzz-not-a-uuid.md").write_text(
        head.format("not-a-uuid") + "---\nBody\n", encoding="utf-8"
    )  # loaded, warned
    return root


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_workers_give_the_load_of_one_process(mixed_bundle: Path, store: str) -> None:
    """Every graph (the memories' text by the one pass on Oxigraph), every problem and every record of a load
    with workers are those of a load in one process."""
    alone = load_bundle(mixed_bundle, workers=0, store=store)
    shared = load_bundle(mixed_bundle, workers=2, store=store)
    assert [str(p) for p in shared.problems] == [str(p) for p in alone.problems]  # same problems, same order
    assert any(p.rule == "duplicate-id" for p in alone.problems) and any(p.rule == "yaml" for p in alone.problems)
    assert list(shared.memories) == list(alone.memories)
    for memory_id, record in alone.memories.items():
        other = shared.memories[memory_id]
        assert (other.relpath, other.frontmatter, other.body, other.document) == (
            record.relpath,
            record.frontmatter,
            record.body,
            record.document,
        )
    names = {str(g.identifier) for g in alone.dataset.graphs() if len(g)}
    assert names == {str(g.identifier) for g in shared.dataset.graphs() if len(g)}
    for name in names:
        a, b = Graph(), Graph()
        for triple in alone.dataset.graph(name):
            a.add(triple)
        for triple in shared.dataset.graph(name):
            b.add(triple)
        assert isomorphic(a, b), name


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_the_first_files_are_prepared_here_while_the_idle_cores_are_sampled(
    mixed_bundle: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the default workers the load does not sleep through the sample of idle cores: it prepares the first
    files itself meanwhile, then the workers (two, as if the machine were idle) take the rest, and the load is
    the load of one process, problems, records and graphs."""
    import time

    import mif_rdf.load.loader as loader

    monkeypatch.setattr(mif_rdf.load.pipeline, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(mif_rdf.load.pipeline, "SAMPLE_SECONDS", 3600.0)  # the sample outlasts half the files
    monkeypatch.setattr(loader, "worker_count", lambda files, workers, **_: 2)
    here: list[str] = []
    real = loader.prepare_memory

    def prepared_here(root: Path, relpath: str, *args: Any) -> Any:
        here.append(relpath)
        if len(here) == 100:  # then the sample is over
            monkeypatch.setattr(mif_rdf.load.pipeline, "SAMPLE_SECONDS", 0.0)
        return real(root, relpath, *args)

    monkeypatch.setattr(loader, "prepare_memory", prepared_here)
    began = time.monotonic()
    sampled = load_bundle(mixed_bundle, store=store)
    assert time.monotonic() - began < 60 and len(here) == 100
    alone = load_bundle(mixed_bundle, workers=0, store=store)
    assert [str(p) for p in sampled.problems] == [str(p) for p in alone.problems]
    assert [_record_form(r) for r in sampled.memories.values()] == [_record_form(r) for r in alone.memories.values()]
    assert len(sampled.dataset) == len(alone.dataset)


def test_no_file_is_prepared_ahead_without_a_sample(mixed_bundle: Path) -> None:
    """Workers given, or too few files for any: nothing to wait for, so nothing is taken ahead."""
    from mif_rdf.load.pipeline import cpu_reading, while_sampling

    files = [str(p) for p in sorted(mixed_bundle.rglob("*.md"))]
    assert list(while_sampling(files, None)) == []
    assert list(while_sampling(files[: PARALLEL_THRESHOLD - 1], cpu_reading())) == []
    assert list(while_sampling(files * (PARALLEL_THRESHOLD // len(files) + 1), cpu_reading()))  # a sample begins


def _typed(value: Any) -> Any:
    """``value`` with every key and scalar's type and every mapping's order: what ``==`` on frontmatter leaves out
    (a YAML timestamp is a str subclass, ``1 == 1.0 == True``)."""
    if isinstance(value, dict):
        return [(_typed(key), _typed(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return type(value).__name__, value


def _record_form(record: MemoryRecord) -> tuple[Any, ...]:
    """Everything a loaded memory record offers, typed (its projection document as built on first use)."""
    ill_typed = None if record.ill_typed is None else [p.to_dict() for p in record.ill_typed]
    return (
        record.id,
        record.iri,
        record.relpath,
        record.doc_iri,
        _typed(record.frontmatter),
        record.body,
        ill_typed,
        _typed(record.document),
    )


def test_every_path_gives_the_same_records_and_problems(mixed_bundle: Path) -> None:
    """The memory store's load (prepared memories), the Oxigraph load in one process and with workers (memories
    packed as plain tuples, their text as UTF-8 bytes) give the same records, value for value and type for type,
    the same problems in the same order and the same entities."""
    memory = load_bundle(mixed_bundle, workers=0)
    alone = load_bundle(mixed_bundle, workers=0, store="Oxigraph")
    shared = load_bundle(mixed_bundle, workers=2, store="Oxigraph")
    records = shared.memories.values()
    assert any(r.ill_typed for r in records) and any(r.ill_typed is None for r in records)  # a .jsonld's: None
    assert any(r.projected is not None for r in records)  # a memory with notes, projected in the worker
    assert any(type(v) is YamlTimestamp for r in records for v in r.frontmatter.values())
    assert [r.projected is None for r in records] == [r.projected is None for r in alone.memories.values()]
    forms = [[_record_form(r) for r in bundle.memories.values()] for bundle in (memory, alone, shared)]
    assert forms[1] == forms[0] and forms[2] == forms[0]
    problems = [[p.to_dict() for p in bundle.problems] for bundle in (memory, alone, shared)]
    assert {"duplicate-id", "duplicate-path", "yaml"} <= {p.get("rule") for p in problems[0]}
    assert "not-a-uuid" in shared.memories and any(p["path"] == "zzz-not-a-uuid.md" for p in problems[2])
    assert problems[1] == problems[0] and problems[2] == problems[0]
    assert list(shared.entities) == list(alone.entities) == list(memory.entities)
    assert len(shared.dataset) == len(alone.dataset)


def test_lexical_forms_cross_between_processes_unchanged(tmp_path: Path) -> None:
    """rdflib's own pickling would turn ...Z into ...+00:00 on the way back from a worker."""
    generate_bundle(tmp_path / "b", CHUNK + 5, seed=3)
    literals = [
        {
            str(o)
            for _, _, o, _ in load_bundle(tmp_path / "b", workers=w).dataset.quads((None, None, None, None))
            if isinstance(o, Literal)
        }
        for w in (0, 1)
    ]
    assert literals[0] == literals[1]
    assert any(value.endswith("Z") and "T" in value for value in literals[1])


def test_a_pool_that_cannot_start_means_a_load_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate_bundle(tmp_path / "b", CHUNK + 5, seed=3)

    def no_processes(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("no semaphores here")

    monkeypatch.setattr(mif_rdf.load.pipeline, "ProcessPoolExecutor", no_processes)
    bundle = load_bundle(tmp_path / "b", workers=2)
    assert len(bundle.memories) == CHUNK + 5 and not bundle.problems


def test_workers_by_default_only_on_idle_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mif_rdf.load.pipeline, "_reruns_main_script", lambda: False)
    monkeypatch.setattr(mif_rdf.load.pipeline, "usable_cores", lambda: 2)
    monkeypatch.setattr(mif_rdf.load.pipeline, "_busy_cores", lambda **_: 0.1)  # an idle 2-core machine
    assert worker_count(10_000, None) == 1 and worker_count(10_000, None, busy_main=False) == 2
    monkeypatch.setattr(mif_rdf.load.pipeline, "_busy_cores", lambda **_: 0.9)  # another job holds a core
    assert worker_count(10_000, None) == 0 and worker_count(10_000, None, busy_main=False) == 0
    monkeypatch.setattr(mif_rdf.load.pipeline, "usable_cores", lambda: 8)
    monkeypatch.setattr(mif_rdf.load.pipeline, "_busy_cores", lambda **_: 1.2)
    assert worker_count(10, None) == 0  # small bundles stay in one process
    assert worker_count(10_000, None) == 6 and worker_count(10_000, None, busy_main=False) == 7
    assert worker_count(10_000, 0) == 0 and worker_count(5, 3) == 3  # asked for: always given


def test_busy_cores_reads_this_machine() -> None:
    """Two readings of /proc/stat: a number of cores between none and all of them (0 where there is no /proc)."""
    from mif_rdf.load.pipeline import _busy_cores

    busy = _busy_cores(0.05)
    assert 0.0 <= busy <= (os.cpu_count() or 1) + 0.5


def test_busy_cores_from_an_earlier_reading_waits_only_for_the_rest() -> None:
    """A reading taken before other work: the sample overlaps that work instead of sleeping the whole interval."""
    import time

    from mif_rdf.load.pipeline import _busy_cores, cpu_reading

    before = cpu_reading()
    assert before is not None  # Linux: the tests run where /proc is
    end = time.monotonic() + 0.15
    while time.monotonic() < end:  # this process's own work (a load finding its files)
        pass
    start = time.monotonic()
    busy = _busy_cores(0.1, since=before)
    assert time.monotonic() - start < 0.05  # the interval had passed: one more reading, no sleep
    assert 0.0 <= busy <= (os.cpu_count() or 1) + 0.5


def test_busy_cores_leave_out_this_processs_own_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Of two cores busy half the time over a second in which this process used one core-second, none is
    another's; the same ticks with this process idle are one core kept busy by others."""
    from mif_rdf.load.pipeline import CpuReading, _busy_cores

    first = CpuReading(total=1_000, idle=400, cpus=2, own=5.0, at=10.0)
    monkeypatch.setattr(mif_rdf.load.pipeline, "cpu_reading", lambda: CpuReading(1_200, 500, 2, 6.0, 11.0))
    assert _busy_cores(0.1, since=first) == pytest.approx(0.0)
    monkeypatch.setattr(mif_rdf.load.pipeline, "cpu_reading", lambda: CpuReading(1_200, 500, 2, 5.0, 11.0))
    assert _busy_cores(0.1, since=first) == pytest.approx(1.0)


def test_no_default_workers_that_would_run_the_script_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-interpreter workers import the main script; a default must not ask for that."""
    monkeypatch.setattr(mif_rdf.load.pipeline, "usable_cores", lambda: 8)
    monkeypatch.setattr(mif_rdf.load.pipeline, "_busy_cores", lambda **_: 0.0)
    monkeypatch.setattr(mif_rdf.load.pipeline, "_start_method", lambda: multiprocessing.get_context("spawn"))
    script = types.ModuleType("__main__")
    script.__file__ = (
        "/home/user/load.py"  # a program run from a script (pytest's own __main__ is not one under pytest-xdist)
    )
    monkeypatch.setitem(sys.modules, "__main__", script)
    assert worker_count(10_000, None) == 0
    assert worker_count(10_000, 2) == 2  # asked for explicitly: the program is guarded
    monkeypatch.setitem(
        sys.modules, "__main__", types.ModuleType("__main__")
    )  # an interactive session: no script to run again
    assert worker_count(10_000, None) == 7
    monkeypatch.setitem(sys.modules, "__main__", script)
    monkeypatch.setattr(mif_rdf.load.pipeline, "_start_method", lambda: multiprocessing.get_context("fork"))
    assert worker_count(10_000, None) == 7


UNGUARDED = """
import sys, threading, time
from mif_rdf import load_bundle
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # another thread: fork is unsafe now
bundle = load_bundle(sys.argv[1], store=sys.argv[2], cache=sys.argv[3], progress=False)
print(len(bundle.memories), bundle.cache.state)
"""


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_a_script_without_a_main_guard_loads_and_returns(tmp_path: Path, store: str) -> None:
    """No ``if __name__ == "__main__"`` guard, threads running, a large bundle, the cache:
    it must neither hang nor recurse."""
    generate_bundle(tmp_path / "b", PARALLEL_THRESHOLD, seed=4)
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "b"), store, str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(PARALLEL_THRESHOLD), "cold"]
