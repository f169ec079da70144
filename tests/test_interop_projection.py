"""Issue 17: projections a standard JSON-LD processor reads, spec-shaped pass-through, bundle base IRIs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyld import jsonld
from rdflib import Graph, URIRef

from conftest import FIXTURE_BUNDLES, assert_isomorphic, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.context import MIF_CONTEXT_URL, context_document
from mif_rdf.rdf.reference import lexical_literals
from mif_rdf.source.identity import document_iri, path_identity
from mif_rdf.source.parse import bundle_base_iri

#: What the projection derives (spec 15.1); every other key must be the frontmatter's, as written.
DERIVED = {"@context", "@id", "@type", "conceptType", "content", "timestamp", "description"}


def published_url_only(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A document loader that knows the published MIF context URL and nothing else."""
    if url != MIF_CONTEXT_URL:
        raise jsonld.JsonLdError(f"no such document {url}", "jsonld.LoadDocumentError", code="loading document failed")
    return {"contextUrl": None, "documentUrl": url, "document": context_document(url)}


def converted(bundle_dir: Path, out: Path) -> dict[str, dict[str, Any]]:
    """``convert to-jsonld`` of a whole bundle: relpath of the .md -> the JSON document written."""
    assert main(["convert", "to-jsonld", str(bundle_dir), "-o", str(out), "--include-local"]) in (0, 1)
    return {
        p.relative_to(out).as_posix()[: -len(".jsonld")] + ".md": json.loads(p.read_text(encoding="utf-8"))
        for p in out.rglob("*.jsonld")
    }


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_every_projection_expands_with_only_the_published_context(name: str, tmp_path: Path) -> None:
    check_projections_expand_with_only_the_published_context(FIXTURE_BUNDLES[name], tmp_path)


def check_projections_expand_with_only_the_published_context(root: Path, tmp_path: Path) -> None:
    """Item 1: no private context URL; the triples are the loader's graph for that memory."""
    bundle = load_bundle(root)
    documents = converted(root, tmp_path)
    assert set(documents) == {m.relpath for m in bundle.memories.values()}
    for record in bundle.memories.values():
        document = documents[record.relpath]
        urls = [c for c in document["@context"] if isinstance(c, str)]
        assert urls == [MIF_CONTEXT_URL], record.relpath
        nquads = jsonld.to_rdf(document, {"documentLoader": published_url_only, "format": "application/n-quads"})
        graph = Graph()
        with lexical_literals():
            graph.parse(data=nquads, format="nt")
        assert_isomorphic(graph, bundle.graph(record.id), record.relpath)


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_projection_passes_every_field_through_as_written(name: str, tmp_path: Path) -> None:
    check_projection_passes_every_field_through(FIXTURE_BUNDLES[name], tmp_path)


def check_projection_passes_every_field_through(root: Path, tmp_path: Path) -> None:
    """Item 2: targets as written, null as null, extensions unchanged, no key added."""
    bundle = load_bundle(root)
    documents = converted(root, tmp_path)
    for record in bundle.memories.values():
        document = documents[record.relpath]
        passed = {k: v for k, v in document.items() if k not in DERIVED}
        authored = {k: v for k, v in record.frontmatter.items() if k not in ("id", "type", "@type")}
        assert passed == json.loads(json.dumps(authored, default=str)), record.relpath
        assert list(passed) == [k for k in authored], f"{record.relpath}: key order changed"


def test_null_targets_and_extensions_reach_the_projection_unchanged(tmp_path: Path) -> None:
    write_file(tmp_path, "index.md", "# b\n")
    write_file(tmp_path, "semantic/b.md", memory_text("b1"))
    write_file(
        tmp_path,
        "semantic/a.md",
        memory_text(
            "a1",
            (
                "temporal:\n  validFrom: 2026-01-01T00:00:00Z\n  validUntil: null\n"
                "relationships:\n  - type: relates-to\n    target: b.md\n  - type: uses\n    target: /semantic/b.md\n"
                "extensions:\n  subcog:\n    domain: project\n    hash: sha256:ab\n"
            ),
        ),
    )
    documents = converted(
        tmp_path, tmp_path.parent / f"{tmp_path.name}-out"
    )  # outside: .jsonld files in a bundle are memories
    document = documents["semantic/a.md"]
    assert document["temporal"]["validUntil"] is None
    assert document["relationships"] == [
        {"type": "relates-to", "target": "b.md"},
        {"type": "uses", "target": "/semantic/b.md"},
    ]
    assert document["extensions"] == {"subcog": {"domain": "project", "hash": "sha256:ab"}}
    # ... and the graph still points both targets at b's document, under standard JSON-LD rules
    bundle = load_bundle(tmp_path)
    b_doc = URIRef(document_iri(bundle.base_iri, "semantic/b.md"))
    targets = set(bundle.graph("a1").objects(None, URIRef("https://mif-spec.dev/ns/target")))
    assert targets == {b_doc}
    assert len(list(bundle.links.triples((URIRef("urn:mif:a1"), None, URIRef("urn:mif:b1"))))) == 2


# -- the default base IRI ------------------------------------------------------------------------
def test_default_base_is_unique_per_bundle_folder(tmp_path: Path) -> None:
    one, two = tmp_path / "a" / "notes", tmp_path / "b" / "notes"
    for root in (one, two):
        write_file(root, "x.md", memory_text("x1"))
    bases = {load_bundle(one).base_iri, load_bundle(two).base_iri}
    assert len(bases) == 2
    assert all(base.startswith("mif://notes-") and base.endswith("/") for base in bases)
    assert load_bundle(one).base_iri == bundle_base_iri(one) == f"mif://{path_identity(one)}/"


def test_bundle_id_in_the_config_names_the_bundle_wherever_it_lies(tmp_path: Path) -> None:
    for where in ("a", "b"):
        write_file(tmp_path / where, ".mif/config.yaml", "bundle_id: team-notes.acme\n")
        write_file(tmp_path / where, "x.md", memory_text("x1"))
        assert load_bundle(tmp_path / where).base_iri == "mif://team-notes.acme/"


@pytest.mark.parametrize("bad", ["Team Notes", "a/b", "-x", "'@evil'", "12"])
def test_an_unusable_bundle_id_is_a_warning_and_the_path_identity_is_used(tmp_path: Path, bad: str) -> None:
    write_file(tmp_path, ".mif/config.yaml", f"bundle_id: {bad}\n")
    write_file(tmp_path, "x.md", memory_text("x1"))
    bundle = load_bundle(tmp_path)
    assert bundle.base_iri == f"mif://{path_identity(tmp_path)}/"
    [problem] = [p for p in bundle.problems if p.key == "bundle_id"]
    assert (
        problem.path == ".mif/config.yaml"
        and problem.severity.value == "warning"
        and "cannot name the bundle" in problem.message
    )


def test_a_bundle_absolute_target_resolves_inside_the_bundle_under_standard_rules(tmp_path: Path) -> None:
    """`/x.md` against mif://<bundle>/y/z.md is mif://<bundle>/x.md by RFC 3986, so pyld agrees."""
    write_file(tmp_path, "x.md", memory_text("x1"))
    base = load_bundle(tmp_path).base_iri
    document = {"@context": {"t": {"@id": "urn:t", "@type": "@id"}}, "@id": "urn:s", "t": "/x.md"}
    nquads = jsonld.to_rdf(document, {"base": document_iri(base, "deep/folder/y.md"), "format": "application/n-quads"})
    assert nquads.strip() == f"<urn:s> <urn:t> <{base}x.md> ."
