"""Issue 17, item 7: no export holds an ill-typed literal without a warning naming file and field."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from rdflib import Literal

from mif_rdf import load_bundle
from mif_rdf.cli import main
from mif_rdf.projection import ILL_TYPED, LEXICAL_FORMS
from mif_rdf.serialize import ill_typed_literals

from conftest import FIXTURE_BUNDLES, memory_text, write_file


def ill_typed_in_graphs(bundle) -> Counter:
    """Ill-typed literals per file, found in the dataset itself (the oracle: XSD lexical spaces)."""
    files = {r.iri: r.relpath for r in bundle.memories.values()} | {e.iri: e.relpath for e in bundle.entities.values()}
    found: Counter = Counter()
    for _, _, o, graph in bundle.dataset.quads((None, None, None, None)):
        name = str(getattr(graph, "identifier", graph))
        if isinstance(o, Literal) and str(o.datatype) in LEXICAL_FORMS and not LEXICAL_FORMS[str(o.datatype)].match(str(o)) and name in files:
            found[files[name]] += 1
    return found


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_every_ill_typed_literal_has_its_warning(name: str) -> None:
    bundle = load_bundle(FIXTURE_BUNDLES[name])
    warnings = ill_typed_literals(bundle)
    assert all(w.rule == ILL_TYPED and w.key and w.severity.value == "warning" for w in warnings)
    assert Counter(w.path for w in warnings) == ill_typed_in_graphs(bundle)


def test_export_names_file_and_field_of_a_date_under_a_date_time_term(tmp_path: Path, capsys) -> None:
    write_file(tmp_path, "a.md", memory_text("a1", (
        "citations:\n  - {'@type': Citation, citationType: article, citationRole: supports, title: T,"
        " url: 'https://example.org/', accessed: 2026-01-24}\n")))
    assert main(["export", str(tmp_path), "--format", "nquads", "-o", str(tmp_path / "out.nq")]) == 0
    err = capsys.readouterr().err
    assert "a.md: warning [citations[0].accessed]: '2026-01-24' is not an xsd:dateTime" in err
    assert '"2026-01-24"^^<http://www.w3.org/2001/XMLSchema#dateTime>' in (tmp_path / "out.nq").read_text(encoding="utf-8")  # kept as written
    assert not [p for p in load_bundle(tmp_path).problems if "accessed" in (p.key or "")]  # the load stays quiet: the spec writes dates


def test_well_typed_values_give_no_warning(tmp_path: Path) -> None:
    write_file(tmp_path, "a.md", memory_text("a1", "modified: 2026-01-16T10:30:00.5+02:00\ntemporal: {ttl: P30D, accessCount: 3}\n"))
    assert ill_typed_literals(load_bundle(tmp_path)) == []
