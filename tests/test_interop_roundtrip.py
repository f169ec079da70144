"""Issue 17: the round trip keeps order and lexical forms; a single file converts against its bundle root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

from conftest import FIXTURE_BUNDLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.output.convert import jsonld_files, markdown_of_document
from mif_rdf.rdf.layout import authored_frontmatter, frontmatter_of_layout, layout_text
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.source.parse import parse_memory

#: Spec 15.3, input and expected output, as the spec prints them.
SPEC_15_3_INPUT = {
    "@context": "https://mif-spec.dev/schema/context.jsonld",
    "@type": "Concept",
    "@id": "urn:mif:550e8400",
    "conceptType": "semantic",
    "title": "Dark Mode",
    "content": (
        "# Dark Mode\n\nUser prefers dark mode\n\n## Relationships\n\n"
        "- relates-to [UI Preferences](/semantic/ui-prefs.md)"
    ),
    "created": "2026-01-15T10:30:00Z",
    "relationships": [{"type": "relates-to", "target": "/semantic/ui-prefs.md"}],
}
SPEC_15_3_OUTPUT = """---
id: 550e8400
type: semantic
title: Dark Mode
created: 2026-01-15T10:30:00Z
relationships:
- type: relates-to
  target: /semantic/ui-prefs.md
---
# Dark Mode

User prefers dark mode

## Relationships

