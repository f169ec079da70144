"""Issue 39 items 1 and 7, issue 37 item 1: outputs never overwrite inputs,
are never half-written, leave nothing behind.

Every writing command runs as a user runs it (``mif_rdf.cli.main.main``, or a real
process where a signal or a kill is the point); the oracle is the bytes of the
files involved, compared before and after.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO
from mif_rdf.cli.main import main
from mif_rdf.core import outputs
from mif_rdf.core.errors import MifRdfError
from synthetic import generate_bundle

ONTOLOGY = REPO / "ontologies" / "mif-base.ontology.yaml"


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "B"
    shutil.copytree(EXAMPLES, root)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def a_memory(root: Path) -> Path:
    return sorted((root / "semantic").rglob("*.md"))[0]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


def writing_commands(bundle: Path, output: Path, option: str = "-o") -> list[list[object]]:
    """Every command that writes a file, with ``output`` as the file it writes."""
    return [
        ["export", bundle, "--format", "nquads", option, output],
        ["export", bundle, "--format", "turtle", "--store", "memory", option, output],
        ["load", bundle, "--format", "nquads", option, output],
        ["validate", bundle, "--format", "json", option, output],
        ["reason", bundle, option, output],
        ["convert", "to-jsonld", a_memory(bundle), "--root", bundle, option, output],
    ]


@pytest.mark.parametrize("which", ["memory", "config", "new file in .mif"])
def test_an_output_that_is_an_input_of_the_bundle_is_refused_before_reading(
    bundle: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = {
        "memory": a_memory(bundle),
        "config": bundle / ".mif" / "config.yaml",
        "new file in .mif": bundle / ".mif" / "dump.nq",
    }[which]
    before = snapshot(bundle)
    for command in writing_commands(bundle, target):
        code, err = run(command, capsys)
        assert code == 2, command
        assert (
            err.count("\n") == 1
            and "-o " in err
            and str(target.name) in err
            and "refusing to overwrite an input" in err
        ), (command, err)
        assert snapshot(bundle) == before, command


def test_symlinks_and_hard_links_to_inputs_are_refused(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = a_memory(bundle)
    (tmp_path / "out").mkdir()
    link = tmp_path / "out" / "link.nq"
    link.symlink_to(memory)
    hard = tmp_path / "out" / "hard.nq"
    os.link(memory, hard)
    config_link = tmp_path / "out" / "config.ttl"
    config_link.symlink_to(bundle / ".mif" / "config.yaml")
    folder_link = tmp_path / "out" / "mif"  # a symlinked folder into .mif
    folder_link.symlink_to(bundle / ".mif")
    before = snapshot(bundle)
    for target, says in (
        (link, "leads to"),
        (hard, "hard link to"),
        (config_link, ".mif"),
        (folder_link / "x.nq", ".mif"),
    ):
        for command in writing_commands(bundle, target):
            code, err = run(command, capsys)
            assert code == 2 and says in err and str(target) in err, (command, err)
    assert snapshot(bundle) == before


def test_ontology_compile_never_overwrites_an_ontology_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "onto"
    folder.mkdir()
    named = folder / "mine.ontology.yaml"
    shutil.copy(ONTOLOGY, named)
    other = folder / "other.ontology.yaml"
    shutil.copy(ONTOLOGY, other)
    before = snapshot(folder)
    for option in ("-o", "--shapes"):
        for target in (named, other):
            code, err = run(["ontology", "compile", named, "--path", folder, option, target], capsys)
            assert code == 2 and f"{option} {target}" in err and "refusing to overwrite an input" in err, err
    code, err = run(["ontology", "compile", named, "-o", tmp_path / "x.ttl", "--shapes", tmp_path / "x.ttl"], capsys)
    assert code == 2 and "--shapes" in err and "also the output of -o" in err
    assert snapshot(folder) == before


def test_ontology_compile_output_dir_never_writes_into_the_bundle_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--output-dir names its files after the ontologies read: each is checked before the first is written."""
    bundle = tmp_path / "b"
    shutil.copytree(EXAMPLES, bundle)
    before = snapshot(bundle)
    code, err = run(
        ["ontology", "compile", "mif-base", "--bundle", bundle, "--output-dir", bundle / ".mif" / "owl"], capsys
    )
    assert code == 2 and "--output-dir" in err and "inside the bundle's .mif/ folder" in err, err
    assert snapshot(bundle) == before and not (bundle / ".mif" / "owl").exists()
    code, _ = run(["ontology", "compile", "mif-base", "--bundle", bundle, "--output-dir", tmp_path / "owl"], capsys)
    assert code == 0 and (tmp_path / "owl" / "catalog-v001.xml").is_file()


