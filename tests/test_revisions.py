"""The bundle at any git revision and a semantic diff between two (issue 38, items 1 and 2), on a git
repository each test builds: renames, deletions, an id that changes, a file name that is not UTF-8,
a malformed file at one revision, and a dirty working tree that must stay byte-identical.  The oracle
for reading a revision is ``git archive`` unpacked by tar and loaded as a plain folder."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from rdflib.compare import isomorphic

from conftest import memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.revisions import load_at_revision
from oxigraph_server import oxigraph  # noqa: F401  (a fixture)

MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")
BASE = "mif://history-test/"
A, B, C, D = (f"00000000-0000-4000-8000-00000000000{i}" for i in range(1, 5))
ODD_NAME = b"notes/caf\xe9.md"  # Latin-1, not UTF-8


def git(repo: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
    )
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env).stdout.decode()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three commits of a bundle at ``kb/`` (with a file outside it), then a dirty working tree."""
    root = tmp_path_factory.mktemp("history")
    git(root, "init", "-q")
    kb = root / "kb"
    write_file(root, "README.md", "not part of the bundle\n")
    write_file(kb, "a.md", memory_text(A, "title: Alpha\ntags: [one]\n"))
    write_file(kb, "b.md", memory_text(B, "title: Beta\n"))
    write_file(kb, "c.md", memory_text(C, "title: Gamma\n"))
    (kb / os.fsdecode(ODD_NAME)).parent.mkdir(parents=True, exist_ok=True)
    (kb / os.fsdecode(ODD_NAME)).write_bytes(memory_text(D, "title: Odd\n").encode())
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first", date="2026-01-10T00:00:00Z")
    git(root, "tag", "v1")
    # second: a changed, b renamed, c malformed, the odd file deleted
    write_file(
        kb,
        "a.md",
        memory_text(
            A,
            "title: Alpha two\ntags: [one, two]\nrelationships:\n  - type: relates-to\n    target: ./moved/b.md\n",
            body="Body.\nMore.\n\n## Relationships\n- relates-to [Beta](./moved/b.md)\n",
        ),
    )
    (kb / "moved").mkdir()
    git(root, "mv", "kb/b.md", "kb/moved/b.md")
    write_file(kb, "c.md", "---\nid: [unclosed\n---\nBroken.\n")
    git(root, "rm", "-q", "--", "kb/" + os.fsdecode(ODD_NAME))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "second", date="2026-02-10T00:00:00Z")
    # third: c repaired with a new id
    write_file(kb, "c.md", memory_text("00000000-0000-4000-8000-000000000005", "title: Gamma again\n"))
    git(root, "commit", "-qam", "third", date="2026-03-10T00:00:00Z")
    # the working tree: uncommitted edits that reading revisions must not touch
    write_file(
        kb, "a.md", "---\nid: " + A + "\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\ntitle: Dirty\n---\nDirty.\n"
    )
    write_file(kb, "new.md", memory_text("00000000-0000-4000-8000-000000000006"))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def archived(repo: Path, rev: str, target: Path) -> Path:
    """The oracle: ``git archive`` of the revision, unpacked by tarfile."""
    data = subprocess.run(["git", "-C", str(repo), "archive", rev, "kb"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(target, filter="data")
    return target / "kb"


def named_graphs(dataset) -> dict[str, object]:
    return {str(graph.identifier): graph for graph in dataset.graphs() if len(graph)}


def same_as_archive(bundle, repo: Path, rev: str, scratch: Path, store: str = "memory") -> None:
    """``bundle`` holds what ``git archive`` of ``rev`` loads: the same memories, graphs and problems."""
    reference = load_bundle(archived(repo, git(repo, "rev-parse", rev).strip(), scratch), base_iri=BASE, store=store)
    assert {(m.id, m.relpath) for m in bundle.memories.values()} == {
        (m.id, m.relpath) for m in reference.memories.values()
    }
    ours, theirs = named_graphs(bundle.dataset), named_graphs(reference.dataset)
    assert ours.keys() == theirs.keys() and all(isomorphic(ours[name], theirs[name]) for name in ours)
    found = sorted((p.path, p.message) for p in bundle.problems)
    assert found == sorted((p.path, p.message) for p in reference.problems)


@pytest.mark.parametrize("rev", ["v1", "HEAD~1", "HEAD", "BRANCH@{2026-02-15}"])
def test_a_revision_loads_as_its_archive_does_and_the_working_tree_stays_untouched(
    repo: Path, rev: str, tmp_path: Path
) -> None:
    before = snapshot(repo)
    status = git(repo, "status", "--porcelain")
    rev = rev.replace("BRANCH", git(repo, "branch", "--show-current").strip())
    same_as_archive(load_at_revision(repo / "kb", rev, base_iri=BASE), repo, rev, tmp_path)
    assert snapshot(repo) == before and git(repo, "status", "--porcelain") == status


def test_the_history_reads_as_written(repo: Path) -> None:
    first = load_at_revision(repo / "kb", "v1")
    assert {m.relpath for m in first.memories.values()} == {"a.md", "b.md", "c.md"}
    assert any(
        "not valid UTF-8" in p.message for p in first.problems
    )  # a file name that is not UTF-8: a problem, as in a working tree
    second = load_at_revision(repo / "kb", "HEAD~1")
    assert any(p.path == "c.md" for p in second.problems) and C not in second.memories  # malformed: a per-file problem
    assert second.base_iri == first.base_iri == load_bundle(repo / "kb").base_iri
    assert "README.md" not in {m.relpath for m in first.memories.values()}


def test_no_repository_or_no_such_revision_is_a_clear_error(repo: Path, tmp_path: Path) -> None:
    write_file(tmp_path / "plain", "a.md", memory_text(A))
    with pytest.raises(MifRdfError, match="not in a git repository"):
        load_at_revision(tmp_path / "plain", "HEAD")
    for rev in ("no-such-branch", "--output=x", "HEAD~99"):
        with pytest.raises(MifRdfError, match="names no commit|is not a git revision"):
            load_at_revision(repo / "kb", rev)


def diff(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MIF_RDF, "diff", "kb", *args], capture_output=True, text=True, timeout=300, cwd=repo)


def test_diff_between_two_revisions_names_every_change(repo: Path) -> None:
    before = snapshot(repo)
    done = diff(repo, "v1", "HEAD", "--format", "json")
    assert done.returncode == 0, done.stderr
    found = {m["id"]: m for m in json.loads(done.stdout)["memories"]}
    assert {i: m["status"] for i, m in found.items()} == {
        A: "changed",
        B: "moved",
        C: "removed",
        "00000000-0000-4000-8000-000000000005": "added",
    }  # D's name was never readable
    assert found[A]["keys"]["title"] == {"old": "Alpha", "new": "Alpha two"}
    assert found[A]["keys"]["tags"] == {"old": ["one"], "new": ["one", "two"]}
    assert found[A]["relationships"]["added"] == [{"type": "relates-to", "target": "./moved/b.md", "title": "Beta"}]
    assert found[A]["body"] == {"old_lines": 1, "new_lines": 5}
    assert (found[B]["old_path"], found[B]["new_path"]) == ("b.md", "moved/b.md")
    assert json.loads(done.stdout)["counts"] == {"added": 1, "removed": 1, "moved": 1, "changed": 1}
    assert snapshot(repo) == before


def test_diff_against_the_working_tree_by_default_in_text_and_markdown(repo: Path) -> None:
    text = diff(repo)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("HEAD -> working tree: 1 added, 0 removed, 0 moved, 1 changed")
    assert 'title: "Alpha two" -> "Dirty"' in text.stdout
    markdown = diff(repo, "HEAD~2", "--format", "markdown")
    assert (
        "| `moved/b.md` | changed |" not in markdown.stdout and "| `b.md` → `moved/b.md` | moved |" in markdown.stdout
    )


def test_diff_outside_git_is_a_clear_error(tmp_path: Path) -> None:
    write_file(tmp_path / "kb", "a.md", memory_text(A))
    done = subprocess.run([MIF_RDF, "diff", "kb"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and "not in a git repository" in done.stderr and "Traceback" not in done.stderr


def test_rev_on_the_commands_reads_that_revision(repo: Path) -> None:
    before = snapshot(repo)
    query = "SELECT ?p WHERE { ?m mif:location ?l ; mif:path ?p }"
    done = subprocess.run(
        [MIF_RDF, "query", "--format", "csv", "kb", query, "--rev", "v1"], capture_output=True, text=True, cwd=repo
    )
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()[1:]) == {"a.md", "b.md", "c.md"}
    exported = subprocess.run(
        [MIF_RDF, "export", "kb", "--rev", "HEAD~1", "--format", "nquads"], capture_output=True, text=True, cwd=repo
    )
    graphs = {line.rsplit(" ", 2)[-2] for line in exported.stdout.splitlines() if line.startswith("<urn:mif:")}
    assert f"<urn:mif:{A}>" in graphs and f"<urn:mif:{C}>" not in graphs  # c.md is malformed at HEAD~1
    checked = subprocess.run(
        [MIF_RDF, "validate", "kb", "--rev", "HEAD~1", "--format", "json"], capture_output=True, text=True, cwd=repo
    )
    assert checked.returncode == 1 and any(r["path"] == "c.md" for r in json.loads(checked.stdout)["results"])
    missing = subprocess.run([MIF_RDF, "load", "kb", "--rev", "no-such-tag"], capture_output=True, text=True, cwd=repo)
    assert missing.returncode == 2 and "no-such-tag" in missing.stderr and "Traceback" not in missing.stderr
    assert snapshot(repo) == before


def test_diff_names_the_findings_a_change_introduced_and_fixed(repo: Path) -> None:
    def findings(rev: str, moves: dict[str, str]) -> Counter:
        done = subprocess.run(
            [MIF_RDF, "validate", "kb", "--rev", rev, "--format", "json"], capture_output=True, text=True, cwd=repo
        )
        return Counter(
            (r.get("rule") or "load", moves.get(r["path"], r["path"]), r.get("key") or "")
            for r in json.loads(done.stdout)["results"]
        )

    old, new = findings("v1", {"b.md": "moved/b.md"}), findings("HEAD~1", {})
    done = diff(repo, "v1", "HEAD~1", "--format", "json")
    reported = json.loads(done.stdout)["findings"]
    as_counter = lambda items: Counter((f.get("rule") or "load", f["path"], f.get("key") or "") for f in items)  # noqa: E731
    introduced = as_counter(reported["introduced"])
    assert introduced == new - old and any(path == "c.md" for _, path, _ in introduced)
    assert as_counter(reported["fixed"]) == old - new
    quick = diff(repo, "v1", "HEAD~1", "--format", "json", "--no-findings")
    assert "findings" not in json.loads(quick.stdout)


def test_sparql_update_turns_the_old_export_into_the_new_in_a_real_oxigraph(
    repo: Path, oxigraph, tmp_path: Path
) -> None:
    import urllib.request

    from rdflib import Dataset

    def export(rev: str) -> bytes:
        done = subprocess.run(
            [MIF_RDF, "export", "kb", "--rev", rev, "--format", "nquads"], capture_output=True, cwd=repo
        )
        assert done.returncode in (0, 1), done.stderr
        return done.stdout

    def send(url: str, data: bytes, kind: str) -> None:
        request = urllib.request.Request(url, data=data, headers={"Content-Type": kind}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status in (200, 201, 204)

    def graphs(nquads: bytes) -> dict[str, object]:
        dataset = Dataset()
        dataset.parse(data=nquads, format="nquads")
        return {str(g.identifier): g for g in dataset.graphs() if len(g)}

    send(oxigraph.store_url, export("v1"), "application/n-quads")
    update = subprocess.run(
        [MIF_RDF, "diff", "kb", "v1", "HEAD", "--format", "sparql-update"], capture_output=True, cwd=repo
    )
    assert update.returncode == 0 and b"DROP SILENT GRAPH" in update.stdout and b"INSERT DATA" in update.stdout, (
        update.stderr
    )
    send(oxigraph.update_url, update.stdout, "application/sparql-update")
    with urllib.request.urlopen(
        urllib.request.Request(oxigraph.store_url, headers={"Accept": "application/n-quads"}), timeout=30
    ) as answer:
        stored = graphs(answer.read())
    expected = graphs(export("HEAD"))
    assert stored.keys() == expected.keys()
    assert all(isomorphic(stored[name], expected[name]) for name in expected)
    unchanged = subprocess.run(
        [MIF_RDF, "diff", "kb", "HEAD", "HEAD", "--format", "sparql-update"], capture_output=True, cwd=repo
    )
    assert unchanged.returncode == 0 and unchanged.stdout == b""  # blank nodes compare canonically: nothing to do


def test_validate_rev_places_findings_on_the_lines_of_that_revision(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    link = "relationships:\n  - type: relates-to\n    target: ./nowhere.md\n"
    write_file(
        repo / "kb", "a.md", memory_text(A, link, body="A.\n\n## Relationships\n- relates-to [Nowhere](./nowhere.md)\n")
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    text = (repo / "kb" / "a.md").read_text(encoding="utf-8")
    (repo / "kb" / "a.md").write_text(
        text.replace("created:", "title: A\ntags: [x, y]\naliases: [z]\ncreated:"), encoding="utf-8"
    )  # 3 lines above the link

    def target_line(*args: str) -> int:
        done = subprocess.run(
            [MIF_RDF, "validate", "kb", "--format", "github", *args], capture_output=True, text=True, cwd=repo
        )
        return next(
            int(line.split("line=")[1].split(",")[0])
            for line in done.stdout.splitlines()
            if "nowhere.md" in line and "line=" in line
        )

    committed = subprocess.run(
        ["git", "-C", str(repo), "show", "HEAD:kb/a.md"], capture_output=True, text=True
    ).stdout.splitlines()
    assert target_line("--rev", "HEAD") == 1 + next(
        i for i, line in enumerate(committed) if "target: ./nowhere.md" in line
    )
    assert target_line() == target_line("--rev", "HEAD") + 3


def test_rdf_patch_rows_turn_the_old_export_into_the_new(repo: Path) -> None:
    from rdflib import BNode, Dataset, Graph

    def export(rev: str) -> dict[str, Graph]:
        done = subprocess.run(
            [MIF_RDF, "export", "kb", "--rev", rev, "--format", "nquads"], capture_output=True, cwd=repo
        )
        return rows_graphs(done.stdout.decode("utf-8").splitlines())

    def rows_graphs(lines: list[str]) -> dict[str, Graph]:
        dataset = Dataset()
        dataset.parse(data="\n".join(lines) + "\n", format="nquads")  # each row is an N-Quads line: rdflib reads them
        return {str(g.identifier): g for g in dataset.graphs() if len(g)}

    done = subprocess.run(
        [MIF_RDF, "diff", "kb", "v1", "HEAD", "--format", "rdf-patch"], capture_output=True, text=True, cwd=repo
    )
    lines = done.stdout.splitlines()
    assert (
        done.returncode == 0
        and lines[0] == "TX ."
        and lines[-1] == "TC ."
        and all(line[:2] in ("A ", "D ") for line in lines[1:-1])
    )
    deleted = rows_graphs([line[2:] for line in lines if line.startswith("D ")])
    added = rows_graphs([line[2:] for line in lines if line.startswith("A ")])
    old, new = export("v1"), export("HEAD")
    for name in set(old) | set(new):
        was, now = old.get(name, Graph()), new.get(name, Graph())
        gone, came = deleted.get(name, Graph()), added.get(name, Graph())
        if any(isinstance(t, BNode) for triple in (*was, *now) for t in triple):
            if isomorphic(was, now):
                assert not len(gone) and not len(came), name
            else:
                assert isomorphic(gone, was) and isomorphic(came, now), name  # replaced whole
        else:
            assert (set(was) - set(gone)) | set(came) == set(now) and not set(gone) - set(was), name
    assert deleted and added
