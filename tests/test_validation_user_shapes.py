"""A user's own SHACL shapes on every validation route (issue 36, item 3): the API, the CLI, every report format.

pySHACL on the same dataset and shapes is the oracle for which memories and
keys a user shape flags; the W3C shacl-shacl graph decides what is an
ill-formed shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyshacl
import pytest
from rdflib import Graph
from rdflib.namespace import SH

from conftest import EXAMPLES
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.validation import validate
from mif_rdf.validation.user_shapes import ill_formed, load_shapes

PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix mif: <https://mif-spec.dev/ns/> .
@prefix dc: <http://purl.org/dc/terms/> .
@prefix my: <https://example.org/rules/> .
"""
TITLES = (
    PREFIXES
    + """
my:Titles a sh:NodeShape ; sh:targetSubjectsOf mif:content ;
  sh:property [ sh:path dc:title ; sh:minLength 26 ; sh:message "a title says enough (26 characters or more)" ] .
"""
)
TAGS = (
    PREFIXES
    + """
my:Tagged a sh:NodeShape ; sh:targetSubjectsOf mif:content ;
  sh:property [ sh:path mif:tags ; sh:minCount 4 ; sh:severity sh:Warning ; sh:message "four tags or more" ] .
"""
)


@pytest.fixture()
def shapes(tmp_path: Path) -> list[Path]:
    """The two rules, one as Turtle and one as N-Triples (any format the project reads)."""
    titles = tmp_path / "titles.ttl"
    titles.write_text(TITLES, encoding="utf-8")
    tags = tmp_path / "tags.nt"
    Graph().parse(data=TAGS, format="turtle").serialize(tags, format="nt", encoding="utf-8")
    return [titles, tags]


def _flagged_by_pyshacl(bundle, text: str) -> set[str]:
    """The memories pySHACL finds breaking ``text``'s shapes, by file."""
    _, report, _ = pyshacl.validate(bundle.dataset, shacl_graph=Graph().parse(data=text, format="turtle"))
    nodes = set(report.objects(None, SH.focusNode))
    return {
        record.relpath for record in bundle.memories.values() if any(str(n).startswith(str(record.iri)) for n in nodes)
    }


def test_user_shapes_beside_the_level_shapes(example_bundle, shapes: list[Path]) -> None:
    report = validate(example_bundle, 3, shapes=shapes)
    titles = {r.path for r in report.results if r.rule == "my:Titles/dc:title"}
    tags = [r for r in report.results if r.rule == "my:Tagged/mif:tags"]
    assert titles and titles == _flagged_by_pyshacl(example_bundle, TITLES)
    assert tags and {r.path for r in tags} == _flagged_by_pyshacl(example_bundle, TAGS)
    assert all(
        r.key == "title" and r.value and r.message.startswith("a title")
        for r in report.results
        if r.rule == "my:Titles/dc:title"
    )
    assert all(r.severity.value == "warning" for r in tags)
    assert not report.conforms  # the title rule is a violation
    without = validate(example_bundle, 3)
    assert set(map(str, without.results)) <= set(map(str, report.results))  # the level's findings are all still there
    assert len(report.results) == len(without.results) + len(titles) + len(tags)


def test_level_0_runs_only_the_user_shapes(example_bundle, shapes: list[Path]) -> None:
    report = validate(example_bundle, 0, shapes=shapes[:1])
    rules = {r.rule for r in report.results}
    assert rules <= {"my:Titles/dc:title", "link", None} and "my:Titles/dc:title" in rules
    with pytest.raises(MifRdfError, match="level 0"):
        validate(example_bundle, 0)