def test_a_jsonld_memory_of_the_bundle_is_an_input_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bundle memory may be a .jsonld file (spec 3.3): no output may land on it."""
    bundle = tmp_path / "b"
    shutil.copytree(EXAMPLES, bundle)
    memory = a_memory(bundle)
    document = memory.with_suffix(".jsonld")
    assert run(["convert", "to-jsonld", memory, "--root", bundle, "-o", document], capsys)[0] == 0
    memory.unlink()
    before = snapshot(bundle)
    code, err = run(["load", bundle, "-o", document], capsys)
    assert code == 2 and "refusing to overwrite an input" in err, err
    assert snapshot(bundle) == before


def test_convert_to_markdown_never_overwrites_its_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = tmp_path / "one.jsonld"
    code, _ = run(["convert", "to-jsonld", a_memory(EXAMPLES), "--root", EXAMPLES, "-o", document], capsys)
    assert code == 0
    before = document.read_bytes()
    code, err = run(["convert", "to-markdown", document, "-o", document], capsys)
    assert code == 2 and "refusing to overwrite an input" in err
    assert document.read_bytes() == before


def test_outputs_beside_the_bundle_files_are_written(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neighbours that are no input: a new file in the bundle folder, a new .md beside it, the same name elsewhere."""
    memory = a_memory(bundle)
    for target in (bundle / "dump.nq", tmp_path / memory.name):
        code, err = run(["export", bundle, "--format", "nquads", "-o", target], capsys)
        assert code == 0 and target.stat().st_size > 0, err


