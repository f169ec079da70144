"""The namespace model (spec 10.4-10.7): agreements, namespace files and reserved prefixes read,
checked, compiled and inherited."""

from __future__ import annotations

import os
import shutil
import unicodedata
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from conftest import BUNDLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF
from mif_rdf.nsmodel import read_namespace_model
from mif_rdf.nsmodel.model import pattern_matches
from mif_rdf.queries.helpers import freshness, memories_with_tag, memory_at_uri
from mif_rdf.validation import validate

BUNDLE = BUNDLES / "namespaces"
ARCHITECTURE = "urn:mif:6a1d0f7e-0006-4c1a-9a00-000000000006"  # acme-corp/project-x/architecture
JANE = "urn:mif:6a1d0f7e-0007-4c1a-9a00-000000000007"  # acme-corp/project-x/jane-doe, own ttl P7D
TEAM = "urn:mif:6a1d0f7e-0008-4c1a-9a00-000000000008"  # acme-corp/team-frontend, own tags
IDEA = "urn:mif:6a1d0f7e-0013-4c1a-9a00-000000000013"  # _experimental/ideas, linear decay, no ttl


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(BUNDLE)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(BUNDLE, tmp_path / "b")
    return tmp_path / "b"


def test_the_fixture_model_is_read_as_written() -> None:
    model = read_namespace_model(BUNDLE)
    assert not model.problems
    by_id = {a.id: a for a in model.agreements}
    assert by_id["acme+bigcorp"].readers() == {"acme-corp", "bigcorp-inc"}
    assert by_id["cncf"].readers() == {"google", "bigcorp-inc"} and by_id["cncf"].admin == "cncf-foundation"
    assert set(model.namespaces) == {"acme-corp", "acme-corp/project-x", "acme-corp/project-x/jane-doe", "bigcorp-inc"}
    assert model.namespaces["acme-corp/project-x/jane-doe"].parent == "acme-corp/project-x"
    assert {p.name: (p.read_only, p.ttl, p.provenance_required) for p in model.prefixes.values()} == {
        "_archive": (True, None, False),
        "_experimental": (False, "P30D", False),
        "_imported": (False, None, True),
    }
    assert model.authority == "example.org" and not model.allow_system


@pytest.mark.parametrize(
    "pattern, namespace, covered",
    [
        ("_shared/cncf/*", "_shared/cncf/kubernetes/patterns", True),
        ("_shared/cncf/*", "_shared/cncf/x", True),
        ("_shared/cncf/*", "_shared/cncf", False),
        ("_shared/cncf/*", "_shared/cncfx/y", False),
        ("_shared/a+b/api", "_shared/a+b/api", True),
        ("_shared/a+b/api", "_shared/a+b/api/v2", True),
        ("_shared/a+b/api", "_shared/a+b/apiv2", False),
        ("_shared/a+b/api", "_shared/a+b", False),
        ("_shared/*/api", "_shared/x/api", True),
        ("_shared/*/api", "_shared/x/y/api", False),
        ("_shared/team-*/api", "_shared/team-a/api", True),
        ("_shared/a+b/api", "_shared/A+b/api", False),
        ("_shared/a+b/api", "_shared/a+b/api ", False),
    ],
)
def test_agreement_namespace_patterns(pattern: str, namespace: str, covered: bool) -> None:
    assert pattern_matches(pattern, namespace) is covered


def test_the_namespaces_graph_describes_agreements_namespaces_and_prefixes(bundle) -> None:
    rows = {
        tuple(str(v) for v in row)
        for row in bundle.query("""
        SELECT ?agreement ?reader WHERE { GRAPH ?g { ?a a mif:SharedAgreement ; mif:agreementId ?agreement ; mif:readAccess ?r . ?r rdfs:label ?reader } }""")  # noqa: E501
    }
    assert rows == {
        ("acme+bigcorp", "acme-corp"),
        ("acme+bigcorp", "bigcorp-inc"),
        ("cncf", "google"),
        ("cncf", "bigcorp-inc"),
    }
    parents = {
        tuple(str(v) for v in row)
        for row in bundle.query(
            "SELECT ?child ?parent WHERE { ?c mif:parentNamespace ?p . ?c mif:namespacePath ?child . ?p "
            "mif:namespacePath ?parent }"
        )
    }
    assert parents == {("acme-corp/project-x", "acme-corp"), ("acme-corp/project-x/jane-doe", "acme-corp/project-x")}
    prefixes = {
        str(r[0]): r[1]
        for r in bundle.query(
            "SELECT ?name ?required WHERE { ?p a mif:ReservedPrefix ; mif:prefixName ?name ; mif:provenanceRequired "
            "?required }"
        )
    }
    assert prefixes == {"_archive": Literal(False), "_experimental": Literal(False), "_imported": Literal(True)}
    graph = bundle.dataset.graph(URIRef(f"{bundle.base_iri}#namespaces"))
    assert (None, MIF.coversNamespace, Literal("_shared/cncf/*")) in graph


