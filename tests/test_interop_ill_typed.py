"""Issue 17, item 7: no export holds an ill-typed literal without a warning naming file and field."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from rdflib import Literal

from conftest import FIXTURE_BUNDLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.rdf.projection import ILL_TYPED, LEXICAL_FORMS, project_entity
from mif_rdf.validation.literals import ill_typed_literals


def ill_typed_in_graphs(bundle) -> Counter:
    """Ill-typed literals per file, found in the dataset itself (the oracle: XSD lexical spaces)."""
    files = {r.iri: r.relpath for r in bundle.memories.values()} | {e.iri: e.relpath for e in bundle.entities.values()}
    found: Counter = Counter()
    for _, _, o, graph in bundle.dataset.quads((None, None, None, None)):
        name = str(getattr(graph, "identifier", graph))
        if (
            isinstance(o, Literal)
            and str(o.datatype) in LEXICAL_FORMS
            and not LEXICAL_FORMS[str(o.datatype)].match(str(o))
            and name in files
        ):
            found[files[name]] += 1
    return found


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_every_ill_typed_literal_has_its_warning(name: str) -> None:
    bundle = load_bundle(FIXTURE_BUNDLES[name])
    warnings = ill_typed_literals(bundle)
    assert all(w.rule == ILL_TYPED and w.key and w.severity.value in ("warning", "info") for w in warnings)
    assert Counter(w.path for w in warnings) == ill_typed_in_graphs(bundle)


def test_export_names_file_and_field_of_a_date_under_a_date_time_term(tmp_path: Path, capsys) -> None:
    write_file(
        tmp_path,
        "a.md",
        memory_text(
            "a1",
            (
                "citations:\n  - {'@type': Citation, citationType: article, citationRole: supports, title: T,"
                " url: 'https://example.org/', accessed: 2026-01-24}\n"
            ),
        ),
    )
    assert main(["export", str(tmp_path), "--format", "nquads", "-o", str(tmp_path / "out.nq"), "-v"]) == 0
    err = capsys.readouterr().err
    assert "a.md: info [citations[0].accessed]: '2026-01-24' is not an xsd:dateTime" in err
    assert '"2026-01-24"^^<http://www.w3.org/2001/XMLSchema#dateTime>' in (tmp_path / "out.nq").read_text(
        encoding="utf-8"
    )  # kept as written
    assert not [
        p for p in load_bundle(tmp_path).problems if "accessed" in (p.key or "")
    ]  # the load stays quiet: the spec writes dates


def test_well_typed_values_give_no_warning(tmp_path: Path) -> None:
    write_file(
        tmp_path,
        "a.md",
        memory_text("a1", "modified: 2026-01-16T10:30:00.5+02:00\ntemporal: {ttl: P30D, accessCount: 3}\n"),
    )
    assert ill_typed_literals(load_bundle(tmp_path)) == []


#: A date under the dateTime term (the spec's form: a note) and a word under a decimal
#: one (the author's to fix: a warning).
MIXED = (
    "citations:\n  - {'@type': Citation, citationType: article, citationRole: supports, title: T,"
    " url: 'https://example.org/', accessed: 2026-01-24}\n"
)


@pytest.mark.parametrize("fmt", ["nquads", "turtle"])  # the streamed export and the loaded one
def test_export_counts_the_spec_forms_in_one_note_and_validate_lists_them(tmp_path: Path, capsys, fmt: str) -> None:
    """Issue 37.2: what the author cannot fix is one counted line on export, pointing at validate, which lists each."""
    for i in range(5):
        write_file(tmp_path / "b", f"m{i}.md", memory_text(f"m{i}", MIXED))
    out = tmp_path / "out.data"
    assert main(["export", str(tmp_path / "b"), "--format", fmt, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "ill-typed" not in err.replace("ill-typed literals, kept", "")  # no line per literal
    (counted,) = [line for line in err.splitlines() if "dates where the context types an xsd:dateTime" in line]
    assert counted.startswith("note: the output holds 5 dates") and "mif-rdf validate" in counted
    text = out.read_text(encoding="utf-8")
    assert (
        len(re.findall(r'"2026-01-24"\^\^(?:xsd:dateTime|<http://www.w3.org/2001/XMLSchema#dateTime>)', text)) >= 5
    )  # kept as written
    assert main(["validate", str(tmp_path / "b"), "--format", "json"]) == 0
    found = [r for r in json.loads(capsys.readouterr().out)["results"] if r["rule"] == ILL_TYPED]
    assert sorted(r["path"] for r in found) == [f"m{i}.md" for i in range(5)]
    assert {r["severity"] for r in found} == {"info"} and all(r["line"] > 1 for r in found)


def test_an_ill_typed_value_the_author_can_fix_stays_a_warning_everywhere(tmp_path: Path, capsys) -> None:
    write_file(tmp_path, "a.md", memory_text("a1", "temporal: {ttl: P30D, accessCount: many}\n"))
    assert main(["export", str(tmp_path), "--format", "turtle", "-o", str(tmp_path / "out.ttl")]) == 0
    assert "a.md: warning [temporal.accessCount]: 'many' is not an xsd:" in capsys.readouterr().err
    main(["validate", str(tmp_path), "--format", "json"])
    found = [r for r in json.loads(capsys.readouterr().out)["results"] if r["key"] == "temporal.accessCount"]
    assert found and all(r["severity"] in ("warning", "error") for r in found)


def _projected_again(bundle) -> list:
    """The definition: every memory projected again from its record (the path exports took before issue 34)."""
    from mif_rdf.rdf.projection import project_memory

    found: list = []
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        found += project_memory(record.frontmatter, record.body, path=record.relpath, doc_iri=record.doc_iri).ill_typed
    for entity in sorted(bundle.entities.values(), key=lambda e: e.relpath):
        found += project_entity(entity.data, iri=entity.iri, path=entity.relpath, doc_iri=entity.doc_iri).ill_typed
    return found


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_the_load_s_warnings_are_those_of_projecting_again(name: str, store: str) -> None:
    """An export reports the warnings the load's projection kept on each record: the same, in the same order."""
    bundle = load_bundle(FIXTURE_BUNDLES[name], store=store)
    assert [vars(p) for p in ill_typed_literals(bundle)] == [vars(p) for p in _projected_again(bundle)]


