"""``mif-rdf import`` (mif_rdf.output.graph_import): named graphs from a file written back as minimal edits."""

from __future__ import annotations

import shutil
import urllib.request
from pathlib import Path

import pytest

from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.output.graph_import import import_graphs
from oxigraph_server import OxigraphServer, oxigraph  # noqa: F401  (oxigraph: fixture)

EXAMPLES = Path(__file__).parent.parent / "examples"
INCIDENT_FILE = "episodic/incident-2025-11-webhook-backlog.md"


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def exported(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    return root, load_bundle(root).dataset.serialize(format="nquads")


def test_importing_the_bundles_own_export_changes_no_byte(exported: tuple[Path, str], tmp_path: Path) -> None:
    root, quads = exported
    (tmp_path / "all.nq").write_text(quads)
    result = import_graphs(load_bundle(root), tmp_path / "all.nq", "nquads")
    assert not result.refusals and not result.changes and _files(root) == _files(EXAMPLES)


def test_a_changed_literal_changes_one_line(exported: tuple[Path, str], tmp_path: Path) -> None:
    root, quads = exported
    (tmp_path / "edit.nq").write_text(
        quads.replace('"Webhook Backlog Incident 2025-11"', '"Webhook Backlog (imported)"')
    )
    result = import_graphs(load_bundle(root), tmp_path / "edit.nq", "nquads")
    assert not result.refusals and result.changed == [INCIDENT_FILE] and result.written
    before = (EXAMPLES / INCIDENT_FILE).read_text()
    assert (root / INCIDENT_FILE).read_text() == before.replace(
        "title: Webhook Backlog Incident 2025-11\n", "title: Webhook Backlog (imported)\n"
    )


def test_raising_trust_and_foreign_graphs_are_refused(exported: tuple[Path, str], tmp_path: Path) -> None:
    root, quads = exported
    raised = quads.replace("<https://mif-spec.dev/ns/LowConfidence>", "<https://mif-spec.dev/ns/Verified>")
    raised += '<http://example.org/s> <http://example.org/p> "o" <http://example.org/other-graph> .\n'
    (tmp_path / "bad.nq").write_text(raised)
    result = import_graphs(load_bundle(root), tmp_path / "bad.nq", "nquads")
    messages = [str(p) for p in result.refusals]
    assert any(
        "raise trustLevel from LowConfidence to Verified" in m and m.startswith(INCIDENT_FILE) for m in messages
    ), messages
    assert any("<http://example.org/other-graph> is not a memory" in m for m in messages), messages
    assert not result.written and _files(root) == _files(EXAMPLES)


def test_cli_import_dry_run(exported: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, quads = exported
    (tmp_path / "edit.nq").write_text(
        quads.replace('"Webhook Backlog Incident 2025-11"', '"Webhook Backlog (imported)"')
    )
    code = main(["import", "--dry-run", str(root), str(tmp_path / "edit.nq")])
    out, err = capsys.readouterr()
    assert code == 0 and "+title: Webhook Backlog (imported)\n" in out and "would change 1 file(s)" in err
    assert _files(root) == _files(EXAMPLES)
    assert main(["import", str(root), str(tmp_path / "missing.nq")]) == 2


def test_a_new_memory_graph_becomes_a_file_marked_external_import(exported: tuple[Path, str], tmp_path: Path) -> None:
    root, quads = exported
    old, new = "urn:mif:16a9a01f-23e4-466b-94db-25d33054d295", "urn:mif:9f1e2d3c-0000-4000-8000-00000000abcd"
    lines = [line.replace(old, new) for line in quads.splitlines() if line.endswith(f"<{old}> .")]
    (tmp_path / "new.nq").write_text("\n".join(lines) + "\n")
    result = import_graphs(load_bundle(root), tmp_path / "new.nq", "nquads")
    assert not result.refusals and [(c.relpath, c.kind) for c in result.changes] == [
        ("_episodic/incidents/9f1e2d3c-0000-4000-8000-00000000abcd.md", "created")
    ]
    reloaded = load_bundle(root)
    created = reloaded.memories["9f1e2d3c-0000-4000-8000-00000000abcd"].frontmatter
    assert (
        created["provenance"]["sourceType"] == "external_import"
        and created["provenance"]["trustLevel"] == "low_confidence"
    )
    assert created["title"] == "Webhook Backlog Incident 2025-11"


# -- import from a store (issue 31 item 2): a real Oxigraph server, read with one GET of its Graph Store endpoint --
def _pushed(root: Path, server: OxigraphServer) -> None:
    assert main(["push", str(root), "--endpoint", server.store_url]) == 0


def _store_update(server: OxigraphServer, sparql: str) -> None:
    """Change the store behind the bundle's back, with plain urllib (not mif-rdf's client)."""
    request = urllib.request.Request(
        server.update_url, data=sparql.encode(), headers={"Content-Type": "application/sparql-update"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status in (200, 204)


def test_push_then_import_from_the_store_changes_no_byte(
    tmp_path: Path, oxigraph: OxigraphServer, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    # a value the store writes in its own canonical form ("...+00:00"^^xsd:dateTime comes back as "...Z")
    text = (root / INCIDENT_FILE).read_text()
    (root / INCIDENT_FILE).write_text(
        text.replace("validFrom: 2025-11-18T02:05:00Z", "validFrom: 2025-11-18T02:05:00+00:00")
    )
    original = _files(root)
    _pushed(root, oxigraph)
    stored = oxigraph.select("SELECT ?v WHERE { GRAPH ?g { ?t <https://mif-spec.dev/ns/validFrom> ?v } }")
    assert "2025-11-18T02:05:00Z" in {row["v"] for row in stored}
    # a foreign graph beside the bundle's: a store holds other data, which an import leaves alone
    _store_update(
        oxigraph,
        "INSERT DATA { GRAPH <http://example.org/other> { <http://example.org/s> <http://example.org/p> 1.0 } }",
    )
    capsys.readouterr()
    assert main(["import", str(root), oxigraph.store_url]) == 0
    out = capsys.readouterr().out
    assert "no memory changed" in out and "skipped 1 graph(s)" in out, out
    assert _files(root) == original


def test_an_edit_made_in_the_store_comes_back_as_a_minimal_edit(tmp_path: Path, oxigraph: OxigraphServer) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    _pushed(root, oxigraph)
    iri = load_bundle(root).memory_by_path(INCIDENT_FILE).iri
    _store_update(
        oxigraph,
        f"DELETE {{ GRAPH <{iri}> {{ <{iri}> <http://purl.org/dc/terms/title> ?t }} }} "
        f'INSERT {{ GRAPH <{iri}> {{ <{iri}> <http://purl.org/dc/terms/title> "Webhook Backlog (from the store)" }} }} '
        f"WHERE {{ GRAPH <{iri}> {{ <{iri}> <http://purl.org/dc/terms/title> ?t }} }}",
    )
    result = load_bundle(root).import_graphs(oxigraph.store_url)
    assert not result.refusals and result.changed == [INCIDENT_FILE] and result.written
    before = (EXAMPLES / INCIDENT_FILE).read_text()
    assert (root / INCIDENT_FILE).read_text() == before.replace(
        "title: Webhook Backlog Incident 2025-11\n", "title: Webhook Backlog (from the store)\n"
    )
    assert {k: v for k, v in _files(root).items() if k != INCIDENT_FILE} == {
        k: v for k, v in _files(EXAMPLES).items() if k != INCIDENT_FILE
    }


def test_a_store_that_raises_trust_is_refused_and_a_new_memory_is_marked_external(
    tmp_path: Path, oxigraph: OxigraphServer, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    _pushed(root, oxigraph)
    mif = "https://mif-spec.dev/ns/"
    _store_update(
        oxigraph,
        f"DELETE {{ GRAPH ?g {{ ?p <{mif}trustLevel> <{mif}LowConfidence> }} }} "
        f"INSERT {{ GRAPH ?g {{ ?p <{mif}trustLevel> <{mif}Verified> }} }} "
        f"WHERE {{ GRAPH ?g {{ ?p <{mif}trustLevel> <{mif}LowConfidence> }} }}",
    )
    capsys.readouterr()
    assert main(["import", str(root), oxigraph.store_url]) == 1
    err = capsys.readouterr().err
    assert "raise trustLevel from LowConfidence to Verified" in err and "nothing written" in err, err
    assert _files(root) == _files(EXAMPLES)


def test_a_memory_only_the_store_has_comes_back_as_a_new_file_marked_external_import(
    tmp_path: Path, oxigraph: OxigraphServer
) -> None:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    _pushed(root, oxigraph)
    gone = load_bundle(root).memory_by_path(INCIDENT_FILE)
    (root / INCIDENT_FILE).unlink()  # the store still has its graph
    result = load_bundle(root).import_graphs(oxigraph.store_url)
    assert not result.refusals and [c.kind for c in result.changes] == ["created"], result.summary()
    created = (root / result.changed[0]).read_text()
    assert "sourceType: external_import" in created and f"id: {gone.id}" in created
    assert "title: Webhook Backlog Incident 2025-11" in created
    again = load_bundle(root)  # the new file loads, and what it says is the store's graph but for the marking
    assert again.memories[gone.id].frontmatter["provenance"]["sourceType"] == "external_import"


def test_a_store_url_with_a_password_is_refused_without_showing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["import", str(EXAMPLES), "http://bob:s3cret-pw@127.0.0.1:9/store"])
    err = capsys.readouterr().err
    assert code == 2 and "s3cret-pw" not in err and "MIF_RDF_PASSWORD" in err, err
    assert (
        main(
            ["import", str(EXAMPLES), "http://127.0.0.1:9/store", "--user", "bob"],
        )
        == 2
    )
    assert "needs a password" in capsys.readouterr().err
    assert main(["import", str(EXAMPLES), str(tmp_path / "x.nq"), "--user", "bob"]) == 2
    assert "for a store's URL" in capsys.readouterr().err
