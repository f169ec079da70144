"""``mif-rdf import`` (mif_rdf.output.graph_import): named graphs from a file written back as minimal edits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.output.graph_import import import_graphs

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
