"""DESIGN 7: every file-level problem is a record, and a bad file never stops the rest.

Each test builds a small bundle with one good memory plus one bad file, loads
it with :func:`mif_rdf.load_bundle`, and checks that the good memory is loaded
and that exactly the expected :class:`~mif_rdf.Problem` was recorded (path,
key, line when known, severity, a message that names the issue).  Line numbers
are lines of the *file*: the opening ``---`` is line 1.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef

import mif_rdf
from conftest import EXAMPLES, FIXTURE_BUNDLES, isomorphic, memory_text, write_file
from mif_rdf import Bundle, Problem, Severity

GOOD = "11111111-1111-4111-8111-111111111111"
OTHER = "22222222-2222-4222-8222-222222222222"
THIRD = "33333333-3333-4333-8333-333333333333"
CREATED = "created: 2026-01-15T10:30:00Z\n"


# -- helpers -------------------------------------------------------------------------
def load_with(root: Path, files: dict[str, str | bytes]) -> Bundle:
    """A bundle of ``good.md`` plus ``files``, loaded; the good memory must have come through."""
    write_file(root, "good.md", memory_text(GOOD, "title: Good memory\n"))
    for relpath, text in files.items():
        write_file(root, relpath, text)
    bundle = mif_rdf.load_bundle(root)
    assert_good_loaded(bundle)
    return bundle


def assert_good_loaded(bundle: Bundle) -> None:
    assert GOOD in bundle.memories, [str(p) for p in bundle.problems]
    assert bundle.memories[GOOD].relpath == "good.md"
    graph = bundle.graph(GOOD)
    assert len(graph) > 0
    assert (URIRef(f"urn:mif:{GOOD}"), None, Literal("Good memory")) in graph
    assert not bundle.problems.for_path("good.md"), "the good file must have no problems"


def the_problem(bundle: Bundle) -> Problem:
    """The single problem of the bundle (the good memory has none)."""
    problems = list(bundle.problems)
    assert len(problems) == 1, [str(p) for p in problems]
    problem = problems[0]
    assert isinstance(problem, Problem)
    assert isinstance(problem.severity, Severity)
    return problem


def graph_names(bundle: Bundle) -> set[str]:
    return {str(g.identifier) for g in bundle.dataset.graphs() if len(g)}


# -- frontmatter and YAML --------------------------------------------------------------
def test_no_frontmatter_is_an_error_and_the_rest_loads(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"notes/bad.md": "# Just a heading\n\nNo frontmatter here.\n"})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line, problem.key) == ("notes/bad.md", Severity.ERROR, 1, None)
    assert "frontmatter" in problem.message and "---" in problem.message
    assert set(bundle.memories) == {GOOD}


def test_frontmatter_not_closed(tmp_path: Path) -> None:
    bundle = load_with(
        tmp_path, {"bad.md": f"---\nid: {OTHER}\ntype: semantic\n{CREATED}\nBody without a closing line.\n"}
    )
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line) == ("bad.md", Severity.ERROR, 1)
    assert "not closed" in problem.message
    assert OTHER not in bundle.memories


@pytest.mark.parametrize(
    ("yaml_lines", "bad_line", "words"),
    [
        # line 5 of the file: a key indented under a scalar value
        (["title: Fine", "  oops: indented under a scalar", "tags: [a]"], 6, "mapping values"),
        # line 5 of the file: a tab used for indentation
        (["title: Fine", "\tcolour: blue"], 6, "tab"),
    ],
    ids=["mapping-values", "tab"],
)
def test_yaml_syntax_error_points_at_the_bad_line_of_the_file(
    tmp_path: Path, yaml_lines: list[str], bad_line: int, words: str
) -> None:
    # file lines: 1 '---', 2 id, 3 type, 4 created, 5 title, 6 the bad line
    text = f"---\nid: {OTHER}\ntype: semantic\n{CREATED}" + "\n".join(yaml_lines) + "\n---\nBody.\n"
    assert text.splitlines()[bad_line - 1] == yaml_lines[1]  # the test's own arithmetic
    bundle = load_with(tmp_path, {"bad.md": text})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line) == ("bad.md", Severity.ERROR, bad_line)
    assert "YAML" in problem.message and words in problem.message
    assert OTHER not in bundle.memories


def test_yaml_list_instead_of_mapping(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": "---\n- id\n- type\n---\nBody.\n"})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity) == ("bad.md", Severity.ERROR)
    assert problem.line == 2  # the YAML starts on the line after '---'
    assert "mapping" in problem.message and "list" in problem.message
    assert len(bundle.memories) == 1


def test_duplicate_yaml_key_warns_and_the_later_value_wins(tmp_path: Path) -> None:
    # file lines: 1 '---', 2 id, 3 type, 4 created, 5 title, 6 tags, 7 title again
    text = memory_text(OTHER, "title: First\ntags: [a]\ntitle: Second\n")
    assert text.splitlines()[4] == "title: First" and text.splitlines()[6] == "title: Second"
    bundle = load_with(tmp_path, {"bad.md": text})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key, problem.line) == ("bad.md", Severity.WARNING, "title", 7)
    assert "duplicate" in problem.message and "'title'" in problem.message
    record = bundle.memories[OTHER]
    assert record.frontmatter["title"] == "Second"
    titles = {str(o) for o in bundle.graph(OTHER).objects() if isinstance(o, Literal)}
    assert "Second" in titles and "First" not in titles


def test_duplicate_yaml_key_message_names_both_file_lines(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": memory_text(OTHER, "title: First\ntags: [a]\ntitle: Second\n")})
    problem = the_problem(bundle)
    assert problem.line == 7
    assert "line 5" in problem.message, problem.message


# -- required keys, id and type ------------------------------------------------------
def test_missing_id_is_an_error_and_the_file_is_not_loaded(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": f"---\ntype: semantic\n{CREATED}title: No id\n---\nBody.\n"})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key) == ("bad.md", Severity.ERROR, "id")
    assert "'id'" in problem.message and "missing" in problem.message and "not loaded" in problem.message
    assert set(bundle.memories) == {GOOD}
    assert graph_names(bundle) - {f"urn:mif:{GOOD}", bundle.links_graph_iri, bundle.layout_graph_iri} == set()


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("type", f"---\nid: {OTHER}\n{CREATED}title: No type\n---\nBody.\n"),
        ("created", f"---\nid: {OTHER}\ntype: semantic\ntitle: No created\n---\nBody.\n"),
    ],
)
def test_missing_type_or_created_is_an_error_but_the_file_loads(tmp_path: Path, key: str, text: str) -> None:
    bundle = load_with(tmp_path, {"bad.md": text})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key) == ("bad.md", Severity.ERROR, key)
    assert f"'{key}'" in problem.message and "missing" in problem.message
    assert OTHER in bundle.memories
    assert len(bundle.graph(OTHER)) > 0


def test_type_that_is_not_a_base_type(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": memory_text(OTHER, kind="opinion")})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key, problem.value) == ("bad.md", Severity.ERROR, "type", "opinion")
    assert "'opinion'" in problem.message and "base type" in problem.message
    assert all(kind in problem.message for kind in ("semantic", "episodic", "procedural"))
    assert OTHER in bundle.memories  # loaded, with the error recorded


def test_id_with_a_space_is_not_loaded(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": memory_text("my memory")})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key, problem.value) == ("bad.md", Severity.ERROR, "id", "my memory")
    assert "IRI" in problem.message and "not loaded" in problem.message
    assert set(bundle.memories) == {GOOD}
    assert "urn:mif:my memory" not in graph_names(bundle)


def test_non_uuid_id_is_a_warning_and_loads(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bad.md": memory_text("decision-use-postgres")})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key) == ("bad.md", Severity.WARNING, "id")
    assert "UUID" in problem.message and "decision-use-postgres" in problem.message
    assert "decision-use-postgres" in bundle.memories
    assert len(bundle.graph("decision-use-postgres")) > 0


# -- bytes: encoding, BOM, line endings, empty -----------------------------------------
def test_non_utf8_bytes_are_an_error_with_the_line(tmp_path: Path) -> None:
    data = f"---\nid: {OTHER}\ntype: semantic\n{CREATED}title: Caf".encode() + b"\xe9\n---\nBody.\n"
    bundle = load_with(tmp_path, {"latin1.md": data})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line) == ("latin1.md", Severity.ERROR, 5)
    assert "UTF-8" in problem.message
    assert OTHER not in bundle.memories


def test_bom_is_a_note_and_the_body_has_no_bom(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"bom.md": "\ufeff" + memory_text(OTHER, "title: With BOM\n", body="Body text.\n")})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity) == ("bom.md", Severity.INFO)
    assert "byte-order mark" in problem.message
    record = bundle.memories[OTHER]
    assert record.body == "Body text.\n"
    assert record.frontmatter["id"] == OTHER and "\ufeffid" not in record.frontmatter
    literals = [str(o) for o in bundle.graph(OTHER).objects() if isinstance(o, Literal)]
    assert "Body text.\n" in literals and not any("\ufeff" in text for text in literals)


def test_crlf_line_endings_load_and_the_body_keeps_them(tmp_path: Path) -> None:
    body = "# Heading\r\n\r\nLine one.\r\nLine two.\r\n"
    text = (
        f"---\r\nid: {OTHER}\r\ntype: semantic\r\ncreated: 2026-01-15T10:30:00Z\r\ntitle: Windows file\r\n---\r\n{body}"
    )
    write_file(tmp_path, "crlf.md", text)
    assert (tmp_path / "crlf.md").read_bytes().count(b"\r\n") == 10  # written byte for byte
    bundle = load_with(tmp_path, {})
    assert list(bundle.problems) == []
    record = bundle.memories[OTHER]
    assert record.body == body
    assert record.frontmatter["title"] == "Windows file"
    assert Literal(body) in set(bundle.graph(OTHER).objects())


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {"empty.md": ""})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line) == ("empty.md", Severity.ERROR, 1)
    assert "frontmatter" in problem.message
    assert set(bundle.memories) == {GOOD}


# -- duplicate ids ------------------------------------------------------------------
def test_duplicate_id_second_file_is_not_loaded_and_names_the_first(tmp_path: Path) -> None:
    bundle = load_with(
        tmp_path,
        {
            "notes/alpha.md": memory_text(OTHER, "title: Alpha\n"),
            "notes/beta.md": memory_text(OTHER, "title: Beta\n"),
        },
    )
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key) == ("notes/beta.md", Severity.ERROR, "id")
    assert "duplicate" in problem.message and OTHER in problem.message and "notes/alpha.md" in problem.message
    assert bundle.memories[OTHER].relpath == "notes/alpha.md"
    titles = {str(o) for o in bundle.graph(OTHER).objects() if isinstance(o, Literal)}
    assert "Alpha" in titles and "Beta" not in titles


def test_duplicate_id_first_in_sorted_path_order_wins_across_folders(tmp_path: Path) -> None:
    bundle = load_with(
        tmp_path,
        {"a/x.md": memory_text(OTHER, "title: In a folder\n"), "b.md": memory_text(OTHER, "title: At the root\n")},
    )
    assert sorted(["a/x.md", "b.md"]) == ["a/x.md", "b.md"]
    problem = the_problem(bundle)
    assert problem.path == "b.md" and "a/x.md" in problem.message
    assert bundle.memories[OTHER].relpath == "a/x.md"


# -- discovery ------------------------------------------------------------------------
def test_index_and_log_are_not_concepts_at_any_depth(tmp_path: Path) -> None:
    not_concepts = "# Index\n\nNo frontmatter: would be an error if it were read.\n"
    bundle = load_with(
        tmp_path,
        {
            "index.md": not_concepts,
            "log.md": not_concepts,
            "sub/index.md": not_concepts,
            "sub/deep/log.md": not_concepts,
            "sub/deep/index.md": not_concepts,
            "sub/deep/real.md": memory_text(OTHER, "title: Deep\n"),
        },
    )
    assert list(bundle.problems) == []
    assert {m.relpath for m in bundle.memories.values()} == {"good.md", "sub/deep/real.md"}


def test_hidden_folders_and_files_are_skipped(tmp_path: Path) -> None:
    bundle = load_with(
        tmp_path,
        {
            ".obsidian/workspace.md": "not a memory",
            ".trash/old.md": memory_text(OTHER, "title: Trashed\n"),
            "sub/.git/deep/x.md": memory_text(THIRD, "title: In git\n"),
            ".hidden.md": "not a memory either",
        },
    )
    assert list(bundle.problems) == []
    assert set(bundle.memories) == {GOOD}


def test_symlink_to_a_file_outside_the_bundle_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    outside = write_file(tmp_path, "outside/secret.md", memory_text(OTHER, "title: Outside\n"))
    root.mkdir()
    os.symlink(outside, root / "link.md")
    bundle = load_with(root, {})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity) == ("link.md", Severity.WARNING)
    assert "symlink" in problem.message and "outside" in problem.message
    assert OTHER not in bundle.memories
    assert not any(Literal("Outside") == o for o in bundle.dataset.objects())


def test_symlinked_folder_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    write_file(tmp_path, "elsewhere/m.md", memory_text(OTHER, "title: Elsewhere\n"))
    root.mkdir()
    os.symlink(tmp_path / "elsewhere", root / "linked", target_is_directory=True)
    bundle = load_with(root, {})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity) == ("linked", Severity.WARNING)
    assert "symlink" in problem.message
    assert OTHER not in bundle.memories


def test_legacy_bundle_gives_warnings_and_loads() -> None:
    check_legacy_bundle_gives_warnings_and_loads(FIXTURE_BUNDLES["legacy-0.1"], "pick-logger")


def check_legacy_bundle_gives_warnings_and_loads(root: Path, memory_id: str) -> None:
    """A MIF 0.1 draft memory loads, with warnings only, all on its file: the slug id and the .memory.md name."""
    filename = f"{memory_id}.memory.md"
    assert (root / filename).is_file()
    bundle = mif_rdf.load_bundle(root)
    assert set(bundle.memories) == {memory_id}
    assert len(bundle.graph(memory_id)) > 0
    problems = list(bundle.problems)
    assert problems and all(p.severity == Severity.WARNING for p in problems), [str(p) for p in problems]
    assert all(p.path == filename for p in problems)
    assert any(p.key == "id" and "UUID" in p.message for p in problems)
    assert any(".memory.md" in p.message for p in problems)


# -- relationships and entities -----------------------------------------------------
def test_broken_relationship_target_is_a_warning_with_its_key_path(tmp_path: Path) -> None:
    relationships = (
        "relationships:\n"
        "  - type: relates-to\n    target: /good.md\n"
        "  - type: supersedes\n    target: /gone/retired.md\n"
    )
    bundle = load_with(tmp_path, {"linker.md": memory_text(OTHER, relationships)})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.key) == ("linker.md", Severity.WARNING, "relationships[1].target")
    assert problem.value == "/gone/retired.md"
    assert "/gone/retired.md" in problem.message and "broken link" in problem.message
    assert OTHER in bundle.memories
    # the resolvable one became a direct edge in the links graph
    edges = {(str(s), str(o)) for s, p, o in bundle.links if isinstance(o, URIRef) and str(o).startswith("urn:mif:")}
    assert (f"urn:mif:{OTHER}", f"urn:mif:{GOOD}") in edges


def test_entity_files_bad_ones_are_errors_good_ones_are_graphs(tmp_path: Path) -> None:
    bundle = load_with(
        tmp_path,
        {
            ".mif/entities/person/ann.yaml": "id: ann-lee\ntype: Person\nname: Ann Lee\n",
            ".mif/entities/service/api.yaml": "id: payments-api\ntype: SoftwareService\nname: Payments API\n",
            ".mif/entities/person/no-id.yaml": "type: Person\nname: Nobody\n",
            ".mif/entities/person/no-type.yaml": "id: no-type\nname: Typeless\n",
        },
    )
    problems = sorted(bundle.problems, key=lambda p: p.path)
    assert [(p.path, p.severity, p.key) for p in problems] == [
        (".mif/entities/person/no-id.yaml", Severity.ERROR, "id"),
        (".mif/entities/person/no-type.yaml", Severity.ERROR, "type"),
    ]
    assert all("not loaded" in p.message for p in problems)
    assert set(bundle.entities) == {"urn:mif:entity:person:ann-lee", "urn:mif:entity:softwareservice:payments-api"}
    names = graph_names(bundle)
    for iri, name in [
        ("urn:mif:entity:person:ann-lee", "Ann Lee"),
        ("urn:mif:entity:softwareservice:payments-api", "Payments API"),
    ]:
        assert iri in names
        assert Literal(name) in set(bundle.dataset.graph(URIRef(iri)).objects())
    assert not any("no-type" in n or "nobody" in n.lower() for n in names)


def test_entity_yaml_syntax_error_line_counts_from_the_first_line(tmp_path: Path) -> None:
    bundle = load_with(tmp_path, {".mif/entities/person/bad.yaml": "id: bad\ntype: Person\nname: Bad\n  nick: oops\n"})
    problem = the_problem(bundle)
    assert (problem.path, problem.severity, problem.line) == (".mif/entities/person/bad.yaml", Severity.ERROR, 4)
    assert bundle.entities == {}


def test_many_bad_files_at_once_never_stop_the_good_one(tmp_path: Path) -> None:
    bad = {
        "a.md": "no frontmatter\n",
        "b.md": "---\nid: x\n",
        "c.md": "---\n[unclosed\n---\n",
        "d.md": b"---\nid: \xff\n---\n",
        "e.md": memory_text("bad id"),
        "f.md": "",
        "g.md": "---\n- 1\n---\n",
    }
    bundle = load_with(tmp_path, bad)
    assert set(bundle.memories) == {GOOD}
    for relpath in bad:
        found = bundle.problems.for_path(relpath)
        assert found and all(p.severity == Severity.ERROR for p in found), relpath
    assert bundle.problems.has_errors
    assert str(bundle.problems.for_path("d.md")[0]).startswith("d.md:2: error: ")


# -- Bundle.reload ------------------------------------------------------------------
def _snapshot(bundle: Bundle) -> dict[str, Graph]:
    out: dict[str, Graph] = {}
    for graph in bundle.dataset.graphs():
        copy = Graph()
        for triple in graph:
            copy.add(triple)
        if len(copy):
            out[str(graph.identifier)] = copy
    return out


def _three(root: Path) -> Bundle:
    write_file(
        root, "a.md", memory_text(GOOD, "title: Alpha\nrelationships:\n  - type: relates-to\n    target: /b.md\n")
    )
    write_file(root, "b.md", memory_text(OTHER, "title: Beta\n"))
    write_file(root, "sub/c.md", memory_text(THIRD, "title: Gamma\n"))
    bundle = mif_rdf.load_bundle(root)
    assert list(bundle.problems) == [] and len(bundle.memories) == 3
    return bundle


def test_reload_replaces_only_the_changed_memory_graph(tmp_path: Path) -> None:
    bundle = _three(tmp_path)
    before = _snapshot(bundle)
    b_iri = f"urn:mif:{OTHER}"
    assert Literal("Beta") in set(before[b_iri].objects())
    write_file(tmp_path, "b.md", memory_text(OTHER, "title: Beta, revised\n"))
    bundle.reload("b.md")
    after = _snapshot(bundle)
    assert set(after) == set(before)
    for name, graph in before.items():
        if name not in (b_iri, bundle.layout_graph_iri):  # the layout graph holds b's frontmatter too
            assert isomorphic(graph, after[name]), f"graph {name} changed although only b.md was edited"
    changed = set(after[bundle.layout_graph_iri]) - set(before[bundle.layout_graph_iri])
    assert {str(s) for s, _, _ in changed} == {b_iri}
    assert not isomorphic(before[b_iri], after[b_iri])
    objects = set(after[b_iri].objects())
    assert Literal("Beta, revised") in objects and Literal("Beta") not in objects
    assert bundle.memories[OTHER].frontmatter["title"] == "Beta, revised"
    assert list(bundle.problems) == []


def test_reload_of_a_deleted_file_removes_its_graph(tmp_path: Path) -> None:
    bundle = _three(tmp_path)
    before = _snapshot(bundle)
    (tmp_path / "b.md").unlink()
    bundle.reload("b.md")
    after = _snapshot(bundle)
    assert OTHER not in bundle.memories
    assert f"urn:mif:{OTHER}" not in after
    assert len(bundle.dataset.graph(URIRef(f"urn:mif:{OTHER}"))) == 0
    for name in (f"urn:mif:{GOOD}", f"urn:mif:{THIRD}"):
        assert isomorphic(before[name], after[name])
    assert not any(str(o) == f"urn:mif:{OTHER}" or str(s) == f"urn:mif:{OTHER}" for s, _, o in bundle.links)
    # a.md's target is now broken, and says so
    [problem] = list(bundle.problems)
    assert (problem.path, problem.severity, problem.key) == ("a.md", Severity.WARNING, "relationships[0].target")


def test_reload_clears_the_old_problems_of_that_file(tmp_path: Path) -> None:
    bundle = _three(tmp_path)
    write_file(tmp_path, "b.md", "broken: no frontmatter\n")
    bundle.reload("b.md")
    assert [(p.path, p.severity) for p in bundle.problems] == [("b.md", Severity.ERROR), ("a.md", Severity.WARNING)]
    assert OTHER not in bundle.memories
    write_file(tmp_path, "b.md", memory_text(OTHER, "title: Beta again\n"))
    bundle.reload("b.md")
    assert list(bundle.problems) == []
    assert Literal("Beta again") in set(bundle.graph(OTHER).objects())
    # a new file is picked up by reload too, with its own problems only
    write_file(tmp_path, "new.md", memory_text("not-a-uuid", "title: New\n"))
    bundle.reload("new.md")
    assert [(p.path, p.key) for p in bundle.problems] == [("new.md", "id")]
    assert "not-a-uuid" in bundle.memories and len(bundle.memories) == 4


@pytest.mark.parametrize("store", ["default", "Oxigraph"])
def test_reload_leaves_the_links_graph_a_fresh_load_would_build(tmp_path: Path, store: str) -> None:
    """The links graph is patched, not rebuilt: after edits it holds exactly what a new load puts there."""
    root = tmp_path / "bundle"
    shutil.copytree(EXAMPLES, root)
    bundle = mif_rdf.load_bundle(root, store=store)
    edited = root / "semantic" / "idempotency-policy.md"
    text = edited.read_text(encoding="utf-8")
    edited.write_text(
        text.replace("target: /semantic/idempotency-policy-v1.md", "target: /semantic/no-such-memory.md").replace(
            "type: relates-to", "type: refines", 1
        ),
        encoding="utf-8",
    )
    moved = next(root.glob("episodic/*.md"))
    moved.rename(root / "moved.md")
    bundle.reload("semantic/idempotency-policy.md", str(moved.relative_to(root)), "moved.md")
    fresh = mif_rdf.load_bundle(root, store=store)

    def links(b: Bundle) -> set[tuple[str, str, str]]:
        return {(str(s), str(p), str(o)) for s, p, o in b.links}

    assert links(bundle) == links(fresh) and len(bundle.links) == len(fresh.links)
    assert sorted(str(p) for p in bundle.problems if p.rule == "link") == sorted(
        str(p) for p in fresh.problems if p.rule == "link"
    )
    assert any("no-such-memory" in p.message for p in bundle.problems)
