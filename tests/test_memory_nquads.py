"""The one pass from frontmatter to N-Quads (:mod:`mif_rdf.rdf.memory_nquads`) equals the projection and its walk.

Line for line (the blank node labels come from ``random``, seeded alike for
both), with the same ill-typed warnings, and never where the projection has
a note; and a prepared memory (what a load and the streamed export use) has
the same text, notes and warnings as the two passes give it.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURE_BUNDLES, FIXTURES, memory_files
from mif_rdf.core.limits import DEFAULT_LIMITS
from mif_rdf.load.pipeline import complete, prepare_memory
from mif_rdf.rdf.jsonld_source import json_pointer_keys, markdown_path, read_memory
from mif_rdf.rdf.memory_nquads import memory_nquads
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.tordf import document_nquads
from mif_rdf.source.identity import document_iri, memory_iri
from mif_rdf.source.integrity import hash_problems
from mif_rdf.source.parse import ParsedMemory
from mif_rdf.source.yamlio import YamlTimestamp
from test_equivalence import GENERATED_FRONTMATTER, GENERATED_ID

BASE = "mif://local/test/"


def two_passes(frontmatter: dict[str, Any], body: str, relpath: str) -> tuple[str, list[Any], list[Any]]:
    """(N-Quads text, notes, ill-typed warnings) as the projection document and the walker give them."""
    doc_iri = document_iri(BASE, markdown_path(relpath))
    random.seed(1)
    projection = project_memory(frontmatter, body, path=relpath, doc_iri=doc_iri)
    text = document_nquads(projection.document, doc_iri, memory_iri(str(frontmatter["id"])))
    return text, projection.notes, projection.ill_typed


def one_pass(frontmatter: dict[str, Any], body: str, relpath: str) -> tuple[str, list[Any]] | None:
    doc_iri = document_iri(BASE, markdown_path(relpath))
    random.seed(1)
    return memory_nquads(frontmatter, body, path=relpath, doc_iri=doc_iri, graph=memory_iri(str(frontmatter["id"])))


def check_memory(frontmatter: dict[str, Any], body: str, relpath: str = "m.md") -> bool:
    """The one pass gives the two passes' text and warnings, or None; True when it gave them."""
    text, notes, ill_typed = two_passes(frontmatter, body, relpath)
    found = one_pass(frontmatter, body, relpath)
    if found is None:
        return False
    assert not notes, f"{relpath}: the one pass took a memory the projection has notes on: {notes}"
    assert found[0] == text, relpath
    assert found[1] == ill_typed, relpath
    return True


def check_prepared(parsed: ParsedMemory) -> None:
    """:func:`complete` for N-Quads equals the two passes: text, notes (file, key, severity, message), warnings."""
    relpath = parsed.relpath
    text, notes, ill_typed = two_passes(parsed.frontmatter, parsed.body, relpath)
    from mif_rdf.rdf.lexical import ill_typed_values

    expected = hash_problems(relpath, parsed.frontmatter, parsed.body)
    expected += ill_typed_values(relpath, parsed.frontmatter) + notes
    if relpath.endswith(".jsonld"):
        expected, ill_typed = json_pointer_keys(expected), json_pointer_keys(ill_typed)
    prepared = complete(parsed, BASE, "fast", output="nquads")
    assert labelled(prepared.nquads) == labelled(text), relpath
    assert [(p.path, p.key, p.severity, p.message, p.rule) for p in prepared.notes] == [
        (p.path, p.key, p.severity, p.message, p.rule) for p in expected
    ], relpath
    assert prepared.ill_typed == ill_typed, relpath


def labelled(text: str) -> str:
    """N-Quads text with its document's random blank node prefix made one (the counters after it kept)."""
    return re.sub(r"_:b[0-9a-f]{16}x", "_:b", text)


def bundle_memories(root: Path, pattern: str = "*.md") -> list[ParsedMemory]:
    found = []
    for path in sorted(memory_files(root) if pattern == "*.md" else root.rglob(pattern)):
        parsed, _ = read_memory(root, path.relative_to(root).as_posix(), BASE, DEFAULT_LIMITS)
        if parsed is not None:
            found.append(parsed)
    return found


@pytest.mark.parametrize("name", sorted(FIXTURE_BUNDLES))
def test_the_one_pass_equals_the_two_on_every_fixture_bundle(name: str) -> None:
    memories = bundle_memories(FIXTURE_BUNDLES[name])
    assert memories
    taken = [check_memory(m.frontmatter, m.body, m.relpath) for m in memories]
    for parsed in memories:
        check_prepared(parsed)
    assert any(taken), name  # the one pass is the path these bundles take


