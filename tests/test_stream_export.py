"""Issue 19 item 3: the streamed N-Quads export writes what the loaded export writes, without loading a store.

The oracle is the loaded bundle: every graph the export policy lets leave
(tests/oxigraph_server.expected_graphs), compared graph by graph up to
blank-node names (conftest.isomorphic: blank nodes by structure, every other
term exactly, lexical forms included), and the load's problems plus the export's ill-typed warnings.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.compare import graph_diff, to_isomorphic

import mif_rdf.load.loader
import mif_rdf.load.stages
from conftest import EXAMPLES, FIXTURE_BUNDLES, isomorphic, memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.load.oxigraph_sink import rdflib_terms
from mif_rdf.output.policy import export_policy
from mif_rdf.output.stream_export import StreamReport, stream_nquads
from mif_rdf.validation.literals import ill_typed_literals
from oxigraph_server import OxigraphServer, expected_graphs, oxigraph_command
from synthetic import generate_bundle

SCRATCH = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"  # examples/: the memory in _local/scratch


def streamed(root: Path, **options: object) -> tuple[bytes, StreamReport]:
    out = io.BytesIO()
    report = stream_nquads(root, out, progress=False, **options)  # type: ignore[arg-type]
    return out.getvalue(), report


def graphs_of(nquads: bytes) -> dict[str, Graph]:
    """Each named graph of an N-Quads text, read by Oxigraph's parser with every lexical form kept.

    (rdflib's own N-Quads parser would respell ``...Z`` as ``...+00:00``.)
    """
    term = rdflib_terms()
    graphs: dict[str, Graph] = defaultdict(Graph)
    for quad in ox.parse(nquads, format=ox.RdfFormat.N_QUADS):
        graphs[str(quad.graph_name.value)].add((term(quad.subject), term(quad.predicate), term(quad.object)))
    return dict(graphs)


def assert_same_export(root: Path, **options: object) -> StreamReport:
    """The stream's graphs, quads and problems are the loaded bundle's export."""
    data, report = streamed(root, **options)
    bundle = load_bundle(
        root, progress=False, **{k: v for k, v in options.items() if k in ("engine", "base_iri", "limits")}
    )  # type: ignore[arg-type]
    if options.get("with_hashes"):
        bundle.add_content_hashes()
    expected, got = expected_graphs(bundle), graphs_of(data)
    assert set(got) == set(expected)
    for name, graph in expected.items():
        if not isomorphic(graph, got[name]):
            _, missing, extra = graph_diff(to_isomorphic(graph), to_isomorphic(got[name]))
            pytest.fail(f"graph {name}: missing {sorted(missing)[:3]}, extra {sorted(extra)[:3]}")
    assert report.quads == data.count(b"\n") == sum(len(g) for g in expected.values())
    assert report.graphs == len(expected)
    policy = export_policy(bundle)
    assert report.withheld.keys() == policy.withheld.keys()
    wanted = list(bundle.problems) + ill_typed_literals(bundle, policy.allows)
    assert sorted(map(str, report.problems)) == sorted(map(str, wanted))
    return report


@pytest.mark.parametrize("name", sorted(FIXTURE_BUNDLES))
def test_every_fixture_bundle_streams_to_the_loaded_export(name: str) -> None:
    assert_same_export(FIXTURE_BUNDLES[name])


def test_the_local_memory_and_every_link_to_it_stay_behind() -> None:
    data, report = streamed(EXAMPLES)
    assert SCRATCH in report.withheld and "_local/scratch" in report.withheld[SCRATCH].reason
    graphs = graphs_of(data)
    assert SCRATCH not in graphs
    links = [line for line in data.splitlines() if line.endswith(b"#links> .")]
    assert len(links) > 40 and not any(SCRATCH.encode() in line or b"redis-idempotency-idea" in line for line in links)
    layout = [line for line in data.splitlines() if line.endswith(b"#layout> .")]
    assert len(layout) == 16 and not any(line.startswith(f"<{SCRATCH}>".encode()) for line in layout)
    # an exported memory that names it keeps that reference: it is its own content (docs/export.md)
    assert any(SCRATCH.encode() in line for line in data.splitlines() if line not in links)


def test_a_generated_bundle_with_broken_links_and_workers(tmp_path: Path) -> None:
    generate_bundle(tmp_path, 300, seed=5, broken_links=4)
    report = assert_same_export(tmp_path, workers=1)  # 300 files > one chunk: a worker process prepares them
    assert sum(p.rule == "link" for p in report.problems) == 4
    assert streamed(tmp_path, workers=1)[1].quads == streamed(tmp_path, workers=0)[1].quads


def test_the_pyld_engine_and_content_hashes() -> None:
    assert_same_export(EXAMPLES, engine="pyld")
    hashed, _ = streamed(EXAMPLES, with_hashes=True)
    assert hashed.count(b"sha256") > streamed(EXAMPLES)[0].count(b"sha256")
    assert_same_export(EXAMPLES, with_hashes=True)


def hostile_bundle(root: Path) -> Path:
    """The shapes real bundles have that a stream must get right without seeing the whole bundle first."""
    ids = {name: f"00000000-0000-4000-8000-{n:012d}" for n, name in enumerate("abcdefgh")}
    write_file(root, ".mif/config.yaml", "bundle_id: hostile.example\n")
    # a URN target to a memory read later, a path with a fragment, a relative path, a broken path, an entity
    write_file(
        root,
        "a.md",
        memory_text(
            ids["a"],
            f"""relationships:
  - type: relates-to
    target: urn:mif:{ids["h"]}
  - type: derived-from
    target: sub/b.md#section
  - type: supersedes
    target: /missing.md
  - type: mentions
    target: urn:mif:entity:person:ada
  - type: relates-to
    target: {"private.md"}
""",
        ),
    )
    write_file(root, "sub/b.md", memory_text(ids["b"], "relationships:\n  - type: part-of\n    target: ../a.md\n"))
    write_file(root, "sub/copy.md", memory_text(ids["b"]))  # duplicate id: the later file (in path order) is not loaded
    write_file(root, "c d.md", memory_text(ids["c"]))
    write_file(root, "c%20d.md", memory_text(ids["d"]))  # the same document IRI as 'c d.md'
    write_file(root, "private.md", memory_text(ids["e"], "namespace: _local/notes\n"))  # withheld, named by a.md
    write_file(root, "acme/inner.md", memory_text(ids["f"], "namespace: acme/_LOCAL/x\n"))  # withheld too
    write_file(
        root,
        "raised.md",
        memory_text(
            ids["g"],
            """provenance:
  trustLevel: low_confidence
citations:
  - title: T
    url: https://example.org/t
    trustLevel: verified
""",
        ),
    )  # its graph states a higher trust than its provenance
    write_file(root, "z.md", memory_text(ids["h"], "tags: [x, x, y]\n"))  # a repeated tag: one quad
    write_file(root, "broken.md", "---\nid: [unclosed\n---\nBody\n")
    write_file(root, "no-id.md", "---\ntype: semantic\n---\nBody\n")
    write_file(root, ".mif/entities/person/ada.yaml", "id: ada\ntype: Person\nname: Ada\n")
    write_file(root, ".mif/entities/person/secret.yaml", "id: secret\ntype: Person\nname: S\nnamespace: _local\n")
    write_file(
        root, ".mif/entities/person/zz-ada-again.yaml", "id: ada\ntype: Person\nname: Ada again\n"
    )  # the same entity IRI
    return root


def test_a_hostile_bundle_streams_to_the_loaded_export(tmp_path: Path) -> None:
    root = hostile_bundle(tmp_path / "hostile")
    report = assert_same_export(root)
    rules = {p.rule for p in report.problems}
    assert {"duplicate-id", "duplicate-path", "link"} <= rules
    assert sum(p.rule == "duplicate-id" for p in report.problems) == 2  # sub/copy.md and the second ada
    assert [p.key for p in report.problems if p.rule == "link"] == ["relationships[2].target"]  # /missing.md only
    reasons = " ".join(w.reason for w in report.withheld.values())
    assert "_local/notes" in reasons and "acme/_LOCAL/x" in reasons and "trust level" in reasons
    assert any(w.label.endswith("secret.yaml") for w in report.withheld.values())
    assert report.errors >= 3  # the duplicate id, the duplicate location, the broken YAML


def test_a_file_name_that_is_not_utf8_is_reported_and_the_rest_streams(tmp_path: Path) -> None:
    root = tmp_path / "b"
    write_file(root, "ok.md", memory_text("00000000-0000-4000-8000-000000000001"))
    (root / "bad-\udcff.md".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")).write_bytes(b"x")
    report = assert_same_export(root)
    assert report.quads > 5 and any("UTF-8" in p.message or "utf-8" in p.message.lower() for p in report.problems)


def test_the_stream_builds_no_dataset(monkeypatch: pytest.MonkeyPatch) -> None:
    """What makes memory flat: no store is filled, not even the empty bundle's."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the streaming export filled a store")

    monkeypatch.setattr(mif_rdf.load.loader, "fill", refuse)
    monkeypatch.setattr(mif_rdf.load.stages._Loader, "accept", refuse)
    data, report = streamed(EXAMPLES)
    assert report.quads == data.count(b"\n") > 1000


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_command_streams_nquads_by_default_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "x.nq"
    done = cli("export", str(EXAMPLES), "--no-progress", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "(nquads, streamed); 1 withheld" in done.stderr
    loaded = cli("export", "--store", "memory", str(EXAMPLES), "-o", str(tmp_path / "y.nq"))
    assert loaded.returncode == 0 and "streamed" not in loaded.stderr
    assert graphs_of(out.read_bytes()).keys() == graphs_of((tmp_path / "y.nq").read_bytes()).keys()
    summary = [line for line in done.stderr.splitlines() if line.startswith("wrote")]
    assert (
        summary[0].split(" to ")[0]
        == [line for line in loaded.stderr.splitlines() if line.startswith("wrote")][0].split(" to ")[0]
    )


def test_the_command_refuses_stream_with_what_needs_a_store(tmp_path: Path) -> None:
    done = cli("export", str(EXAMPLES), "--stream", "--format", "ttl")
    assert done.returncode == 2 and "--stream writes N-Quads only" in done.stderr and "Traceback" not in done.stderr
    done = cli("export", "--stream", str(EXAMPLES), "--format", "nq", "--store", "oxigraph")
    assert done.returncode == 2 and "leave out --store" in done.stderr
    done = cli("export", str(EXAMPLES), "--cache-dir", str(tmp_path / "c"), "--stream", "--format", "nq")
    assert done.returncode == 2 and "leave out --cache-dir" in done.stderr


def test_the_command_exits_1_on_errors_and_writes_the_rest(tmp_path: Path) -> None:
    root = hostile_bundle(tmp_path / "hostile")
    out = tmp_path / "h.nq"
    done = cli("export", str(root), "--stream", "-o", str(out), "-q")
    assert done.returncode == 1, done.stderr
    assert "warning" not in done.stderr and "duplicate id" in done.stderr  # --quiet: errors only
    assert len(graphs_of(out.read_bytes())) == len(expected_graphs(load_bundle(root, progress=False)))


def test_a_streamed_dump_bulk_loads_into_an_oxigraph_server(tmp_path: Path) -> None:
    """docs/export.md's route for bundles that outgrow one machine, at a small size: stream, `oxigraph load`, serve."""
    root = tmp_path / "bundle"
    generate_bundle(root, 120, seed=9, broken_links=2)
    dump = tmp_path / "dump.nq"
    assert cli("export", str(root), "--stream", "--format", "nquads", "-o", str(dump)).returncode == 0
    server = OxigraphServer(tmp_path / "store")
    loaded = subprocess.run(
        [oxigraph_command(), "load", "--location", str(server.location), "--file", str(dump)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    server.start()
    try:
        expected = expected_graphs(load_bundle(root, progress=False))
        assert server.graph_names() == set(expected)
        total = server.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")[0]["n"]
        assert int(total) == sum(len(g) for g in expected.values())
    finally:
        server.stop()


#: Frontmatter values whose layout literal needs every N-Triples escape, and characters JSON and N-Triples
#: treat differently (tab, form feed, DEL, U+2028, astral characters) or not at all (backslash sequences).
AWKWARD_VALUES = [
    'a "quoted" word',
    "back\\slash \\n not a newline",
    "line one\nline two\r\nthree",
    "tab\there, form\ffeed, bell\x07, escape\x1b, del\x7f",
    "separators\u2028and\u2029, nbsp\u00a0, zero\u200bwidth, bom\ufeff",
    "astral \U0001f600 and \U00010348",
    "ends with a backslash \\",
    "",
]


def test_the_layout_line_is_the_layout_triple_written_as_n_quads() -> None:
    """The worker writes each layout line as text: the bytes are nquad_line's of the layout triple."""
    from mif_rdf.load.bundle import MemoryRecord
    from mif_rdf.output.serialize import nquad_line
    from mif_rdf.rdf.layout import frontmatter_of_layout, layout_nquads, layout_triples
    from mif_rdf.source.yamlio import YamlTimestamp

    layout = "https://example.org/b#layout"
    memory_id = "00000000-0000-4000-8000-000000000001"
    frontmatters = [
        {"id": "x", "title": value, 'key "with" \\ quotes\n': [value, {value or "k": YamlTimestamp("2026-01-15")}]}
        for value in AWKWARD_VALUES
    ]
    for frontmatter in frontmatters:
        record = MemoryRecord(memory_id, "x.md", "https://example.org/b/x.md", frontmatter, "", {})
        (triple,) = layout_triples([record])
        line = layout_nquads(record.iri, frontmatter, layout)
        assert line == nquad_line(*triple, URIRef(layout))
        (quad,) = ox.parse(line.encode("utf-8"), format=ox.RdfFormat.N_QUADS)
        assert quad.object.value == str(triple[2])
        assert frontmatter_of_layout(quad.object.value) == frontmatter


def test_awkward_characters_stream_to_the_loaded_export(tmp_path: Path) -> None:
    """Titles, tags and bodies with every escape: the stream's text lines read back as the loaded graphs."""
    import json

    root = tmp_path / "awkward"
    for n, value in enumerate(AWKWARD_VALUES):
        quoted = json.dumps(value)  # a YAML double-quoted scalar takes JSON's escapes
        write_file(
            root,
            f"m{n}.md",
            memory_text(f"00000000-0000-4000-8000-{n:012d}", f"title: {quoted}\ntags: [{quoted}]\n", body=value + "\n"),
        )
    assert assert_same_export(root).quads > 8 * len(AWKWARD_VALUES)


def _numbered_blank_nodes(nquads: bytes) -> bytes:
    """Blank node labels numbered in order of first appearance (each walker's prefix is random)."""
    labels: dict[bytes, bytes] = {}
    return re.sub(rb"_:[A-Za-z0-9]+", lambda m: labels.setdefault(m.group(), b"_:n%d" % len(labels)), nquads)


def assert_same_stream(one: bytes, one_report: StreamReport, two: bytes, two_report: StreamReport) -> None:
    """Two streams of one bundle wrote the same bytes (up to the blank nodes' random labels) and report alike."""
    assert _numbered_blank_nodes(one) == _numbered_blank_nodes(two)
    assert (one_report.quads, one_report.graphs, one_report.withheld.keys()) == (
        two_report.quads,
        two_report.graphs,
        two_report.withheld.keys(),
    )
    assert [str(p) for p in one_report.problems] == [str(p) for p in two_report.problems]


def test_workers_write_the_bytes_one_process_writes(tmp_path: Path) -> None:
    """The lines leave the workers as ready bytes: with or without workers, the file is the same, byte for byte
    (up to the blank nodes' random labels), and so are the report's figures."""
    generate_bundle(tmp_path, 300, seed=11, broken_links=3)
    write_file(tmp_path, "zz/dup.md", memory_text("00000000-0000-4000-8000-000000000001", "namespace: _local\n"))
    one, one_report = streamed(tmp_path, workers=0)
    two, two_report = streamed(tmp_path, workers=2)
    assert_same_stream(one, one_report, two, two_report)


@pytest.mark.parametrize(
    "relpath", ["a.md", "c d.md", 'q"uote\\d.md', "new\nline\r.md", "t\tab é \u2028 \U0001f600.md"]
)
def test_the_place_lines_are_the_place_triples_written_as_n_quads(relpath: str) -> None:
    """The worker writes a memory's links-graph lines as text: the bytes are nquad_line's of place_triples."""
    from mif_rdf.load.links import place_nquads, place_triples
    from mif_rdf.output.serialize import nquad_line, nt_term
    from mif_rdf.rdf.tordf import nt_string
    from mif_rdf.source.identity import document_iri

    iri, links = "urn:mif:00000000-0000-4000-8000-000000000001", "https://example.org/b#links"
    doc_iri = document_iri("https://example.org/b/", relpath)
    for uri in (None, "mif://example.org/team/x/00000000-0000-4000-8000-000000000001"):
        expected = [nquad_line(*triple, URIRef(links)) for triple in place_triples(iri, relpath, doc_iri, uri)]
        assert place_nquads(iri, relpath, doc_iri, uri, links) == "".join(expected)
    for value in [relpath, *AWKWARD_VALUES]:
        (quad,) = ox.parse(f"<{iri}> <{links}> {nt_string(value)} .\n".encode(), format=ox.RdfFormat.N_QUADS)
        assert quad.object.value == value and nt_term(Literal(value)) == nt_string(value)


def _spool_bundle(root: Path) -> None:
    """300 generated memories, with a withheld memory, a duplicate id and a duplicate location among them
    (files the writer skips in the middle of a worker's chunk)."""
    paths = generate_bundle(root, 300, seed=5, broken_links=3)
    first = (root / paths[0]).read_text(encoding="utf-8")
    taken = re.search(r"^id: (\S+)$", first, re.MULTILINE)
    assert taken is not None
    write_file(
        root,
        f"{paths[40].parent.relative_to(root)}/zz-local.md",
        memory_text(f"{taken.group(1)[:-4]}beef", "namespace: _local\n"),
    )
    write_file(root, f"{paths[90].parent.relative_to(root)}/zz-dup.md", memory_text(taken.group(1), ""))
    write_file(root, f"{paths[150].with_suffix('').relative_to(root)}.jsonld", '{"id": "x"}')


def test_workers_spool_the_text_and_the_file_gets_the_bytes_one_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, each chunk's text waits in a spool file of the stream's temporary folder and is copied to the
    output file by the kernel: the file is, byte for byte, what one process writes (blank node labels aside), and
    no spool file is left behind."""
    import tempfile

    from mif_rdf.output import stream_export

    bundle, scratch = tmp_path / "b", tmp_path / "tmp"
    scratch.mkdir()
    _spool_bundle(bundle)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    copies: list[int] = []
    real_copy = os.copy_file_range

    def counted(*args: object) -> int:
        copies.append(1)
        return real_copy(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(stream_export.os, "copy_file_range", counted)
    one, one_report = streamed(bundle, workers=0)
    with open(tmp_path / "two.nq", "wb") as out:
        two_report = stream_nquads(bundle, out, progress=False, workers=2)
    two = (tmp_path / "two.nq").read_bytes()
    assert copies, "the kernel copied nothing: the spool files were not used"
    assert_same_stream(one, one_report, two, two_report)
    assert any("already" in str(p) for p in two_report.problems)  # the duplicate was seen and skipped
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("output", ["bytes", "gzip", "appending", "kernel refuses"])
def test_spooled_text_reaches_any_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str) -> None:
    """Where the kernel cannot copy into the output (a stream in memory, a gzip stream, a file opened to append,
    a file system that refuses ``copy_file_range``), the spooled bytes go through a buffer: the same bytes."""
    import errno
    import gzip

    from mif_rdf.output import stream_export

    bundle = tmp_path / "b"
    _spool_bundle(bundle)
    one, _ = streamed(bundle, workers=0)
    target = tmp_path / "out.nq"
    if output == "bytes":
        two, _ = streamed(bundle, workers=2)
    elif output == "gzip":
        with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb") as out:
            stream_nquads(bundle, out, progress=False, workers=2)  # type: ignore[arg-type]
        two = gzip.decompress(target.read_bytes())
    else:
        if output == "kernel refuses":

            def refuse(*args: object) -> int:
                raise OSError(errno.EXDEV, "cross-device")

            monkeypatch.setattr(stream_export.os, "copy_file_range", refuse)
        target.write_bytes(b"# kept\n" if output == "appending" else b"")
        with open(target, "ab" if output == "appending" else "wb") as out:
            stream_nquads(bundle, out, progress=False, workers=2)
        two = target.read_bytes().removeprefix(b"# kept\n")
    assert _numbered_blank_nodes(one) == _numbered_blank_nodes(two)


def test_a_spool_file_that_cannot_be_written_leaves_the_text_in_the_memories(tmp_path: Path) -> None:
    """The stream's folder gone (an export ending) or full: the chunk's text travels in the memories."""
    from mif_rdf.output.stream_export import StreamedMemory, spool_text

    items = [StreamedMemory("a.md", [], "a", text=b"<a> <b> <c> .\n"), StreamedMemory("b.md", [])]
    assert spool_text(items, str(tmp_path / "gone")) is items
    assert [(item.text, item.spooled) for item in items] == [(b"<a> <b> <c> .\n", None), (b"", None)]
    spool_text(items, str(tmp_path))
    ((path, offset, length),) = [item.spooled for item in items if item.spooled is not None]
    assert (offset, length, items[0].text) == (0, 14, b"") and Path(path).read_bytes() == b"<a> <b> <c> .\n"
