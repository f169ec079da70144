"""Issue 32: the Dask export (mif_rdf.distributed) writes the quads and finds the problems ``export --stream`` does.

A real ``LocalCluster`` of two worker processes (one per test module: it
takes a second or two to start), never the synchronous scheduler.  The
oracle is the single-machine streamed export of the same bundle, compared
graph by graph up to blank-node names (blank node labels are random per
memory in both), with the quad count, the withheld graphs and the problems.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURE_BUNDLES, isomorphic, memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.nsmodel import audience_for
from mif_rdf.output import stream_nquads
from mif_rdf.validation import validate
from synthetic import generate_bundle
from test_stream_export import graphs_of, hostile_bundle

distributed = pytest.importorskip("distributed")  # the [dask] extra; `make test` installs it (the dev extra)

from mif_rdf.distributed import DistributedReport, export_nquads  # noqa: E402
from mif_rdf.distributed import validate as distributed_validate  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as dask,
    ):
        yield dask


def dumped(out_dir: Path) -> bytes:
    """Every N-Quads file of an export folder, unzipped and joined."""
    return b"".join(gzip.decompress(p.read_bytes()) for p in sorted(out_dir.glob("*.nq.gz")))


def assert_same_as_stream(
    root: Path, out_dir: Path, client: object, partitions: int, **options: object
) -> DistributedReport:
    """The distributed export of ``root`` holds the streamed export's graphs, quads, withholdings and problems."""
    stream_out = io.BytesIO()
    expected = stream_nquads(root, stream_out, progress=False, **options)  # type: ignore[arg-type]
    report = export_nquads(root, out_dir, client, partitions=partitions, **options)  # type: ignore[arg-type]
    want, got = graphs_of(stream_out.getvalue()), graphs_of(dumped(out_dir))
    assert set(got) == set(want)
    for name, graph in want.items():
        assert isomorphic(graph, got[name]), name
    assert report.quads == expected.quads == dumped(out_dir).count(b"\n")
    assert report.graphs == expected.graphs
    assert report.withheld.keys() == expected.withheld.keys()
    assert sorted(map(str, report.problems)) == sorted(map(str, expected.problems))
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert {f["name"]: f["quads"] for f in manifest["files"]} == {
        p.name: gzip.decompress(p.read_bytes()).count(b"\n") for p in out_dir.glob("*.nq.gz")
    }
    assert manifest["quads"] == report.quads and len(manifest["problems"]["items"]) == len(report.problems)
    return report


@pytest.mark.parametrize("name", sorted(FIXTURE_BUNDLES))
def test_every_fixture_bundle_exports_as_the_stream_does(name: str, tmp_path: Path, client: object) -> None:
    assert_same_as_stream(FIXTURE_BUNDLES[name], tmp_path / "out", client, partitions=3)


def test_duplicates_withheld_memories_and_broken_links_across_partitions(tmp_path: Path, client: object) -> None:
    """The hostile bundle (duplicate id and location, _local memories, entities twice, broken YAML) cut into one
    partition per file: every cross-memory decision is taken by the shuffles, none inside one task."""
    root = hostile_bundle(tmp_path / "hostile")
    report = assert_same_as_stream(root, tmp_path / "out", client, partitions=100)
    assert report.partitions == len(list(root.rglob("*.md")))
    assert sum(p.rule == "duplicate-id" for p in report.problems) == 2
    assert any(p.rule == "duplicate-path" for p in report.problems)


def test_a_generated_bundle_with_seeded_violations(tmp_path: Path, client: object) -> None:
    root = tmp_path / "gen"
    generate_bundle(root, 120, seed=11, broken_links=6, ontologies=True)
    shutil.copy(
        root / sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.name != "index.md")[5],
        root / "zz-copy.md",
    )
    write_file(root, "aa/local.md", memory_text("0d9b3c55-1b4c-4b8e-9d4e-2f0a4a1f7c11", "namespace: _local/scratch\n"))
    report = assert_same_as_stream(root, tmp_path / "out", client, partitions=5)
    assert sum(p.rule == "link" for p in report.problems) >= 6
    assert any(p.rule == "duplicate-id" and p.path == "zz-copy.md" for p in report.problems)
    assert "urn:mif:0d9b3c55-1b4c-4b8e-9d4e-2f0a4a1f7c11" in report.withheld