def test_the_one_pass_equals_the_two_on_the_hostile_files_and_jsonld_memories() -> None:
    memories = bundle_memories(FIXTURES / "hostile", "*.md") + bundle_memories(FIXTURES / "jsonld", "*.jsonld")
    assert len(memories) >= 8
    for parsed in memories:
        check_memory(parsed.frontmatter, parsed.body, parsed.relpath)
        check_prepared(parsed)


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_the_one_pass_takes_every_generated_memory_and_equals_the_two(tmp_path: Path, seed: int) -> None:
    from synthetic import generate_bundle

    generate_bundle(tmp_path, 150, seed=seed, broken_links=3)
    memories = bundle_memories(tmp_path)
    assert len(memories) == 150
    assert all(check_memory(m.frontmatter, m.body, m.relpath) for m in memories)
    for parsed in memories[:40]:
        check_prepared(parsed)


def test_a_load_into_oxigraph_has_the_quads_and_problems_of_the_two_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole load, through the one pass and with it turned off: the same store and the same problems."""
    import mif_rdf.load.pipeline
    from mif_rdf.bundle import load_bundle

    root = FIXTURE_BUNDLES["examples"]
    fast = load_bundle(root, store="Oxigraph", progress=False, workers=0)
    monkeypatch.setattr(mif_rdf.load.pipeline, "memory_nquads", lambda *args, **kwargs: None)
    slow = load_bundle(root, store="Oxigraph", progress=False, workers=0)
    assert {str(q) for q in _quads_without_blanks(fast)} == {str(q) for q in _quads_without_blanks(slow)}
    assert len(fast.dataset) == len(slow.dataset)
    assert [str(p) for p in fast.problems] == [str(p) for p in slow.problems]
    assert {k: m.document for k, m in fast.memories.items()} == {k: m.document for k, m in slow.memories.items()}


def _quads_without_blanks(bundle: Any) -> list[Any]:
    from rdflib import BNode

    return [q for q in bundle.dataset.quads((None, None, None, None)) if not any(isinstance(n, BNode) for n in q)]


def test_a_record_without_a_document_builds_the_projections_own(tmp_path: Path) -> None:
    """A memory loaded through the one pass builds its JSON-LD document when asked, equal to the projection's."""
    from mif_rdf.bundle import load_bundle

    bundle = load_bundle(FIXTURE_BUNDLES["core"], store="Oxigraph", progress=False, workers=0)
    record = next(iter(bundle.memories.values()))
    assert record.projected is None  # not built by the load
    expected = project_memory(record.frontmatter, record.body, path=record.relpath, doc_iri=record.doc_iri)
    assert record.document == expected.document
    assert record.projected is record.document  # built once


#: Frontmatter shapes for every branch of the one pass, each with whether it takes the memory.
SHAPES: list[tuple[str, dict[str, Any], bool]] = [
    ("plain strings and a set", {"title": 'T "q" \\ \n\u2028', "tags": ["a", "b", "a"]}, True),
    ("typed values", {"created": YamlTimestamp("2026-01-20T14:22:00Z"), "temporal": {"accessCount": 3}}, True),
    ("ill-typed date", {"created": "yesterday", "modified": YamlTimestamp("2026-01-20")}, True),
    ("ill-typed number", {"temporal": {"accessCount": 2.5, "decay": {"strength": 1}}}, True),
    ("numbers anywhere", {"x": 1, "y": -0.0, "z": 0.0, "w": True, "v": None, "big": 10**22}, True),
    ("typed big number", {"temporal": {"accessCount": 10**23}}, True),
    ("an xsd:boolean flag", {"embedding": {"normalized": "yes", "dimensions": "12"}}, True),
    (
        "references",
        {"provenance": {"sourceType": "user_explicit", "sourceRef": "urn:x:1", "wasDerivedFrom": {"@id": "urn:a"}}},
        True,
    ),
    ("a relative reference", {"provenance": {"sourceRef": "../a/b.md"}}, True),
    (
        "blank node references (the projection's notes)",
        {"provenance": {"sourceRef": "_:b1", "wasDerivedFrom": [{"@id": "_:b1"}, {"@id": "_:b2"}]}},
        False,
    ),
    ("a reference that makes no IRI", {"provenance": {"sourceRef": "has space"}}, False),
    (
        "relationships",
        {
            "relationships": [
                {"type": "relates-to", "target": "x.md", "strength": 0.5, "metadata": {"a": [1, {"b": None}]}}
            ]
        },
        True,
    ),
    ("json under @json", {"relationships": [{"type": "x", "target": "urn:a", "metadata": "text"}]}, True),
    (
        "a list container",
        {"temporal": {"decay": {"reinforcementHistory": [YamlTimestamp("2026-01-01T00:00:00Z"), {"a": 1}, None, "x"]}}},
        True,
    ),
    ("a lone value in a list container", {"reinforcementHistory": {"at": "x"}}, True),
    ("an empty list container", {"reinforcementHistory": []}, True),
    ("a scalar in a list container", {"reinforcementHistory": "once"}, True),
    ("an index map", {"extensions": {"p": {"hash": "sha256:x", "n": [1, 2]}, "q": "s", "r": [{"a": 1}]}}, True),
    ("an index map keyed by a term", {"extensions": {"tags": ["a"]}}, False),
    ("an index map keyed by a keyword alias", {"extensions": {"id": "urn:a"}}, False),
    ("a scalar index map", {"extensions": "plain"}, True),
    (
        "nested types and ids",
        {
            "entities": [{"@type": "EntityReference", "entity": {"@id": "urn:e:1"}, "name": "A"}],
            "ontology": {"id": "mif-base", "type": ["A", "B"]},
        },
        True,
    ),
    ("two ids in one node", {"ontology": {"id": "a", "@id": "b"}}, True),
    ("a list inside a list", {"x": [[1, 2], 3]}, False),
    ("a list inside a list container", {"reinforcementHistory": [[1], 2]}, False),
    ("a key that is not a string", {"x": {1: "a"}}, False),
    ("a keyword key", {"x": {"@value": "a"}}, False),
    ("a key that makes a bad IRI", {"x": {"a{b": 1}}, False),
    ("a frontmatter @type", {"@type": "Extra"}, True),
    ("a bad frontmatter @type", {"@type": 5}, False),
    ("a clashing key", {"content": "x"}, False),
    ("a non-finite number", {"x": math.inf}, False),
    ("a value JSON has no form for", {"x": b"bytes"}, False),
    ("a date object", {"x": YamlTimestamp("2026-01-01"), "created": YamlTimestamp("2026-01-01T00:00:00Z")}, True),
    ("mirrors", {"summary": "S", "modified": "2026-02-02T00:00:00Z"}, True),
    ("own mirrors", {"summary": "S", "description": "D", "timestamp": "t", "created": "2026-02-02T00:00:00Z"}, True),
    ("a conceptType", {"type": "semantic"}, True),
    ("a mapping type", {"type": {"a": 1}}, True),
    ("a list type", {"type": ["a", "b"]}, True),
]