def test_ill_formed_shapes_are_errors_naming_shape_and_fault(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text(
        PREFIXES
        + """
        my:A a sh:NodeShape ; sh:targetClass "Memory" ; sh:maxCount 1 .
        my:B a sh:NodeShape ; sh:targetSubjectsOf mif:content ; sh:property [ sh:path dc:title ; sh:minCount "one" ] .
        my:C a sh:NodeShape ; sh:targetSubjectsOf mif:content ; sh:in my:notAList .
    """,
        encoding="utf-8",
    )
    with pytest.raises(MifRdfError) as raised:
        load_shapes([bad])
    text = str(raised.value)
    assert str(bad) in text and "3 ill-formed" not in text
    for expected in (
        'shape my:A: sh:targetClass "Memory"',
        "shape my:A: the shape is not exactly one of a node shape",
        'shape my:B/dc:title: sh:minCount "one" has the wrong datatype',
        "shape my:C: sh:in my:notAList",
    ):
        assert expected in text
    assert ill_formed(Graph().parse(data=TITLES, format="turtle")) == []


def test_the_shipped_shapes_are_well_formed() -> None:
    from mif_rdf.validation.shapes import shapes_graph

    assert ill_formed(shapes_graph(3)) == []


def test_cli_shapes_in_every_format(tmp_path: Path, shapes: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    """``--shapes`` twice, options in any order; each report format carries the user rule with file (and line)."""
    out = tmp_path / "out"
    codes = {}
    for fmt in ("text", "json", "sarif", "junit", "github"):
        codes[fmt] = main(
            [
                "validate",
                "--shapes",
                str(shapes[0]),
                str(EXAMPLES),
                "--format",
                fmt,
                "--shapes",
                str(shapes[1]),
                "--no-progress",
                "-o",
                str(out.with_suffix(f".{fmt}")),
            ]
        )
    assert set(codes.values()) == {1}
    text = out.with_suffix(".text").read_text(encoding="utf-8")
    assert (
        "[my:Titles/dc:title]" in text and "[my:Tagged/mif:tags]" in text
    )  # the N-Triples file uses the Turtle's prefixes
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert any(r["rule"] == "my:Titles/dc:title" and r["key"] == "title" for r in data["results"])
    sarif = json.loads(out.with_suffix(".sarif").read_text(encoding="utf-8"))
    located = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "my:Titles/dc:title"]
    assert located and all(r["locations"][0]["physicalLocation"]["region"]["startLine"] > 1 for r in located)
    assert "my:Titles/dc:title" in out.with_suffix(".junit").read_text(encoding="utf-8")
    github = out.with_suffix(".github").read_text(encoding="utf-8")
    assert "title=mif-rdf my%3ATitles/dc%3Atitle" in github and ",line=" in github


def test_cli_refuses_bad_shapes_before_loading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text(
        PREFIXES + 'my:B a sh:NodeShape ; sh:targetSubjectsOf mif:content ; sh:minLength "x" .', encoding="utf-8"
    )
    assert main(["validate", str(EXAMPLES), "--shapes", str(bad)]) == 2
    err = capsys.readouterr().err
    assert 'shape my:B: sh:minLength "x" has the wrong datatype' in err and "Traceback" not in err
    assert main(["validate", str(EXAMPLES), "--shapes", str(tmp_path / "missing.ttl")]) == 2
    assert "no such shapes file" in capsys.readouterr().err
    assert main(["validate", str(EXAMPLES), "--level", "0"]) == 2
    assert "--shapes" in capsys.readouterr().err


def test_untargeted_shapes_are_a_warning(example_bundle, tmp_path: Path) -> None:
    loose = tmp_path / "loose.ttl"
    loose.write_text(
        PREFIXES + "my:Loose a sh:NodeShape ; sh:property [ sh:path dc:title ; sh:minCount 5 ] .", encoding="utf-8"
    )
    report = validate(example_bundle, 0, shapes=[loose])
    assert [r.rule for r in report.results if r.rule == "shapes"] == ["shapes"]


def test_inference_as_pyshacl(example_bundle, tmp_path: Path) -> None:
    """``inference="rdfs"`` gives pySHACL's ``inference="rdfs"`` results on the same data and shapes (here every
    node becomes an ``rdfs:Resource``, so the shape has focus nodes only with inference)."""
    text = (
        PREFIXES
        + """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        my:T a sh:NodeShape ; sh:targetClass rdfs:Resource ; sh:property [ sh:path dc:title ; sh:maxLength 20 ] ."""
    )
    path = tmp_path / "resource.ttl"
    path.write_text(text, encoding="utf-8")
    plain = validate(example_bundle, 0, shapes=[path])
    ours = validate(example_bundle, 0, shapes=[path], inference="rdfs")
    _, reference, _ = pyshacl.validate(
        example_bundle.dataset, shacl_graph=Graph().parse(data=text, format="turtle"), inference="rdfs"
    )
    assert not [r for r in plain.results if r.rule == "my:T/dc:title"]
    flagged = sorted(str(r.value) for r in ours.results if r.rule == "my:T/dc:title")  # memory and citation titles
    assert flagged and flagged == sorted(str(v) for v in reference.objects(None, SH.value))


def test_a_shape_without_a_message_says_what_it_breaks(example_bundle, tmp_path: Path) -> None:
    path = tmp_path / "plain.ttl"
    path.write_text(
        PREFIXES
        + "my:T a sh:NodeShape ; sh:targetSubjectsOf mif:content ; sh:property [ sh:path mif:tags ; sh:minCount 4 ] .",
        encoding="utf-8",
    )
    found = [r for r in validate(example_bundle, 0, shapes=[path]).results if r.rule == "my:T/mif:tags"]
    assert found and {r.message for r in found} == {"breaks sh:minCount 4"}


def test_serve_shows_the_findings_of_user_shapes(shapes: list[Path]) -> None:
    """``serve --shapes``: the page's findings are what ``validate --shapes`` finds (the served view of each memory)."""
    import urllib.parse
    import urllib.request

    from mif_rdf import load_bundle
    from mif_rdf.serve import start, stop

    bundle = load_bundle(EXAMPLES, store="oxigraph", cache=False)
    expected = validate(load_bundle(EXAMPLES, store="oxigraph", cache=False), shapes=shapes).sorted_results()
    mine = {p.path for p in expected if p.rule.startswith("my:")}
    assert mine, "the shapes flag some memories"
    server, watcher = start(bundle, port=0, watch=False, shapes=shapes)
    try:
        for record in bundle.memories.values():
            if "_local" in str(record.frontmatter.get("namespace", "")):
                continue
            url = server.url + "api/memory?" + urllib.parse.urlencode({"id": record.id})
            with urllib.request.urlopen(url, timeout=30) as answer:
                view = json.loads(answer.read())
            shown = [(p["rule"], p.get("key")) for p in view["problems"]]
            assert shown == [(p.rule, p.key) for p in expected if p.path == record.relpath], record.relpath
            assert any(rule.startswith("my:") for rule, _ in shown) == (record.relpath in mine), record.relpath
    finally:
        stop(server, watcher)
