"""Write-back of SPARQL Update to the markdown files (issue 31, mif_rdf.output.update).

The oracle of every write is a fresh load: the files written must load to
exactly the graphs the update produced, and every byte outside the changed
values must be the byte that was there.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.compare import isomorphic

from mif_rdf.bundle import Bundle, load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.output.update import plan_update, update_bundle

FIXTURES = Path(__file__).parent / "fixtures" / "bundles"
EXAMPLES = Path(__file__).parent.parent / "examples"
BUNDLES = {path.name: path for path in sorted(FIXTURES.iterdir()) if path.is_dir()} | {"examples": EXAMPLES}
TAG = "write-back-test"
INCIDENT = "urn:mif:16a9a01f-23e4-466b-94db-25d33054d295"  # examples/episodic/incident-2025-11-webhook-backlog.md
INCIDENT_FILE = "episodic/incident-2025-11-webhook-backlog.md"
RETAG = (
    'DELETE { GRAPH ?m { ?m mif:tags "kafka" } } INSERT { GRAPH ?m { ?m mif:tags "streaming" } } WHERE { GRAPH '
    '?m { ?m mif:tags "kafka" } }'
)


def _copy(root: Path, tmp_path: Path) -> Path:
    target = tmp_path / root.name
    shutil.copytree(root, target)
    return target


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _memory_graph(bundle: Bundle, iri: str) -> Graph:
    out = Graph()
    for triple in bundle.dataset.graph(URIRef(iri)):
        out.add(triple)
    return out


def _writable(bundle: Bundle) -> list[str]:
    """IRIs of the memories write-back may change (not local-only, not under a read-only prefix)."""
    return [
        r.iri
        for r in bundle.memories.values()
        if not str(r.frontmatter.get("namespace", "")).startswith(("_local", "_archive"))
    ]


def check_write_back_is_minimal(root: Path, tmp_path: Path) -> None:
    """Add a tag to every writable memory: each file loads to the updated graph, and only tag lines differ."""
    root = _copy(root, tmp_path)
    before = _files(root)
    bundle = load_bundle(root)
    values = " ".join(f"<{iri}>" for iri in _writable(bundle))
    result = update_bundle(
        bundle,
        f'INSERT {{ GRAPH ?m {{ ?m mif:tags "{TAG}" }} }} WHERE {{ VALUES ?m {{ {values} }} GRAPH ?m {{ ?m a '
        f"mif:Concept }} }}",
    )
    assert not result.refusals, [str(p) for p in result.refusals]
    assert result.written and len(result.changes) == len(_writable(bundle))
    reloaded = load_bundle(root)
    for iri in _writable(bundle):
        assert isomorphic(_memory_graph(reloaded, iri), _memory_graph(bundle, iri)), iri
    after = _files(root)
    assert set(after) == set(before)  # no temporary file left, none created or removed
    changed = {c.relpath for c in result.changes}
    for relpath, old in before.items():
        if relpath not in changed:
            assert after[relpath] == old, relpath
            continue
        old_lines, new_lines = old.decode().splitlines(keepends=True), after[relpath].decode().splitlines(keepends=True)
        removed = [line for line in difflib.ndiff(old_lines, new_lines) if line.startswith("- ")]
        added = [line for line in difflib.ndiff(old_lines, new_lines) if line.startswith("+ ")]
        assert added and all(TAG in line or line[2:].lstrip().startswith("tags:") for line in added), (relpath, added)
        assert all("tags" in line for line in removed), (
            relpath,
            removed,
        )  # only a flow-style or empty tags line is rewritten


@pytest.mark.parametrize("name", list(BUNDLES))
def test_write_back_is_minimal_on_every_fixture_bundle(name: str, tmp_path: Path) -> None:
    check_write_back_is_minimal(BUNDLES[name], tmp_path)


def test_retag_changes_only_the_tag_line_in_place(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = (root / INCIDENT_FILE).read_text()
    result = update_bundle(load_bundle(root), RETAG)
    assert result.written and INCIDENT_FILE in result.changed and len(result.changes) == 4
    after = (root / INCIDENT_FILE).read_text()
    assert after == before.replace("  - kafka\n", "  - streaming\n", 1)  # same place, same indentation, one line


def test_oxigraph_store_writes_the_same_files(tmp_path: Path) -> None:
    pytest.importorskip("oxrdflib")
    memory_root, oxigraph_root = _copy(EXAMPLES, tmp_path / "m"), _copy(EXAMPLES, tmp_path / "o")
    update_bundle(load_bundle(memory_root), RETAG)
    update_bundle(load_bundle(oxigraph_root, store="oxigraph"), RETAG)
    assert _files(memory_root) == _files(oxigraph_root) != _files(EXAMPLES)


def test_nested_value_and_body_change(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = (root / INCIDENT_FILE).read_text()
    update = f"""
    DELETE {{ GRAPH ?m {{ ?p mif:trustLevel ?t . ?m mif:content ?c }} }}
    INSERT {{ GRAPH ?m {{ ?p mif:trustLevel mif:Verified . ?m mif:content "New body.\\n" }} }}
    WHERE {{ BIND(<{INCIDENT}> AS ?m) GRAPH ?m {{ ?m mif:provenance ?p . ?p mif:trustLevel ?t . ?m mif:content ?c }} }}"""  # noqa: E501
    checked = update_bundle(
        load_bundle(root), update
    )  # the new body drops the ## Relationships mirror of the frontmatter
    assert {p.rule for p in checked.refusals} == {"write-back-validation"} and (
        root / INCIDENT_FILE
    ).read_text() == before
    result = update_bundle(load_bundle(root), update, force=True)
    assert not result.refusals and result.changed == [INCIDENT_FILE]
    after = (root / INCIDENT_FILE).read_text()
    head = before[: before.index("\n---\n") + 5]
    assert after == head.replace("  trustLevel: low_confidence\n", "  trustLevel: verified\n") + "New body.\n"


def test_dry_run_writes_nothing_and_shows_the_diff(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    result = update_bundle(load_bundle(root), RETAG, dry_run=True)
    assert not result.written and _files(root) == before
    diff = result.diff()
    assert f"--- a/{INCIDENT_FILE}\n+++ b/{INCIDENT_FILE}\n" in diff
    assert "-  - kafka\n+  - streaming\n" in diff and diff.count("\n-  ") == 4


REFUSED = {
    "links graph": (
        "INSERT DATA { GRAPH <%(base)s#links> { <%(m)s> mif:relatesTo <%(m)s> } }",
        "links graph is derived",
    ),
    "unknown predicate": (
        'INSERT DATA { GRAPH <%(m)s> { <%(m)s> <http://example.org/colour> "red" } }',
        "no frontmatter key maps to the predicate <http://example.org/colour>",
    ),
    "wrong datatype": (
        'INSERT DATA { GRAPH <%(m)s> { <%(m)s> dc:created "yesterday" } }',
        "'created' holds dateTime literals",
    ),
    "id change": (
        'INSERT DATA { GRAPH <%(m)s> { <urn:mif:another-id> dc:title "Moved" } }',
        "a memory's IRI is its id",
    ),
    "default graph": ('INSERT { <%(m)s> mif:tags "x" } WHERE { }', "the default graph holds no memory"),
    "mirror": (
        "DELETE { GRAPH <%(m)s> { <%(m)s> mif:timestamp ?t } } WHERE { GRAPH <%(m)s> { <%(m)s> mif:timestamp ?t } }",
        "only mirrors modified",
    ),
    "delete all": (
        "DELETE { GRAPH <%(m)s> { ?s ?p ?o } } WHERE { GRAPH <%(m)s> { ?s ?p ?o } }",
        "deletes every triple",
    ),
    "local-only": (
        'INSERT { GRAPH ?m { ?m mif:tags "x" } } WHERE { GRAPH ?m { ?m mif:namespace "_local/scratch" } }',
        "local-only",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_name_the_triple_and_write_nothing(case: str, tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    bundle = load_bundle(root)
    template, why = REFUSED[case]
    # a change that alone would be written, so the refusal is what stops it
    update = RETAG + " ; " + template % {"m": INCIDENT, "base": bundle.base_iri}
    result = update_bundle(bundle, update)
    assert result.refusals and not result.written, case
    messages = " | ".join(str(p) for p in result.refusals)
    assert why in messages, messages
    assert _files(root) == before


def test_read_only_prefix_is_refused(tmp_path: Path) -> None:
    root = _copy(FIXTURES / "namespaces", tmp_path)
    before = _files(root)
    result = update_bundle(
        load_bundle(root), 'INSERT { GRAPH ?m { ?m mif:tags "x" } } WHERE { GRAPH ?m { ?m a mif:Concept } }'
    )
    assert any("read-only" in str(p) and p.path == "archive/old-decision.md" for p in result.refusals)
    assert not result.written and _files(root) == before


@pytest.mark.parametrize(
    "update",
    [
        "LOAD <http://example.org/data.ttl>",
        "INSERT { GRAPH ?g { ?s ?p ?o } } WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
    ],
)
def test_network_updates_are_refused_before_running(update: str, tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    with pytest.raises(MifRdfError, match="LOAD|SERVICE"):
        update_bundle(load_bundle(root), update)


def test_a_failed_rename_leaves_each_file_old_or_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    real_replace, calls = os.replace, []

    def failing_replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    bundle = load_bundle(root)
    plan = plan_update(bundle, RETAG)
    with pytest.raises(MifRdfError, match="no space left"):  # the shared writer says the previous file is unchanged
        from mif_rdf.output.update import write_changes

        write_changes(bundle.root, plan.changes)
    after = _files(root)
    assert set(after) == set(before)  # the temporary file of the failed write is gone
    news = {c.relpath: c.after.encode() for c in plan.changes}
    states = [after[c.relpath] == news[c.relpath] for c in plan.changes]
    assert states.count(False) >= 1 and states.count(True) >= 2  # the files are written side by side: the
    # failed one stays old, those written before or beside it are new
    assert all(after[c.relpath] in (before[c.relpath], news[c.relpath]) for c in plan.changes)


def test_bundle_method_is_the_same_api(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    result = load_bundle(root).update(RETAG, dry_run=True)
    assert len(result.changes) == 4 and not result.written


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from mif_rdf.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_dry_run_from_stdin_with_options_in_any_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    monkeypatch.setattr("sys.stdin", io.StringIO(RETAG))
    code, out, err = _cli(capsys, "update", "--dry-run", "--file", "-", str(root), "--no-progress")
    assert code == 0 and _files(root) == before
    assert out.count("+++ b/") == 4 and "+  - streaming\n" in out
    assert "would change 4 file(s)" in err


def test_cli_writes_and_prints_a_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    code, out, _ = _cli(capsys, "update", str(root), RETAG)
    assert code == 0 and out.startswith("changed 4 file(s)\n") and f"  {INCIDENT_FILE}\n" in out
    assert "  - streaming\n" in (root / INCIDENT_FILE).read_text()


def test_cli_refusal_exits_1_and_names_the_triple(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    code, out, err = _cli(
        capsys, "update", str(root), f'INSERT DATA {{ GRAPH <{INCIDENT}> {{ <{INCIDENT}> dc:created "yesterday" }} }}'
    )
    assert code == 1 and out == "" and _files(root) == before
    assert (
        f'{INCIDENT_FILE}: error [created]: inserting <{INCIDENT}> <http://purl.org/dc/terms/created> "yesterday"'
        in err
    )
    assert "no file written" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give it as an argument or with --file"),
        (["--file", "missing.ru"], "cannot read the query file"),
        (["LOAD <http://example.org/x>"], "LOAD is refused"),
        (['INSERT DATA { <urn:mif:x> mif:tags "x" '], "mif-rdf: error"),
    ],
)
def test_cli_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str) -> None:
    root = _copy(EXAMPLES, tmp_path)
    code, _, err = _cli(capsys, "update", str(root), *argv)
    assert code == 2 and message in err and "Traceback" not in err


BOGUS_TRUST = f"""DELETE {{ GRAPH ?m {{ ?p mif:trustLevel ?t }} }} INSERT {{ GRAPH ?m {{ ?p mif:trustLevel mif:Bogus }} }}
WHERE {{ BIND(<{INCIDENT}> AS ?m) GRAPH ?m {{ ?m mif:provenance ?p . ?p mif:trustLevel ?t }} }}"""  # noqa: E501


def test_a_change_that_adds_a_validation_error_needs_force(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    before = _files(root)
    refused = update_bundle(load_bundle(root), BOGUS_TRUST)
    assert [(p.path, p.key, p.rule) for p in refused.refusals] == [
        (INCIDENT_FILE, "provenance.trustLevel", "write-back-validation")
    ]
    assert not refused.written and _files(root) == before
    forced = update_bundle(load_bundle(root), BOGUS_TRUST, force=True)
    assert forced.written and "  trustLevel: Bogus\n" in (root / INCIDENT_FILE).read_text()


def test_the_body_mirror_follows_relationships(tmp_path: Path) -> None:
    """Invariant 3: with the mirror in step, validation (which checks it) lets the change through without --force."""
    root = _copy(EXAMPLES, tmp_path)
    before = (root / INCIDENT_FILE).read_text()
    add = f"""INSERT {{ GRAPH ?m {{ ?m mif:relationships [ mif:relationshipType mif:relates-to ; mif:target <urn:mif:entity:technology:redis> ] }} }}
    WHERE {{ BIND(<{INCIDENT}> AS ?m) }}"""  # noqa: E501
    result = update_bundle(load_bundle(root), add)
    assert not result.refusals and result.written
    added = before.replace(
        "    target: urn:mif:entity:technology:kafka\n",
        "    target: urn:mif:entity:technology:kafka\n  - type: relates-to\n"
        "    target: urn:mif:entity:technology:redis\n",
        1,
    )
    added = added.replace(
        "- uses [Apache Kafka](urn:mif:entity:technology:kafka)\n",
        "- uses [Apache Kafka](urn:mif:entity:technology:kafka)\n"
        "- relates-to [Redis](urn:mif:entity:technology:redis)\n",
    )
    assert (root / INCIDENT_FILE).read_text() == added
    remove = f"""DELETE {{ GRAPH ?m {{ ?m mif:relationships ?r . ?r ?p ?o }} }}
    WHERE {{ BIND(<{INCIDENT}> AS ?m) GRAPH ?m {{ ?m mif:relationships ?r . ?r mif:target <urn:mif:entity:technology:redis> ; ?p ?o }} }}"""  # noqa: E501
    result = update_bundle(load_bundle(root), remove)
    assert not result.refusals and (root / INCIDENT_FILE).read_text() == before


def test_a_body_without_the_section_gets_one() -> None:
    from mif_rdf.output.body_mirror import mirrored_body

    new = [{"type": "uses", "target": "/x.md"}]
    assert (
        mirrored_body("# T\n\nText.\n", [], new, lambda t: "X")
        == "# T\n\nText.\n\n## Relationships\n\n- uses [X](/x.md)\n"
    )
    assert (
        mirrored_body("# T\n\n## Relationships\n\n* uses [X](/x.md)\n", new, [], lambda t: "X")
        == "# T\n\n## Relationships\n\n"
    )
    assert (
        mirrored_body(
            "## Relationships\n\n  * a [A](/a.md)\n",
            [{"type": "a", "target": "/a.md"}],
            [{"type": "a", "target": "/a.md"}, *new],
            lambda t: "X",
        )
        == "## Relationships\n\n  * a [A](/a.md)\n  * uses [X](/x.md)\n"
    )


NEW_ID = "0b7e5c1a-1111-4a2b-9c3d-123456789abc"
NEW_MEMORY = f"""INSERT DATA {{ GRAPH <urn:mif:{NEW_ID}> {{ <urn:mif:{NEW_ID}> a mif:Concept ; mif:conceptType mif:SemanticType ;
  dc:created "2026-12-06T02:00:00Z"^^xsd:dateTime ; mif:namespace "_semantic/notes" ; dc:title "A new note" ; mif:tags "new" ;
  mif:content "# A new note\\n\\nWritten with SPARQL.\\n" }} }}"""  # noqa: E501


def test_a_new_memory_graph_creates_a_file_and_deleting_it_needs_allow_delete(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    bundle = load_bundle(root)
    created = update_bundle(bundle, NEW_MEMORY)
    relpath = f"_semantic/notes/{NEW_ID}.md"
    assert not created.refusals and [(c.relpath, c.kind) for c in created.changes] == [(relpath, "created")]
    assert "--- /dev/null\n" in created.diff()
    reloaded = load_bundle(root)
    assert NEW_ID in reloaded.memories and reloaded.memories[NEW_ID].relpath == relpath
    loaded = _memory_graph(reloaded, f"urn:mif:{NEW_ID}")
    loaded.remove(
        (None, URIRef("https://mif-spec.dev/ns/timestamp"), None)
    )  # the mirror of created the loader adds (spec 15.1)
    assert isomorphic(loaded, _memory_graph(bundle, f"urn:mif:{NEW_ID}"))
    remove = f"DELETE WHERE {{ GRAPH <urn:mif:{NEW_ID}> {{ ?s ?p ?o }} }}"
    refused = update_bundle(load_bundle(root), remove)
    assert "--allow-delete" in str(refused.refusals[0]) and (root / relpath).is_file()
    removed = update_bundle(load_bundle(root), remove, allow_delete=True)
    assert [(c.relpath, c.kind) for c in removed.changes] == [(relpath, "removed")] and not (root / relpath).exists()


def test_a_new_memory_needs_type_and_created(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    result = update_bundle(
        load_bundle(root), f'INSERT DATA {{ GRAPH <urn:mif:{NEW_ID}> {{ <urn:mif:{NEW_ID}> dc:title "x" }} }}'
    )
    assert "needs mif:conceptType and dc:created" in str(result.refusals[0]) and _files(root) == _files(EXAMPLES)


@pytest.mark.parametrize(
    ("memory_id", "namespace"), [("../../escape", "_semantic/notes"), ("ok-id", "../../out"), (".hidden", "_semantic")]
)
def test_a_new_memory_is_never_written_outside_the_bundle(memory_id: str, namespace: str, tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path / "inside")
    update = f"""INSERT DATA {{ GRAPH <urn:mif:{memory_id}> {{ <urn:mif:{memory_id}> a mif:Concept ; mif:conceptType mif:SemanticType ;
      dc:created "2026-12-06T02:00:00Z"^^xsd:dateTime ; mif:namespace "{namespace}" ; mif:content "x" }} }}"""  # noqa: E501
    result = update_bundle(load_bundle(root), update)
    assert [p.key for p in result.refusals] == ["id"] and "not written" in str(result.refusals[0])
    assert sorted(p.name for p in tmp_path.rglob("*") if p.suffix == ".md" and not p.is_relative_to(root)) == []
    assert _files(root) == _files(EXAMPLES)


def test_the_inverse_update_gives_back_every_byte_also_through_the_cache(tmp_path: Path) -> None:
    root = _copy(EXAMPLES, tmp_path)
    cache = tmp_path / "cache"
    update_bundle(load_bundle(root, cache=cache), RETAG)
    assert _files(root) != _files(EXAMPLES)
    inverse = RETAG.replace('"kafka"', '"@@"').replace('"streaming"', '"kafka"').replace('"@@"', '"streaming"')
    result = update_bundle(load_bundle(root, cache=cache), inverse)  # the cache sees the files write-back changed
    assert len(result.changes) == 4 and _files(root) == _files(EXAMPLES)
