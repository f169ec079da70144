"""Resolving the ontologies a bundle's memories name, without a flag (spec 4.3, 10.8.5)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, write_file
from mif_rdf.core.errors import MifRdfError
from mif_rdf.ontology import OntologyReference, builtin_dir, bundle_ontologies, search_path, user_ontology_dirs

BOUND = FIXTURES / "ontology" / "bound"


def onto(folder: Path, name: str, version: str = "1.0.0", body: str = "", relpath: str | None = None) -> Path:
    return write_file(
        folder,
        relpath or f"{name}.ontology.yaml",
        f'ontology:\n  id: {name}\n  version: "{version}"\n  extends: [mif-base]\n{body}',
    )


def test_search_order_is_base_user_bundle_path(tmp_path: Path) -> None:
    user, extra, bundle = tmp_path / "user", tmp_path / "extra", tmp_path / "bundle"
    for folder in (user, extra, bundle / ".mif" / "ontologies"):
        folder.mkdir(parents=True)
    assert search_path([user], bundle, [extra]) == [builtin_dir(), user, bundle / ".mif" / "ontologies", extra]


@pytest.mark.parametrize("winner", ["user", "bundle", "path"])
def test_later_sources_override_earlier_ones(tmp_path: Path, winner: str) -> None:
    user, extra, bundle = tmp_path / "user", tmp_path / "extra", tmp_path / "bundle"
    onto(user, "team", "1.0.0", "relationships:\n  from_user: {}\n")
    bundle.mkdir()
    if winner in ("bundle", "path"):
        onto(
            bundle / ".mif" / "ontologies",
            "team",
            "2.0.0",
            "relationships:\n  from_bundle: {}\n",
            relpath="domain/deep/team.ontology.yaml",
        )
    if winner == "path":
        onto(extra, "team", "3.0.0", "relationships:\n  from_path: {}\n")
    bound = bundle_ontologies(
        bundle, [OntologyReference("a.md", "team")], user_dirs=[user], path_dirs=[extra] if winner == "path" else []
    )
    view = bound.view("team")
    assert view is not None and f"from-{winner}" in view.relationships
    assert "relates-to" in view.relationships  # extends mif-base, the shipped one
    assert bound.problems == []


def test_the_environment_names_user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    onto(two, "envy")
    monkeypatch.setenv("MIF_RDF_ONTOLOGY_PATH", f"{one}{os.pathsep}{os.pathsep}{two}")
    assert user_ontology_dirs() == [one, two]  # the empty entry is ignored
    one.mkdir()
    bound = bundle_ontologies(tmp_path / "bundle", [OntologyReference("a.md", "envy")])
    assert bound.view("envy") is not None and bound.problems == []


def test_an_unknown_id_is_one_warning_naming_the_memories(tmp_path: Path) -> None:
    refs = [OntologyReference(f"m{i}.md", "ghost", uri="https://example.org/ghost.yaml") for i in range(3)]
    bound = bundle_ontologies(tmp_path, refs + [OntologyReference("b.md", "mif-base")], user_dirs=[])
    assert [p.rule for p in bound.problems] == ["ontology-unknown"]
    message = bound.problems[0].message
    assert "'ghost'" in message and "m0.md, m1.md, m2.md" in message and "not fetched" in message
    assert bound.problems[0].severity.value == "warning"
    assert set(bound.ontologies) == {"mif-base"}


def test_an_ontology_file_given_by_path_satisfies_the_memories_naming_its_id(tmp_path: Path) -> None:
    """``--ontology some/where/team.ontology.yaml`` (outside every search folder) is the
    ontology memories name as ``team``."""
    file = onto(tmp_path / "elsewhere", "team", "2.0.0")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    refs = [OntologyReference("m.md", "team", version="1.0.0")]
    assert [p.rule for p in bundle_ontologies(bundle, refs, user_dirs=[]).problems] == ["ontology-unknown"]
    bound = bundle_ontologies(bundle, refs, user_dirs=[], extra=[file])
    assert "team" in bound.ontologies and [p.rule for p in bound.problems] == ["ontology-version"]


def test_a_version_mismatch_names_both_versions(tmp_path: Path) -> None:
    refs = [
        OntologyReference("a.md", "mif-base", "0.9.0"),
        OntologyReference("b.md", "mif-base", "1.0.0"),
        OntologyReference("c.md", "mif-base", "0.9.0"),
    ]
    bound = bundle_ontologies(tmp_path, refs, user_dirs=[])
    assert [p.rule for p in bound.problems] == ["ontology-version"]
    assert "version 0.9.0" in bound.problems[0].message and "has version 1.0.0" in bound.problems[0].message
    assert "a.md, c.md" in bound.problems[0].message and "b.md" not in bound.problems[0].message


def test_extra_ontologies_add_to_what_memories_name(tmp_path: Path) -> None:
    bound = bundle_ontologies(
        tmp_path, [OntologyReference("a.md", "mif-base")], user_dirs=[], path_dirs=[BOUND], extra=["orchard"]
    )
    assert {"mif-base", "orchard"} <= set(bound.ontologies)
    assert bound.compilation is not None
    assert "pruning-guide" in bound.view("orchard").entity_types
    assert "asset" in bound.view("orchard").entity_types  # inherited through field-base


def test_an_ontology_that_does_not_compile_is_a_warning_and_the_others_bind(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    write_file(bundle, ".mif/ontologies/broken.ontology.yaml", "ontology:\n  id: broken\n  extends: [nowhere]\n")
    bound = bundle_ontologies(
        bundle, [OntologyReference("a.md", "broken"), OntologyReference("b.md", "mif-base")], user_dirs=[]
    )
    assert [p.rule for p in bound.problems] == ["ontology-compile"]
    assert "'broken'" in bound.problems[0].message and "nowhere" in bound.problems[0].message
    assert set(bound.ontologies) == {"mif-base"}


def test_a_missing_search_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MifRdfError, match="does not exist"):
        bundle_ontologies(tmp_path, [], user_dirs=[], path_dirs=[tmp_path / "nope"])


def test_the_compilation_is_memoised_until_a_file_changes(tmp_path: Path) -> None:
    shutil.copytree(BOUND, tmp_path / "onto")
    refs = [OntologyReference("a.md", "orchard")]
    first = bundle_ontologies(tmp_path, refs, user_dirs=[], path_dirs=[tmp_path / "onto"])
    assert bundle_ontologies(tmp_path, refs, user_dirs=[], path_dirs=[tmp_path / "onto"]) is first
    path = tmp_path / "onto" / "domain" / "orchard.ontology.yaml"
    path.write_text(path.read_text().replace('"1.1.0"', '"1.2.0"'))
    again = bundle_ontologies(tmp_path, refs, user_dirs=[], path_dirs=[tmp_path / "onto"])
    assert again is not first and again.view("orchard").file.version == "1.2.0"


def test_a_memory_id_that_looks_like_a_path_is_never_read(tmp_path: Path) -> None:
    """`ontology: {id: /some/file.ontology.yaml}` in a memory is an unknown id, not a file to read."""
    outside = onto(tmp_path / "elsewhere", "secret")
    bound = bundle_ontologies(
        tmp_path / "bundle",
        [OntologyReference("a.md", str(outside)), OntologyReference("b.md", "../elsewhere/secret.ontology.yaml")],
        user_dirs=[],
    )
    assert bound.ontologies == {} and bound.compilation is None
    assert [p.rule for p in bound.problems] == ["ontology-unknown", "ontology-unknown"]


def test_an_unreadable_ontology_file_is_one_warning_and_the_commands_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mif_rdf.cli.main import main

    write_file(tmp_path, ".mif/ontologies/bad.ontology.yaml", "ontology: [1, 2\n")
    write_file(
        tmp_path,
        "m/a.md",
        "---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
        "namespace: _semantic/decisions\nontology: {id: mif-base}\n---\nBody.\n",
    )
    assert main(["validate", str(tmp_path), "--no-progress", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert '"rule": "ontology-compile"' in out.out and "bad.ontology.yaml" in out.out and "Traceback" not in out.err
    assert main(["query", str(tmp_path), "SELECT ?m WHERE { ?m mif:namespace ?n }", "--no-progress"]) == 0
    assert "urn:mif:0b5c2d1e" in capsys.readouterr().out
