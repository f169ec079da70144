"""Issue 36 item 8: a bundle's ``.jsonld`` files (spec 2.1, 3.3) are memories,
or projections checked against their ``.md``."""

from __future__ import annotations

import io
import json
import shutil
import socket
from pathlib import Path

import pytest
from pyld import jsonld
from rdflib import Graph, Literal, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from conftest import (
    EXAMPLES,
    assert_isomorphic,
    assert_same_values,
    comparable_graph,
    oxigraph_jsonld_graph,
    write_file,
)
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.context import MIF_CONTEXT_URL, document_loader
from mif_rdf.core.errors import Severity
from mif_rdf.load.bundle import PATH
from mif_rdf.output.convert import jsonld_files
from mif_rdf.output.stream_export import stream_nquads
from mif_rdf.rdf.jsonld_source import json_pointer
from mif_rdf.rdf.reference import pyld_graph
from mif_rdf.source.bundle_files import discover
from mif_rdf.validation import validate

BASE = "mif://jsonld-test/"
#: The spec's 6.2 "Full Example", verbatim (tests/conformance checks it against the spec text).
SPEC_6_2 = Path(__file__).resolve().parent / "fixtures" / "jsonld" / "spec-6.2-full-example.jsonld"

#: A memory written by hand in the compacted form, with the published context URL only.
HAND = {
    "@context": MIF_CONTEXT_URL,
    "@id": "urn:mif:0f2c7a1e-5b6d-4c3e-9a8b-7d6e5f4a3b2c",
    "@type": "Concept",
    "conceptType": "semantic",
    "title": "Hand-written",
    "created": "2026-02-01T08:00:00Z",
    "namespace": "_semantic/notes",
    "tags": ["json-ld", "hand"],
    "relationships": [{"type": "relates-to", "target": "/semantic/other.md", "strength": 0.94}],
    "temporal": {"decay": {"model": "exponential", "currentStrength": 0.3}},
    "content": "Written as JSON-LD.\n",
}
OTHER_MD = (
    "---\nid: 7b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e\ntype: semantic\ncreated: 2026-01-01T00:00:00Z\n---\n\n"
    "The other one.\n"
)


def hand_bundle(root: Path, name: str, document: object) -> Path:
    write_file(root, "index.md", "# bundle\n")
    write_file(root, "semantic/other.md", OTHER_MD)
    write_file(root, f"semantic/{name}", json.dumps(document, indent=2))
    return root


def differing(ours, theirs) -> tuple[set, set]:
    """The predicates of the triples only in ``ours`` and only in
    ``theirs`` (blank nodes matched, literals by value)."""
    _, left, right = graph_diff(to_isomorphic(comparable_graph(ours)), to_isomorphic(comparable_graph(theirs)))
    return {t[1] for t in left}, {t[1] for t in right}


TIMESTAMP = URIRef("https://mif-spec.dev/ns/timestamp")


def only_memory(bundle, relpath: str):
    record = bundle.memory_by_path(relpath)
    assert record is not None, [str(p) for p in bundle.problems]
    return record


