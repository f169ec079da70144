"""DESIGN 3, "lossless reverse path": markdown -> RDF -> markdown gives the same memory back."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rdflib import Graph

from conftest import FIXTURE_BUNDLES
from mif_rdf import load_bundle, read_dataset, recover_files, write_bundle
from mif_rdf.core.errors import Severity
from mif_rdf.output.serialize import serialize_bundle
from mif_rdf.output.writeback import lexical_literals
from mif_rdf.rdf.layout import authored_frontmatter
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.rdf.roundtrip import differences, equivalent
from mif_rdf.rdf.tordf import document_triples
from mif_rdf.source.identity import document_iri
from mif_rdf.source.parse import parse_memory

BASE = "mif://local/rt/"


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_markdown_nquads_file_markdown(name: str, tmp_path: Path) -> None:
    check_markdown_nquads_file_markdown(FIXTURE_BUNDLES[name], tmp_path)


def check_markdown_nquads_file_markdown(root: Path, tmp_path: Path) -> None:
    """md -> N-Quads file -> parse -> md gives back every memory's body and frontmatter."""
    bundle = load_bundle(root)
    nquads = tmp_path / "bundle.nq"
    with open(nquads, "wb") as out:
        serialize_bundle(bundle, "nquads", out)
    files = {f.relpath: f for f in recover_files(read_dataset(nquads, "nquads"))}
    assert set(files) == {m.relpath for m in bundle.memories.values()}
    write_bundle(read_dataset(nquads, "nquads"), tmp_path / "out")
    for record in bundle.memories.values():
        written, _ = parse_memory(tmp_path / "out", record.relpath)
        assert written is not None, record.relpath
        assert written.body == record.body, f"{record.relpath}: body changed"
        assert differences(record.frontmatter, written.frontmatter, doc_iri=record.doc_iri) == []
        assert _form(written.frontmatter) == _form(record.frontmatter), f"{record.relpath}: order or spelling changed"


def _form(frontmatter: dict) -> list:
    """Keys, values, key and list order, and which strings are YAML timestamps."""
    if isinstance(frontmatter, dict):
        return [(k, _form(v)) for k, v in frontmatter.items()]
    if isinstance(frontmatter, list):
        return [_form(v) for v in frontmatter]
    return (type(frontmatter).__name__, frontmatter)


def test_core_examples_come_back_identical() -> None:
    check_identical(FIXTURE_BUNDLES["core"])


def check_identical(root: Path) -> None:
    """With the layout graph, no normalisation at all: order, nulls and spellings come back."""
    bundle = load_bundle(root, base_iri=BASE)
    for record in bundle.memories.values():
        template = authored_frontmatter(bundle.dataset, record.iri)
        recovered = recover_memory(
            bundle.graph(record.id), record.iri, doc_iri=record.doc_iri, base=BASE, template=template
        )
        assert _form(recovered.frontmatter) == _form(record.frontmatter)
        assert recovered.body == record.body and recovered.problems == []


def test_timestamps_keep_their_lexical_form_and_quoting(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "---\nid: a1\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\nmodified: '2026-01-16T10:30:00.250+02:00'\n---\n"
        "x\n",
        encoding="utf-8",
    )
    bundle = load_bundle(tmp_path, base_iri=BASE)
    text = recover_files(bundle.dataset)[0].text
    assert "created: 2026-01-15T10:30:00Z\n" in text
    assert "modified: '2026-01-16T10:30:00.250+02:00'\n" in text  # a string, as the author quoted it


def test_the_equivalence_is_not_lenient() -> None:
    """Changing any value, type or list order is reported, not excused."""
    bundle = load_bundle(FIXTURE_BUNDLES["levels"], base_iri=BASE)
    record = next(r for r in bundle.memories.values() if r.relpath == "level-3-full.md")
    fm, doc, _base = record.frontmatter, record.doc_iri, BASE
    mutations = [
        ("title", lambda f: f.update(title="Other")),
        ("float->int", lambda f: f["temporal"]["decay"].update(currentStrength=1)),
        ("drop key", lambda f: f["provenance"].pop("agentVersion")),
        ("null", lambda f: f["temporal"].update(validUntil="2026-02-01T00:00:00Z")),
        ("tag", lambda f: f["tags"].append("new")),
        ("target", lambda f: f["relationships"][0].update(target="/elsewhere.md")),
        ("extension", lambda f: f["extensions"]["stationkit"].update(domain="work")),
        ("nested id", lambda f: f["provenance"]["wasAttributedTo"].update({"@id": "urn:mif:entity:person:someone"})),
    ]
    for label, mutate in mutations:
        changed = copy.deepcopy(fm)
        mutate(changed)
        assert not equivalent(fm, changed, doc_iri=doc), label
    reordered = copy.deepcopy(fm)
    reordered["tags"].reverse()  # tags is an @set: order is not data
    assert equivalent(fm, reordered, doc_iri=doc)
    listed = copy.deepcopy(fm)
    listed["extensions"]["stationkit"]["labels"] = ["a", "b"]
    other = copy.deepcopy(fm)
    other["extensions"]["stationkit"]["labels"] = ["b", "a"]  # JSON-LD keeps no array order (the layout graph does)
    assert equivalent(listed, other, doc_iri=doc)
    other["extensions"]["stationkit"]["labels"] = ["b", "c"]
    assert not equivalent(listed, other, doc_iri=doc)


def test_authored_target_spellings_survive(tmp_path: Path) -> None:
    text = (
        "---\nid: r1\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\nrelationships:\n"
        "- type: relates-to\n  target: sibling.md\n- type: part-of\n  target: ../root.md\n"
        "- type: uses\n  target: /sub/sibling.md\n- type: relates-to\n  target: /has space.md\n---\nbody\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "r1.md").write_text(text, encoding="utf-8")
    bundle = load_bundle(tmp_path, base_iri=BASE)
    recovered = recover_files(bundle.dataset)[0].text
    for target in ("target: sibling.md", "target: ../root.md", "target: /sub/sibling.md", "target: /has space.md"):
        assert target in recovered


# -- property-based round trip -----------------------------------------------------------
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**9), 10**9),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
_value = st.recursive(
    _scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_key, inner, max_size=3), max_leaves=10
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    extra=st.dictionaries(
        st.sampled_from(["title", "summary", "custom", "entity", "extensions", "properties", "aliases"]),
        _value,
        max_size=4,
    ),
    body=st.text(max_size=60),
)
def test_generated_frontmatter_round_trips(extra: dict, body: str) -> None:
    if isinstance(extra.get("properties"), dict):
        extra["properties"] = {k: v for k, v in extra["properties"].items() if not isinstance(v, (list, dict))}
    frontmatter = {
        "id": "5f0e2a1c-0000-4000-8000-000000000001",
        "type": "episodic",
        "created": "2026-01-10T09:00:00Z",
        **extra,
    }
    relpath = "episodic/x.md"
    doc_iri = document_iri(BASE, relpath)
    projection = project_memory(frontmatter, body, path=relpath, doc_iri=doc_iri)
    assume(
        not [n for n in projection.notes if n.severity == Severity.ERROR]
    )  # a value reported as left out is not expected back
    graph = Graph()
    for triple in document_triples(projection.document, doc_iri):
        graph.add(triple)
    with lexical_literals():
        reparsed = Graph().parse(data=graph.serialize(format="nt"), format="nt")
    recovered = recover_memory(reparsed, projection.document["@id"], doc_iri=doc_iri, base=BASE)
    assert recovered.body == body
    assert differences(frontmatter, recovered.frontmatter, doc_iri=doc_iri) == []