- relates-to [UI Preferences](/semantic/ui-prefs.md)"""

ORDERED = (
    "tags: [zeta, alpha, mid]\naliases: [Second, First]\n"
    "entities:\n  - {name: Zed, entityType: Person, entity: {'@id': 'urn:mif:entity:person:zed'}}\n"
    "  - {name: Abe, entityType: Person, entity: {'@id': 'urn:mif:entity:person:abe'}}\n"
    "relationships:\n  - {type: uses, target: z.md}\n  - {type: relates-to, target: /a.md}\n"
    "citations:\n  - {title: Zebra, url: 'https://z.example/', accessed: 2026-01-15}\n  - {title: Aardvark, url: 'https://a.example/'}\n"
    "temporal: {validFrom: 2026-01-01T00:00:00Z, validUntil: null}\n"
    "extensions: {zz: {b: 1, a: 2}, aa: {y: [3, 1, 2]}}\n"
    "custom: {zeta: 1, alpha: [c, b, a]}\n"
)


def test_spec_15_3_example_gives_the_spec_output() -> None:
    problems: list = []
    text = markdown_of_document(SPEC_15_3_INPUT, "semantic/dark-mode.md", "mif://b/semantic/dark-mode.md", problems)
    assert text == SPEC_15_3_OUTPUT
    assert problems == []


@pytest.mark.parametrize("via", ["jsonld", "nquads"])
def test_order_and_lexical_forms_survive_both_round_trips(tmp_path: Path, via: str) -> None:
    write_file(tmp_path, "index.md", "# b\n")
    write_file(tmp_path, "z.md", memory_text("z1", created="2026-01-15T10:30:00Z"))
    write_file(tmp_path, "a.md", memory_text("a1", ORDERED, created="2026-01-15T10:30:00Z"))
    assert main(["convert", "roundtrip", str(tmp_path), "--via", via]) == 0


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
@pytest.mark.parametrize("via", ["jsonld", "nquads"])
def test_fixture_bundles_round_trip_with_their_form(name: str, via: str, capsys) -> None:
    check_round_trip_with_form(FIXTURE_BUNDLES[name], via, capsys)


def check_round_trip_with_form(root: Path, via: str, capsys) -> None:
    """Item 3: every memory comes back with its keys, values, order and lexical forms, and its body."""
    code = main(["convert", "roundtrip", str(root), "--via", via])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "LOSS" not in out


def test_markdown_to_jsonld_to_markdown_is_byte_identical_frontmatter(tmp_path: Path, capsys) -> None:
    """The CLI path: to-jsonld then to-markdown writes the same YAML the reverse path writes for the file."""
    write_file(tmp_path, "index.md", "# b\n")
    source = write_file(tmp_path, "a.md", memory_text("a1", ORDERED, body="Body.\r\nline two\n"))
    assert main(["convert", "to-jsonld", str(tmp_path), "-o", str(tmp_path / "j")]) in (0, 1)
    assert main(["convert", "to-markdown", str(tmp_path / "j"), "-o", str(tmp_path / "m")]) in (0, 1)
    capsys.readouterr()
    back, _ = parse_memory(tmp_path / "m", "a.md")
    original, _ = parse_memory(tmp_path, "a.md")
    assert back is not None and original is not None
    assert json.dumps(back.frontmatter) == json.dumps(original.frontmatter)  # order included
    assert back.body == original.body == source.read_bytes().decode("utf-8").split("---\n", 2)[2]
    assert "accessed: 2026-01-15\n" in (tmp_path / "m" / "a.md").read_text(encoding="utf-8")  # a date stays a date


def test_a_changed_graph_wins_over_the_layout(tmp_path: Path) -> None:
    """The layout is a template only: a graph edited since loading is read as it is."""
    write_file(tmp_path, "a.md", memory_text("a1", "title: Old\ntags: [b, a]\n"))
    bundle = load_bundle(tmp_path)
    graph = bundle.graph("a1")
    graph.set((URIRef("urn:mif:a1"), URIRef("http://purl.org/dc/terms/title"), Literal("New")))
    record = bundle.memories["a1"]
    recovered = recover_memory(
        graph,
        record.iri,
        doc_iri=record.doc_iri,
        base=bundle.base_iri,
        template=authored_frontmatter(bundle.dataset, record.iri),
    )
    assert recovered.frontmatter["title"] == "New"
    assert list(recovered.frontmatter) == ["id", "type", "created", "title", "tags"]  # the template's key order
    assert [p.rule for p in recovered.problems] == ["layout"]


def test_layout_text_keeps_timestamps_apart_from_strings() -> None:
    from mif_rdf.source.yamlio import YamlTimestamp

    frontmatter = {
        "id": "x",
        "a": YamlTimestamp("2026-01-15"),
        "b": "2026-01-15",
        "c": [{"d": YamlTimestamp("2026-01-15T10:30:00Z")}],
    }
    back = frontmatter_of_layout(layout_text(frontmatter))
    assert back == frontmatter
    assert isinstance(back["a"], YamlTimestamp) and not isinstance(back["b"], YamlTimestamp)
    assert isinstance(back["c"][0]["d"], YamlTimestamp)
    assert (
        frontmatter_of_layout("not json") is None
        and frontmatter_of_layout('{"frontmatter": 1, "timestamps": []}') is None
    )


# -- a single file and its bundle root ------------------------------------------------------------
def test_a_single_file_converts_against_the_nearest_bundle_root(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    write_file(root, "index.md", "# kb\n")
    write_file(root, "semantic/x.md", memory_text("x1"))
    path = write_file(
        root, "procedural/deep/p.md", memory_text("p1", "relationships:\n  - {type: uses, target: /semantic/x.md}\n")
    )
    docs, problems = jsonld_files(path)
    [(relpath, text)] = docs.items()
    document = json.loads(text)
    assert relpath == "procedural/deep/p.jsonld"
    base = load_bundle(root).base_iri
    assert document["@context"][-1] == {"@base": base + "procedural/deep/p.md"}
    assert document["relationships"] == [{"type": "uses", "target": "/semantic/x.md"}]


def test_root_option_names_the_bundle_root(tmp_path: Path, capsys) -> None:
    root = tmp_path / "kb"
    path = write_file(root, "procedural/p.md", memory_text("p1"))
    assert main(["convert", "to-jsonld", str(path), "--root", str(root)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["@context"][-1]["@base"].endswith("/procedural/p.md")
    assert main(["convert", "to-jsonld", str(path), "--root", str(tmp_path / "elsewhere")]) == 2
    assert "is not inside the bundle root" in capsys.readouterr().err


def test_a_file_with_no_bundle_root_keeps_its_targets_and_invents_no_path(tmp_path: Path) -> None:
    path = write_file(
        tmp_path, "loose/p.md", memory_text("p1", "relationships:\n  - {type: uses, target: semantic/x.md}\n")
    )
    docs, problems = jsonld_files(path)
    [(relpath, text)] = docs.items()
    document = json.loads(text)
    assert relpath == "p.jsonld"
    assert not any(isinstance(c, dict) and "@base" in c for c in document["@context"])
    assert document["relationships"] == [{"type": "uses", "target": "semantic/x.md"}]
    assert not any("mif://" in str(p) for p in problems)


def test_the_layout_holds_on_a_store_that_keeps_values_not_text() -> None:
    """Oxigraph (through oxrdflib) gives `...Z` back as `...+00:00`: the same value, so the author's form comes back."""
    from mif_rdf import recover_files
    from mif_rdf.source.markdown import render_memory

    bundle = load_bundle(FIXTURE_BUNDLES["levels"], store="Oxigraph")
    files = {f.relpath: f for f in recover_files(bundle.dataset)}
    for record in bundle.memories.values():
        assert files[record.relpath].problems == [], record.relpath
        assert files[record.relpath].text == render_memory(record.frontmatter, record.body), record.relpath