# -- a bundle converted by the project --------------------------------------------------
@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples`` as ``convert to-jsonld --include-local`` writes it, with its .mif folder (config, entities)."""
    return converted_bundle(EXAMPLES, tmp_path_factory.mktemp("converted"))


def converted_bundle(root: Path, folder: Path) -> Path:
    """The bundle at ``root`` with every memory as a ``.jsonld`` projection only, under ``folder``."""
    docs, _ = jsonld_files(root, base_iri=BASE)
    for relpath, text in docs.items():
        write_file(folder, relpath, text)
    if (root / ".mif").is_dir():
        shutil.copytree(root / ".mif", folder / ".mif")
    return folder


def test_converted_bundle_loads_the_same_memories_and_graphs(converted: Path) -> None:
    check_same_memories(EXAMPLES, converted)
    bundle = load_bundle(converted, base_iri=BASE)
    assert len(bundle.memories) > 10 and len(bundle.links) > 50


def check_same_memories(root: Path, converted: Path) -> None:
    """The .jsonld bundle loads the memories, graphs, links and layout of the markdown one (exact terms)."""
    markdown, from_jsonld = load_bundle(root, base_iri=BASE), load_bundle(converted, base_iri=BASE)
    assert len(from_jsonld.memories) == len(markdown.memories) > 0
    assert from_jsonld.memories.keys() == markdown.memories.keys()
    for memory_id, record in markdown.memories.items():
        loaded = from_jsonld.memories[memory_id]
        assert loaded.relpath == record.relpath[:-3] + ".jsonld"
        assert loaded.doc_iri == record.doc_iri  # it sits where its .md would
        assert isomorphic(from_jsonld.graph(memory_id), markdown.graph(memory_id)), (
            record.relpath
        )  # exact terms, not by value
        assert loaded.frontmatter == record.frontmatter and loaded.body == record.body

    # links and layout: the same, but for the path each memory was read from
    def links(bundle) -> Graph:
        graph = Graph()
        for s, p, o in bundle.links:
            graph.add((s, p, Literal(str(o).replace(".jsonld", ".md")) if p == PATH else o))
        return graph

    assert isomorphic(links(from_jsonld), links(markdown))

    # the layout keeps the same frontmatter; which strings were unquoted YAML
    # timestamps JSON cannot say (docs/decisions.md)
    def layout(bundle) -> dict:
        graph = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
        return {str(s): json.loads(str(o))["frontmatter"] for s, _, o in graph}

    assert layout(from_jsonld) == layout(markdown) and len(layout(markdown)) == len(markdown.memories)


def test_converted_bundle_validates_like_the_markdown(converted: Path) -> None:
    """The same findings, rule for rule; each names the .jsonld file and a JSON pointer."""
    markdown = validate(load_bundle(EXAMPLES, base_iri=BASE), level=3)
    from_jsonld = validate(load_bundle(converted, base_iri=BASE), level=3)
    shown = lambda report: sorted((p.path.rsplit(".", 1)[0], p.rule, p.severity.value) for p in report.results)  # noqa: E731
    assert shown(from_jsonld) == shown(markdown)
    memory_findings = [p for p in from_jsonld.results if p.path.endswith(".jsonld")]
    assert memory_findings and all(p.key is None or p.key.startswith("/") for p in memory_findings)
    by_path: dict[tuple[str, str], set[str | None]] = {}
    for p in memory_findings:  # one rule may have several findings in a file (two citations' dates)
        by_path.setdefault((p.path[: -len(".jsonld")], p.rule), set()).add(p.key)
    for finding in markdown.results:
        if finding.key and (finding.path[:-3], finding.rule) in by_path:
            assert json_pointer(finding.key) in by_path[(finding.path[:-3], finding.rule)]


def test_cli_convert_then_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the issue ran: ``convert to-jsonld examples -o x`` then ``load x`` (options in any order)."""
    out = tmp_path / "x"
    assert main(["convert", "to-jsonld", "-o", str(out), str(EXAMPLES), "--include-local"]) == 0
    assert main(["load", str(out), "-q"]) == 0
    capsys.readouterr()
    assert len(load_bundle(out).memories) == len(load_bundle(EXAMPLES).memories)


def test_every_projection_file_is_read_the_same_by_pyld_and_pyoxigraph(converted: Path) -> None:
    """The loaded graph of each .jsonld memory is what pyld's toRdf (numbers to its 16 digits) and
    pyoxigraph's parser (numbers exactly) make of the file itself."""
    bundle = load_bundle(converted, base_iri=BASE)
    for record in bundle.memories.values():
        document = json.loads((converted / record.relpath).read_text(encoding="utf-8"))
        assert_isomorphic(bundle.graph(record.id), pyld_graph(document, record.doc_iri), record.relpath)
        assert_same_values(
            bundle.graph(record.id), oxigraph_jsonld_graph(document, BASE + "elsewhere/"), record.relpath
        )  # its @base decides