def test_inheritance_three_levels_deep_lands_in_the_inherited_graph_only(bundle) -> None:
    inherited = bundle.dataset.graph(URIRef(f"{bundle.base_iri}#inherited"))
    # architecture: tags from project-x, ttl and visibility from acme-corp (two levels up)
    assert set(inherited.objects(URIRef(ARCHITECTURE), MIF.tags)) == {Literal("project-x")}
    assert inherited.value(URIRef(ARCHITECTURE), MIF.inheritedTtl) == Literal("P365D", datatype=XSD.duration)
    assert inherited.value(URIRef(ARCHITECTURE), MIF.inheritedVisibility) == Literal("private")
    # jane-doe: the child's visibility wins over acme-corp's; her own ttl wins over the inherited one
    assert inherited.value(URIRef(JANE), MIF.inheritedVisibility) == Literal("personal")
    assert inherited.value(URIRef(JANE), MIF.inheritedTtl) is None
    # own tags win over a namespace's default tags
    assert inherited.value(URIRef(TEAM), MIF.tags) is None
    # a prefix ttl counts the same way (_experimental: ttl: P30D)
    assert inherited.value(URIRef(IDEA), MIF.inheritedTtl) == Literal("P30D", datatype=XSD.duration)
    # never in the memory's own graph
    for memory in (ARCHITECTURE, JANE, TEAM, IDEA):
        own = bundle.dataset.graph(URIRef(memory))
        assert not set(own.triples((None, MIF.inheritedTtl, None))) and not set(
            own.triples((None, MIF.inheritedVisibility, None))
        )
    assert (URIRef(ARCHITECTURE), MIF.tags, Literal("project-x")) not in bundle.dataset.graph(URIRef(ARCHITECTURE))


def test_a_tag_query_over_the_union_sees_inherited_tags(bundle) -> None:
    assert set(memories_with_tag(bundle, "project-x").column("memory")) == {ARCHITECTURE, JANE}


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_freshness_uses_the_inherited_ttl(store: str) -> None:
    table = freshness(load_bundle(BUNDLE, store=store), "2026-03-16T00:00:00Z", as_="dataframe")
    idea = table[table.memory == IDEA].iloc[0]
    assert (idea.model, idea.freshness, idea.problem) == ("linear", 0.5, None)  # 15 of P30D gone, recorded 2026-03-01


def test_validation_findings_of_the_namespace_rules(bundle) -> None:
    found = {
        (p.path, p.rule)
        for p in validate(bundle).results
        if p.rule in ("shared-agreement", "system-namespace", "provenance-required", "reserved-prefix-unknown")
    }
    assert found == {
        ("shared/uncovered.md", "shared-agreement"),
        ("system/indexer.md", "system-namespace"),
        ("imported/no-provenance.md", "provenance-required"),
        ("lookalike/capital.md", "reserved-prefix-unknown"),
        ("lookalike/cyrillic.md", "reserved-prefix-unknown"),
    }


def test_allow_system_namespace_in_the_config_allows_it(copy: Path) -> None:
    config = copy / ".mif" / "config.yaml"
    config.write_text(config.read_text() + "allow_system_namespace: true\n")
    assert not [p for p in validate(load_bundle(copy)).results if p.rule == "system-namespace"]


@pytest.mark.parametrize(
    "relpath, text, key, words",
    [
        (".mif/shared-agreements/broken.yaml", "id: [unclosed\n", None, "YAML syntax error"),
        (".mif/shared-agreements/list.yaml", "- a\n- b\n", None, "mapping"),
        (".mif/shared-agreements/noid.yaml", "namespaces: [_shared/x]\n", "id", "needs an id"),
        (
            ".mif/shared-agreements/badns.yaml",
            "id: badns\nnamespaces: [_public/x, 7]\naccess: {read: [acme-corp]}\n",
            "namespaces[0]",
            "not a _shared namespace",
        ),
        (
            ".mif/shared-agreements/badparty.yaml",
            "id: badparty\nnamespaces: [_shared/x]\nparties: [acme-corp, 'big corp']\naccess: {read: [acme-corp]}\n",
            "parties[1]",
            "not an organization name",
        ),
        (
            ".mif/shared-agreements/noread.yaml",
            "id: noread\nnamespaces: [_shared/x]\n",
            "access.read",
            "nobody may read",
        ),
        (
            ".mif/shared-agreements/bomb.yaml",
            "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
            "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
            None,
            "over the limit",
        ),
        (
            ".mif/namespaces/acme-corp/bad.yaml",
            "id: bad\ndefault_ttl: soon\ndefault_tags: oops\n",
            "default_ttl",
            "not an ISO 8601 duration",
        ),
        (".mif/namespaces/orphan/child.yaml", "id: child\n", "parent", "has no namespace file"),
    ],
)
def test_a_bad_model_file_is_a_problem_naming_file_and_key_and_the_rest_loads(
    copy: Path, relpath: str, text: str, key: str | None, words: str
) -> None:
    write_file(copy, relpath, text)
    loaded = load_bundle(copy)
    mine = [p for p in loaded.problems if p.path == relpath]
    assert any(words in p.message and (key is None or p.key == key) for p in mine), [str(p) for p in loaded.problems]
    assert len(loaded.memories) == 23
    assert {a.id for a in read_namespace_model(copy).agreements} >= {"acme+bigcorp", "cncf"}