@pytest.mark.parametrize("party", ["acme-corp", "google"])
def test_an_audience_is_applied_in_the_workers(party: str, tmp_path: Path, client: object) -> None:
    root = FIXTURE_BUNDLES["namespaces"]
    report = assert_same_as_stream(root, tmp_path / "out", client, partitions=4, audience=audience_for(root, party))
    assert any(party in w.reason for w in report.withheld.values())


def test_pyld_engine_and_content_hashes(tmp_path: Path, client: object) -> None:
    assert_same_as_stream(
        FIXTURE_BUNDLES["core"], tmp_path / "out", client, partitions=2, engine="pyld", with_hashes=True
    )


def test_the_files_are_gzip_with_a_fixed_header_and_stale_partitions_go(tmp_path: Path, client: object) -> None:
    out = tmp_path / "out"
    export_nquads(FIXTURE_BUNDLES["examples"], out, client, partitions=4)
    assert (out / "part-00003.nq.gz").exists()
    export_nquads(f"file://{FIXTURE_BUNDLES['examples']}", f"file://{out}", client, partitions=2)
    names = sorted(p.name for p in out.iterdir())
    listed = [f["name"] for f in json.loads((out / "manifest.json").read_text())["files"]]
    assert names == sorted([*listed, "manifest.json"])
    assert "part-00003.nq.gz" not in names and "links-00001.nq.gz" in names
    for path in out.glob("*.nq.gz"):
        header = path.read_bytes()[:10]
        assert header[:3] == b"\x1f\x8b\x08" and header[3] == 0 and header[4:8] == b"\0\0\0\0"  # no name, no time


def test_the_links_records_wait_in_spool_files_not_in_dask(tmp_path: Path, client: object) -> None:
    """The id claims, targets and edges go from the partitions to the shuffles' tasks through a spool file per
    partition, read by bucket (mif_rdf.distributed.spool): no task moves them (none picks a partition's bucket), so
    a worker holds no records between the steps, and the tasks are four per partition (write, two settles, join;
    a second write only for a partition with a duplicate), not four per partition and bucket. What an interrupted
    export left is taken (the folder is not refused) and removed with this export's spool files."""
    out = tmp_path / "out"
    write_file(out, "shuffle-00009.bin", "left by an interrupted export")
    partitions = 3
    with distributed.get_task_stream(client) as stream:
        assert_same_as_stream(FIXTURE_BUNDLES["examples"], out, client, partitions=partitions)
    ran = sorted(distributed.utils.key_split(task["key"]) for task in stream.data)
    assert ran == sorted(
        ["write_partition", "settle_spooled_ids", "settle_spooled_locations", "join_links"] * partitions
    )
    assert not list(out.glob("shuffle-*"))


def _slow(event: str) -> str:
    """A task that ends when the test sets ``event``."""
    assert distributed.Event(event).wait(60)
    return "slow"


def _known(client: object, key: str) -> bool:
    """Whether the scheduler still holds the task ``key`` (a task no client holds is forgotten, by its worker too)."""
    return client.run_on_scheduler(lambda dask_scheduler: key in dask_scheduler.tasks)  # type: ignore[attr-defined]


