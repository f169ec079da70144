"""``diff`` between two revisions reads only the files that differ (issue 38, item 5), and says exactly what
the whole-bundle diff (``--full``) says: the report, the findings, the RDF Patch and the SPARQL Update.

The oracle is ``--full`` (both revisions loaded whole, the path whose patch a real Oxigraph server checks in
tests/test_revisions.py), on a git repository built here: a rename, a deletion, an id that changes, a name
that is not UTF-8, a malformed file, a link to an unchanged memory (whose title must show), a link in an
unchanged memory that the change breaks and then mends, a file the loader never reads, and a change
outside the memory files that needs the whole bundle."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import memory_text, write_file
from mif_rdf.cli.main import main
from mif_rdf.output import exact_changes, partial_bundles
from test_revisions import git

A, B, C, C2, D, E, F, G, N = (f"00000000-0000-4000-8000-0000000000{i:02d}" for i in range(1, 10))
FILLERS = 12


def link(target: str, kind: str = "relates-to") -> str:
    return f"relationships:\n  - type: {kind}\n    target: {target}\n"


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    git(root, "tag", message)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fastdiff")
    git(root, "init", "-q")
    kb = root / "kb"
    write_file(kb, "a.md", memory_text(A, "title: Alpha\n" + link("./b.md")))
    write_file(kb, "b.md", memory_text(B, "title: Beta\n"))
    temporal = "temporal:\n  validFrom: 2026-01-01T00:00:00Z\n"  # a blank node: the graph is replaced whole
    write_file(kb, "c.md", memory_text(C, "title: Gamma\n" + temporal + link(f"urn:mif:{E}")))
    write_file(kb, "e.md", memory_text(E, "title: Epsilon\n"))
    write_file(kb, "f.md", memory_text(F, "title: Phi\n" + link("./g.md")))  # never changes
    write_file(kb, "g.md", memory_text(G, "title: Gee\n"))
    (kb / "notes").mkdir()
    (kb / os.fsdecode(b"notes/caf\xe9.md")).write_bytes(memory_text(N, "title: Odd\n").encode())
    write_file(kb, "pic.png", b"\x89PNG one")
    for i in range(FILLERS):
        write_file(kb, f"z/u{i}.md", memory_text(f"10000000-0000-4000-8000-0000000000{i:02d}", f"title: U{i}\n"))
    commit(root, "v1")
    # v2: a retitled, its link moved to an unchanged memory; b renamed; c's id changed; g deleted (f's link
    # breaks); d added; a malformed file; the odd name replaced by another; the picture changed
    write_file(kb, "a.md", memory_text(A, "title: Alpha two\n" + link("./e.md"), body="Body.\nMore.\n"))
    git(root, "mv", "kb/b.md", "kb/b2.md")
    write_file(kb, "c.md", memory_text(C2, "title: Gamma\n" + temporal + link(f"urn:mif:{E}")))
    (kb / "g.md").unlink()
    write_file(kb, "d.md", memory_text(D, "title: Delta\n" + link(f"urn:mif:{E}", "derived-from")))
    write_file(kb, "n.md", "---\nid: [unclosed\n---\nBroken.\n")
    (kb / os.fsdecode(b"notes/caf\xe9.md")).unlink()
    (kb / os.fsdecode(b"notes/na\xefve.md")).write_bytes(memory_text(N, "title: Odd again\n").encode())
    write_file(kb, "pic.png", b"\x89PNG two")
    commit(root, "v2")
    # v3: the malformed file repaired, g back (f's link mended), a filler's title changed
    write_file(kb, "n.md", memory_text("20000000-0000-4000-8000-000000000001", "title: New\n"))
    write_file(kb, "g.md", memory_text(G, "title: Gee back\n"))
    write_file(kb, "z/u3.md", memory_text("10000000-0000-4000-8000-000000000003", "title: U3 changed\n"))
    write_file(kb, "e.md", memory_text(E, "title: Epsilon three\n"))  # retitled in place: a.md links to it by path
    # a new file that takes an unchanged memory's id: the first in path order wins, the other is not loaded
    write_file(kb, "y.md", memory_text("10000000-0000-4000-8000-000000000005", "title: Usurper\n"))
    commit(root, "v3")
    # v4: a reserved file beside the memories: the whole bundle is needed
    write_file(kb, "index.md", "# Index\n")
    write_file(kb, "e.md", memory_text(E, "title: Epsilon four\n"))
    commit(root, "v4")
    return root


def diff(repo: Path, out: Path, *args: str) -> str:
    target = out / f"diff-{len(list(out.iterdir()))}.out"
    assert main(["diff", str(repo / "kb"), *args, "-o", str(target)]) == 0
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "formats"),
    [
        ("v1", "v2", ("json", "rdf-patch", "sparql-update", "markdown --no-findings")),
        ("v2", "v3", ("json", "rdf-patch", "text --no-findings")),
        ("v2", "v1", ("json", "rdf-patch")),
        ("v3", "v4", ("json", "rdf-patch")),
    ],
)
def test_the_changed_files_give_what_the_whole_bundles_give(
    repo: Path, tmp_path: Path, old: str, new: str, formats: tuple[str, ...]
) -> None:
    for fmt in formats:
        fast = diff(repo, tmp_path, old, new, "--format", *fmt.split())
        full = diff(repo, tmp_path, old, new, "--format", *fmt.split(), "--full", "--no-cache")
        assert fast == full, fmt
        assert fast.strip() not in ("", "TX .\nTC ."), fmt


def test_only_the_changed_files_and_their_neighbours_are_read(repo: Path) -> None:
    commit_a, commit_b = (git(repo, "rev-parse", rev).strip() for rev in ("v1", "v2"))
    partial = partial_bundles(repo / "kb", commit_a, commit_b)
    assert partial is not None
    # the changed memories and the unchanged ones they link to or that link to them; no filler
    assert sorted(m.relpath for m in partial.new.memories.values()) == ["a.md", "b2.md", "c.md", "d.md", "e.md", "f.md"]
    assert sorted(m.relpath for m in partial.old.memories.values()) == ["a.md", "b.md", "c.md", "e.md", "f.md", "g.md"]
    assert exact_changes(partial) is not None  # and the RDF difference comes from them too
    # without findings, a file that links by path to a memory retitled in place is not needed; with them it is
    # (a rule such as derivation order reads it)
    v3 = git(repo, "rev-parse", "v3").strip()
    lean = partial_bundles(repo / "kb", commit_b, v3, neighbours=False)
    assert lean is not None and exact_changes(lean) is not None
    assert "a.md" not in {m.relpath for m in lean.new.memories.values()}
    whole = partial_bundles(repo / "kb", commit_b, v3)
    assert whole is not None and "a.md" in {m.relpath for m in whole.new.memories.values()}
    assert exact_changes(whole) is not None
    later = git(repo, "rev-parse", "v4").strip()
    assert partial_bundles(repo / "kb", v3, later) is None  # index.md changed


def test_the_fast_report_names_titles_of_unchanged_targets_and_findings_in_unchanged_memories(
    repo: Path, tmp_path: Path
) -> None:
    report = json.loads(diff(repo, tmp_path, "v1", "v2", "--format", "json"))
    memories = {m["id"]: m for m in report["memories"]}
    assert memories[A]["relationships"] == {
        "added": [{"type": "relates-to", "target": "./e.md", "title": "Epsilon"}],
        "removed": [{"type": "relates-to", "target": "./b.md", "title": "Beta"}],
    }
    assert (memories[B]["status"], memories[B]["new_path"]) == ("moved", "b2.md")
    assert memories[C]["status"] == "removed" and memories[C2]["status"] == "added"
    introduced = {(f["path"], f.get("rule")) for f in report["findings"]["introduced"]}
    assert ("f.md", "link") in introduced  # f.md did not change: its link broke because g.md went
    assert any(path == "n.md" for path, _ in introduced)  # the malformed file
    mended = json.loads(diff(repo, tmp_path, "v2", "v3", "--format", "json"))
    assert ("f.md", "link") in {(f["path"], f.get("rule")) for f in mended["findings"]["fixed"]}
    usurped = {m["id"]: m for m in mended["memories"]}["10000000-0000-4000-8000-000000000005"]
    assert (usurped["status"], usurped["new_path"]) == ("moved", "y.md")


def test_a_generated_bundle_with_ontologies_entities_and_broken_links(tmp_path: Path) -> None:
    """A corpus shaped like real data (tests/synthetic.py: entities, an ontology, absolute-path and urn links,
    broken links, index.md): retitled, retyped, deleted, renamed and added memories give the same diff both ways."""
    from synthetic import generate_bundle

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    paths = sorted(generate_bundle(root / "kb", 30, ontologies=True, broken_links=2))
    commit(root, "one")
    for path in paths[:3]:
        path.write_text(path.read_text(encoding="utf-8").replace("\ntitle: ", "\ntitle: Revised ", 1), encoding="utf-8")
    text = paths[3].read_text(encoding="utf-8")
    paths[3].write_text(text.replace("\ntype: ", "\ntype: semantic\nold-type: ", 1), encoding="utf-8")
    paths[4].unlink()
    (root / "kb" / "renamed").mkdir()
    git(root, "mv", str(paths[5].relative_to(root)), "kb/renamed/moved.md")
    first_id = paths[6].read_text(encoding="utf-8").split("\nid: ", 1)[1].split("\n", 1)[0]
    write_file(root / "kb", "added.md", paths[6].read_text(encoding="utf-8").replace(first_id, C2))
    commit(root, "two")
    partial = partial_bundles(root / "kb", *(git(root, "rev-parse", r).strip() for r in ("one", "two")))
    assert partial is not None and exact_changes(partial) is not None
    for fmt in ("json", "rdf-patch"):
        fast = diff(root, tmp_path, "one", "two", "--format", fmt)
        assert fast == diff(root, tmp_path, "one", "two", "--format", fmt, "--full", "--no-cache"), fmt
        assert fast.strip() not in ("", "TX .\nTC ."), fmt


# -- against the working tree (REV_B left out) --------------------------------------------------------------
FORMATS = ("text", "json", "markdown", "rdf-patch", "sparql-update", "json --no-findings")


def worktree_repo(root: Path) -> Path:
    """One commit of a small bundle (links by path and by urn, fillers, a file git ignores); the caller then
    edits the working tree without committing."""
    root.mkdir()
    git(root, "init", "-q")
    kb = root / "kb"
    write_file(kb, "a.md", memory_text(A, "title: Alpha\n" + link("./b.md")))
    write_file(kb, "b.md", memory_text(B, "title: Beta\n"))
    write_file(kb, "e.md", memory_text(E, "title: Epsilon\n"))
    write_file(kb, "f.md", memory_text(F, "title: Phi\n" + link("./g.md")))
    write_file(kb, "g.md", memory_text(G, "title: Gee\n"))
    for i in range(FILLERS):
        write_file(kb, f"z/u{i}.md", memory_text(f"10000000-0000-4000-8000-0000000000{i:02d}", f"title: U{i}\n"))
    write_file(root, ".gitignore", "kb/private/\n")
    commit(root, "base")
    return kb


def snapshot_tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}


def test_the_working_tree_gives_what_the_whole_bundles_give(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    kb = worktree_repo(root)
    write_file(kb, "a.md", memory_text(A, "title: Alpha two\n" + link("./e.md"), body="Body.\nMore.\n"))  # modified
    (kb / "b.md").rename(kb / "b2.md")  # renamed by hand: a deletion and an untracked file
    (kb / "g.md").unlink()  # deleted: f.md's link breaks
    write_file(kb, "d.md", memory_text(D, "title: Delta\n" + link(f"urn:mif:{E}", "derived-from")))  # untracked
    write_file(kb, "n.md", "---\nid: [unclosed\n---\nBroken.\n")  # malformed, untracked
    (kb / os.fsdecode(b"caf\xe9.md")).write_bytes(memory_text(N, "title: Odd\n").encode())  # not UTF-8
    write_file(kb, "private/p.md", memory_text(C, "title: Ignored by git, read by the loader\n"))
    os.utime(kb / "z" / "u1.md", (1, 1))  # touched, same bytes: no change
    write_file(kb, "z/u2.md", memory_text("10000000-0000-4000-8000-000000000002", "title: U2\n") + "\n")
    write_file(kb, "z/u2.md", memory_text("10000000-0000-4000-8000-000000000002", "title: U2\n"))  # changed back
    before = snapshot_tree(root)  # (no git status here: it would refresh the index's stamps of u1 and u2)
    commit_a = git(root, "rev-parse", "HEAD").strip()
    partial = partial_bundles(kb, commit_a, None)
    assert partial is not None  # the fast path answers
    assert sorted(m.relpath for m in partial.new.memories.values()) == [
        "a.md",
        "b2.md",
        "d.md",
        "e.md",
        "f.md",
        "private/p.md",
    ]  # the changed files and their neighbours; no filler, not the touched nor the changed-back one
    assert partial.changed == 8  # a, b (gone), b2, d, g (gone), n, the odd name, private/p
    for fmt in FORMATS:
        fast = diff(root, tmp_path, *fmt.split()[1:], "--format", fmt.split()[0])
        full = diff(root, tmp_path, "--format", *fmt.split(), "--full", "--no-cache")
        assert fast == full, fmt
        assert fast.strip() not in ("", "TX .\nTC ."), fmt
    report = json.loads(diff(root, tmp_path, "HEAD", "--format", "json"))
    assert report["new"] == "working tree"
    assert {m["id"]: m["status"] for m in report["memories"]}[B] == "moved"
    assert snapshot_tree(root) == before


def test_the_working_tree_when_git_may_convert_files_or_hides_them(tmp_path: Path) -> None:
    """Where git's account of the working tree is not the bytes on disk, the whole bundles answer, alike."""
    root = tmp_path / "repo"
    kb = worktree_repo(root)
    write_file(kb, "a.md", memory_text(A, "title: Alpha two\n"))
    commit_a = git(root, "rev-parse", "HEAD").strip()
    assert partial_bundles(kb, commit_a, None) is not None
    for setup, undo in (
        (("config", "core.autocrlf", "true"), ("config", "--unset", "core.autocrlf")),
        (("update-index", "--assume-unchanged", "kb/e.md"), ("update-index", "--no-assume-unchanged", "kb/e.md")),
    ):
        git(root, *setup)
        assert partial_bundles(kb, commit_a, None) is None
        assert diff(root, tmp_path, "--format", "json") == diff(root, tmp_path, "--format", "json", "--full")
        git(root, *undo)
    write_file(root, ".gitattributes", "*.md text eol=crlf\n")
    assert partial_bundles(kb, commit_a, None) is None