def test_bad_reserved_prefixes_are_problems_and_fail_safe(copy: Path) -> None:
    config = copy / ".mif" / "config.yaml"
    config.write_text(
        config.read_text()
        .replace("    access: read-only", "    access: sometimes")
        .replace("provenance_required: true", "provenance_required: maybe")
        + "  _local:\n    access: read-write\n  Bad:\n    ttl: P1D\n"
    )
    model = read_namespace_model(copy)
    problems = {(p.key, p.rule) for p in model.problems}
    assert {
        ("reserved_prefixes._archive.access", "reserved-prefix"),
        ("reserved_prefixes._imported.provenance_required", "reserved-prefix"),
        ("reserved_prefixes._local", "reserved-prefix"),
        ("reserved_prefixes.Bad", "reserved-prefix"),
    } <= problems
    assert (
        model.prefixes["_archive"].read_only and model.prefixes["_imported"].provenance_required
    )  # the safer readings
    assert "_local" not in model.prefixes


def test_a_symlinked_agreement_pointing_outside_is_not_read(copy: Path, tmp_path: Path) -> None:
    outside = write_file(
        tmp_path, "outside.yaml", "id: evil\nnamespaces: ['_shared/acme+bigcorp/*']\naccess: {read: [google]}\n"
    )
    os.symlink(outside, copy / ".mif" / "shared-agreements" / "evil.yaml")
    model = read_namespace_model(copy)
    assert "evil" not in {a.id for a in model.agreements}
    assert any(p.path == ".mif/shared-agreements/evil.yaml" and "outside" in p.message for p in model.problems)


def test_a_broken_agreement_grants_nothing(copy: Path, capsys) -> None:
    """Break the bilateral agreement's YAML: its _shared memories go to nobody,
    and the load says which file is wrong."""
    (copy / ".mif" / "shared-agreements" / "acme+bigcorp.yaml").write_text("id: acme+bigcorp\nnamespaces: [\n")
    out = copy.parent / "out.nq"
    assert main(["export", str(copy), "--audience", "bigcorp-inc", "-o", str(out)]) == 1
    text = out.read_text()
    assert "6a1d0f7e-0002" not in text and "6a1d0f7e-0004" in text  # the bilateral one is gone, cncf's still reads
    assert ".mif/shared-agreements/acme+bigcorp.yaml" in capsys.readouterr().err


def test_a_warm_cached_load_sees_a_changed_agreement(copy: Path, tmp_path: Path) -> None:
    first = load_bundle(copy, cache=tmp_path / "cache")
    assert len(first.dataset.graph(URIRef(f"{first.base_iri}#namespaces")))
    (copy / ".mif" / "shared-agreements" / "cncf.yaml").unlink()
    again = load_bundle(copy, cache=tmp_path / "cache")
    assert again.cache is not None and again.cache.state == "warm"
    ids = {str(o) for o in again.dataset.graph(URIRef(f"{again.base_iri}#namespaces")).objects(None, MIF.agreementId)}
    assert ids == {"acme+bigcorp"}


def test_a_reload_brings_the_inherited_graph_up_to_date(copy: Path) -> None:
    loaded = load_bundle(copy)
    path = copy / "acme" / "team-notes.md"
    path.write_text(path.read_text().replace("tags: [frontend]\n", ""))
    loaded.reload("acme/team-notes.md")
    inherited = loaded.dataset.graph(URIRef(f"{loaded.base_iri}#inherited"))
    assert inherited.value(URIRef(TEAM), MIF.inheritedTtl) == Literal("P365D", datatype=XSD.duration)


