"""Shared test helpers: where the fixtures are, and graph comparison by value."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
from rdflib.namespace import RDF, XSD

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SHARED = Path(os.environ.get("MIF_SHARED_DIR", REPO.parent / "shared"))
UPSTREAM = SHARED / "fixtures" / "upstream" / "mif"

if not UPSTREAM.is_dir():  # fail loudly: a silently smaller suite proves less
    raise RuntimeError(f"upstream fixtures not found at {UPSTREAM}; set MIF_SHARED_DIR to the shared/ folder")

#: Folders that are bundles of valid MIF v1.0 memories.
FIXTURE_BUNDLES = {
    "upstream-examples": UPSTREAM / "examples",
    "ai-memory-examples": UPSTREAM / "profiles" / "ai-memory" / "examples",
    "properties": UPSTREAM / "test" / "properties",
    "temporal-good": UPSTREAM / "test" / "temporal" / "good",
    "temporal-bad": UPSTREAM / "test" / "temporal" / "bad",
    "legacy-0.1": UPSTREAM / "test" / "fixtures" / "legacy-0.1-bundle",
    "examples": EXAMPLES,
}
_NUMERIC = {XSD.integer, XSD.decimal, XSD.double, XSD.float}


def _comparable(term: object) -> object:
    """Literals compared by value, as the design asks (pyld writes 0.94 as 9.399999999999999E-1)."""
    if not isinstance(term, Literal):
        return term
    if term.datatype in _NUMERIC:
        return Literal(_number(str(term)), datatype=URIRef("urn:test:number"))
    if term.datatype == XSD.string:
        return Literal(str(term))
    if term.datatype == URIRef(str(RDF) + "JSON"):  # by JSON value: 0.0 == 0, key order free
        return Literal(json.dumps(_json_numbers(json.loads(str(term))), sort_keys=True), datatype=term.datatype)
    if term.datatype is not None and term.value is not None:
        return Literal(f"{term.value!r}", datatype=URIRef(f"urn:test:value:{term.datatype}"))
    return term


def _number(lexical: str) -> str:
    """A number in one comparable form: integers plain, others as pyld writes doubles.

    pyld writes 0.94 as 9.399999999999999E-1 (16 digits) where our loader keeps
    the author's 0.94; formatting both the pyld way makes them equal by value.
    """
    value = float(lexical) + 0.0  # -0.0 == 0
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return re.sub(r"(\d)0*E\+?(-)?0*(\d)", r"\1E\2\3", f"{value:1.15E}")


def _json_numbers(value: object) -> object:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(repr(value))
    if isinstance(value, list):
        return [_json_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    return value


def comparable_graph(triples) -> Graph:
    graph = Graph()
    for s, p, o in triples:
        graph.add((s, p, _comparable(o)))
    return graph


def assert_isomorphic(left, right, label: str = "") -> None:
    a, b = comparable_graph(left), comparable_graph(right)
    if not isomorphic(a, b):
        _, only_left, only_right = graph_diff(to_isomorphic(a), to_isomorphic(b))
        raise AssertionError(
            f"{label}: graphs differ\n--- only left:\n{only_left.serialize(format='nt')}\n--- only right:\n{only_right.serialize(format='nt')}"
        )


def memory_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md") if p.name not in ("index.md", "log.md") and ".mif" not in p.parts)


@pytest.fixture(scope="session")
def example_bundle():
    from mif_rdf import load_bundle

    return load_bundle(EXAMPLES)


def write_file(root: Path, relpath: str, text: str | bytes) -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def memory_text(memory_id: str, extra: str = "", body: str = "Body.\n", kind: str = "semantic", created: str = "2026-01-15T10:30:00Z") -> str:
    return f"---\nid: {memory_id}\ntype: {kind}\ncreated: {created}\n{extra}---\n{body}"
