"""A bundle as it was at any git revision, read from the repository's objects, never by checking out.

``git ls-tree`` lists the bundle folder's files at the revision and one
``git cat-file --batch`` process reads their blobs; the files are written to
a private temporary folder that the ordinary loader reads, so a revision
loads with exactly the rules of a working tree.  The user's working tree,
index and HEAD are never touched (no checkout, no stash, no worktree).

The ``git`` command is used rather than a library (dulwich, pygit2): it is
present wherever a bundle lives in git, understands every revision form the
user knows (``HEAD~3``, tags, ``main@{2026-03-01}``) exactly as git does, and
adds no dependency.

A revision's bundle keeps the base IRI the folder has in the working tree
(``mif://<bundle_id>/`` from that revision's config, else the folder's path
identity), so the graphs of two revisions name the same memories alike and
can be compared.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.outputs import owned_folder
from mif_rdf.load.cache import default_cache_dir
from mif_rdf.load.loader import load
from mif_rdf.load.revision_cache import slots_dir, take_slot
from mif_rdf.source.identity import default_base_iri
from mif_rdf.source.parse import bundle_config

_TIMEOUT = 600


@dataclass(frozen=True)
class TreeFile:
    """One file of the bundle folder at a revision: its path in the bundle, git mode and blob id."""

    relpath: str
    mode: str
    blob: str


def _git(folder: Path, *args: str, data: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], input=data, capture_output=True, timeout=_TIMEOUT)
    except FileNotFoundError:
        raise MifRdfError("reading a revision needs the git command, which is not installed") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MifRdfError(message[-1] if message else f"git {args[0]} failed")
    return done.stdout


def resolve(folder: str | Path, rev: str) -> str:
    """The commit id ``rev`` names in the repository holding ``folder``; a clear error when there is none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MifRdfError(f"bundle folder {str(folder)!r} does not exist")
    if not rev or rev.startswith("-"):
        raise MifRdfError(f"{rev!r} is not a git revision")
    try:
        _git(folder, "rev-parse", "--git-dir")
    except MifRdfError:
        raise MifRdfError(f"{str(folder)!r} is not in a git repository: reading a revision needs one") from None
    try:
        return (
            _git(folder, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
        )
    except MifRdfError:
        raise MifRdfError(f"{rev!r} names no commit in the repository of {str(folder)!r}") from None


def tree_files(folder: str | Path, commit: str) -> list[TreeFile]:
    """The regular files under ``folder`` at ``commit`` (symbolic links
    and submodules are left out, as the loader leaves them)."""
    folder = Path(folder)
    prefix = _bundle_prefix(folder)
    listed = _git(folder, "ls-tree", "-r", "-z", "--full-tree", commit, "--", prefix or ".")
    files = []
    for entry in filter(None, listed.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob = meta.decode().split()
        path = os.fsdecode(name)
        relpath = path[len(prefix) :]
        if kind == "blob" and mode in ("100644", "100755") and path.startswith(prefix) and not _unsafe(relpath):
            files.append(TreeFile(relpath, mode, blob))
    return files


@dataclass(frozen=True)
class ChangedFile:
    """One file of the bundle folder that differs between two commits (``git diff-tree``):
    its path and blob at each side (None where the file is absent on that side)."""

    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None


def _bundle_prefix(folder: Path) -> str:
    return _git(folder, "rev-parse", "--show-prefix").decode("utf-8", "surrogateescape").strip()


def changed_files(folder: str | Path, commit_a: str, commit_b: str) -> list[ChangedFile]:
    """The files under ``folder`` that differ between two commits, renames paired (``git diff-tree
    --find-renames``, plumbing only: nothing is checked out).  A symbolic link or submodule on a side
    counts as absent there, as the loader never reads one."""
    folder = Path(folder)
    prefix = _bundle_prefix(folder)
    out = _git(folder, "diff-tree", "-r", "-z", "--find-renames", commit_a, commit_b, "--", f":(top){prefix}")
    fields, changes, position = out.split(b"\0"), [], 0
    while position < len(fields) and fields[position].startswith(b":"):
        meta = fields[position][1:].decode().split()
        renamed = meta[4][:1] in ("R", "C")
        names = [os.fsdecode(n) for n in fields[position + 1 : position + (3 if renamed else 2)]]
        position += 3 if renamed else 2
        old_name, new_name = (names[0], names[1]) if renamed else (names[0], names[0])

        def side(mode: str, blob: str, name: str) -> tuple[str | None, str | None]:
            relpath = name[len(prefix) :]
            usable = mode in ("100644", "100755") and name.startswith(prefix) and not _unsafe(relpath)
            return (relpath, blob) if usable else (None, None)

        old_path, old_blob = side(meta[0], meta[2], old_name)
        new_path, new_blob = side(meta[1], meta[3], new_name)
        if old_path is not None or new_path is not None:
            changes.append(ChangedFile(old_path, new_path, old_blob, new_blob))
    return changes


#: Attributes under which git converts a file between its blob and the working tree: with any of them set,
#: "unchanged" by git's account need not mean the same bytes on disk.
_CONVERTING = ("text", "eol", "filter", "ident", "working-tree-encoding")


def worktree_changes(folder: str | Path, commit: str) -> tuple[list[ChangedFile], dict[str, bytes]] | None:
    """The files under ``folder`` whose bytes on disk differ from ``commit``'s, and the new bytes by blob id;
    None when git's account of the working tree cannot be trusted to the byte.

    Candidates come from git (``git diff-index``, which compares ``commit`` with the working tree through
    the index's file stamps, and ``git ls-files --others``: untracked files, ignored ones included, as the
    loader reads them too); each candidate's bytes are read and hashed as git hashes a blob, so a file
    that was only touched, or changed and changed back, drops out.  The working tree is only read.

    None when the working tree may hold other bytes than git says: git converts files there (``core.autocrlf``,
    or a ``text``/``eol``/``filter``/``ident``/``working-tree-encoding`` attribute), an index entry is marked
    assume-unchanged or skip-worktree, or a nested repository sits in the folder (its files are not listed).
    """
    folder = Path(folder)
    prefix = _bundle_prefix(folder)
    scope = f":(top){prefix}"
    autocrlf = _git(folder, "config", "--default", "false", "--get", "core.autocrlf").strip().lower()
    if autocrlf not in (b"false", b"no", b"off", b"0", b""):
        return None
    tracked = [
        entry for entry in _git(folder, "ls-files", "-v", "-z", "--full-name", "--", scope).split(b"\0") if entry
    ]
    if any(entry[:2] != b"H " for entry in tracked):
        return None  # h: assume-unchanged; S: skip-worktree (sparse checkout); M: unmerged
    untracked = [n for n in _git(folder, "ls-files", "-o", "-z", "--full-name", "--", scope).split(b"\0") if n]
    if any(raw.endswith(b"/") for raw in untracked):
        return None  # a nested repository: git lists the folder, not its files
    start = len(os.fsencode(prefix))
    listed = b"".join(raw[start:] + b"\0" for raw in [*(entry[2:] for entry in tracked), *untracked])
    attributes = _git(folder, "check-attr", "-z", "--stdin", *_CONVERTING, data=listed).split(b"\0")
    if any(value not in (b"unspecified", b"unset") for value in attributes[2::3]):
        return None
    out = _git(folder, "diff-index", "-z", "--no-renames", commit, "--", scope)
    fields, candidates, position = out.split(b"\0"), {}, 0
    while position + 1 < len(fields) and fields[position].startswith(b":"):
        meta = fields[position][1:].decode().split()
        candidates[os.fsdecode(fields[position + 1])] = (meta[0], meta[2])  # old mode and blob
        position += 2
    for raw in untracked:
        candidates.setdefault(os.fsdecode(raw), ("000000", ""))
    changes, contents = [], {}
    for name, (old_mode, old_blob) in sorted(candidates.items()):
        relpath = name[len(prefix) :]
        if not name.startswith(prefix) or _unsafe(relpath):
            continue
        old_path, old_id = (relpath, old_blob) if old_mode in ("100644", "100755") else (None, None)
        data = _regular_file_bytes(folder / relpath)
        blob = None if data is None else hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324
        if blob == old_id:
            continue  # touched, or changed and changed back: the same bytes
        if data is not None and blob is not None:
            contents[blob] = data
        if old_path is not None or blob is not None:
            changes.append(ChangedFile(old_path, relpath if blob else None, old_id, blob))
    return changes, contents


def _regular_file_bytes(path: Path) -> bytes | None:
    """The bytes of a regular file, None for a link, a folder, a missing or an unreadable file (the loader
    reads none of them)."""
    try:
        return path.read_bytes() if stat.S_ISREG(path.lstat().st_mode) else None
    except OSError:
        return None


def files_containing(folder: str | Path, commit: str, needles: set[str]) -> list[str]:
    """The bundle files at ``commit`` whose text contains any of ``needles`` (``git grep -F``, plain
    strings: no pattern syntax)."""
    folder = Path(folder)
    wanted = sorted(n for n in needles if n and "\n" not in n)
    if not wanted:
        return []
    prefix = _bundle_prefix(folder)
    patterns = "".join(f"{n}\n" for n in wanted).encode("utf-8", "surrogateescape")
    try:
        done = subprocess.run(
            [
                "git",
                "-C",
                str(folder),
                "grep",
                "-l",
                "-z",
                "-F",
                "--full-name",
                "-I",
                "-f",
                "-",
                commit,
                "--",
                f":(top){prefix}",
            ],
            input=patterns,
            capture_output=True,
            timeout=_TIMEOUT,
        )
    except FileNotFoundError:
        raise MifRdfError("reading a revision needs the git command, which is not installed") from None
    if done.returncode not in (0, 1):  # 1: nothing matched
        raise MifRdfError(done.stderr.decode("utf-8", "replace").strip() or "git grep failed")
    found = []
    for entry in filter(None, done.stdout.split(b"\0")):
        name = os.fsdecode(entry)[len(commit) + 1 :]
        if name.startswith(prefix) and not _unsafe(name[len(prefix) :]):
            found.append(name[len(prefix) :])
    return found


def _unsafe(relpath: str) -> bool:
    """A path a crafted tree could use to write outside a copy of the bundle."""
    return any(part in ("", ".", "..") for part in relpath.split("/"))


def read_blobs(folder: str | Path, blobs: list[str]) -> dict[str, bytes]:
    """The contents of ``blobs`` by id, through one ``git cat-file --batch``."""
    if not blobs:
        return {}
    unique = list(dict.fromkeys(blobs))
    out = _git(Path(folder), "cat-file", "--batch", data="".join(f"{b}\n" for b in unique).encode())
    contents, position = {}, 0
    for blob in unique:
        end = out.index(b"\n", position)
        header = out[position:end].split()
        if len(header) != 3:
            raise MifRdfError(f"git cat-file could not read the object {blob}")
        size = int(header[2])
        contents[blob] = out[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    return contents


def materialize(folder: str | Path, rev: str, target: Path) -> str:
    """Write the bundle folder's files at ``rev`` into ``target`` (an empty folder); returns the commit id."""
    commit = resolve(folder, rev)
    files = tree_files(folder, commit)
    contents = read_blobs(folder, [f.blob for f in files])
    for item in files:
        path = target / item.relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(contents[item.blob])
    return commit


def revision_loader(rev: str) -> Callable[..., Any]:
    """``load_bundle`` for the files of ``rev``: what ``--rev REV`` gives every command that reads a bundle
    (with its ``cache`` option: see :func:`load_at_revision`)."""

    def load(folder: str | Path, **options: Any) -> Any:
        return load_at_revision(folder, rev, **options)

    return load


def load_at_revision(folder: str | Path, rev: str, **options: Any) -> Any:
    """:func:`~mif_rdf.load.loader.load` of ``folder`` as it was at git revision ``rev``
    (``load_bundle(folder, rev=...)`` in the public API).

    ``options`` are ``load``'s (``into`` and ``cache`` included); without ``base_iri`` the bundle gets
    the base IRI of ``folder`` (see the module docstring).  Without a cache the returned
    bundle's ``root`` is a private temporary copy, removed when the bundle is.
    With one (``cache=True`` or a folder) the files go to a folder kept in the
    cache for this repository folder and brought from the revision it held to
    ``rev`` by blob id (:mod:`mif_rdf.load.revision_cache`), and the load cache
    parses again only the files that differ: the second of two adjacent
    revisions loads in a fraction of the first's time.  That folder is the
    bundle's ``root``, reserved for it until the bundle is released.
    Raises :class:`MifRdfError` when ``folder`` is not in a git repository or
    ``rev`` names no commit.
    """
    real = Path(folder).resolve() if Path(folder).is_dir() else Path(folder)
    cache = options.get("cache")
    if cache is not None and cache is not False:
        commit = resolve(folder, rev)
        files = tree_files(folder, commit)
        cache_dir = default_cache_dir() if cache is True else Path(cache)
        home = slots_dir(cache_dir, str(real), real.name)
        slot = take_slot(home, real.name, [(f.relpath, f.blob) for f in files], lambda blobs: read_blobs(folder, blobs))
        if slot is not None:
            try:
                if not options.get("base_iri"):
                    options["base_iri"] = default_base_iri(real, bundle_config(slot.folder))
                bundle = load(slot.folder, **options)
            except BaseException:
                slot.release()
                raise
            weakref.finalize(bundle, slot.release)
            return bundle
    options.pop("cache", None)  # no slot free: a private copy, loaded without the cache (it keys on the folder)
    target = owned_folder("rev")
    try:
        materialize(folder, rev, target)
        if not options.get("base_iri"):
            options["base_iri"] = default_base_iri(real, bundle_config(target))
        bundle = load(target, **options)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    weakref.finalize(bundle, shutil.rmtree, target, True)
    return bundle