# -- written by hand ------------------------------------------------------------------------
def test_compacted_with_the_published_context_url(tmp_path: Path) -> None:
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    bundle = load_bundle(root, base_iri=BASE)
    record = only_memory(bundle, "semantic/hand.jsonld")
    assert record.frontmatter["type"] == "semantic" and record.body == "Written as JSON-LD.\n"
    # the document's own graph, plus the timestamp mirror a projection always has (spec 15.1)
    assert differing(bundle.graph(record.id), pyld_graph(HAND, record.doc_iri)) == ({TIMESTAMP}, set())
    other = only_memory(bundle, "semantic/other.md")
    assert (URIRef(record.iri), URIRef("https://mif-spec.dev/ns/relates-to"), URIRef(other.iri)) in bundle.links
    assert not [p for p in bundle.problems if p.severity != Severity.INFO], [str(p) for p in bundle.problems]


def test_expanded_and_graph_forms_load_to_the_same_graph(tmp_path: Path) -> None:
    expanded = jsonld.expand(HAND, {"base": BASE + "semantic/hand.md", "documentLoader": document_loader})
    assert "@context" not in json.dumps(expanded)
    forms = {
        "expanded.jsonld": expanded,
        "graph.jsonld": {"@context": MIF_CONTEXT_URL, "@graph": [{k: v for k, v in HAND.items() if k != "@context"}]},
    }
    reference = load_bundle(hand_bundle(tmp_path / "c", "hand.jsonld", HAND), base_iri=BASE)
    for name, document in forms.items():
        bundle = load_bundle(hand_bundle(tmp_path / name, "hand.jsonld", document), base_iri=BASE)
        record = only_memory(bundle, "semantic/hand.jsonld")
        assert isomorphic(bundle.graph(record.id), reference.graph(record.id)), name
        assert record.body == HAND["content"] and record.frontmatter["title"] == "Hand-written"


def test_the_spec_6_2_example(tmp_path: Path) -> None:
    """Loads, links and validates; its ``dc:created`` compact IRI (an untyped string
    in JSON-LD) reads back as ``created``."""
    document = json.loads(SPEC_6_2.read_text(encoding="utf-8"))
    root = hand_bundle(tmp_path, "550e8400-e29b-41d4-a716-446655440000.jsonld", document)
    bundle = load_bundle(root, base_iri=BASE)
    record = only_memory(bundle, "semantic/550e8400-e29b-41d4-a716-446655440000.jsonld")
    assert (
        record.frontmatter["created"] == "2026-01-15T10:30:00Z"
        and record.frontmatter["title"] == "Dark Mode Preference"
    )
    ours, theirs = bundle.graph(record.id), pyld_graph(document, record.doc_iri)
    # everything but the typing of the two dates (and the timestamp mirror) is the document's own graph
    dc = "http://purl.org/dc/terms/"
    dates = {URIRef(dc + "created"), URIRef(dc + "modified")}
    assert differing(ours, theirs) == (dates | {TIMESTAMP}, dates)
    assert len(ours) > 70
    report = validate(bundle, level=1)
    errors = {(p.rule, p.key) for p in report.results if p.path == record.relpath and p.severity == Severity.ERROR}
    # the example's content has no "## Relationships" mirror of its two relationships (OKF Invariant 3): nothing else
    assert errors == {
        ("okf-relationship-mirror", "/relationships/0"),
        ("okf-relationship-mirror", "/relationships/1"),
    }, report.to_text()


