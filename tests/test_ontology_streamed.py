"""Large ontology compiles are written as text, never held as graphs, and read lean (issue 39, item 6).

A 50 MB ontology (164,022 entity types) took 9.3 GB: rdflib's memory store
holds a triple in about 1 KB and an entity type compiles to some 200.  The
command line now writes a large compile as N-Triples lines while it compiles
(:mod:`mif_rdf.ontology.streamed`) and reads ontology YAML item by item
(:mod:`mif_rdf.source.leanyaml`).  The oracle is the graph compile, computed
here (``Compilation.merged()`` and ``Compilation.shapes``): the text must be
isomorphic to it on every shipped and test ontology and on generated ones.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from rdflib import BNode, Graph, Literal
from rdflib.compare import isomorphic
from rdflib.namespace import SH
from rdflib.term import Node

import mif_rdf.core.limits
import mif_rdf.ontology.compiler
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.ontology import compile_ontologies, prepare_ontologies, write_owl, write_shapes_text
from mif_rdf.source.leanyaml import load_yaml_lean
from mif_rdf.source.yamlio import load_yaml
from synthetic_ontology import ontology_yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.ontology.yaml"))
SHIPPED = sorted((ROOT / "ontologies").glob("*.ontology.yaml"))


def _generated(tmp_path: Path, types: int, ontology_id: str = "big") -> Path:
    folder = tmp_path / f"{ontology_id}-{types}"
    folder.mkdir()
    path = folder / f"{ontology_id}.ontology.yaml"
    path.write_text(ontology_yaml(types, ontology_id=ontology_id, seed=types))
    return path


def same_graph(found: Graph, expected: Graph) -> bool:
    """Graph isomorphism for graphs whose blank nodes are trees (each the object of one triple at most, no cycles:
    the compiler's restrictions, property shapes and lists), in linear time: each blank node is replaced by the
    sorted text of what hangs from it.  rdflib's general ``isomorphic`` takes minutes on thousands of them."""
    return _canonical(found) == _canonical(expected)


def _canonical(graph: Graph) -> list[str]:
    below: dict[Node, list[tuple[Node, Node]]] = {}
    held = Counter(o for _, _, o in graph if isinstance(o, BNode))
    assert all(count == 1 for count in held.values()), "a blank node used twice: not a tree"
    for s, p, o in graph:
        below.setdefault(s, []).append((p, o))

    def text(node: Node, depth: int = 0) -> str:
        assert depth < 200, "blank nodes in a cycle"
        if not isinstance(node, BNode):
            return node.n3()
        return "[" + " ; ".join(sorted(f"{p.n3()} {text(o, depth + 1)}" for p, o in below.get(node, []))) + "]"

    return sorted(f"{text(s)} {p.n3()} {text(o)}" for s, p, o in graph if not isinstance(s, BNode) or s not in held)


def _same_as_the_graph_compile(path: Path, **options: object) -> None:
    try:
        oracle = compile_ontologies([path], search_path=[path.parent], **options)  # type: ignore[arg-type]
    except MifRdfError as exc:  # a fixture that is an error case: the text route refuses it alike
        with pytest.raises(MifRdfError, match=None) as caught:
            prepare_ontologies([path], search_path=[path.parent], **options)  # type: ignore[arg-type]
        assert str(caught.value) == str(exc)
        return
    prepared = prepare_ontologies([path], search_path=[path.parent], **options)  # type: ignore[arg-type]
    owl, shapes = io.StringIO(), io.StringIO()
    written = write_owl(prepared, owl)
    write_shapes_text(prepared, shapes)
    assert same_graph(Graph().parse(data=owl.getvalue(), format="nt"), oracle.merged())
    assert same_graph(Graph().parse(data=shapes.getvalue(), format="turtle"), oracle.shapes)  # N-Triples is Turtle
    assert [(w.path, w.message) for w in prepared.warnings] == [(w.path, w.message) for w in oracle.warnings]
    assert written.triples >= len(oracle.merged())  # a triple two documents both hold is written twice


@pytest.mark.parametrize("path", [*SHIPPED, *FIXTURES], ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("with_ancestors", [True, False], ids=["chain", "only"])
def test_the_text_compile_is_the_graph_compile(path: Path, with_ancestors: bool) -> None:
    _same_as_the_graph_compile(path, with_ancestors=with_ancestors)


def test_the_tree_comparison_agrees_with_rdflib_isomorphism() -> None:
    """The fast comparison on small compiles against rdflib's own, and it tells a changed graph apart."""
    path = ROOT / "tests" / "fixtures" / "ontology" / "corpus" / "rich.ontology.yaml"
    one, two = (compile_ontologies([path], search_path=[path.parent]) for _ in range(2))
    assert same_graph(one.shapes, two.shapes) and isomorphic(one.shapes, two.shapes)
    assert same_graph(one.merged(), two.merged())
    shape, value = next((s, o) for s, p, o in two.shapes if p == SH.minCount)
    two.shapes.set((shape, SH.minCount, Literal(int(value) + 1)))
    assert not same_graph(one.shapes, two.shapes) and not isomorphic(one.shapes, two.shapes)


@pytest.mark.parametrize("types", [1, 7, 60, 120])
def test_the_text_compile_is_the_graph_compile_on_generated_ontologies(tmp_path: Path, types: int) -> None:
    _same_as_the_graph_compile(_generated(tmp_path, types))


def test_a_bundle_config_joins_the_text_compile_as_in_the_graph_compile(tmp_path: Path) -> None:
    (tmp_path / ".mif").mkdir()
    (tmp_path / ".mif" / "config.yaml").write_text(
        "relationship_types:\n  - {name: feeds, description: 'feeds into', from: [t0], to: [t1]}\n"
    )
    path = _generated(tmp_path, 12)
    assert any(p.endswith("feeds") for p in map(str, compile_ontologies([path], bundle=tmp_path).owl.subjects()))
    _same_as_the_graph_compile(path, bundle=tmp_path)


def test_the_cli_writes_a_large_compile_as_lines_that_equal_the_graph_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past STREAM_ONTOLOGY_FIELDS composed fields (lowered here, so the case stays small) the command writes
    text; .ttl and .nt both read back as the graph compile."""
    monkeypatch.setattr(mif_rdf.core.limits, "STREAM_ONTOLOGY_FIELDS", 100)
    path = _generated(tmp_path, 60)
    owl, shapes = tmp_path / "out" / "big.nt", tmp_path / "out" / "big-shapes.ttl"
    assert main(["ontology", "compile", str(path), "--shapes", str(shapes), "-o", str(owl)]) == 0
    said = capsys.readouterr().err
    assert "written as N-Triples lines" in said and "60 node shapes" in said and "62 classes" in said, said
    oracle = compile_ontologies([path], search_path=[path.parent])
    assert same_graph(Graph().parse(owl, format="nt"), oracle.merged())
    assert same_graph(Graph().parse(shapes, format="turtle"), oracle.shapes)


def test_a_large_compile_to_a_format_without_lines_keeps_the_field_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON-LD (or --output-dir) needs the graphs: past MAX_ONTOLOGY_FIELDS the command refuses, naming the text
    route; the same compile to .ttl is written as text (both limits lowered here, so the case stays small)."""
    monkeypatch.setattr(mif_rdf.ontology.compiler, "MAX_ONTOLOGY_FIELDS", 1000)
    monkeypatch.setattr(mif_rdf.core.limits, "STREAM_ONTOLOGY_FIELDS", 500)
    path = _generated(tmp_path, 300)
    assert main(["ontology", "compile", str(path), "-o", str(tmp_path / "big.jsonld")]) != 0
    said = capsys.readouterr().err
    assert "over the limit of 1,000" in said and "writes any size to .ttl or .nt" in said and "Traceback" not in said
    assert not (tmp_path / "big.jsonld").exists()
    assert main(["ontology", "compile", str(path), "-o", str(tmp_path / "big.ttl")]) == 0
    assert "written as N-Triples lines" in capsys.readouterr().err
    monkeypatch.undo()
    assert same_graph(Graph().parse(tmp_path / "big.ttl"), compile_ontologies([path]).merged())


LEAN_CASES = {
    "anchors and aliases": "a: &x {k: [1, 2]}\nb: *x\nitems:\n  - *x\n  - {k: 3}\n",
    "an anchor inside an item": "items:\n  - &one {k: 1}\n  - *one\n  - [x, y]\n",
    "merge keys": "base: &b {k: 1, j: 2}\nitems:\n  - {<<: *b, j: 3}\n  - <<: {k: 9}\n    j: 1\n",
    "duplicate keys": "a: 1\nitems:\n  - {k: 1, k: 2}\n  - name: x\n    name: y\na: 2\n",
    "timestamps and types": "items:\n  - [2026-01-15, 2026-01-15T10:30:00Z, '2026-01-15', 1, 1.5, yes, ~, 0x1f]\n",
    "a top-level list": "- {a: 1}\n- [b, {c: d}]\n- plain\n",
    "nested deep": "items:\n  - " + "[" * 50 + "]" * 50 + "\n",
    "syntax error": "items:\n  - {a: 1\n  - b\n",
    "undefined alias": "items:\n  - *nowhere\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "empty": "",
}


@pytest.mark.parametrize("text", LEAN_CASES.values(), ids=LEAN_CASES.keys())
def test_the_lean_yaml_reader_gives_what_load_yaml_gives(text: str) -> None:
    try:
        expected = load_yaml(text)
    except yaml.YAMLError as exc:
        with pytest.raises(type(exc)) as caught:
            load_yaml_lean(text)
        # the same problem; PyYAML's Python composer names an undefined alias, its C composer does not
        assert str(getattr(caught.value, "problem", None)).startswith(str(getattr(exc, "problem", None)))
        return
    got = load_yaml_lean(text)
    assert got.data == expected.data
    assert [type(v) for v in _leaves(got.data)] == [type(v) for v in _leaves(expected.data)]  # timestamps stay such
    assert sorted(map(str, map(vars, got.issues))) == sorted(map(str, map(vars, expected.issues)))  # any order


@pytest.mark.parametrize("path", [*SHIPPED, *FIXTURES], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_lean_yaml_reader_reads_every_ontology_as_load_yaml_does(path: Path) -> None:
    text = path.read_text()
    assert load_yaml_lean(text).data == load_yaml(text).data


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in [key, *_leaves(item)]]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


MEASURE = """
import json, resource, sys
from pathlib import Path
from mif_rdf.cli.main import main
out = Path(sys.argv[2])
main(["ontology", "compile", "mif-base", "-o", str(out / "warm.ttl"), "--shapes", str(out / "warm-shapes.ttl"), "-q"])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux: the process with everything imported
main(["ontology", "compile", sys.argv[1], "-o", str(out / "owl.ttl"), "--shapes", str(out / "shapes.ttl"), "-q"])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grown": (peak - base) * 1024, "size": Path(sys.argv[1]).stat().st_size}))
"""


def compile_memory(path: Path, out: Path) -> dict[str, int]:
    """Peak memory the command line grows by while compiling ``path`` (after a warm-up compile), and its size."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd=ROOT,
    )
    measured: dict[str, int] = json.loads(done.stdout)
    return measured


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB is Linux's")
def test_compile_memory_follows_the_yaml_size(tmp_path: Path) -> None:
    """About 1,000x the YAML before (rdflib graphs, PyYAML's node tree); the target is under 20x."""
    measured = compile_memory(_generated(tmp_path, 1000), tmp_path)  # past STREAM_ONTOLOGY_FIELDS
    assert measured["size"] > 250_000
    assert measured["grown"] < 20 * measured["size"], measured
