"""The main suite's bundle properties, run on the upstream MIF data.

Each check is the same function the main suite runs on the project's own
fixtures (tests/fixtures/bundles); here it meets data nobody in this project
wrote: the reference core bundle, the AI-memory profile examples, the
properties, temporal and legacy fixtures of the public MIF repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from upstream import AI_MEMORY_ONTOLOGY, CORPUS, SHARED, UPSTREAM, UPSTREAM_BUNDLES

from test_dataset import check_engines_give_isomorphic_datasets, check_every_frontmatter_key_becomes_triples
from test_equivalence import check_fast_walker_matches_pyld, memory_cases
from test_fastyaml import check_every_yaml_text_reads_the_same
from test_oxigraph_text import check_oxigraph_reads_the_text_as_the_walkers_triples
from test_parse_problems import check_legacy_bundle_gives_warnings_and_loads
from test_roundtrip import check_identical, check_markdown_nquads_file_markdown
from test_validation_engine import check_identical_results
from test_validation_rules import (
    check_bundle_conforms,
    check_legacy_bundle_gets_clear_problems,
    check_memory_conforms_at_its_level,
    check_ontology_shapes_join_validation,
    check_temporal_fixture,
)

BUNDLES = list(UPSTREAM_BUNDLES)
W, E = "warning", "error"


def test_the_upstream_data_is_there() -> None:
    """A moved or emptied shared/ folder fails here, not by collecting fewer cases."""
    for name, folder in UPSTREAM_BUNDLES.items():
        assert any(folder.glob("*.md")) or any(folder.rglob("*.md")), name


@pytest.mark.parametrize(("root", "relpath"), memory_cases(UPSTREAM_BUNDLES))
def test_fast_walker_matches_pyld(root: Path, relpath: str) -> None:
    check_fast_walker_matches_pyld(root, relpath)


@pytest.mark.parametrize("name", BUNDLES)
def test_every_frontmatter_key_becomes_triples(name: str) -> None:
    check_every_frontmatter_key_becomes_triples(UPSTREAM_BUNDLES[name])


def test_engines_give_isomorphic_datasets() -> None:
    check_engines_give_isomorphic_datasets(UPSTREAM_BUNDLES["ai-memory-examples"])


@pytest.mark.parametrize("name", BUNDLES)
def test_markdown_nquads_file_markdown(name: str, tmp_path: Path) -> None:
    check_markdown_nquads_file_markdown(UPSTREAM_BUNDLES[name], tmp_path)


def test_reference_bundle_comes_back_identical() -> None:
    check_identical(UPSTREAM_BUNDLES["upstream-examples"])


@pytest.mark.parametrize("name", BUNDLES)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_fast_shacl_engine_matches_pyshacl(name: str, level: int) -> None:
    check_identical_results(UPSTREAM_BUNDLES[name], level)


@pytest.mark.parametrize("name", BUNDLES)
def test_oxigraph_reads_the_text_as_the_walkers_triples(name: str) -> None:
    check_oxigraph_reads_the_text_as_the_walkers_triples(UPSTREAM_BUNDLES[name])


@pytest.mark.parametrize(
    ("verdict", "strict", "expected"),
    [
        ("good", False, []),
        ("bad", False, [("observation.md", W)]),
        ("bad", True, [("observation.md", E)]),
    ],
)
def test_temporal_fixtures(verdict: str, strict: bool, expected: list) -> None:
    check_temporal_fixture(UPSTREAM_BUNDLES[f"upstream-temporal-{verdict}"], verdict, strict, expected)


def test_legacy_bundle() -> None:
    check_legacy_bundle_gives_warnings_and_loads(UPSTREAM_BUNDLES["upstream-legacy-0.1"], "decision-sample")
    check_legacy_bundle_gets_clear_problems(UPSTREAM_BUNDLES["upstream-legacy-0.1"])


@pytest.mark.parametrize("name", ["upstream-examples", "upstream-properties", "upstream-temporal-good"])
def test_valid_bundles_conform(name: str) -> None:
    check_bundle_conforms(UPSTREAM_BUNDLES[name], 3)


@pytest.mark.parametrize(
    ("filename", "level"),
    [
        ("level-1-minimal.md", 1),
        ("level-2-standard.md", 2),
        ("level-3-citations.md", 3),
        ("level-3-full.md", 3),
    ],
)
def test_ai_memory_examples_conform_at_their_level(tmp_path: Path, filename: str, level: int) -> None:
    check_memory_conforms_at_its_level(UPSTREAM_BUNDLES["ai-memory-examples"] / filename, level, tmp_path)


def test_ai_memory_ontology_shapes_join_validation(tmp_path: Path) -> None:
    check_ontology_shapes_join_validation(
        tmp_path, AI_MEMORY_ONTOLOGY, "ai-memory", [CORPUS]
    )  # shared-traits is in the corpus


def test_every_upstream_yaml_text_reads_the_same() -> None:
    check_every_yaml_text_reads_the_same(SHARED)
    assert UPSTREAM.is_dir()


def _key_paths(value: object, prefix: str = "") -> set[str]:
    """Every key path of a frontmatter value, list positions folded (relationships[].target)."""
    if isinstance(value, dict):
        return {p for key, inner in value.items() for p in {f"{prefix}{key}"} | _key_paths(inner, f"{prefix}{key}.")}
    if isinstance(value, list):
        return {p for inner in value for p in _key_paths(inner, prefix.rstrip(".") + "[].")}
    return set()


def _bundle_key_paths(folders) -> set[str]:
    from mif_rdf import load_bundle

    return {
        p
        for folder in folders
        for record in load_bundle(folder).memories.values()
        for p in _key_paths(record.frontmatter)
    }


def test_own_fixtures_cover_every_field_family_of_the_upstream_data() -> None:
    """The main suite runs on tests/fixtures/bundles: they hold every key path the upstream bundles hold."""
    from conftest import FIXTURE_BUNDLES

    upstream = _bundle_key_paths(UPSTREAM_BUNDLES.values())
    own = _bundle_key_paths(folder for name, folder in FIXTURE_BUNDLES.items() if name != "examples")

    def family(path: str) -> str:  # provider names and property names are free: one family each
        for free in ("extensions.", "properties."):
            if path.startswith(free):
                return free + "*" + path[len(free) :].partition(".")[1] + path[len(free) :].partition(".")[2]
        return path

    assert {family(p) for p in upstream} - {family(p) for p in own} == set()