def test_bad_context_url_is_a_problem_of_that_file_and_never_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    write_file(
        root,
        "semantic/bad-context.jsonld",
        json.dumps({**HAND, "@id": "urn:mif:bad-1", "@context": "https://example.org/other-context.jsonld"}),
    )
    write_file(
        root,
        "semantic/nested.jsonld",
        json.dumps(
            {
                **HAND,
                "@id": "urn:mif:bad-2",
                "@context": [MIF_CONTEXT_URL, {"x": {"@id": "urn:x", "@context": "https://example.org/c2"}}],
                "x": {"a": 1},
            }
        ),
    )
    write_file(root, "semantic/not-json.jsonld", '{"@id": "urn:mif:bad-3",\n  oops}')
    write_file(
        root,
        "semantic/imports.jsonld",
        json.dumps(
            {**HAND, "@id": "urn:mif:bad-4", "@context": [MIF_CONTEXT_URL, {"@import": "https://example.org/i"}]}
        ),
    )
    write_file(root, "semantic/bare.jsonld", "null")
    write_file(root, "semantic/bad-id.jsonld", json.dumps({**HAND, "@id": "urn:mif:has space"}))
    write_file(root, "semantic/bad-context-value.jsonld", json.dumps({**HAND, "@id": "urn:mif:bad-5", "@context": 5}))
    write_file(
        root, "semantic/not-a-memory.jsonld", json.dumps({"@context": {"name": "http://schema.org/name"}, "name": "x"})
    )
    bundle = load_bundle(root, base_iri=BASE)
    assert {m.relpath for m in bundle.memories.values()} == {"semantic/hand.jsonld", "semantic/other.md"}
    errors = {p.path: p for p in bundle.problems if p.severity == Severity.ERROR}
    assert "https://example.org/other-context.jsonld" in errors["semantic/bad-context.jsonld"].message
    assert "nothing is fetched" in errors["semantic/bad-context.jsonld"].message
    assert "not loaded" in errors["semantic/nested.jsonld"].message
    assert errors["semantic/not-json.jsonld"].line == 2
    assert "not a MIF memory document" in errors["semantic/not-a-memory.jsonld"].message
    assert (
        "https://example.org/i" in errors["semantic/imports.jsonld"].message
        and "never fetches" in errors["semantic/imports.jsonld"].message
    )
    assert "must be a JSON object or array" in errors["semantic/bare.jsonld"].message
    assert "does not make a valid IRI" in errors["semantic/bad-id.jsonld"].message
    assert "@context must be an object" in errors["semantic/bad-context-value.jsonld"].message


# -- beside the markdown: a projection, checked -----------------------------------------------
def test_md_wins_and_a_stale_projection_is_a_warning_naming_the_keys(tmp_path: Path) -> None:
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    (root / "semantic/other.jsonld").write_text(
        jsonld_files(root / "semantic/other.md", base_iri=BASE)[0]["semantic/other.jsonld"]
    )
    bundle = load_bundle(root, base_iri=BASE)
    assert only_memory(bundle, "semantic/other.md") and bundle.memory_by_path("semantic/other.jsonld") is None
    assert not [p for p in bundle.problems if p.rule == "stale-projection"]
    assert discover(root).projections == ["semantic/other.jsonld"]
    document = json.loads((root / "semantic/other.jsonld").read_text())
    document["title"], document["content"] = "Edited in the JSON", "Changed body\n"
    document["tags"] = ["new"]
    (root / "semantic/other.jsonld").write_text(json.dumps(document))
    bundle = load_bundle(root, base_iri=BASE)
    assert only_memory(bundle, "semantic/other.md").frontmatter.get("title") is None  # the markdown wins
    stale = [p for p in bundle.problems if p.rule == "stale-projection"]
    assert len(stale) == 1 and stale[0].severity == Severity.WARNING and stale[0].path == "semantic/other.jsonld"
    assert "keys that differ: tags, title, content" in stale[0].message


