"""Issue 19 item 2: N-Quads export from the Oxigraph store is written by Oxigraph, with the same quads as before."""
from __future__ import annotations

import io
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph
from rdflib.compare import to_isomorphic

from mif_rdf.bundle import load_bundle
from mif_rdf.push.access import ExportPolicy, export_bundle
from mif_rdf.synthetic import generate_bundle

from conftest import EXAMPLES

SCRATCH = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"  # examples/semantic/redis-idempotency-idea.md, _local/scratch


DECIMAL = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")


def _decimal_value(term: ox.Quad) -> object:
    """Oxigraph's storage keeps xsd:decimal as a value ("1.0" is read back as "1"): those compare by value; every other term exactly."""
    if isinstance(term, ox.Literal) and term.datatype == DECIMAL:
        return ox.Literal(str(Decimal(term.value).normalize()), datatype=DECIMAL)
    return term


def _quads(nquads: bytes) -> dict[str, object]:
    """Each graph of an N-Quads text as rdflib's isomorphism oracle (terms compared exactly, lexical forms included but decimals')."""
    graphs: dict[str, list[ox.Triple]] = defaultdict(list)
    for q in ox.parse(nquads, format=ox.RdfFormat.N_QUADS):
        graphs[str(q.graph_name)].append(ox.Triple(q.subject, q.predicate, _decimal_value(q.object)))
    return {name: to_isomorphic(Graph().parse(data=ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES), format="nt")) for name, triples in graphs.items()}


def _export(root: Path, store: str, withhold: bool = True) -> bytes:
    out = io.BytesIO()
    bundle = load_bundle(root, store=store, progress=False)
    export_bundle(bundle, "nquads", out, None if withhold else ExportPolicy())
    return out.getvalue()


def _native_and_python(root: Path) -> tuple[bytes, bytes]:
    """The Oxigraph store's native export, and the memory store's (rdflib) export of the same bundle."""
    return _export(root, "oxigraph"), _export(root, "memory")


def test_native_nquads_matches_the_memory_store_and_withholds_local() -> None:
    native, python = _native_and_python(EXAMPLES)
    assert _quads(native) == _quads(python)
    assert b'"2026-03-09T19:30:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>' in native  # the author's form, not +00:00
    assert f"<{SCRATCH}> .\n".encode() not in native  # the _local memory's graph is not read at all
    assert f"<{SCRATCH}> .\n".encode() in _export(EXAMPLES, "oxigraph", withhold=False)


def test_native_nquads_keeps_lexical_forms_on_a_generated_bundle(tmp_path: Path) -> None:
    generate_bundle(tmp_path, 40, seed=3, broken_links=2)
    native, python = _native_and_python(tmp_path)
    assert _quads(native) == _quads(python)
    assert len(_quads(native)) > 40


def test_export_uses_oxigraph_serializer_not_rdflib(monkeypatch: pytest.MonkeyPatch) -> None:
    import mif_rdf.push.access as access

    def refuse(*_args: object) -> None:
        raise AssertionError("the rdflib quad-by-quad writer was used for an Oxigraph store")

    monkeypatch.setattr(access, "write_quads", refuse)
    bundle = load_bundle(EXAMPLES, store="oxigraph", progress=False)
    out = io.BytesIO()
    export_bundle(bundle, "nquads", out)
    assert out.getvalue().count(b" .\n") > 10
