"""Issue 36 item 8 on the upstream data: the spec's own JSON-LD memories, and upstream bundles as .jsonld only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from upstream import SHARED, UPSTREAM_BUNDLES

from conftest import write_file
from mif_rdf import load_bundle
from mif_rdf.rdf.reference import pyld_graph
from test_jsonld_memories import (
    BASE,
    SPEC_6_2,
    TIMESTAMP,
    check_same_memories,
    converted_bundle,
    differing,
    only_memory,
)

SPEC = SHARED / "spec" / "SPECIFICATION.txt"


def spec_memory_documents() -> dict[str, dict]:
    """Every JSON-LD memory document of the spec (a top-level
    ``"@id": "urn:mif:..."`` that is no entity), by where it is."""
    text = SPEC.read_text(encoding="utf-8")
    found = {}
    for match in re.finditer(r'^\{\n  "@context"', text, re.M):
        depth, end = 0, match.start()
        for end in range(match.start(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        try:
            document = json.loads(text[match.start() : end + 1])
        except ValueError:  # 6.1 elides its values ("[...]")
            continue
        memory = document.get("@id", "")
        if memory.startswith("urn:mif:") and not memory.startswith("urn:mif:entity:"):
            found[f"line {text.count(chr(10), 0, match.start()) + 1}"] = document
    return found


def test_the_fixture_is_the_spec_s_6_2_example() -> None:
    text = SPEC.read_text(encoding="utf-8")
    start = text.index("{", text.index("6.2 Full Example"))
    assert json.loads(text[start : text.index("\n7. Entity Types", start)]) == json.loads(
        SPEC_6_2.read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("where", list(spec_memory_documents()))
def test_every_spec_memory_document_loads_as_a_memory(where: str, tmp_path: Path) -> None:
    """6.2, 15.3 and 16.1: each loads from a .jsonld file to the document's own graph plus the timestamp mirror
    (6.2's ``dc:created``/``dc:modified``, compact IRIs without the terms' typing, read back typed)."""
    document = spec_memory_documents()[where]
    write_file(tmp_path, "index.md", "# spec\n")
    write_file(tmp_path, "semantic/example.jsonld", json.dumps(document))
    bundle = load_bundle(tmp_path, base_iri=BASE)
    record = only_memory(bundle, "semantic/example.jsonld")
    assert record.iri == document["@id"] and record.body == document["content"]
    ours, theirs = differing(bundle.graph(record.id), pyld_graph(document, record.doc_iri))
    dates = {p for p in theirs if str(p).startswith("http://purl.org/dc/terms/")}
    assert ours - dates == {TIMESTAMP} and theirs == dates, where
    assert len(spec_memory_documents()) >= 3


@pytest.mark.parametrize("name", list(UPSTREAM_BUNDLES))
def test_upstream_bundles_as_jsonld_load_the_same_memories(name: str, tmp_path: Path) -> None:
    root = UPSTREAM_BUNDLES[name]
    if not load_bundle(root, base_iri=BASE).memories:
        pytest.fail(f"{name}: no memories to compare")
    check_same_memories(root, converted_bundle(root, tmp_path / "converted"))