def test_kept_warnings_survive_workers_and_jsonld_memories(tmp_path: Path) -> None:
    """Memories prepared by worker processes keep their warnings; a ``.jsonld`` memory's are projected again
    (its load's warnings name JSON pointers, an export's name the frontmatter's keys)."""
    from mif_rdf.output.convert import jsonld_text

    citation = (
        "citations:\n  - {'@type': Citation, citationType: article, citationRole: supports, title: T,"
        " url: 'https://example.org/', accessed: 2026-01-24}\nprovenance:\n  confidence: high\n"
    )
    for index in range(80):
        write_file(tmp_path, f"m{index:03}.md", memory_text(f"m{index:03}", citation))
    alone = load_bundle(tmp_path).memories["m000"]
    (tmp_path / "m000.jsonld").write_text(jsonld_text(alone.document, alone.doc_iri), encoding="utf-8")
    (tmp_path / "m000.md").unlink()
    bundle = load_bundle(tmp_path, workers=2)
    assert bundle.memories["m000"].relpath == "m000.jsonld" and bundle.memories["m000"].ill_typed is None
    assert all(record.ill_typed for record in bundle.memories.values() if record.id != "m000")
    assert [vars(p) for p in ill_typed_literals(bundle)] == [vars(p) for p in _projected_again(bundle)]
    assert {p.key for p in ill_typed_literals(bundle)} == {"citations[0].accessed", "provenance.confidence"}
