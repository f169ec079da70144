"""Every memory checked and typed by the ontology it names (issue 28; spec 4.2.1, 4.3, 4.4, 7.2, 8.2, 10.2, 10.8).

The ontologies are the suite's own (tests/fixtures/ontology/bound), shaped as
the published corpus is: roots written ``semantic:`` and ``_episodic:``,
type_hint and children, entity types with a base and traits, an extends
chain (orchard -> field-base -> mif-base), discovery suggestions.  The
conformance suite runs the same checks on the published ontologies.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from rdflib import URIRef
from rdflib.namespace import RDF

from conftest import EXAMPLES, FIXTURES, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.spelling import closest, edit_distance
from mif_rdf.ontology import OntologyReference, add_types_graph, bundle_ontologies
from mif_rdf.ontology.extended_types import TypeMap
from mif_rdf.queries import memories_of_class, run_query
from mif_rdf.source.identity import GRAPH_TYPES, graph_iri
from mif_rdf.validation import validate
from ontology_memories import build

BOUND = FIXTURES / "ontology" / "bound"
ORCHARD = "https://mif-spec.dev/ontologies/"
STORES = ("memory", "oxigraph")
RULES = {
    "ontology-namespace",
    "ontology-namespace-type",
    "ontology-entity-type",
    "ontology-relationship-type",
    "ontology-entity-schema",
}


def corpus_bundle(root: Path, ontology_id: str = "orchard"):
    shutil.copytree(BOUND, root / ".mif" / "ontologies")
    bound = bundle_ontologies(root, [OntologyReference("x.md", ontology_id)], user_dirs=[])
    corpus = build(bound, ontology_id)
    corpus.write(root)
    return corpus


def findings(root: Path, store: str) -> list[dict]:
    report = validate(load_bundle(root, store=store, progress=False), 3)
    return sorted((p.to_dict() for p in report.results), key=lambda d: json.dumps(d, sort_keys=True, default=str))


@pytest.fixture(scope="module")
def orchard(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("orchard")
    return root, corpus_bundle(root)


@pytest.mark.parametrize("store", STORES)
def test_valid_memories_conform_and_every_mutant_is_caught(orchard, store: str) -> None:
    root, corpus = orchard
    assert corpus.skipped == {}
    assert len(corpus.valid) >= 10 and {
        "ontology-namespace",
        "ontology-namespace-type",
        "ontology-entity-type",
        "ontology-relationship-type",
        "ontology-entity-schema",
    } == set(corpus.mutants.values())
    found = findings(root, store)
    by_path: dict[str, list[dict]] = {}
    for f in found:
        by_path.setdefault(f["path"], []).append(f)
    for relpath in corpus.valid:
        assert by_path.get(relpath, []) == [], relpath
    for relpath, rule in corpus.mutants.items():
        rules = {f["rule"] for f in by_path.get(relpath, [])}
        assert rule in rules, (relpath, rule, by_path.get(relpath))
        also = {"entity-reference-entitytype"}
        if "/" not in _namespace_of(root / relpath) and rule == "ontology-namespace":
            assert "reserved-prefix-unknown" in rules, (
                relpath,
                rules,
            )  # '_semanticqx' is also no reserved prefix (spec 10.2)
            also.add("reserved-prefix-unknown")
        assert rules <= RULES | also, (relpath, rules)  # the mutant breaks that rule only


def _namespace_of(path: Path) -> str:
    return str(yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])["namespace"])


def test_both_stores_give_the_same_findings(orchard) -> None:
    root, _ = orchard
    assert findings(root, "oxigraph") == findings(root, "memory")


def test_the_issue_case_is_caught(tmp_path: Path) -> None:
    """A mif-base memory turned into type: procedural under _episodic/no-such-branch (issue 28's report)."""
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    path = tmp_path / "ex" / "episodic" / "incident-2025-11-webhook-backlog.md"
    text = path.read_text()
    path.write_text(
        text.replace("type: episodic", "type: procedural", 1).replace(
            "namespace: _episodic/incidents", "namespace: _episodic/incidnets", 1
        )
    )
    report = validate(load_bundle(tmp_path / "ex", progress=False), 3)
    mine = {p.rule: p for p in report.results if p.path == "episodic/incident-2025-11-webhook-backlog.md"}
    assert not report.conforms
    namespace = mine["ontology-namespace"]
    assert (namespace.key, namespace.severity.value, namespace.level) == ("namespace", "error", 2)
    assert (
        "nearest known ancestor is '_episodic'" in namespace.message
        and "did you mean '_episodic/incidents'?" in namespace.message
    )
    kind = mine["ontology-namespace-type"]
    assert (kind.key, kind.value) == ("type", "procedural") and "base type 'episodic'" in kind.message
    # level 1 has no ontology rules
    assert not {p.rule for p in validate(load_bundle(tmp_path / "ex", progress=False), 1).results} & RULES


def test_the_examples_stay_clean_under_the_ontology_rules() -> None:
    report = validate(load_bundle(EXAMPLES, progress=False), 3)
    assert not [p for p in report.results if p.rule and p.rule.startswith("ontology")]


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github", "text"])
def test_rule_ids_reach_every_report_format(tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(BOUND, tmp_path / ".mif" / "ontologies")
    write_file(
        tmp_path,
        "m/a.md",
        "---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
        "namespace: _semantic/asets\nontology: {id: orchard}\n---\nBody.\n",
    )
    assert main(["validate", str(tmp_path), "--format", fmt, "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "ontology-namespace" in out and "_semantic/assets" in out


def test_unknown_ontology_and_version_are_one_warning_each(tmp_path: Path) -> None:
    for i in range(3):
        write_file(
            tmp_path,
            f"m/g{i}.md",
            f"---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5{i}\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
            "ontology: {id: ghost, uri: 'https://example.org/ghost.yaml'}\n---\nBody.\n",
        )
        write_file(
            tmp_path,
            f"m/v{i}.md",
            f"---\nid: 1b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5{i}\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
            "ontology: {id: mif-base, version: '0.9.0'}\n---\nBody.\n",
        )
    report = validate(load_bundle(tmp_path, progress=False), 2)
    rules = [p.rule for p in report.results if p.rule and p.rule.startswith("ontology")]
    assert sorted(rules) == ["ontology-unknown", "ontology-version"]
    assert report.conforms  # warnings: the bundle still loads and validates


def test_ontology_dir_option_and_path_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--ontology-dir finds an ontology no other source has; a --path folder overrides the bundle's own."""
    user = tmp_path / "user"
    shutil.copytree(BOUND, user)
    bundle = tmp_path / "b"
    write_file(
        bundle,
        "m/a.md",
        "---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d5e\ntype: procedural\ncreated: 2026-01-15T10:30:00Z\n"
        "namespace: _procedural/pruning\nontology: {id: orchard, version: '1.1.0'}\n---\nBody.\n",
    )
    assert main(["validate", str(bundle), "--no-progress", "--format", "json"]) == 0
    assert "ontology-unknown" in capsys.readouterr().out
    assert main(["validate", str(bundle), "--no-progress", "--format", "json", "--ontology-dir", str(user)]) == 0
    assert '"rule": "ontology' not in capsys.readouterr().out
    override = tmp_path / "override"
    write_file(
        override, "orchard.ontology.yaml", 'ontology:\n  id: orchard\n  version: "1.1.0"\n  extends: [mif-base]\n'
    )
    assert (
        main(
            [
                "validate",
                str(bundle),
                "--no-progress",
                "--format",
                "json",
                "--ontology-dir",
                str(user),
                "--path",
                str(override),
            ]
        )
        == 1
    )
    assert "'_procedural/pruning' is not in the namespace tree of ontology 'orchard'" in capsys.readouterr().out


def test_edit_distance_and_suggestion() -> None:
    assert (
        edit_distance("kitten", "sitting") == 3 and edit_distance("", "abc") == 3 and edit_distance("same", "same") == 0
    )
    assert closest("incidnets", ["incidents", "sessions"]) == "incidents"
    assert closest("zzzzzzzz", ["incidents", "sessions"]) is None  # nothing near: no suggestion


# -- extended types (spec 4.2.1, 4.4) ------------------------------------------------------------------
def typed_bundle(root: Path) -> Path:
    shutil.copytree(BOUND, root / ".mif" / "ontologies")
    header = (
        "---\nid: {id}\ntype: {kind}\ncreated: 2026-01-15T10:30:00Z\nnamespace: {ns}\n"
        "ontology: {{id: orchard}}\n{extra}---\nBody.\n"
    )
    cases = {
        "asset": ("semantic", "_semantic/assets", ""),  # the node named after the type (plural)
        "deep": ("episodic", "_episodic/inspections/2026/q1", ""),  # below a typed node
        "prune": ("procedural", "_procedural/pruning", ""),  # a discovery pair of the child ontology
        "corpus-root": ("semantic", "semantic/assets", ""),  # the root written as the corpus writes it
        "ambiguous": ("semantic", "_semantic/science", ""),  # two types offered, none chosen
        "chosen": ("semantic", "_semantic/science", "entity:\n  name: S\n  entity_type: soil-sample\n"),
        "untyped": ("semantic", "_semantic/decisions", ""),  # a node that offers no type
    }
    for n, (name, (kind, ns, extra)) in enumerate(cases.items()):
        write_file(
            root,
            f"m/{name}.md",
            header.format(id=f"0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d{n:02d}", kind=kind, ns=ns, extra=extra),
        )
    return root


EXPECTED_TYPES = {
    "m/asset.md": "field-base/asset",
    "m/deep.md": "field-base/inspection",
    "m/prune.md": "orchard/pruning-guide",
    "m/corpus-root.md": "field-base/asset",
    "m/chosen.md": "field-base/soil-sample",
}


@pytest.mark.parametrize("store", STORES)
def test_extended_types_go_into_the_types_graph(tmp_path: Path, store: str) -> None:
    bundle = load_bundle(typed_bundle(tmp_path), store=store, progress=False)
    assert add_types_graph(bundle, user_dirs=[]) == len(EXPECTED_TYPES)
    types = URIRef(graph_iri(bundle.base_iri, GRAPH_TYPES))
    rows = run_query(
        bundle.dataset, f"SELECT ?path ?class WHERE {{ GRAPH <{types}> {{ ?m a ?class }} ?m mif:path ?path }}"
    )
    assert {str(path): str(cls).removeprefix(ORCHARD) for path, cls in rows} == EXPECTED_TYPES
    # never in the memory's own graph: the JSON-LD equivalence stays exact
    for record in bundle.memories.values():
        assert not any(
            str(o).startswith(ORCHARD) for o in bundle.dataset.graph(URIRef(record.iri)).objects(None, RDF.type)
        )
    # the class hierarchy is there: a query by base class needs no reasoner
    episodic = memories_of_class(bundle, "https://mif-spec.dev/ns/EpisodicType")
    assert (episodic.column("path"), episodic.column("type")) == (["m/deep.md"], [ORCHARD + "field-base/inspection"])
    assert memories_of_class(bundle, ORCHARD + "field-base/asset").column("path") == ["m/asset.md", "m/corpus-root.md"]


def test_memories_of_class_writes_the_types_graph_when_missing(tmp_path: Path) -> None:
    bundle = load_bundle(typed_bundle(tmp_path), progress=False)
    types = URIRef(graph_iri(bundle.base_iri, GRAPH_TYPES))
    assert len(bundle.dataset.graph(types)) == 0  # load_bundle alone does not write it (the CLI load does)
    assert memories_of_class(bundle, ORCHARD + "orchard/pruning-guide").column("path") == ["m/prune.md"]
    assert len(bundle.dataset.graph(types)) > 0


def test_the_mapping_rule_on_its_ambiguous_cases() -> None:
    bound = bundle_ontologies(BOUND, [OntologyReference("x.md", "orchard")], user_dirs=[], path_dirs=[BOUND])
    types = TypeMap.of(bound.view("orchard"))
    assert [e.name for e in types.offers["_semantic/science"]] == ["soil-sample", "yield-model"]
    assert types.type_of("_semantic/science") is None  # two offered: none guessed
    assert types.type_of("_semantic/science", "yield-model").name == "yield-model"  # the payload chooses
    assert types.type_of("_semantic/science", "asset") is None  # a payload type not offered there chooses nothing
    assert types.type_of("_semantic/decisions") is None and types.type_of("acme/team") is None
    assert types.type_of("_episodic/inspections/x").name == "inspection"


def test_query_cli_sees_the_types(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = typed_bundle(tmp_path)
    query = f"SELECT ?m WHERE {{ ?m a <{ORCHARD}field-base/inspection> }}"
    assert main(["query", str(root), query, "--format", "csv", "--no-progress"]) == 0
    out = capsys.readouterr().out.split()
    assert out == ["m", "urn:mif:0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d01"]


def test_export_carries_the_types_graph(tmp_path: Path) -> None:
    root = typed_bundle(tmp_path / "b")
    target = tmp_path / "out.trig"
    assert main(["export", str(root), "--format", "trig", "-o", str(target), "--no-progress"]) == 0
    assert f"{ORCHARD}field-base/inspection" in target.read_text() and "#types" in target.read_text()


@pytest.mark.parametrize("store", STORES)
def test_retargeted_entity_shapes_give_what_the_sparql_targets_give(orchard, store: str) -> None:
    """The entity schema report (targets resolved once on the payload graphs) equals pyshacl's SHACL-AF run
    of the compiled shapes over the whole dataset, as `validate --ontology` ran them before."""
    from mif_rdf.validation.entity_schemas import entity_schema_report
    from mif_rdf.validation.ontology_rules import ontology_binding
    from mif_rdf.validation.run import shacl_problems, shacl_report

    root, _ = orchard
    bundle = load_bundle(root, store=store, progress=False)
    bound = ontology_binding(bundle, 3, [], [], [])
    report, shapes = entity_schema_report(bound, bundle)
    fast = sorted(str(p) for p in shacl_problems(bundle, report, 3, shapes))
    whole = sorted(str(p) for p in shacl_problems(bundle, shacl_report(bundle.dataset, shapes, "pyshacl"), 3, shapes))
    assert fast == whole and len(fast) >= 3


def test_generated_bundles_can_carry_an_ontology_their_memories_name(tmp_path: Path) -> None:
    from synthetic import SYNTHETIC_ONTOLOGY_ID, generate_bundle

    generate_bundle(tmp_path, 120, seed=3, ontologies=True)
    assert (tmp_path / ".mif" / "ontologies" / f"{SYNTHETIC_ONTOLOGY_ID}.ontology.yaml").is_file()
    report = validate(load_bundle(tmp_path, progress=False), 3)
    rules = {p.rule for p in report.results}
    assert "ontology-unknown" not in rules and {"ontology-namespace", "ontology-entity-schema"} <= rules
    without = validate(load_bundle(tmp_path, progress=False), 3, memory_ontologies=False)
    assert not {p.rule for p in without.results} & RULES


def test_reasoning_puts_the_named_ontologies_into_the_ontology_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    from mif_rdf.reasoning import infer
    from mif_rdf.source.identity import GRAPH_ONTOLOGY

    monkeypatch.setenv("MIF_RDF_ONTOLOGY_PATH", str(BOUND))  # the user folder, as a user sets it
    bundle = load_bundle(FIXTURES / "ontology" / "typed", progress=False)
    infer(bundle)
    ontology = bundle.dataset.graph(URIRef(graph_iri(bundle.base_iri, GRAPH_ONTOLOGY)))
    classes = set(ontology.subjects(RDF.type, URIRef("http://www.w3.org/2002/07/owl#Class")))
    assert {URIRef(ORCHARD + "orchard/pruning-guide"), URIRef(ORCHARD + "field-base/asset")} <= classes


NESTED = """ontology:
  id: nested
  version: "1.0.0"
  extends: [mif-base]
entity_types:
  - name: machine
    base: semantic
    schema:
      required: [name, spec]
      properties:
        name: {type: string}
        spec:
          type: object
          required: [power]
          properties:
            power: {type: integer}
"""


@pytest.mark.parametrize("nested", [False, True])
def test_the_engine_path_and_the_pyshacl_path_agree_with_the_whole_run(tmp_path: Path, nested: bool) -> None:
    """Plain (mif:entity field) rules run on mif-rdf's engine; a nested field's longer path sends them to pyshacl."""
    from rdflib.namespace import SH

    from mif_rdf.validation import entity_schemas
    from mif_rdf.validation.ontology_rules import ontology_binding
    from mif_rdf.validation.run import shacl_problems, shacl_report

    if nested:
        write_file(tmp_path, ".mif/ontologies/nested.ontology.yaml", NESTED)
        payloads = [
            "entity: {name: M1, entity_type: machine, spec: {power: 'high'}}",
            "entity: {name: M2, entity_type: machine}",
            "entity: {name: M3, entity_type: machine, spec: {power: 7}}",
        ]
        ontology = "nested"
    else:
        shutil.copytree(BOUND, tmp_path / ".mif" / "ontologies")
        payloads = [
            "entity: {name: A1, entity_type: asset, serial: S1, status: lost}",
            "entity: {name: A2, entity_type: asset}",
            "entity: {name: A3, entity_type: asset, serial: S3, hours: many}",
        ]
        ontology = "orchard"
    for n, payload in enumerate(payloads):
        write_file(
            tmp_path,
            f"m/{n}.md",
            f"---\nid: 0b5c2d1e-3f4a-4b6c-8d9e-0f1a2b3c4d{n:02d}\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
            f"ontology: {{id: {ontology}}}\n{payload}\n---\nBody.\n",
        )
    bundle = load_bundle(tmp_path, progress=False)
    bound = ontology_binding(bundle, 3, [], [], [])
    shapes = bound.compilation.shapes
    data = entity_schemas.payload_graph(bundle, {"asset", "machine"})
    focus = {
        s: [r[0] for r in data.query(str(shapes.value(t, SH.select)))] for s, t in shapes.subject_objects(SH.target)
    }
    assert (entity_schemas._on_payload_nodes(shapes, data, focus) is None) == nested
    report, _ = entity_schemas.entity_schema_report(bound, bundle)
    got = sorted(str(p) for p in shacl_problems(bundle, report, 3, shapes))
    assert got == sorted(
        str(p) for p in shacl_problems(bundle, shacl_report(bundle.dataset, shapes, "pyshacl"), 3, shapes)
    )
    assert len(got) >= 2 and all(p.startswith("m/") for p in got)  # a wrong type, a missing field (and a wrong enum)


def test_serve_keeps_the_types_graph_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyoxigraph as ox

    from mif_rdf.serve.served import ServedBundle

    monkeypatch.setenv("MIF_RDF_ONTOLOGY_PATH", str(BOUND))
    root = tmp_path / "typed"
    shutil.copytree(FIXTURES / "ontology" / "typed", root)
    bundle = load_bundle(root, store="oxigraph", progress=False)
    add_types_graph(bundle)
    served = ServedBundle(bundle)
    asset = ox.NamedNode(ORCHARD + "field-base/asset")

    def typed_as_asset() -> set[str]:
        return {q.subject.value for q in served.store.quads_for_pattern(None, ox.NamedNode(str(RDF.type)), asset, None)}

    assert typed_as_asset() == {"urn:mif:9a1d2b7e-3c4f-4e5a-8b6c-7d8e9f0a1b2c"}
    path = root / "assets" / "sprayer.md"
    path.write_text(path.read_text().replace("namespace: _semantic/assets", "namespace: _semantic/decisions"))
    assert served.apply(["assets/sprayer.md"])
    assert typed_as_asset() == set()  # no longer at a node that offers a type


def test_the_streamed_export_writes_the_types_a_load_writes(tmp_path: Path) -> None:
    from rdflib import Dataset

    root = typed_bundle(tmp_path / "b")
    streamed, loaded = tmp_path / "streamed.nq", tmp_path / "loaded.nq"
    assert main(["export", str(root), "--stream", "-o", str(streamed), "--no-progress"]) == 0
    assert (
        main(["export", str(root), "--format", "nquads", "--store", "oxigraph", "-o", str(loaded), "--no-progress"])
        == 0
    )
    graphs = []
    for path in (streamed, loaded):
        dataset = Dataset()
        dataset.parse(path, format="nquads")
        graphs.append(dataset)
    types = [
        sorted(tuple(map(str, q[:3])) for q in d.quads((None, None, None, None)) if str(q[3]).endswith("#types"))
        for d in graphs
    ]
    assert types[0] == types[1] and len(types[0]) > len(EXPECTED_TYPES)  # the rdf:type triples and the class chains
