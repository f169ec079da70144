"""Issue 15: one bad file never breaks a bundle, push never deletes what it could not read.

One regression test per case of the issue; each checks what the user keeps
(the memories loaded, the graphs in the store, the files on disk), not only
the exit code.  The combined corpus of every case at once is in
test_hostile_corpus.py.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rdflib import URIRef

from conftest import memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import Severity
from oxigraph_server import OxigraphServer, oxigraph  # noqa: F401  (oxigraph: fixture)
from threaded_server import serving

GOOD = [f"{n:08d}-0000-4000-8000-000000000000" for n in range(6)]


def good_bundle(root: Path, folder: str = "sub") -> Path:
    """Six memories: one at the top, five in ``folder``."""
    write_file(root, "top.md", memory_text(GOOD[0], "title: Top\n"))
    for number, memory_id in enumerate(GOOD[1:]):
        write_file(root, f"{folder}/m{number}.md", memory_text(memory_id, f"title: M{number}\n"))
    return root


@contextlib.contextmanager
def unreadable(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``chmod 000`` on ``folder``; as root (who reads it anyway, as in CI) the listing fails as it would."""
    if os.geteuid() != 0:
        folder.chmod(0)
        try:
            yield
        finally:
            folder.chmod(stat.S_IRWXU)
        return
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if isinstance(path, (str, os.PathLike)) and Path(path).resolve() == folder.resolve():
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(os, "scandir", scandir)
        yield


# -- 1. writers never leave the output folder ----------------------------------------
ESCAPING = {
    "a": "../victim/escaped.md",
    "b": "{outside}/absolute.md",
    "c": ".git/hooks/pre-commit.md",
    "d": "x/../../up.md",
}


def test_convert_to_markdown_never_writes_outside_the_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    out, outside = work / "out", tmp_path / "outside"
    outside.mkdir()
    lines = []
    paths = {**{k: v.format(outside=outside) for k, v in ESCAPING.items()}, "ok": "kept/ok.md"}
    for key, path in paths.items():
        lines += [
            f'<urn:mif:{key}> <https://mif-spec.dev/ns/path> "{path}" <mif://local/x/#links> .',
            f'<urn:mif:{key}> <http://purl.org/dc/terms/title> "T {key}" <urn:mif:{key}> .',
        ]
    dataset = write_file(work, "d.nq", "\n".join(lines) + "\n")
    before = {p for p in tmp_path.rglob("*")}
    code = main(["convert", "to-markdown", str(dataset), "-o", str(out)])
    err = capsys.readouterr().err
    written = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    assert written == {out / "kept" / "ok.md"}  # the good memory is written, nothing else anywhere
    assert "T ok" in (out / "kept" / "ok.md").read_text(encoding="utf-8")
    assert code == 1
    for path in paths.values():
        if path != "kept/ok.md":
            assert f"{path}: error [path]" in err


# -- 2. an unreadable folder is a problem, and push deletes nothing of it -------------------
def test_unreadable_folder_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = good_bundle(tmp_path / "b")
    with unreadable(root / "sub", monkeypatch):
        bundle = load_bundle(root)
    assert set(bundle.memories) == {GOOD[0]}
    (problem,) = bundle.problems
    assert (problem.path, problem.severity, problem.rule) == ("sub", Severity.ERROR, "read")
    assert "cannot read folder" in problem.message


def test_push_never_deletes_graphs_of_an_unreadable_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, oxigraph: OxigraphServer, capsys: pytest.CaptureFixture[str]
) -> None:
    root = good_bundle(tmp_path / "b")
    assert main(["push", str(root), "--endpoint", oxigraph.store_url]) == 0
    stored = oxigraph.graph_names()
    assert {f"urn:mif:{m}" for m in GOOD} <= stored
    capsys.readouterr()
    with unreadable(root / "sub", monkeypatch):
        code = main(["push", str(root), "--endpoint", oxigraph.store_url])
    out, err = capsys.readouterr()
    assert oxigraph.graph_names() == stored  # every memory the folder held is still in the store
    assert "deleted 0" in out and "not deleted 5" in out
    assert "sub: error: cannot read folder" in err
    assert code == 1


