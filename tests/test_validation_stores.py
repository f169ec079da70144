"""Validation gives the same report whichever store holds the bundle (issue 19 item 1).

On Oxigraph the SHACL engine reads the store itself; before, it read a copy
whose literals rdflib had normalized, so a date-only ``xsd:dateTime`` became
``...T00:00:00``: seeded ``created`` errors went missing and correct
``accessed`` dates were flagged.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import FIXTURE_BUNDLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.load import stores
from mif_rdf.source.markdown import render_memory, split_frontmatter
from mif_rdf.source.yamlio import load_yaml
from mif_rdf.validation import run, shacl
from mif_rdf.validation.run import validate
from synthetic import generate_bundle

#: Violations seeded into generated memories, as the benchmark suite seeds them (the first is the date-only case).
BREAKERS = (
    lambda fm: fm.update(created="2026-01-15"),
    lambda fm: fm["temporal"]["decay"].update(model="cubic"),
    lambda fm: fm["provenance"].update(confidence=1.7),
    lambda fm: fm.update(namespace="has space"),
)


def _findings(root: Path, store: str, engine: run.ShaclEngine = "auto") -> list[str]:
    """Every finding (file, key, value, message, rule, level) of a level-3 validation, sorted."""
    report = validate(load_bundle(root, store=store, progress=False), 3, engine=engine)
    return sorted(json.dumps(problem.to_dict(), sort_keys=True, default=str) for problem in report.results)


@pytest.mark.parametrize("name", list(FIXTURE_BUNDLES))
def test_both_stores_report_the_same_on_every_fixture(name: str) -> None:
    assert _findings(FIXTURE_BUNDLES[name], "oxigraph") == _findings(FIXTURE_BUNDLES[name], "memory")


def test_date_only_datetime_is_kept_as_written_on_oxigraph(tmp_path: Path) -> None:
    """``created: 2026-01-15`` is an ill-typed ``xsd:dateTime``: an error on both stores (Oxigraph keeps
    the text; the old copy made it ``2026-01-15T00:00:00``, which passed).  A citation's
    ``accessed: '2026-03-09'`` is a correct date: flagged on neither (the copy's ``T00:00:00`` broke the
    date pattern)."""
    write_file(tmp_path, "semantic/dated.md", memory_text("dated", created="2026-01-15"))
    citation = (
        "citations:\n- '@type': Citation\n  citationType: article\n  title: A paper\n"
        "  url: https://example.org/p\n  accessed: '2026-03-09'\n"
    )
    write_file(tmp_path, "semantic/cited.md", memory_text("cited", extra=citation))
    memory, oxigraph = _findings(tmp_path, "memory"), _findings(tmp_path, "oxigraph")
    assert oxigraph == memory
    dated = [json.loads(f) for f in oxigraph if "semantic/dated.md" in f]
    assert {(f["key"], f["rule"], f["severity"]) for f in dated} >= {("created", "created-datetime", "error")}, dated
    accessed = [
        json.loads(f) for f in oxigraph if "accessed" in f
    ]  # the spec's own date form: a note, never a shape's flag
    assert {(f["rule"], f["severity"]) for f in accessed} <= {("ill-typed-literal", "info")}, accessed


def _seeded_bundle(root: Path, count: int, seed: int) -> Path:
    paths = generate_bundle(root, count, seed=seed)
    rng = random.Random(seed)
    for path in rng.sample(paths, count // 5):
        split = split_frontmatter(path.read_text(encoding="utf-8"))
        frontmatter = load_yaml(split.frontmatter).data
        try:
            rng.choice(BREAKERS)(frontmatter)
        except (KeyError, TypeError):
            continue
        path.write_text(render_memory(frontmatter, split.body), encoding="utf-8")
    return root


def test_both_stores_and_pyshacl_agree_on_a_generated_bundle_with_seeded_violations(tmp_path: Path) -> None:
    root = _seeded_bundle(tmp_path / "b", 120, seed=7)
    oxigraph = _findings(root, "oxigraph")
    assert oxigraph == _findings(root, "memory")
    assert oxigraph == _findings(root, "memory", engine="pyshacl")  # the reference, on the author's literals
    assert sum("created-datetime" in f for f in oxigraph) >= 2  # the date-only created of several memories
    assert {rule for f in oxigraph for rule in ("decay-model", "confidence", "namespace") if rule in f} == {
        "decay-model",
        "confidence",
        "namespace",
    }


def test_the_fast_engine_reads_oxigraph_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = load_bundle(FIXTURE_BUNDLES["levels"], store="oxigraph", progress=False)

    def refuse(dataset: object) -> None:
        raise AssertionError("the store was copied into rdflib")

    monkeypatch.setattr(shacl, "memory_copy", refuse)
    monkeypatch.setattr(stores, "memory_copy", refuse)
    assert validate(bundle, 3, engine="fast").results


def test_pyshacl_on_oxigraph_gets_the_literals_as_stored(tmp_path: Path) -> None:
    write_file(tmp_path, "semantic/dated.md", memory_text("dated", created="2026-01-15"))
    bundle = load_bundle(tmp_path, store="oxigraph", progress=False)
    copy = stores.memory_copy(bundle.dataset)
    assert copy is not None
    assert "2026-01-15" in {str(o) for o in copy.objects(None, None)}
    assert _findings(tmp_path, "oxigraph", engine="pyshacl") == _findings(tmp_path, "memory", engine="pyshacl")
