"""Reading ontology YAML, the search path and extends resolution (spec 10.8.5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, write_file
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.ontology import builtin_dir, compile_ontologies, search_path
from mif_rdf.ontology.loader import read_ontology
from mif_rdf.ontology.registry import Registry

CORPUS = FIXTURES / "ontology" / "corpus"


def onto(folder: Path, name: str, extends: str = "", body: str = "", filename: str | None = None) -> Path:
    header = f'ontology:\n  id: {name}\n  version: "1.0.0"\n' + (f"  extends: [{extends}]\n" if extends else "")
    return write_file(folder, filename or f"{name}.ontology.yaml", header + body)


def test_builtin_search_path_has_mif_base() -> None:
    registry = Registry(search_path())
    base = registry.get("mif-base")
    assert base.path.parent == builtin_dir()
    assert {"relates-to", "derived-from", "supersedes", "conflicts-with", "part-of", "mentioned-in"} <= set(
        base.relationships
    )
    assert base.relationships["derived-from"].inverse == "derives"


def test_extends_resolves_by_id_along_the_search_path() -> None:
    registry = Registry(search_path([CORPUS]))
    chain = [o.id for o in registry.closure(registry.get("kit-joint"))]
    assert chain[-1] == "kit-joint"
    assert chain.index("mif-base") < chain.index("kit-base") < chain.index("kit-left") < chain.index("kit-right")
    assert len(chain) == len(set(chain)) == 5  # the shared ancestors kit-base and mif-base appear once


def test_a_later_source_overrides_an_earlier_one(tmp_path: Path) -> None:
    user = tmp_path / "user"
    onto(user, "mif-base", body="relationships:\n  only_mine: {}\n")
    registry = Registry(search_path([user]))
    assert registry.get("mif-base").path.parent == user
    assert set(registry.get("mif-base").relationships) == {"only-mine"}


def test_a_later_source_extends_the_earlier_definition_of_its_own_id(tmp_path: Path) -> None:
    """A project ontology `mif-base` that extends mif-base gets the built-in one as parent."""
    project = tmp_path / "project"
    onto(project, "mif-base", extends="mif-base", body="relationships:\n  reviews: {inverse: reviewed_by}\n")
    result = compile_ontologies(["mif-base"], search_path=[project])
    view = result.roots[0]
    assert view.file.path.parent == project
    assert view.parents[0].file.path.parent == builtin_dir()
    assert {"reviews", "relates-to"} <= set(view.relationships)


def test_bundle_ontologies_come_last(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    onto(bundle / ".mif" / "ontologies", "team", extends="mif-base")
    dirs = search_path([CORPUS], bundle)
    assert dirs == [builtin_dir(), CORPUS, bundle / ".mif" / "ontologies"]
    assert Registry(dirs).get("team").path.parent == bundle / ".mif" / "ontologies"
    # spec 10.8.5 names ontology.yaml files (project ontology) too
    onto(tmp_path / "proj", "proj", filename="ontology.yaml")
    assert Registry([tmp_path / "proj"]).get("proj").path.name == "ontology.yaml"


def test_missing_parent_is_a_clear_error(tmp_path: Path) -> None:
    path = onto(tmp_path, "orphan", extends="nowhere")
    with pytest.raises(MifRdfError) as err:
        compile_ontologies([path])
    assert str(err.value).startswith(f"{path}: ontology 'orphan' extends 'nowhere', which is not in the search path")


def test_extends_cycle_is_a_clear_error(tmp_path: Path) -> None:
    onto(tmp_path, "a", extends="b")
    onto(tmp_path, "b", extends="c")
    onto(tmp_path, "c", extends="a")
    with pytest.raises(
        MifRdfError, match=r"ontology extends cycle: 'a' \(.*a.ontology.yaml\) -> 'b' .* -> 'c' .* -> 'a'"
    ):
        compile_ontologies(["a"], search_path=[tmp_path])


def test_two_files_with_one_id_in_one_folder_are_ambiguous(tmp_path: Path) -> None:
    onto(tmp_path, "twin")
    onto(tmp_path, "twin", filename="other.ontology.yaml")
    with pytest.raises(MifRdfError, match="ontology id 'twin' is defined by two files of the same source"):
        Registry([tmp_path])


def test_unknown_id_names_the_search_path(tmp_path: Path) -> None:
    with pytest.raises(MifRdfError, match=f"no ontology with id 'ghost' in the search path .*{tmp_path}"):
        compile_ontologies(["ghost"], search_path=[tmp_path])


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ontology: [1, 2\n", r"bad.ontology.yaml:\d+: YAML syntax error"),
        ("- just\n- a list\n", "an ontology file must be a YAML mapping"),
        ("entity_types: []\n", "no 'ontology' section"),
        ("ontology: {id: Bad_Id}\n", r"ontology.id 'Bad_Id' must be a lowercase identifier"),
        (
            "ontology: {id: x}\nentity_types:\n  - name: thing\n    base: semantics\n",
            r"ontology 'x', entity_types\[0\] \('thing'\): base 'semantics' must be one of semantic, episodic, "
            r"procedural",
        ),
        ("ontology: {id: x}\nentity_types:\n  - base: semantic\n", r"entity_types\[0\]: has no name"),
        ("ontology: {id: x}\nentity_types: {a: 1}\n", "entity_types: must be a list"),
        (
            "ontology: {id: x}\ntraits:\n  t:\n    fields:\n      f: {type: text}\n",
            r"traits.t.fields.f: type 'text' is not a JSON Schema type",
        ),
        (
            "ontology: {id: x}\ntraits:\n  t:\n    fields:\n      f: {type: string, enum: open}\n",
            r"traits.t.fields.f: enum must be a list",
        ),
        (
            "ontology: {id: x}\ntraits:\n  t:\n    fields:\n      f: {type: string, pattern: '(('}\n",
            r"pattern '\(\(' is not a valid regular expression",
        ),
        (
            "ontology: {id: x}\nrelationships:\n  r: {symmetric: maybe}\n",
            r"relationships.r: symmetric must be true or false",
        ),
        (
            "ontology: {id: x}\nnamespaces:\n  _semantic: {type_hint: facts}\n",
            r"namespaces._semantic: type_hint 'facts' must be one of",
        ),
        ("ontology: {id: x, extends: mif-base}\n", r"ontology.extends: must be a list of strings"),
        (
            "ontology: {id: x}\nentity_types:\n  - {name: a, base: semantic}\n  - {name: a, base: episodic}\n",
            r"entity type 'a' is defined twice",
        ),
    ],
)
def test_bad_ontology_files_give_one_clear_error(tmp_path: Path, text: str, expected: str) -> None:
    path = write_file(tmp_path, "bad.ontology.yaml", text)
    with pytest.raises(MifRdfError, match=expected) as err:
        read_ontology(path)
    assert str(err.value).startswith(str(path))


def test_duplicate_keys_and_spelling_merges_are_warnings(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "w.ontology.yaml",
        """ontology: {id: w, version: "1.0.0"}