# -- 3. one bad name or value never breaks the bundle --------------------------------------
def test_non_utf8_file_name_is_a_problem_and_the_rest_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = good_bundle(tmp_path / "b")
    (root / os.fsdecode(b"caf\xe9.md")).write_text(memory_text("cafe"), encoding="utf-8")
    bundle = load_bundle(root)
    assert set(bundle.memories) == set(GOOD)
    (problem,) = bundle.problems
    assert problem.path == "caf\\xe9.md" and problem.rule == "encoding" and problem.severity == Severity.ERROR
    assert main(["export", str(root), "--format", "nquads"]) == 1
    out, err = capsys.readouterr()
    assert all(f"<urn:mif:{m}>" in out for m in GOOD)
    assert "caf\\xe9.md: error" in err and "internal error" not in err


@pytest.mark.parametrize("char", list('"<>{}|^`'))
@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_relationship_type_that_makes_no_iri_drops_only_that_edge(
    tmp_path: Path, char: str, store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = good_bundle(tmp_path / "b")
    rels = f"relationships:\n  - type: 'x{char}y'\n    target: /top.md\n  - type: relates-to\n    target: /top.md\n"
    write_file(root, "linked.md", memory_text("linked", rels))
    for fmt in ("turtle", "nt", "nquads", "trig", "json-ld"):
        code = main(["export", str(root), "--store", store, "--format", fmt])
        out, err = capsys.readouterr()
        assert code == 1, err  # the bundle has an error (exit 1), and everything else is written
        assert "linked.md: error [relationships[0].type]" in err
        assert all(m in out for m in [*GOOD, "urn:mif:linked"]), fmt
        assert "Traceback" not in err
    bundle = load_bundle(root, store="Oxigraph" if store == "oxigraph" else "default")
    assert len(bundle.memories) == 7
    edges = set(bundle.links.predicate_objects(URIRef("urn:mif:linked")))
    assert (URIRef("https://mif-spec.dev/ns/relates-to"), URIRef(f"urn:mif:{GOOD[0]}")) in edges


# -- 8. files that are not files -------------------------------------------------------
@pytest.mark.parametrize("relpath", ["x.md", "sub/y.md", ".mif/entities/e.yaml", ".mif/config.yaml"])
def test_fifo_is_a_problem_and_never_read(tmp_path: Path, relpath: str) -> None:
    root = good_bundle(tmp_path / "b")
    (root / relpath).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / relpath)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(load_bundle(root)), daemon=True)
    worker.start()
    worker.join(60)
    assert result, "the load hangs on a FIFO"
    bundle = result[0]
    assert set(bundle.memories) == set(GOOD)  # type: ignore[attr-defined]
    (problem,) = bundle.problems  # type: ignore[attr-defined]
    assert problem.path == relpath and "FIFO" in problem.message


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (as in CI)")
def test_device_node_is_a_problem_and_never_read(tmp_path: Path) -> None:
    root = good_bundle(tmp_path / "b")
    os.mknod(root / "zero.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero: a read never ends
    bundle = load_bundle(root)
    assert set(bundle.memories) == set(GOOD)
    (problem,) = bundle.problems
    assert problem.path == "zero.md" and "character device" in problem.message


# -- 9. symlinks under .mif follow the memories' rule ---------------------------------------
def test_symlinked_mif_folder_and_config_outside_are_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_file(outside, ".mif/config.yaml", "secret: from outside\n")
    write_file(outside, ".mif/entities/e.yaml", "id: leaked\ntype: Technology\nname: Leaked\n")
    root = good_bundle(tmp_path / "b")
    os.symlink(outside / ".mif", root / ".mif", target_is_directory=True)
    bundle = load_bundle(root)
    assert bundle.config == {} and not bundle.entities
    assert [(p.path, p.severity) for p in bundle.problems] == [(".mif", Severity.WARNING)]

    other = good_bundle(tmp_path / "c")
    (other / ".mif").mkdir()
    os.symlink(outside / ".mif" / "config.yaml", other / ".mif" / "config.yaml")
    bundle = load_bundle(other)
    assert bundle.config == {}
    (problem,) = bundle.problems
    assert problem.path == ".mif/config.yaml" and "outside the bundle" in problem.message


# -- 4. a push never deletes graphs another bundle created ---------------------------------
@pytest.mark.parametrize("protocol", ["gsp", "update"])
def test_push_refuses_to_delete_another_bundles_graphs(
    tmp_path: Path, oxigraph: OxigraphServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a" / "notes", tmp_path / "b" / "notes"  # same folder name, same --base
    write_file(first, "one.md", memory_text(GOOD[0], "title: First bundle\n"))
    write_file(second, "two.md", memory_text(GOOD[1], "title: Second bundle\n"))
    endpoint = ["--endpoint", oxigraph.store_url, "--base", "mif://shared/notes/"]
    endpoint += ["--update-endpoint", oxigraph.update_url] if protocol == "update" else []
    assert main(["push", str(first), *endpoint]) == 0
    assert main(["push", str(first), *endpoint]) == 0  # the same bundle again: its own manifest
    capsys.readouterr()
    assert main(["push", str(second), *endpoint]) == 2
    err = capsys.readouterr().err
    assert "another bundle" in err and "--take-over" in err and f"urn:mif:{GOOD[0]}" in err
    assert f"urn:mif:{GOOD[0]}" in oxigraph.graph_names()  # the first bundle's memory is still there
    assert f"urn:mif:{GOOD[1]}" not in oxigraph.graph_names()  # nothing was written
    assert main(["push", str(second), *endpoint, "--take-over"]) == 0
    names = oxigraph.graph_names()
    assert f"urn:mif:{GOOD[1]}" in names and f"urn:mif:{GOOD[0]}" not in names
    capsys.readouterr()
    assert main(["push", str(first), *endpoint]) == 2  # now the first one is the other bundle


# -- 10. a memory and an entity file never share a graph ------------------------------------
def test_memory_id_colliding_with_an_entity_graph_is_a_duplicate_id(tmp_path: Path) -> None:
    root = good_bundle(tmp_path / "b")
    write_file(root, ".mif/entities/redis.yaml", "id: redis\ntype: Technology\nname: Redis\n")
    write_file(root, "impostor.md", memory_text("entity:technology:redis", "title: Impostor\n"))
    for cache in (None, tmp_path / "cache", tmp_path / "cache"):  # cold, then warm
        bundle = load_bundle(root, cache=cache)
        (problem,) = [p for p in bundle.problems if p.rule == "duplicate-id"]
        assert problem.severity == Severity.ERROR
        assert {problem.path, *[w for w in ("impostor.md", ".mif/entities/redis.yaml") if w in problem.message]} == {
            "impostor.md",
            ".mif/entities/redis.yaml",
        }
        values = {str(o) for o in bundle.dataset.graph(URIRef("urn:mif:entity:technology:redis")).objects()}
        assert (
            "Impostor" in values and "Redis" not in values
        )  # the first file loaded (memories first) keeps the graph alone
        assert set(bundle.memories) == {*GOOD, "entity:technology:redis"} and not bundle.entities


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own: what a user sees on stderr, logging included (pytest captures none of it)."""
    return subprocess.run([sys.executable, "-m", "mif_rdf.cli", *args], capture_output=True, text=True, timeout=300)


# -- 14. impossible dates are problems, never tracebacks -------------------------------------
IMPOSSIBLE = {
    "created": "2026-02-30T10:00:00Z",
    "modified": "yesterday",
    "validFrom": "2026-01-01T10:00:00+25:00",
    "validUntil": "0000-01-01T00:00:00Z",
}


def test_impossible_dates_are_problems_and_no_command_prints_a_traceback(tmp_path: Path) -> None:
    root = good_bundle(tmp_path / "b")
    temporal = "".join(f"  {k}: '{v}'\n" for k, v in IMPOSSIBLE.items() if k.startswith("valid"))
    write_file(
        root,
        "dates.md",
        f"---\nid: dates\ntype: semantic\ncreated: {IMPOSSIBLE['created']}\nmodified: {IMPOSSIBLE['modified']}\n"
        f"temporal:\n{temporal}---\nBody.\n",
    )
    bundle = load_bundle(root)
    assert set(bundle.memories) == {*GOOD, "dates"}
    found = {p.key: p.value for p in bundle.problems if p.rule == "datatype"}
    assert found == {
        "created": IMPOSSIBLE["created"],
        "modified": IMPOSSIBLE["modified"],
        "temporal.validFrom": IMPOSSIBLE["validFrom"],
        "temporal.validUntil": IMPOSSIBLE["validUntil"],
    }
    assert all(p.path == "dates.md" for p in bundle.problems if p.rule == "datatype")
    query = "SELECT ?s ?o WHERE { ?s <http://purl.org/dc/terms/created> ?o } ORDER BY ?o"
    for args in (
        ["load", str(root)],
        ["validate", str(root)],
        ["export", str(root), "--format", "turtle"],
        ["query", str(root), query],
    ):
        done = run_cli(*args)
        assert "Traceback" not in done.stderr and "Failed to convert" not in done.stderr, (args, done.stderr[-2000:])
        assert done.returncode in (0, 1), (args, done.stderr[-2000:])
    assert "dates.md" in run_cli("load", str(root)).stdout


# -- 15. integers keep their digits ------------------------------------------------------
@pytest.mark.parametrize("engine", ["fast", "pyld"])
@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_huge_integers_stay_exact_xsd_integers(tmp_path: Path, engine: str, store: str) -> None:
    digits = "123456789012345678901234567890"
    root = good_bundle(tmp_path / "b")
    write_file(
        root, "big.md", memory_text("big", f"properties:\n  n: {digits}\n  m: -{digits}\n  k: 1000000000000000000000\n")
    )
    bundle = load_bundle(root, engine=engine, store=store)  # type: ignore[arg-type]
    numbers = {(str(o), str(o.datatype)) for o in bundle.graph("big").objects() if getattr(o, "datatype", None)}
    integer = "http://www.w3.org/2001/XMLSchema#integer"
    assert {(digits, integer), ("-" + digits, integer), ("1000000000000000000000", integer)} <= numbers
    assert not any(d.endswith("#double") for _, d in numbers)


# -- 16. two paths, two spellings of one number: never one memory ---------------------------
def test_paths_with_the_same_location_are_a_problem(tmp_path: Path) -> None:
    root = good_bundle(tmp_path / "b")
    write_file(root, "a b.md", memory_text("space", "title: Space\n"))
    write_file(root, "a%20b.md", memory_text("percent", "title: Percent\n"))
    write_file(root, "link.md", memory_text("link", "relationships:\n  - type: relates-to\n    target: '/a b.md'\n"))
    bundle = load_bundle(root)
    assert "space" in bundle.memories and "percent" not in bundle.memories
    (problem,) = [p for p in bundle.problems if p.rule == "duplicate-path"]
    assert problem.path == "a%20b.md" and "a b.md" in problem.message and problem.severity == Severity.ERROR
    assert set(bundle.links.objects(URIRef("urn:mif:link"), URIRef("https://mif-spec.dev/ns/relates-to"))) == {
        URIRef("urn:mif:space")
    }


@pytest.mark.parametrize(("written", "read"), [("0x10", 16), ("12345", 12345), ("017", 15), ("1_000", 1000)])
def test_an_id_yaml_reads_as_a_number_keeps_its_written_text(tmp_path: Path, written: str, read: int) -> None:
    root = good_bundle(tmp_path / "b")
    write_file(root, "n.md", memory_text(written))
    bundle = load_bundle(root)
    assert written in bundle.memories and str(read) not in {*bundle.memories} - {written}
    assert bundle.memories[written].relpath == "n.md"
    if written != str(read):
        (problem,) = [p for p in bundle.problems if p.path == "n.md" and "read by YAML" in p.message]
        assert problem.key == "id" and problem.value == written


# -- 11. a query the SERVICE check cannot read never reaches the network ----------------------
@pytest.fixture
def listener() -> Iterator[tuple[str, list[bytes]]]:
    """A loopback socket that records every connection made to it (a SPARQL endpoint that never answers)."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            seen.append(b"connected")
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/sparql", seen
    stop.set()
    thread.join(5)
    server.close()


@pytest.mark.parametrize("service", ["SERVICE", "service", "\\u0053ERVICE"])
def test_unparseable_service_query_is_refused_before_the_network(
    tmp_path: Path, listener: tuple[str, list[bytes]], service: str
) -> None:
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.queries import run_query

    url, seen = listener
    bundle = load_bundle(good_bundle(tmp_path / "b"), store="Oxigraph")
    # LATERAL: rdflib cannot parse it
    query = f"SELECT * WHERE {{ ?s ?p ?o LATERAL {{ {service} <{url}> {{ ?s ?p ?o }} }} }}"
    with pytest.raises(MifRdfError, match="SERVICE"):
        run_query(bundle.dataset, query)
    assert seen == []
    assert len(list(run_query(bundle.dataset, "SELECT * WHERE { ?s ?p ?o LATERAL { BIND(1 AS ?x) } } LIMIT 1"))) == 1


# -- 17. a lone surrogate in a helper parameter is a MifRdfError -----------------------------
@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_lone_surrogate_parameters_raise_mifrdferror(tmp_path: Path, store: str) -> None:
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.queries import helpers

    bundle = load_bundle(good_bundle(tmp_path / "b"), store=store)
    bad = "x\udce9y"
    calls = [
        lambda: helpers.memories_in_namespace(bundle.dataset, bad),
        lambda: helpers.memories_with_tag(bundle.dataset, bad),
        lambda: helpers.memories_about(bundle.dataset, "urn:mif:" + bad),
        lambda: helpers.neighbours(bundle.dataset, bad),
        lambda: helpers.neighbours(bundle.dataset, GOOD[0], bad),
        lambda: helpers.supersession_chain(bundle.dataset, bad),
    ]
    for call in calls:
        try:
            call()
        except MifRdfError:
            pass  # refused clearly (the memory store may also just find nothing)


# -- 5. lookalike _local namespaces never leave -------------------------------------------
LOOKALIKES = [
    "_local\\scratch",
    "_local:scratch",
    "_local x",
    "_lo\u200bcal",
    "_loc\u00adal",
    "\ufeff_local",
    "\uff3f\uff4c\uff4f\uff43\uff41\uff4c",
    "_LOCAL /x",
]


def local_bundle(root: Path) -> Path:
    good_bundle(root)
    for number, namespace in enumerate(LOOKALIKES):
        write_file(
            root,
            f"secret{number}.md",
            memory_text(
                f"secret-{number}",
                f'namespace: "{namespace.encode("unicode_escape").decode()}"\ntitle: Secret{number}\n',
            ),
        )
    write_file(root, "public.md", memory_text("public", "namespace: _localish/x\ntitle: Public\n"))  # not a lookalike
    return root


@pytest.mark.parametrize("fmt", ["turtle", "nt", "nquads", "trig", "json-ld"])
def test_lookalike_local_namespaces_are_withheld_in_every_format(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = local_bundle(tmp_path / "b")
    assert main(["export", str(root), "--format", fmt, "-v"]) == 0
    out, err = capsys.readouterr()
    assert "secret-" not in out and "Secret" not in out
    assert all(f"urn:mif:{m}" in out for m in [*GOOD, "public"])
    assert all(f"withheld secret{n}.md" in err for n in range(len(LOOKALIKES)))


def test_lookalike_local_namespaces_are_never_pushed(tmp_path: Path, oxigraph: OxigraphServer) -> None:
    root = local_bundle(tmp_path / "b")
    assert main(["push", str(root), "--endpoint", oxigraph.store_url]) == 0
    text = "".join(str(row) for row in oxigraph.select("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"))
    assert "secret-" not in text and "Secret" not in text and "urn:mif:public" in text


# -- 6. every writer withholds _local memories unless --include-local -------------------------
def test_convert_to_jsonld_and_reason_withhold_local_memories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = good_bundle(tmp_path / "b")
    write_file(root, "secret.md", memory_text("secret", "namespace: _local/scratch\ntitle: Secret\n"))
    write_file(root, "pub.md", memory_text("pub", "relationships:\n  - type: relates-to\n    target: /secret.md\n"))
    assert main(["convert", "to-jsonld", str(root), "-o", str(tmp_path / "jsonld")]) == 0
    written = {p.name for p in (tmp_path / "jsonld").rglob("*.jsonld")}
    assert "secret.jsonld" not in written and {"top.jsonld", "pub.jsonld"} <= written
    assert "secret.md: info [namespace]: not written" in capsys.readouterr().err
    assert main(["convert", "to-jsonld", str(root), "-o", str(tmp_path / "all"), "--include-local"]) == 0
    assert (tmp_path / "all" / "secret.jsonld").is_file()

    assert main(["reason", str(root), "-o", str(tmp_path / "inf.ttl")]) == 0
    assert "urn:mif:secret" not in (tmp_path / "inf.ttl").read_text(encoding="utf-8")
    assert "left out 1 inferred triples" in capsys.readouterr().err
    assert main(["reason", str(root), "-o", str(tmp_path / "inf-all.ttl"), "--include-local"]) == 0
    assert "urn:mif:secret" in (tmp_path / "inf-all.ttl").read_text(encoding="utf-8")


# -- 7. a cached load sees an edit whose size and mtime were put back ---------------------------
@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_cache_sees_a_same_size_edit_with_the_mtime_put_back(
    tmp_path: Path, store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = good_bundle(tmp_path / "b")
    memory = write_file(root, "ns.md", memory_text("ns", 'namespace: "public"\ntitle: Shared\n'))
    old = 1_600_000_000_000_000_000  # long ago: outside any "racily clean" window
    os.utime(memory, ns=(old, old))
    cache = tmp_path / "cache"
    assert load_bundle(root, cache=cache, store=store).memories["ns"].frontmatter["namespace"] == "public"
    memory.write_text(memory.read_text(encoding="utf-8").replace('"public"', '"_local"'), encoding="utf-8")  # same size
    os.utime(memory, ns=(old, old))  # touch -r
    bundle = load_bundle(root, cache=cache, store=store)
    assert bundle.cache is not None and bundle.cache.state == "warm" and bundle.cache.reparsed == ("ns.md",)
    assert bundle.memories["ns"].frontmatter["namespace"] == "_local"
    assert (
        main(
            [
                "export",
                str(root),
                "--cache-dir",
                str(cache),
                "--store",
                "oxigraph" if store == "Oxigraph" else "memory",
                "--format",
                "nquads",
                "-v",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert "urn:mif:ns>" not in out and "withheld ns.md" in err


# -- 13. a cache entry another user could have written is never unpickled ----------------------
def test_cache_entries_others_could_write_are_refused(tmp_path: Path) -> None:
    from mif_rdf.core.errors import MifRdfError

    root = good_bundle(tmp_path / "b")
    cache = tmp_path / "cache"
    load_bundle(root, cache=cache)
    (entry,) = [p for p in cache.iterdir() if p.is_dir()]
    assert stat.S_IMODE((entry / "manifest").stat().st_mode) == 0o600
    (entry / "manifest").chmod(0o666)  # as if planted in a shared --cache-dir
    with pytest.raises(MifRdfError, match="writable by other users"):
        load_bundle(root, cache=cache)
    (entry / "manifest").chmod(0o600)
    entry.chmod(0o777)
    with pytest.raises(MifRdfError, match="writable by other users"):
        load_bundle(root, cache=cache)
    entry.chmod(0o700)
    assert load_bundle(root, cache=cache).cache.state == "warm"  # type: ignore[union-attr]
    if os.geteuid() != 0:
        return  # giving a file to another user needs root (as in CI)
    os.chown(entry / "manifest", 65534, 65534)
    with pytest.raises(MifRdfError, match="owned by another user"):
        load_bundle(root, cache=cache)


# -- 12. a hostile store cannot make push fetch, hang or run out of memory ---------------------------
@contextlib.contextmanager
def hostile_store(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    """A Graph Store whose every GET is answered by ``answer``; yields its URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            with contextlib.suppress(OSError):
                answer(self)

        def log_message(self, *args: object) -> None:
            pass

    with serving(ThreadingHTTPServer, Handler) as address:
        yield f"http://{address}/store"


def _store(url: str, timeout: float = 2.0) -> object:
    from mif_rdf.push import GraphStore, HttpClient, RetryPolicy

    return GraphStore(url, client=HttpClient(timeout=timeout, retry=RetryPolicy(retries=0, sleep=lambda _: None)))


def test_manifest_with_a_remote_or_file_context_is_never_fetched(listener: tuple[str, list[bytes]]) -> None:
    from mif_rdf.core.errors import MifRdfError
    from mif_rdf.push.manifest import read_manifest

    url, seen = listener
    for context in (url, "file:///etc/passwd"):
        body = (f'{{"@context": "{context}", "@id": "_:e", "urn:mif-rdf:sync:graph": {{"@id": "urn:mif:x"}}}}').encode()

        def answer(handler: BaseHTTPRequestHandler, body: bytes = body) -> None:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/ld+json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)

        with hostile_store(answer) as store_url, pytest.raises(MifRdfError, match="cannot read"):
            read_manifest(_store(store_url), "mif://x/")  # type: ignore[arg-type]
    assert seen == []


def test_a_trickling_store_is_held_to_the_timeout() -> None:
    from mif_rdf.remote.gsp import StoreTimeout

    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/n-triples")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        for _ in range(200):
            handler.wfile.write(b"#")
            handler.wfile.flush()
            time.sleep(0.1)

    with hostile_store(trickle) as url:
        start = time.monotonic()
        with pytest.raises(StoreTimeout):
            _store(url, timeout=1.0).get_graph("mif://x/#sync-manifest")  # type: ignore[attr-defined]
        assert time.monotonic() - start < 3.0


def test_an_endless_answer_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from mif_rdf.remote import gsp

    monkeypatch.setattr(gsp, "MAX_ANSWER_BYTES", 2**20)

    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/n-triples")
        handler.end_headers()  # no length: the body ends when the connection does, and it never does
        chunk = b"# padding\n" * 6554
        for _ in range(10_000):
            handler.wfile.write(chunk)

    with hostile_store(endless) as url, pytest.raises(gsp.StoreFailed, match="over 1 MB"):
        _store(url, timeout=10.0).get_graph("mif://x/#sync-manifest")  # type: ignore[attr-defined]


def test_a_config_symlinked_out_of_the_bundle_does_not_set_the_base(tmp_path: Path) -> None:
    """The bundle identity (and so the default base IRI) never comes from a file outside the bundle."""
    from mif_rdf.source.parse import bundle_base_iri

    outside = tmp_path / "outside.yaml"
    outside.write_text("bundle_id: stolen-identity\n", encoding="utf-8")
    root = tmp_path / "b"
    write_file(root, "a.md", memory_text("a1"))
    (root / ".mif").mkdir()
    (root / ".mif" / "config.yaml").symlink_to(outside)
    assert "stolen-identity" not in bundle_base_iri(root)
    assert "stolen-identity" not in load_bundle(root).base_iri