def test_key_order_and_formatting_are_not_staleness(tmp_path: Path) -> None:
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    text = jsonld_files(root / "semantic/other.md", base_iri=BASE)[0]["semantic/other.jsonld"]
    document = json.loads(text)
    (root / "semantic/other.jsonld").write_text(
        json.dumps(dict(reversed(list(document.items()))))
    )  # one line, keys reversed
    assert not [p for p in load_bundle(root, base_iri=BASE).problems if p.rule == "stale-projection"]


def test_convert_check_exits_1_on_missing_or_stale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "b"
    shutil.copytree(EXAMPLES, root)
    assert main(["convert", "to-jsonld", str(root), "--check"]) == 1
    assert "missing projection" in capsys.readouterr().err
    assert main(["convert", "to-jsonld", str(root), "-o", str(root), "-q"]) == 0
    assert main(["convert", "to-jsonld", "--check", str(root)]) == 0
    capsys.readouterr()
    path = root / "semantic/idempotency-policy.jsonld"
    path.write_text(path.read_text().replace('"namespace": "', '"namespace": "x'))
    assert main(["convert", "to-jsonld", str(root), "--check"]) == 1
    err = capsys.readouterr().err
    assert "semantic/idempotency-policy.jsonld" in err and "keys that differ: namespace" in err
    files = sorted(p.name for p in root.rglob("*.jsonld"))
    assert (
        main(["convert", "to-jsonld", str(root), "--check"]) == 1
        and sorted(p.name for p in root.rglob("*.jsonld")) == files
    )  # writes nothing
    # one file: its .jsonld beside it
    single = root / "semantic/payments-api-service.md"
    assert main(["convert", "to-jsonld", str(single), "--check"]) == 0
    assert main(["convert", "to-jsonld", "--check", str(root / "semantic/idempotency-policy.md")]) == 1
    (root / "semantic/payments-api-service.jsonld").unlink()
    assert main(["convert", "to-jsonld", str(single), "--check"]) == 1
    assert "missing projection" in capsys.readouterr().err


# -- cache, streamed export, discovery --------------------------------------------------------
def test_cache_keeps_and_invalidates_a_jsonld_memory(tmp_path: Path) -> None:
    root = hand_bundle(tmp_path / "b", "hand.jsonld", HAND)
    cache = tmp_path / "cache"
    first = load_bundle(root, base_iri=BASE, cache=cache)
    assert first.cache.state == "cold" and first.memory_by_path("semantic/hand.jsonld") is not None
    assert load_bundle(root, base_iri=BASE, cache=cache).cache.state == "warm"
    (root / "semantic/hand.jsonld").write_text(json.dumps({**HAND, "title": "Retitled"}))
    warm = load_bundle(root, base_iri=BASE, cache=cache)
    assert warm.cache.state == "warm" and warm.cache.reparsed == ("semantic/hand.jsonld",)
    assert only_memory(warm, "semantic/hand.jsonld").frontmatter["title"] == "Retitled"
    fresh = load_bundle(root, base_iri=BASE)
    for memory_id in fresh.memories:
        assert isomorphic(warm.graph(memory_id), fresh.graph(memory_id))
    assert isomorphic(warm.links, fresh.links)
    (root / "semantic/other.jsonld").write_text(
        json.dumps({**HAND, "@id": "urn:mif:7b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"})
    )  # stale
    paired = load_bundle(root, base_iri=BASE, cache=cache)
    assert paired.cache.state == "warm" and [p.path for p in paired.problems if p.rule == "stale-projection"] == [
        "semantic/other.jsonld"
    ]
    assert (
        paired.memory_by_path("semantic/other.md") is not None
        and paired.memory_by_path("semantic/other.jsonld") is None
    )
    again = load_bundle(root, base_iri=BASE, cache=cache)
    assert again.cache.reparsed == () and [p.path for p in again.problems if p.rule == "stale-projection"] == [
        "semantic/other.jsonld"
    ]
    (root / "semantic/other.md").unlink()  # now the .jsonld is the memory
    alone = load_bundle(root, base_iri=BASE, cache=cache)
    assert alone.cache.state == "warm" and alone.memory_by_path("semantic/other.jsonld") is not None
    assert not [p for p in alone.problems if p.rule == "stale-projection"]
    fresh = load_bundle(root, base_iri=BASE)
    assert {m.relpath for m in alone.memories.values()} == {m.relpath for m in fresh.memories.values()}
    assert sorted(map(str, alone.problems)) == sorted(map(str, fresh.problems))


