"""Issue 39 item 6 (without the regex part): ontologies bounded like memories.

Each case is a search folder with one hostile ontology file beside a good
one: the hostile file is one problem naming it, the good one compiles to
the graph it compiles to alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib.compare import isomorphic

import mif_rdf.ontology.compiler
import mif_rdf.ontology.loader
import mif_rdf.ontology.registry
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.limits import ONTOLOGY_LIMITS
from mif_rdf.ontology import compile_ontologies

GOOD = """ontology:
  id: good
  version: "1"
  extends: [mif-base]
entity_types:
  - name: gadget
    base: semantic
    schema:
      required: [name]
      properties:
        name: {type: string}
"""

HOSTILE = {
    "syntax": "ontology: [not\n",
    "not-a-mapping": "- just\n- a list\n",
    "no-header": "entity_types: []\n",
    "bad-id": "ontology:\n  id: Not An Id\n",
    "deep": "ontology:\n  id: deep\nannotations: " + "[" * 200 + "]" * 200 + "\n",
    "alias-bomb": "ontology:\n  id: bomb\n"
    + "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
        f"*a{i - 1}, *a{i - 1}]\n"
        for i in range(1, 8)
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_one_bad_file_in_a_folder_is_a_problem_naming_it_and_the_others_compile(tmp_path: Path, case: str) -> None:
    (tmp_path / "good.ontology.yaml").write_text(GOOD)
    alone = compile_ontologies(["good"], search_path=[tmp_path])
    bad = tmp_path / f"{case}.ontology.yaml"
    bad.write_text(HOSTILE[case])
    result = compile_ontologies(["good"], search_path=[tmp_path])
    assert isomorphic(result.owl, alone.owl) and isomorphic(result.shapes, alone.shapes)
    named = [w for w in result.warnings if w.path == str(bad)]
    assert len(named) == 1 and "the other ontologies of the folder are used" in named[0].message
    if case in ("deep", "alias-bomb"):
        assert "ONTOLOGY_LIMITS" in named[0].message


def test_an_ontology_over_the_size_limit_is_never_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.ontology.yaml").write_text(GOOD)
    big = tmp_path / "big.ontology.yaml"
    with open(big, "w") as handle:
        handle.write("ontology:\n  id: big\n")
        handle.write(("# filler\n" * 1024) * (ONTOLOGY_LIMITS.max_file_bytes // 9216 + 1))
    parsed: list[int] = []
    real = mif_rdf.ontology.loader.load_yaml
    monkeypatch.setattr(mif_rdf.ontology.loader, "load_yaml", lambda text: parsed.append(len(text)) or real(text))
    assert main(["ontology", "compile", "good", "--path", str(tmp_path), "-o", str(tmp_path / "out.ttl")]) == 0
    err = capsys.readouterr().err
    assert f"{big}" in err and "over the limit" in err and "not read" in err
    assert parsed and max(parsed) < 100_000  # the big file never reached the YAML parser
    with pytest.raises(MifRdfError, match="over the limit"):  # named directly, it is the error itself
        compile_ontologies([big])


def test_the_file_count_of_a_folder_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mif_rdf.ontology.registry, "MAX_ONTOLOGY_FILES", 3)
    for index in range(5):
        (tmp_path / f"o{index}.ontology.yaml").write_text(GOOD.replace("id: good", f"id: good{index}"))
    result = compile_ontologies(["good0"], search_path=[tmp_path])
    limit = [w for w in result.warnings if w.rule == "limit"]
    assert len(limit) == 1 and "o2.ontology.yaml are not read" in limit[0].message
    with pytest.raises(MifRdfError, match="no ontology with id 'good4'"):
        compile_ontologies(["good4"], search_path=[tmp_path])


def test_an_ontology_that_extends_itself_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "selfish.ontology.yaml").write_text("ontology:\n  id: selfish\n  extends: [selfish]\n")
    with pytest.raises(MifRdfError, match=r"ontology extends cycle: 'selfish' .* -> 'selfish'"):
        compile_ontologies(["selfish"], search_path=[tmp_path])
    # a neighbour that is no cycle: extending the built-in definition of its own id overrides it
    (tmp_path / "base.ontology.yaml").write_text("ontology:\n  id: mif-base\n  version: '2'\n  extends: [mif-base]\n")
    result = compile_ontologies(["mif-base"], search_path=[tmp_path])
    assert len(result.composers) == 2


def test_a_compile_that_would_take_gigabytes_stops_before_building_graphs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few lines of traits multiply: 40 fields of one trait on 30 entity types are 1,200 composed fields."""
    monkeypatch.setattr(mif_rdf.ontology.compiler, "MAX_ONTOLOGY_FIELDS", 1000)
    fields = "".join(f"      f{i}: {{type: string}}\n" for i in range(40))
    types = "".join(f"  - name: t{i}\n    base: semantic\n    traits: [wide]\n" for i in range(30))
    (tmp_path / "wide.ontology.yaml").write_text(
        f"ontology:\n  id: wide\ntraits:\n  wide:\n    fields:\n{fields}entity_types:\n{types}"
    )
    built: list[object] = []
    monkeypatch.setattr(mif_rdf.ontology.compiler, "write_shapes", lambda *args: built.append(args))
    with pytest.raises(MifRdfError, match=r"1,200 entity-type fields .* over the limit of 1,000"):
        compile_ontologies(["wide"], search_path=[tmp_path])
    assert not built
