"""Revisions through the cache (issue 38, item 1): a revision's files go to a folder kept in the cache and
brought from revision to revision by git blob id, so the load cache parses again only the files a revision
changed; the result is always what ``git archive`` of the revision loads, whatever was loaded before."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.revision_cache import SLOTS
from mif_rdf.load.revisions import load_at_revision
from test_revisions import BASE, archived, git, repo, same_as_archive, snapshot  # noqa: F401  (repo: the history fixture)

MIF_RDF = [str(Path(sys.executable).parent / "mif-rdf")]


def changed_files(repo: Path, old: str, new: str) -> set[str]:  # noqa: F811
    """The bundle files the loader reads whose content differs between two revisions, by git's own account."""
    out = subprocess.run(
        ["git", "-C", str(repo), "diff", "--no-renames", "--name-only", "-z", old, new, "--", "kb"],
        check=True,
        capture_output=True,
    ).stdout
    names = [name.removeprefix(b"kb/") for name in out.split(b"\0") if name]
    return {name.decode() for name in names if _utf8(name)}  # a name that is not UTF-8 is never read


def _utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_revisions_in_any_order_load_as_their_archives_and_reparse_only_what_changed(
    repo: Path,  # noqa: F811
    tmp_path: Path,
    store: str,
) -> None:
    before, status = snapshot(repo), git(repo, "status", "--porcelain")
    cache = tmp_path / "cache"
    order = ["v1", "HEAD~1", "HEAD", "v1", "HEAD", "HEAD"]
    previous = None
    for step, rev in enumerate(order):
        bundle = load_at_revision(repo / "kb", rev, base_iri=BASE, cache=cache, store=store)
        same_as_archive(bundle, repo, rev, tmp_path / f"archive-{step}", store)
        assert cache in bundle.root.parents  # the files are in the cache, never beside the repository
        if previous is None:
            assert bundle.cache.state == "cold"
        else:
            assert bundle.cache.state == "warm", bundle.cache.reason
            changed = changed_files(repo, previous, rev)
            assert set(bundle.cache.reparsed) | set(bundle.cache.removed) == changed  # only those were read
        previous = rev
        del bundle
        gc.collect()  # the bundle gives its folder back; the next revision takes it up
    assert snapshot(repo) == before and git(repo, "status", "--porcelain") == status


def test_bundles_alive_together_never_share_a_folder(repo: Path, tmp_path: Path) -> None:  # noqa: F811
    cache = tmp_path / "cache"
    alive = [load_at_revision(repo / "kb", rev, base_iri=BASE, cache=cache) for rev in ["v1", "HEAD"]]
    assert alive[0].root != alive[1].root
    # the first bundle's folder still holds v1's files while the second is loaded
    assert snapshot(alive[0].root) == snapshot(archived(repo, git(repo, "rev-parse", "v1").strip(), tmp_path / "a"))
    more = [load_at_revision(repo / "kb", "HEAD~1", base_iri=BASE, cache=cache) for _ in range(SLOTS)]
    assert len({b.root for b in alive + more}) == len(alive + more)  # no folder free: a private copy
    assert all(cache in b.root.parents for b in (alive + more)[:SLOTS])
    assert cache not in more[-1].root.parents
    same_as_archive(more[-1], repo, "HEAD~1", tmp_path / "b")


def test_a_damaged_slot_is_rewritten_whole(repo: Path, tmp_path: Path) -> None:  # noqa: F811
    cache = tmp_path / "cache"
    bundle = load_at_revision(repo / "kb", "HEAD", base_iri=BASE, cache=cache)
    folder = bundle.root
    del bundle
    gc.collect()
    (folder / "a.md").write_text("---\nid: [broken\n---\n", encoding="utf-8")  # someone wrote into the cache
    (folder.parent / "blobs.json").unlink()  # as an interrupted update leaves it
    (folder / "stray.md").write_text("---\nid: 00000000-0000-4000-8000-000000000099\n---\nStray.\n", encoding="utf-8")
    again = load_at_revision(repo / "kb", "HEAD", base_iri=BASE, cache=cache)
    assert again.root == folder
    same_as_archive(again, repo, "HEAD", tmp_path / "archive")


