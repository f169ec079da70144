"""Discovery: which files of a bundle folder are read, and which are not (and why).

Concept files (``*.md`` and ``.jsonld`` at any depth), ``.mif/config.yaml``
and ``.mif/entities``; symlinks are not followed, only regular files are read,
and what cannot be listed or named is a problem record, so nothing outside
the bundle is ever opened and nobody takes an unreadable file for deleted.
Reading a file found here is :mod:`mif_rdf.source.parse`'s.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mif_rdf.core.errors import Problem, Severity

#: OKF reserved file names: never concepts, at any depth.
RESERVED_NAMES = frozenset({"index.md", "log.md"})
ENTITIES_DIR = ".mif/entities"


@dataclass
class BundleFiles:
    """What discovery found, as bundle-relative POSIX paths."""

    memories: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    config: str | None = None
    problems: list[Problem] = field(default_factory=list)
    #: ``.jsonld`` files beside a ``.md`` of the same name: derived projections, checked but not loaded
    projections: list[str] = field(default_factory=list)


def discover(root: Path) -> BundleFiles:
    """Find concept files (``*.md`` at any depth), ``.mif/config.yaml`` and entity files.

    Hidden folders are skipped (``.mif`` is read for config and entities only),
    symlinked folders are not followed and symlinked files are not read (a
    target inside the bundle is read as itself), so nothing outside the bundle
    is ever opened and nothing is read twice.  The same rule holds for
    ``.mif`` itself, its config and its entity files.  Only regular files are
    read: a FIFO or device node would block or never end.  What cannot be
    listed or named (an unreadable folder, a name that is not UTF-8) is an
    error record, so that nobody takes its files for deleted.
    """
    found = BundleFiles()
    root = root.resolve()
    _walk(root, "", found, found.memories, is_concept_name, skip_hidden=True)
    _split_projections(found)
    found.memories.sort()  # one order everywhere: "the first of two duplicates" is well defined
    mif_dir = root / ".mif"
    if not mif_dir.is_dir() or mif_dir.is_symlink():  # a symlinked .mif was reported by the walk
        return found
    found.config = config_file(root, found.problems)
    if (root / ENTITIES_DIR).is_symlink():
        found.problems.append(
            Problem(ENTITIES_DIR, "symlinked folder is not followed", Severity.WARNING, rule="discovery")
        )
    elif (root / ENTITIES_DIR).is_dir():
        _walk(
            root,
            ENTITIES_DIR + "/",
            found,
            found.entities,
            lambda name: name.endswith((".yaml", ".yml")),
            skip_hidden=False,
        )
    return found


def loadable(root: Path, relpath: str) -> bool:
    """Whether :func:`discover` would read the file at ``relpath``: a regular file reached through no symlink.

    The watcher of ``serve`` and :meth:`Bundle.reload` decide with it, so a
    file changed after the load follows exactly the rules of a fresh load (a
    symlink created later, to ``/etc/passwd`` or to a memory outside, is
    never read).
    """
    path = root
    for part in relpath.split("/"):
        path = path / part
        try:
            info = path.lstat()
        except OSError:
            return False
        if stat.S_ISLNK(info.st_mode):
            return False
    return stat.S_ISREG(info.st_mode)


def is_concept_name(name: str) -> bool:
    """A memory file name: ``{name}.md``, or ``{name}.jsonld`` (its JSON-LD form, spec 3.3); not a reserved name."""
    if name.endswith(".jsonld"):
        name = name[: -len(".jsonld")] + ".md"
    return name.endswith(".md") and not name.startswith(".") and name not in RESERVED_NAMES


def _split_projections(found: BundleFiles) -> None:
    """A ``.jsonld`` beside its ``.md`` is a projection, not a second memory: the markdown wins (spec 2.1)."""
    markdown = {relpath for relpath in found.memories if relpath.endswith(".md")}
    found.projections = [
        r for r in found.memories if r.endswith(".jsonld") and r[: -len(".jsonld")] + ".md" in markdown
    ]
    if found.projections:
        paired = set(found.projections)
        found.memories = [r for r in found.memories if r not in paired]


def config_file(root: Path, problems: list[Problem]) -> str | None:
    """The bundle-relative path of ``.mif/config.yaml`` (or ``.yml``) when it may be read, else None.

    The symlink rule of :func:`discover` applies: ``.mif`` must be a real
    folder, and the config a regular file or a symlink to one inside the
    bundle.  Why it may not be read goes to ``problems``.
    """
    root = root.resolve()
    if not (root / ".mif").is_dir() or (root / ".mif").is_symlink():
        return None
    for name in ("config.yaml", "config.yml"):
        relpath = f".mif/{name}"
        if os.path.lexists(root / relpath):
            return relpath if _readable_config(root, relpath, problems) else None
    return None


def _readable_config(root: Path, relpath: str, problems: list[Problem]) -> bool:
    """Whether the config file may be read: a regular file, or a symlink to one inside the bundle."""
    path = root / relpath
    if path.is_symlink():
        if not _inside(path, root) or not path.is_file():
            problems.append(
                Problem(
                    relpath,
                    "symlink points outside the bundle (or to no regular file); not read",
                    Severity.WARNING,
                    rule="discovery",
                )
            )
            return False
        return True
    kind = _special_kind(path.lstat().st_mode)
    if kind is not None:
        problems.append(Problem(relpath, f"is {kind}, not a regular file; not read", rule="discovery"))
        return False
    return True


def _walk(
    root: Path, start: str, found: BundleFiles, files: list[str], wanted: Callable[[str], bool], *, skip_hidden: bool
) -> None:
    """The files of :func:`discover` below ``start``: each folder, then its subfolders, in name order.

    ``os.scandir`` entries know whether they are folders or symlinks without a
    system call per file, which matters at 100,000 files.
    """
    pending = [start]  # folder prefixes still to list, the next one last
    while pending:
        prefix = pending.pop()
        try:
            with os.scandir(root / prefix if prefix else root) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            where = prefix.rstrip("/") or "."
            found.problems.append(
                Problem(
                    where, f"cannot read folder: {exc.strerror or exc}; the files in it are not loaded", rule="read"
                )
            )
            continue
        folders = []
        for entry in entries:
            name = entry.name
            relpath = prefix + printable_name(name)
            try:
                is_dir, is_link = entry.is_dir(), entry.is_symlink()
                kind = (
                    None
                    if is_dir or is_link or entry.is_file(follow_symlinks=False)
                    else _special_kind(entry.stat(follow_symlinks=False).st_mode) or "not a regular file"
                )
            except OSError as exc:
                found.problems.append(Problem(relpath, f"cannot read: {exc.strerror or exc}", rule="read"))
                continue
            if is_dir:
                if is_link:
                    found.problems.append(
                        Problem(relpath, "symlinked folder is not followed", Severity.WARNING, rule="discovery")
                    )
                elif skip_hidden and name.startswith("."):
                    pass
                elif not is_utf8_name(name):
                    found.problems.append(
                        Problem(
                            relpath,
                            "folder name is not valid UTF-8: MIF paths must be UTF-8; the files in it are not loaded",
                            rule="encoding",
                        )
                    )
                else:
                    folders.append(prefix + name + "/")
                continue
            if not wanted(name):
                continue
            if not is_utf8_name(name):
                found.problems.append(
                    Problem(relpath, "file name is not valid UTF-8: MIF paths must be UTF-8; not read", rule="encoding")
                )
                continue
            if is_link:  # its target, when inside the bundle, is read as itself
                inside = _inside(Path(entry.path), root)
                reason = (
                    "symlink to a file inside the bundle; the file itself is read"
                    if inside
                    else "symlink points outside the bundle; not read"
                )
                found.problems.append(
                    Problem(relpath, reason, Severity.INFO if inside else Severity.WARNING, rule="discovery")
                )
                continue
            if kind is not None:
                found.problems.append(Problem(relpath, f"is {kind}, not a regular file; not read", rule="discovery"))
                continue
            files.append(relpath)
        pending.extend(reversed(folders))


def is_utf8_name(name: str) -> bool:
    """Whether a name from the file system is valid UTF-8 (Python keeps other bytes as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(name: str) -> str:
    """A file name that can be printed and stored: bytes that are not UTF-8 are shown as ``\\xe9``."""
    return name if is_utf8_name(name) else os.fsencode(name).decode("utf-8", "backslashreplace")


def _special_kind(mode: int) -> str | None:
    """What a file that is not a regular file or folder is, for a message; None for regular files and folders."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((label for test, label in kinds if test(mode)), None)


def is_entity_path(relpath: str) -> bool:
    """Whether a bundle-relative path is an entity file (under ``.mif/entities``)."""
    return relpath.startswith(ENTITIES_DIR + "/")


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True