def test_a_finished_task_is_let_go_while_the_others_still_run(client: object) -> None:
    """The export takes each partition's result as it comes and drops its future then (``shuffles.collected``),
    so its worker forgets the task (its arguments: a partition's 5,000 paths) while later partitions are
    written; gathered all at once, a worker kept every partition it had written to the end."""
    from mif_rdf.distributed.shuffles import collected

    go = distributed.Event("test-collected-go", client=client)
    got: list[list[str]] = []
    submit = client.submit  # type: ignore[attr-defined]
    thread = threading.Thread(
        target=lambda: got.append(
            collected(
                [submit(str, "quick", key="test-collected-quick"), submit(_slow, go.name, key="test-collected-slow")]
            )
        )
    )
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not _known(client, "test-collected-slow"):  # both submitted (the quick one first)
            assert time.monotonic() < deadline
            time.sleep(0.02)
        while _known(client, "test-collected-quick"):
            assert time.monotonic() < deadline, "the finished task was held until the other one finished"
            time.sleep(0.02)
        assert _known(client, "test-collected-slow")  # still running: the quick one went first
    finally:
        go.set()
        thread.join(60)
    assert got == [["quick", "slow"]]


def test_the_cluster_an_export_makes_runs_no_profiler() -> None:
    """Dask's statistical profiler keeps a profile of each second a worker ran (the last 1,000): over an export a
    worker's memory grew with the time it had run. The export's own ``LocalCluster`` runs without it; the
    caller's configuration is as it was after."""
    import dask

    from mif_rdf.distributed.cluster import PROFILER, connected

    with connected(None, 1) as dask_client:
        running = dask_client.run(lambda dask_worker: sorted(dask_worker.periodic_callbacks))
    assert len(running) == 1 and [name for name in next(iter(running.values())) if "profile" in name] == []
    assert dask.config.get(PROFILER) is True


def test_an_output_folder_with_other_files_is_refused(tmp_path: Path, client: object) -> None:
    out = tmp_path / "out"
    write_file(out, "notes.txt", "mine")
    with pytest.raises(MifRdfError, match="notes.txt"):
        export_nquads(FIXTURE_BUNDLES["core"], out, client)
    assert (out / "notes.txt").read_text() == "mine" and sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    with pytest.raises(MifRdfError, match="give a local folder"):
        export_nquads(FIXTURE_BUNDLES["core"], "memory://out", client)


def test_a_bundle_read_through_fsspec(tmp_path: Path, client: object) -> None:
    """A URL that is not a local folder (here fsspec's caching layer over the files, which the workers read
    through fsspec as they would an object store): each task downloads its partition's files, and the export
    and the validation are those of the folder itself."""
    root = hostile_bundle(tmp_path / "hostile")
    write_file(root, ".mif/ontologies/readme.txt", "not an ontology")  # .mif is copied whole
    url = f"simplecache::file://{root}"
    assert_same_as_stream(root, tmp_path / "out", client, partitions=3)
    local = export_nquads(root, tmp_path / "local", client, partitions=3)
    remote = export_nquads(url, tmp_path / "remote", client, partitions=3)
    assert isomorphic_dumps(dumped(tmp_path / "local"), dumped(tmp_path / "remote"))
    assert sorted(map(str, remote.problems)) == sorted(map(str, local.problems)) and remote.quads == local.quads
    want = validate(load_bundle(root, progress=False), 3)
    got = distributed_validate(url, client, partitions=3)
    assert sorted(map(str, got.results)) == sorted(map(str, want.results))


def isomorphic_dumps(left: bytes, right: bytes) -> bool:
    a, b = graphs_of(left), graphs_of(right)
    return set(a) == set(b) and all(isomorphic(a[name], b[name]) for name in a)