def test_every_writer_replaces_the_previous_file_whole(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No command truncates its output in place: a hard link to the previous output keeps the previous bytes."""
    out = tmp_path / "out"
    out.mkdir()
    suffixes = [
        ".nq",
        ".ttl",
        ".nq",
        ".json",
        ".ttl",
        ".jsonld",
    ]  # each writer's own format (a mismatch is an error, issue 37.7)
    assert len(suffixes) == len(writing_commands(bundle, out / "x.ttl"))
    for index, suffix in enumerate(suffixes):
        target = out / f"o{index}{suffix}"
        command = writing_commands(bundle, target)[index]
        target.write_bytes(b"previous\n")
        keep = out / f"keep{index}"
        os.link(target, keep)
        code, err = run(command, capsys)
        assert code in (0, 1), (command, err)
        assert keep.read_bytes() == b"previous\n" and target.read_bytes() != b"previous\n", command
        assert not [p for p in out.iterdir() if p.name.startswith(outputs.PREFIX)]


def test_a_full_disk_leaves_the_previous_file_and_says_so(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mif_rdf.output

    target = tmp_path / "dump.trig"
    target.write_bytes(b"the previous export\n")

    def fills_the_disk(bundle: object, fmt: str, out: object, policy: object = None) -> None:
        out.write(b"x" * 100_000)  # type: ignore[attr-defined]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(mif_rdf.output, "export_bundle", fills_the_disk)  # where the command line finds it
    code, err = run(["export", bundle, "-o", target], capsys)
    assert code == 2
    assert "no space left on the device" in err and str(target) in err and "unchanged" in err and "Traceback" not in err
    assert target.read_bytes() == b"the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["B", "dump.trig"]
    monkeypatch.undo()

    def no_room_at_fsync(fd: int) -> None:  # a network file system reports it only here
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(outputs.os, "fsync", no_room_at_fsync)
    code, err = run(["validate", bundle, "-o", target], capsys)
    assert code == 2 and "no space left" in err and target.read_bytes() == b"the previous export\n"


def test_a_new_output_gets_the_umask_mode_and_a_replaced_one_keeps_its_mode(tmp_path: Path) -> None:
    fresh = tmp_path / "new.txt"
    outputs.write_file(fresh, b"a")
    mask = os.umask(0)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask
    os.chmod(fresh, 0o640)
    outputs.write_file(fresh, b"b")
    assert fresh.stat().st_mode & 0o777 == 0o640 and fresh.read_bytes() == b"b"


def test_a_writer_that_fails_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "t.nq"
    target.write_bytes(b"old")
    with pytest.raises(ValueError):
        with outputs.replacing(target) as handle:
            handle.write(b"half")
            raise ValueError("the writer failed")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["t.nq"]
    with pytest.raises(MifRdfError, match="no space"):
        with outputs.replacing(target) as handle:
            raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_bytes() == b"old"


def test_leftovers_of_dead_processes_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine = tmp_path / f"{outputs.PREFIX}{outputs.owner()}-abc.x.nq"
    theirs = tmp_path / f"{outputs.PREFIX}{dead.pid}.{outputs.HOST}-abc.x.nq"
    older = tmp_path / f"{outputs.PREFIX}{dead.pid}-abc.y.nq"  # named before the host was added: this machine's
    folder = tmp_path / f"{outputs.FOLDER_PREFIX}{dead.pid}.{outputs.HOST}-stream-xyz"
    stranger = tmp_path / "mif-rdf-tmp-notapid-x"
    for path in (mine, theirs, older, stranger):
        path.write_bytes(b"x")
    folder.mkdir()
    (folder / "links.sqlite").write_bytes(b"x")
    assert sorted(outputs.sweep(tmp_path)) == sorted([theirs, older, folder])
    assert mine.exists() and stranger.exists()


def test_another_machines_leftovers_are_never_swept(tmp_path: Path) -> None:
    """A folder shared by machines (a Dask cluster's output folder): a pid that is dead here may be another
    machine's process still writing, so a name carrying another host is left alone, whatever its pid."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    other_host = format(int(outputs.HOST, 16) ^ 1, "08x")
    writing = tmp_path / f"{outputs.PREFIX}{dead.pid}.{other_host}-part-00001.nq.gz"
    spool = tmp_path / f"{outputs.FOLDER_PREFIX}{dead.pid}.{other_host}-task-xyz"
    writing.write_bytes(b"half-written on another machine")
    spool.mkdir()
    assert outputs.sweep(tmp_path) == []
    assert writing.read_bytes() == b"half-written on another machine" and spool.is_dir()
    with outputs.replacing(tmp_path / "part-00002.nq.gz") as out:  # a write beside them sweeps too
        out.write(b"x")
    assert writing.exists() and spool.is_dir()


def test_every_temporary_folder_is_named_for_its_process(tmp_path: Path) -> None:
    """A private folder (a diff's partial bundles, a revision's files, a cluster task's files) carries the
    owner's pid, so that the next run sweeps what a killed run left; no module makes one another way."""
    made = outputs.owned_folder("diff", tmp_path)
    assert made.parent == tmp_path and made.name.startswith(
        f"{outputs.FOLDER_PREFIX}{os.getpid()}.{outputs.HOST}-diff-"
    )
    assert outputs.sweep(tmp_path) == []  # alive: kept
    src = Path(outputs.__file__).resolve().parents[1]
    making = re.compile(r"\b(mkdtemp|TemporaryDirectory|mkstemp|NamedTemporaryFile)\(")
    others = [str(p.relative_to(src)) for p in sorted(src.rglob("*.py")) if p.name != "outputs.py"]
    assert [name for name in others if making.search((src / name).read_text(encoding="utf-8"))] == []


def test_interrupts_wait_while_python_probes_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's first :func:`tempfile.gettempdir` writes and unlinks a randomly named file with no prefix; a
    Ctrl-C handled between the two left it in the user's folder, where no sweep knows it as ours (found in CI)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # not yet known: the probe runs again
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    held: list[set[signal.Signals]] = []
    real_open = os.open

    def probe_open(path, flags, mode=0o777):  # noqa: ANN001, ANN202
        held.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return real_open(path, flags, mode)

    monkeypatch.setattr(tempfile._os, "open", probe_open)  # type: ignore[attr-defined]
    made = outputs.owned_folder("stream")
    assert made.parent == tmp_path and held, "the probe did not run"
    assert all({signal.SIGINT, signal.SIGTERM} <= mask for mask in held), held
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # given back after
    assert [p.name for p in tmp_path.iterdir()] == [made.name]


# -- real processes, killed -----------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "G"
    generate_bundle(root, 2000, seed=5)
    return root


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found.update(int(x) for x in text.split())
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended; only its exit status waits for a reaper


def _export(bundle: Path, target: Path, tmp: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO / "src")}
    return subprocess.Popen(
        [sys.executable, "-m", "mif_rdf.cli", "export", str(bundle), "-o", str(target), "--no-progress", "-q", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        # as a foreground command: a shell starts background jobs (`make test &`, nohup runs) with SIGINT ignored,
        # the export inherits that, and rightly goes on through a Ctrl-C its terminal could not have sent
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for(condition, timeout: float = 30.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _partial(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.name.startswith(outputs.PREFIX))


@pytest.mark.parametrize(
    "sig, when, code, name",
    [
        (signal.SIGINT, "loading", 130, "big.nq"),
        (signal.SIGTERM, "writing", 143, "big.nq"),
        (signal.SIGKILL, "writing", -9, "big.nq"),
        (signal.SIGKILL, "writing", -9, "big.nq.gz"),  # issue 37.7: compressed on its way to the same temporary file
    ],
)
def test_a_killed_export_leaves_the_previous_file_byte_identical(
    generated: Path, tmp_path: Path, sig: int, when: str, code: int, name: str
) -> None:
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    target = out / name
    previous = b"<urn:x> <urn:p> <urn:o> <urn:g> .\n" * 5000
    target.write_bytes(previous)
    process = _export(generated, target, tmp, "--workers", "2")
    if when == "loading":
        # the stream's folder is made: the export has started (not Python's own probe of the folder, a moment's file)
        _wait_for(lambda: any(p.name.startswith(outputs.FOLDER_PREFIX) for p in tmp.iterdir()))
    else:
        # a good part of the new file is written (compressed, about a tenth of the bytes)
        _wait_for(lambda: _partial(out) > (200_000 if name.endswith(".gz") else 2_000_000))
    workers = _children(process.pid)
    os.kill(process.pid, sig)
    _, err = process.communicate(timeout=30)
    assert process.returncode == code
    assert target.read_bytes() == previous
    assert [p.name for p in out.iterdir() if not p.name.startswith(outputs.PREFIX)] == [name]
    if sig == signal.SIGKILL:  # nobody could clean up: the workers end by themselves, the next run sweeps
        assert workers, "the export ran no worker process"
        _wait_for(lambda: not any(_running(pid) for pid in workers), timeout=5)
        assert _partial(out) > 0
        assert outputs.sweep(out) and outputs.sweep(tmp)
    else:
        lines = err.decode().strip().splitlines()
        assert lines == [f"mif-rdf: interrupted; {target} left unchanged"], lines
        assert not list(tmp.iterdir()) and _partial(out) == 0


def test_a_killed_cache_save_leaves_nothing_after_the_next_run(tmp_path: Path) -> None:
    from mif_rdf.bundle import load_bundle

    bundle = load_bundle(EXAMPLES, cache=tmp_path / "cache", progress=False)
    entry = bundle.cache.entry
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = [entry / f"{outputs.PREFIX}{dead.pid}-dataset", entry / f"{outputs.PREFIX}{dead.pid}-oxigraph"]
    left[0].write_bytes(b"half a pickle")
    left[1].mkdir()
    again = load_bundle(EXAMPLES, cache=tmp_path / "cache", progress=False)
    assert again.cache.state == "warm" and not any(path.exists() for path in left)


def test_special_files_are_written_through(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-o /dev/stdout`` and a FIFO have nothing to replace: they get the bytes as they come."""
    assert main(["export", str(EXAMPLES), "--format", "nquads", "-o", "/dev/null"]) == 0
    fifo = tmp_path / "pipe.nq"
    os.mkfifo(fifo)
    copy = tmp_path / "copy.nq"
    with open(copy, "wb") as sink:
        reader = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        assert main(["export", str(EXAMPLES), "--format", "nquads", "-o", str(fifo)]) == 0
        reader.wait(timeout=30)
    assert copy.read_bytes().count(b"\n") > 1000 and fifo.exists() and not fifo.is_file()