def test_load_bundle_and_the_command_line_use_it(repo: Path, tmp_path: Path) -> None:  # noqa: F811
    cache = tmp_path / "cache"
    first = load_bundle(repo / "kb", rev="v1", cache=cache)  # the base IRI the command line gives it too
    assert first.cache is not None and first.cache.state == "cold"
    del first
    gc.collect()
    done = subprocess.run(
        [
            *MIF_RDF,
            "query",
            str(repo / "kb"),
            "--rev",
            "HEAD~1",
            "--store",
            "memory",
            "--cache-dir",
            str(cache),
            "-v",
            "ASK {}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "cache: warm" in done.stderr


def test_a_warm_load_forgets_the_problem_of_a_deleted_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """Found by the revisions above, true of any folder: discovery's problems are given afresh on a warm load."""
    root = tmp_path / "kb"
    write_file(root, "a.md", memory_text("00000000-0000-4000-8000-000000000001"))
    odd = root / os.fsdecode(b"caf\xe9.md")
    odd.write_bytes(memory_text("00000000-0000-4000-8000-000000000002").encode())
    cache = tmp_path / "cache"
    encoding = [p for p in load_bundle(root, cache=cache).problems if p.rule == "encoding"]
    assert len(encoding) == 1
    again = load_bundle(root, cache=cache)
    assert again.cache.state == "warm" and [p for p in again.problems if p.rule == "encoding"] == encoding
    odd.unlink()
    gone = load_bundle(root, cache=cache)
    assert gone.cache.state == "warm" and not [p for p in gone.problems if p.rule == "encoding"]


def test_diff_through_the_cache_says_what_it_says_without(repo: Path, tmp_path: Path) -> None:  # noqa: F811
    def diff(*options: str, full: bool = True) -> str:
        done = subprocess.run(
            [*MIF_RDF, "diff", str(repo / "kb"), "v1", "HEAD", "--format", "json", *options, *(["--full"] * full)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "home-cache")},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    afresh = diff("--no-cache")
    assert not (tmp_path / "home-cache").exists()  # --no-cache keeps nothing
    assert diff() == afresh and (tmp_path / "home-cache" / "mif-rdf" / "revisions").is_dir()
    assert diff() == afresh  # the second time both revisions come from their folders, warm
    assert '"removed"' in afresh or '"added"' in afresh
    assert diff(full=False) == afresh  # without --full: only the files that differ are read


def test_a_slot_folder_others_may_write_is_refused_by_name(
    repo: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    bundle = load_at_revision(repo / "kb", "HEAD", base_iri=BASE, cache=cache)
    slot = bundle.root.parent
    del bundle
    gc.collect()
    slot.chmod(0o777)
    with pytest.raises(MifRdfError, match="writable by other users"):
        load_at_revision(repo / "kb", "HEAD", base_iri=BASE, cache=cache)
    done = subprocess.run(
        [*MIF_RDF, "query", str(repo / "kb"), "--rev", "HEAD", "--cache-dir", str(cache), "ASK {}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "writable by other users" in done.stderr and "Traceback" not in done.stderr


def test_the_load_after_a_revision_trusts_the_unchanged_files_by_their_stamps(
    repo: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slot's files are dated back past the racy window: the next revision's load hashes only what changed
    (a file written just before a load would otherwise be hashed again by every later load until restamped)."""
    import mif_rdf.load.cache_entry

    cache = tmp_path / "cache"
    first = load_at_revision(repo / "kb", "HEAD~1", base_iri=BASE, cache=cache)  # the slot written, then loaded
    del first
    gc.collect()
    hashed: list[str] = []
    stamp = mif_rdf.load.cache_entry._stamp

    def counting(root: Path, relpath: str) -> object:
        hashed.append(relpath)
        return stamp(root, relpath)

    monkeypatch.setattr(mif_rdf.load.cache_entry, "_stamp", counting)
    bundle = load_at_revision(repo / "kb", "HEAD", base_iri=BASE, cache=cache)
    assert bundle.cache.state == "warm" and bundle.cache.reparsed == ("c.md",)
    assert hashed == ["c.md"]  # the unchanged files were not read to be trusted