def test_convert_to_markdown_never_writes_into_or_over_a_read_only_prefix(copy: Path, tmp_path: Path, capsys) -> None:
    """_archive is read-only (spec 10.5): converting over the bundle leaves archived files
    byte for byte and writes the rest."""
    assert main(["convert", "to-jsonld", str(copy), "-o", str(tmp_path / "docs")]) in (0, 1)
    archived = copy / "archive" / "old-decision.md"
    before = archived.read_bytes()
    doc = tmp_path / "docs" / "archive" / "old-decision.jsonld"
    doc.write_text(doc.read_text().replace("An archived decision", "Rewritten"))
    public = tmp_path / "docs" / "public" / "async-patterns.jsonld"
    public.write_text(public.read_text().replace("Async patterns", "Async patterns, revised"))
    assert main(["convert", "to-markdown", str(tmp_path / "docs"), "-o", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "archive/old-decision.md" in err and "read-only" in err
    assert archived.read_bytes() == before
    assert "Async patterns, revised" in (copy / "public" / "async-patterns.md").read_text()
    # a new memory whose namespace is under _archive is refused too
    write_file(tmp_path, "new/x.md", memory_text("6a1d0f7e-0099-4c1a-9a00-000000000099", "namespace: _archive/new\n"))
    from mif_rdf.output.writeback import write_files

    problems = write_files(copy, {"new/x.md": (tmp_path / "new" / "x.md").read_text()}, ".md")
    assert [p.rule for p in problems] == ["read-only"] and not (copy / "new" / "x.md").exists()


def test_namespace_model_vocabulary_is_declared(bundle) -> None:
    from mif_rdf.ontology import vocabulary

    known = {s for s in vocabulary().subjects(RDF.type, None)}
    used = set()
    for name in ("namespaces", "inherited"):
        for _s, p, o in bundle.dataset.graph(URIRef(f"{bundle.base_iri}#{name}")):
            used.add(p)
            if p == RDF.type:
                used.add(o)
    missing = sorted(str(t) for t in used if str(t).startswith(str(MIF)) and t not in known)
    assert not missing, missing


# -- namespace URIs (spec 10.6, 19.2) ------------------------------------------------------
@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_every_memory_with_a_namespace_has_its_namespace_uri_and_helpers_find_it(store: str) -> None:
    loaded = load_bundle(BUNDLE, store=store)
    links = loaded.links
    for record in loaded.memories.values():
        uris = set(links.objects(URIRef(record.iri), MIF.namespaceUri))
        namespace = record.frontmatter.get("namespace")
        if namespace is None or " " in namespace or unicodedata.normalize("NFKC", namespace) != namespace:
            assert not uris  # no namespace, or one no identifier may be made from (a space, a full-width underscore)
            continue
        assert len(uris) == 1
        uri = str(next(iter(uris)))
        if namespace.isascii() and " " not in namespace:
            assert uri == f"mif://example.org/{namespace}/{record.id}"  # authority from .mif/config.yaml
        found = memory_at_uri(loaded, uri)
        assert found.column("memory") == [record.iri] and found.column("path") == [record.relpath]


def test_namespace_uri_authority_defaults(tmp_path: Path) -> None:
    write_file(
        tmp_path / "a", "x.md", memory_text("6a1d0f7e-0100-4c1a-9a00-000000000100", "namespace: _semantic/facts\n")
    )
    write_file(
        tmp_path / "b", "x.md", memory_text("6a1d0f7e-0100-4c1a-9a00-000000000100", "namespace: _semantic/facts\n")
    )
    write_file(tmp_path / "b", ".mif/config.yaml", "bundle_id: team-notes\n")
    write_file(
        tmp_path / "c", "x.md", memory_text("6a1d0f7e-0100-4c1a-9a00-000000000100", "namespace: _semantic/facts\n")
    )
    write_file(tmp_path / "c", ".mif/config.yaml", "authority: 'not a host'\n")
    for folder, authority in (("a", "local"), ("b", "team-notes"), ("c", "local")):
        loaded = load_bundle(tmp_path / folder)
        assert set(loaded.links.objects(None, MIF.namespaceUri)) == {
            URIRef(f"mif://{authority}/_semantic/facts/6a1d0f7e-0100-4c1a-9a00-000000000100")
        }
    assert any(p.key == "authority" and p.rule == "authority" for p in load_bundle(tmp_path / "c").problems)


def test_the_python_example_of_namespaces_md_runs_from_the_repository_root(monkeypatch, capsys) -> None:
    import re

    from conftest import REPO

    text = (REPO / "docs" / "namespaces.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert blocks
    monkeypatch.chdir(REPO)
    for block in blocks:
        exec(compile(block, "docs/namespaces.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[1:] == ["['acme/architecture.md', 'acme/jane-preferences.md']", "0.5"]