def test_the_command_exports_on_a_scheduler_and_says_where(
    tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export BUNDLE --dask ADDRESS -o DIR`` (options in any order): the files, the manifest, the summary,
    the problems on standard error, exit 1 on errors (the hostile bundle's duplicate id)."""
    root, out = hostile_bundle(tmp_path / "hostile"), tmp_path / "out"
    address = client.scheduler.address  # type: ignore[attr-defined]
    assert main(["export", "-o", str(out), "--dask", address, "--partitions", "3", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"Dask scheduler {address}" in err and "duplicate id" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert f"wrote {manifest['quads']:,} quads" in err and manifest["partitions"] == 3
    assert manifest["problems"]["count"]["error"] >= 3
    stream_out = io.BytesIO()
    assert manifest["quads"] == stream_nquads(root, stream_out, progress=False).quads


def test_a_workers_address_is_not_taken_for_the_schedulers(
    tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker answers Dask's handshake too; its ``identity`` says what it is, and the command says so
    (tests/test_dask_address.py has the addresses where nothing of Dask's answers)."""
    worker = sorted(client.scheduler_info()["workers"])[0]  # type: ignore[attr-defined]
    argv = ["export", str(FIXTURE_BUNDLES["core"]), "--dask", worker, "-o", str(tmp_path / "out")]
    assert main(argv) == 2
    assert f"mif-rdf: error: {worker} is a Dask worker, not a scheduler" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["export", "--dask", "BUNDLE", "-o", "OUT"], "is not a scheduler address"),
        (["export", "BUNDLE", "--dask"], "give it with -o"),
        (["export", "BUNDLE", "--dask", "-o", "OUT", "--format", "turtle"], "N-Quads only"),
        (["export", "BUNDLE", "--dask", "-o", "OUT", "--store", "oxigraph"], "leave out --store"),
        (["export", "BUNDLE", "--dask", "-o", "OUT", "--workers", "0"], "at least one worker"),
    ],
)
def test_the_command_refuses_what_dask_cannot_do(
    argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(FIXTURE_BUNDLES["core"]) if a == "BUNDLE" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    with contextlib.suppress(SystemExit):
        assert main(argv) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def assert_same_findings(root: Path, client: object, level: int, partitions: int) -> list[str]:
    """The distributed validation's findings are the validator's on the loaded bundle (as a multiset)."""
    want = validate(load_bundle(root, progress=False), level)
    got = distributed_validate(root, client, level=level, partitions=partitions)
    assert sorted(map(str, got.results)) == sorted(map(str, want.results))
    assert (got.memories, got.conforms) == (want.memories, want.conforms)
    return [str(p) for p in got.results]


@pytest.mark.parametrize("name", sorted(FIXTURE_BUNDLES))
def test_every_fixture_bundle_validates_as_the_validator_does(name: str, client: object) -> None:
    assert_same_findings(FIXTURE_BUNDLES[name], client, 3, partitions=3)


@pytest.mark.parametrize("level", [1, 2])
def test_cross_memory_rules_across_partitions(level: int, tmp_path: Path, client: object) -> None:
    """One partition per file: duplicate ids and locations, broken links and a derivation out of time are all
    judged by the shuffles and the join."""
    root = hostile_bundle(tmp_path / "hostile")
    write_file(
        root,
        "old.md",
        memory_text(
            "7f1d2a9e-3c4b-4d5e-8f6a-0b1c2d3e4f50",
            "relationships:\n  - type: derived-from\n    target: z.md\n",
            created="2020-01-01T00:00:00Z",
        ),
    )  # z.md was created later: a derivation out of time, in another partition
    found = assert_same_findings(root, client, level, partitions=100)
    assert any("duplicate id" in f for f in found) and any("broken link" in f for f in found)
    assert any("a source cannot postdate" in f for f in found) == (level >= 2)


def test_a_generated_bundle_with_seeded_violations_validates_as_the_validator_does(
    tmp_path: Path, client: object
) -> None:
    root = tmp_path / "gen"
    generate_bundle(root, 120, seed=3, broken_links=5, ontologies=True)
    first = sorted(p for p in root.rglob("*.md") if p.name != "index.md")[7]
    shutil.copy(first, root / "zz-copy.md")  # a duplicate id, in the last partition
    text = first.read_text(encoding="utf-8").replace("type: semantic", "type: nonsense", 1)
    write_file(root, "aa-broken-type.md", text.replace(first.stem, "other", 1))
    assert_same_findings(root, client, 3, partitions=4)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_validate_dask_prints_the_report_validate_prints(
    fmt: str, tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]
) -> None:
    root = hostile_bundle(tmp_path / "hostile")
    assert main(["validate", str(root), "--format", fmt]) == 1
    alone = capsys.readouterr().out
    address = client.scheduler.address  # type: ignore[attr-defined]
    assert main(["validate", "--format", fmt, str(root), "--dask", address, "--partitions", "5"]) == 1
    done = capsys.readouterr()
    assert done.out == alone and f"Dask scheduler {address}" in done.err


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--shapes", "benchmarks/user_shapes.ttl"], "not your own shapes: leave out --shapes"),
        (["--level", "0"], "--level 0 runs only your own shapes, which --dask does not run: give --level 1, 2 or 3"),
        (["--level", "0", "--shapes", "benchmarks/user_shapes.ttl"], "give --level 1, 2 or 3"),
        (["--inference", "rdfs"], "--inference applies to --shapes, which --dask does not run: leave out --inference"),
        (["--ontology", "ai-memory"], "the ontologies the memories name, no others: leave out --ontology"),
        (["--path", "tests"], "leave out --path (give the folder with --ontology-dir DIR)"),
        (["--as-of", "2026-01-01"], "not those valid at a date: leave out --as-of"),
        (["--rev", "HEAD"], "not at a git revision: leave out --rev"),
        (["--cache"], "keeps no cache: leave out --cache"),
        (["--cache-dir", "out/cache"], "keeps no cache: leave out --cache-dir"),
        (["--store", "oxigraph"], "--dask loads no store: leave out --store"),
    ],
)
def test_validate_dask_refuses_what_it_does_not_run(
    option: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each refusal comes first (not "--level 0 ... give --shapes FILE", which --dask then refuses), says why
    and what to give instead, exit 2, before any cluster starts or the bundle is read."""
    assert main(["validate", str(FIXTURE_BUNDLES["core"]), *option, "--dask"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mif-rdf: error: ") and said in err and len(err.splitlines()) == 1, err


def test_an_empty_folder_is_refused_before_any_cluster_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["export", str(tmp_path / "empty"), "--dask", "-o", str(tmp_path / "out")]) == 1
    assert "no memory files" in capsys.readouterr().err and not (tmp_path / "out").exists()


def logged_on_a_worker() -> str:
    """What a worker's ``distributed.worker`` logger prints for Dask's heartbeat failure and for another error,
    both logged with their exception as Dask logs them (``logger.exception``)."""
    import logging

    from mif_rdf.distributed.quiet import HEARTBEAT_FAILED

    logger, out = logging.getLogger("distributed.worker"), io.StringIO()
    handler = logging.StreamHandler(out)
    logger.addHandler(handler)
    try:
        for message in (HEARTBEAT_FAILED, "another failure"):
            try:
                raise OSError("Timed out trying to connect to tcp://127.0.0.1:1")
            except OSError:
                logger.exception(message)
    finally:
        logger.removeHandler(handler)
    return out.getvalue()


def test_the_heartbeat_race_at_close_prints_no_traceback(tmp_path: Path, client: object) -> None:
    """A run tells the workers it ran on to log Dask's heartbeat failure (the race when a cluster closes with a
    heartbeat in flight, seen in the docs example's output) without its traceback; any other error keeps its own."""
    export_nquads(FIXTURE_BUNDLES["core"], tmp_path / "out", client)
    after = client.run(logged_on_a_worker)  # type: ignore[attr-defined]
    assert len(after) == 2
    for text in after.values():
        heartbeat, other = text.split("another failure")
        assert heartbeat.strip() == "Failed to communicate with scheduler during heartbeat."
        assert other.count("Traceback") == 1 and "OSError: Timed out" in other