relationships:
  funded-by: {from: [a], to: [b]}
  funded_by: {from: [a], to: [c], description: same thing}
  relates_to: {symmetric: true}
  relates_to: {symmetric: true}
""",
    )
    parsed = read_ontology(path)
    text = "\n".join(str(w) for w in parsed.warnings)
    assert "duplicate key 'relates_to'" in text
    assert "'funded_by' and 'funded-by' are spellings of the same relationship type 'funded-by'" in text
    assert parsed.relationships["funded-by"].targets == ("b", "c")


def test_spellings_that_disagree_are_an_error(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "w.ontology.yaml",
        "ontology: {id: w}\nrelationships:\n  RelatesTo: {symmetric: true}\n  relates-to: {symmetric: false}\n",
    )
    with pytest.raises(MifRdfError, match="'relates-to' and 'RelatesTo' are the same relationship type"):
        read_ontology(path)


def test_cli_errors_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = onto(tmp_path, "orphan", extends="nowhere")
    assert main(["ontology", "compile", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mif-rdf: error: ") and "'nowhere'" in err
    assert main(["ontology", "compile", "ghost", "--path", str(tmp_path / "missing")]) == 2
    assert "ontology search folder" in capsys.readouterr().err
    assert main(["ontology", "compile", "mif-base", "--bundle", str(tmp_path / "nobundle")]) == 2
    assert "bundle folder" in capsys.readouterr().err


def test_bad_bundle_config_relationship_types_are_a_clear_error(tmp_path: Path) -> None:
    write_file(tmp_path, ".mif/config.yaml", "relationship_types:\n  - {name: RelatesTo}\n  - {description: no name}\n")
    with pytest.raises(MifRdfError) as err:
        compile_ontologies([], bundle=tmp_path)
    assert str(err.value) == f"{tmp_path / '.mif' / 'config.yaml'}: bundle config, relationship_types[1]: has no name"