def test_reload_of_one_file_of_a_pair(tmp_path: Path) -> None:
    """What serve's watcher calls: a changed .md re-checks its projection,
    a changed projection is never a second memory."""
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    (root / "semantic/other.jsonld").write_text(
        jsonld_files(root / "semantic/other.md", base_iri=BASE)[0]["semantic/other.jsonld"]
    )
    bundle = load_bundle(root, base_iri=BASE)
    (root / "semantic/other.md").write_text(OTHER_MD.replace("type: semantic", "type: semantic\ntitle: New"))
    bundle.reload("semantic/other.md")
    assert ["title" in p.message for p in bundle.problems if p.rule == "stale-projection"] == [True]
    bundle.reload("semantic/other.jsonld")
    assert len(bundle.memories) == 2 and not [p for p in bundle.problems if p.rule == "duplicate-id"]
    assert len([p for p in bundle.problems if p.rule == "stale-projection"]) == 1


def test_streamed_export_carries_jsonld_memories(converted: Path) -> None:
    out = io.BytesIO()
    stream_nquads(converted, out, base_iri=BASE, workers=0)
    streamed = Graph()
    loaded = load_bundle(converted, base_iri=BASE)
    text = out.getvalue().decode("utf-8")
    shared = [
        r for r in loaded.memories.values() if not r.frontmatter.get("namespace", "").startswith("_local")
    ]  # _local never leaves
    assert len(shared) == len(loaded.memories) - 1
    for record in shared:
        assert f"<{record.iri}> <https://mif-spec.dev/ns/content>" in text
    streamed.parse(data=text, format="nquads")
    assert len(loaded.memories) > 10


def test_streamed_export_reports_a_stale_projection_as_the_load_does(tmp_path: Path) -> None:
    root = hand_bundle(tmp_path, "hand.jsonld", HAND)
    (root / "semantic/other.jsonld").write_text(
        json.dumps({**HAND, "@id": "urn:mif:7b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"})
    )
    for hashes in (False, True):
        report = stream_nquads(root, io.BytesIO(), base_iri=BASE, workers=0, with_hashes=hashes)
        streamed = sorted(str(p) for p in report.problems if p.rule == "stale-projection")
        assert streamed == sorted(
            str(p) for p in load_bundle(root, base_iri=BASE).problems if p.rule == "stale-projection"
        )
        assert len(streamed) == 1 and "title" in streamed[0] and "extensions" not in streamed[0]


def test_discovery_of_jsonld_files(tmp_path: Path) -> None:
    for relpath in (
        "a.md",
        "a.jsonld",
        "b.jsonld",
        "index.jsonld",
        "log.jsonld",
        ".hidden/c.jsonld",
        ".mif/context.jsonld",
        "d/e.jsonld",
    ):
        write_file(tmp_path, relpath, "{}")
    found = discover(tmp_path)
    assert found.memories == ["a.md", "b.jsonld", "d/e.jsonld"]
    assert found.projections == ["a.jsonld"]


@pytest.mark.parametrize(
    ("key", "pointer"),
    [
        ("relationships[2].strength", "/relationships/2/strength"),
        ("id", "/@id"),
        ("type", "/conceptType"),
        ("citations[].accessed", "/citations"),
        ("extensions.a/b~c", "/extensions/a~1b~0c"),
        ("/title", "/title"),
    ],
)
def test_json_pointer(key: str, pointer: str) -> None:
    assert json_pointer(key) == pointer