@pytest.mark.parametrize(("shape", "extra", "taken"), SHAPES, ids=[s[0] for s in SHAPES])
def test_every_shape_gives_the_two_passes_text_or_goes_to_them(shape: str, extra: dict[str, Any], taken: bool) -> None:
    frontmatter = {"id": GENERATED_ID, "title": "x", **extra}
    assert check_memory(frontmatter, "Body.\n") is taken
    check_prepared(ParsedMemory("m.md", frontmatter, "Body.\n"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter=GENERATED_FRONTMATTER, body=st.text(max_size=40))
def test_the_one_pass_equals_the_two_on_generated_frontmatter(frontmatter: dict[str, Any], body: str) -> None:
    frontmatter = {"id": GENERATED_ID, **frontmatter}
    check_memory(frontmatter, body)
    check_prepared(ParsedMemory("m.md", frontmatter, body))


def test_a_prepared_memory_from_the_file_equals_the_two_passes() -> None:
    """Through :func:`prepare_memory`, as a load reads it: the text the two passes give, and no document kept."""
    root = FIXTURE_BUNDLES["properties"]
    relpath = memory_files(root)[0].relative_to(root).as_posix()
    random.seed(1)
    prepared = prepare_memory(root, relpath, BASE, DEFAULT_LIMITS, "fast", "nquads")
    assert prepared.parsed is not None
    text, _, _ = two_passes(prepared.parsed.frontmatter, prepared.parsed.body, relpath)
    assert prepared.nquads == text
    assert prepared.document is None
    assert prepared.triples == []


def test_a_repeated_value_is_one_line_in_its_first_place_in_either_pass() -> None:
    """A tag, an alias and a type written twice: one line each, where it first came, from the one pass and the two
    (a store holds each quad once, and the streamed export counts a memory's lines by their newlines)."""
    frontmatter = {
        "id": GENERATED_ID,
        "type": "semantic",
        "created": YamlTimestamp("2026-01-15T10:30:00Z"),
        "tags": ["x", "y", "x"],
        "aliases": ["a", "a"],
        "entities": [{"name": "Ada", "tags": ["t", "t"]}],
    }
    text, _, _ = two_passes(frontmatter, "body", "m.md")
    lines = text.split("\n")[:-1]
    assert len(lines) == len(set(lines))
    assert [line for line in lines if line.endswith(f'"x" <{memory_iri(GENERATED_ID)}> .')] != []
    assert sum('"x"' in line for line in lines) == sum('"a"' in line for line in lines) == 1
    assert sum('"t"' in line for line in lines) == 1
    assert check_memory(frontmatter, "body")
    walked = document_nquads(project_memory(frontmatter, "body", path="m.md", doc_iri=BASE + "m").document, BASE, "g")
    assert walked.count("\n") == len(set(walked.split("\n")[:-1]))
