"""Output files: never half-written, never a source, never left behind.

Every file mif-rdf writes goes through :func:`replacing`: the bytes go to a
temporary file in the target's folder, which is flushed, ``fsync``-ed and
renamed over the target only when the writer finished.  A Ctrl-C, a SIGTERM,
a ``kill -9`` or a full disk at any moment leaves the previous file as it
was (a rename within one folder is atomic), so a pipeline that trusts an
existing output never reads a truncated one.

:func:`refuse_sources` runs before anything is read: an output that resolves
(through symlinks, or as a hard link) to a file the command reads, or into a
bundle's ``.mif/``, is refused, naming the option and the file.  Truncating
an input before reading it destroyed it (issue 39).

Temporary files and folders carry the :data:`PREFIX`, the pid of the
process that made them and a short hash of its machine's host name
(:func:`owner`); whatever a killed process left is removed by the next run
on the same machine that looks in the same place (:func:`sweep`), once that
process is gone. The host name is there because a folder can be shared by
machines (a Dask cluster's output folder): a pid says nothing about another
machine's processes, so their files are never swept from here.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from mif_rdf.core.errors import MifRdfError

#: What every temporary file or folder of mif-rdf starts with (then :func:`owner`, a dash, a random part).
PREFIX = ".mif-rdf-tmp-"
#: Folders in the system's temporary folder: visible names, since that folder is shared.
FOLDER_PREFIX = "mif-rdf-tmp-"
#: This machine, as temporary names carry it: 8 hex digits of its host name's SHA-1.
HOST = hashlib.sha1(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]
#: The pid, and the host (absent in names made before the host was added: those are taken as this machine's).
_OWNED = re.compile(rf"^(?:{re.escape(PREFIX)}|{re.escape(FOLDER_PREFIX)})(\d+)(?:\.([0-9a-f]{{8}}))?-")


def owner() -> str:
    """Who makes a temporary name: this process's pid and :data:`HOST` (``12345.0a1b2c3d``)."""
    return f"{os.getpid()}.{HOST}"


def process_exists(pid: int) -> bool:
    """Whether a process with this pid exists (another user's counts: it may still be writing)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's process
        return True
    return True


def sweep(folder: Path) -> list[Path]:
    """Remove what killed mif-rdf processes of this machine left in ``folder`` (files and folders named
    :data:`PREFIX` + a dead pid + :data:`HOST`); another machine's are left alone, whatever their pid."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = _OWNED.match(entry.name)
        if found is None or found.group(2) not in (None, HOST) or process_exists(int(found.group(1))):
            continue
        path = Path(entry.path)
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue  # another sweeper was quicker, or it is not ours to remove
        removed.append(path)
    return removed


def owned_folder(kind: str, base: str | Path | None = None) -> Path:
    """A new private folder in ``base`` (the system's temporary folder by default), named for this process, so
    that the next run's :func:`sweep` removes it when this process dies before removing it itself."""
    base = Path(base) if base is not None else _system_temporary_folder()
    sweep(base)
    return Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{owner()}-{kind}-", dir=base))


def _system_temporary_folder() -> Path:
    """:func:`tempfile.gettempdir`, with Ctrl-C and SIGTERM held back while it runs.

    Its first call proves the folder writable by creating, writing and
    unlinking a file with a random name and no prefix: a signal handled
    between the create and the unlink (our handlers raise) left that file
    in the user's temporary folder, where no sweep can know it as ours.
    Held back, the signal is handled as soon as the probe is gone.
    """
    interrupts = {signal.SIGINT, signal.SIGTERM}
    held = signal.pthread_sigmask(signal.SIG_BLOCK, interrupts)
    try:
        return Path(tempfile.gettempdir())
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextlib.contextmanager
def temporary_folder(kind: str) -> Iterator[Path]:
    """A private folder in the system's temporary folder, removed at the end (or by the next run's :func:`sweep`)."""
    folder = owned_folder(kind)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _mode_for(target: Path) -> int:
    """The permissions the output gets: the previous file's, else what the umask allows for a new file."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def replacing(path: str | Path, *, gzipped: bool = False) -> Iterator[IO[bytes]]:
    """A binary handle whose bytes replace ``path`` when the block ends without error, and never before.

    The temporary file lives beside the target (a rename across file
    systems is not atomic) and is removed on any error or interrupt.  A
    symlink at ``path`` is followed: the file it names is replaced.  A full
    disk is a :class:`MifRdfError` saying the previous file is unchanged.
    What is not a regular file (``/dev/stdout``, a FIFO) is written as it is.
    ``gzipped``: the bytes written are gzip-compressed on their way (:func:`gzip_writer`).
    """
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # nothing there yet (or a broken symlink: it names where the file goes)
        special = False
    if special:  # /dev/stdout, a FIFO, a terminal: nothing to replace, and no folder to put a temporary file in
        with open(path, "wb") as handle, gzip_writer(handle, gzipped) as out:
            yield out
        return
    target = Path(path).resolve()
    sweep(target.parent)
    fd, temporary = tempfile.mkstemp(prefix=f"{PREFIX}{owner()}-", suffix=f".{target.name[-80:]}", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            with gzip_writer(handle, gzipped) as out:
                yield out
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise MifRdfError(
                f"{path}: no space left on the device ({exc.strerror}); nothing was written and the previous file, "
                "if any, is unchanged"
            ) from None
        raise
    _sync_folder(target.parent)


@contextlib.contextmanager
def gzip_writer(handle: IO[bytes], gzipped: bool = True) -> Iterator[IO[bytes]]:
    """``handle`` itself, or (``gzipped``) a gzip stream into it, closed (its trailer written) when the block ends.

    The header has no file name and a zero time stamp, so the same data
    compresses to the same bytes: two exports of one bundle are identical
    files (``cmp``, ``make`` and content hashes see no change).  Level 6, as
    ``gzip`` itself: level 9 costs twice the time for a file a few per cent smaller.
    """
    if not gzipped:
        yield handle
        return
    with gzip.GzipFile(filename="", mode="wb", fileobj=handle, compresslevel=6, mtime=0) as out:
        yield out  # type: ignore[misc]  # GzipFile is a binary stream (BufferedIOBase), which IO[bytes] does not name


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system lets a folder be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_file(path: str | Path, data: bytes) -> None:
    """``path`` holds ``data``, or (on any failure) what it held before."""
    with replacing(path) as handle:
        handle.write(data)


# -- sources are never outputs -----------------------------------------------------------


def refuse_sources(
    outputs: Iterable[tuple[str, Path | None]], inputs: Iterable[Path], bundle: Path | None = None
) -> None:
    """Raise :class:`MifRdfError` before anything is read if an output would overwrite an input.

    ``outputs`` are ``(option, path)`` pairs (a None path is standard output);
    ``inputs`` are files, or folders whose existing files are all read;
    ``bundle`` is a bundle folder: its memory files (``.md``) and anything in
    its ``.mif/`` are inputs (a new ``report.ttl`` beside them is not).  Paths
    are compared after resolving symlinks, and an existing output with other
    hard links is compared by inode with every input file.  An output folder
    (``convert ... -o DIR``) may be an input folder: new files go beside the
    inputs, never over them.
    """
    roots = [Path(os.path.realpath(p)) for p in inputs]
    home = Path(os.path.realpath(bundle)) if bundle is not None else None
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        target = Path(os.path.realpath(path))
        if target in seen:
            raise MifRdfError(f"{option} {path} is also the output of {seen[target]}: give each output its own file")
        seen[target] = option
        why = _input_at(target, roots, home)
        if why is None:
            linked = _hard_link_to_input(target, _input_files(roots, home))
            why = None if linked is None else f"a hard link to {linked}"
        if why is not None:
            raise MifRdfError(
                f"{option} {_which(target, path)}: that is {why}, which this command reads; "
                "refusing to overwrite an input (choose another output)"
            )


def _input_at(target: Path, roots: list[Path], home: Path | None) -> str | None:
    """What input ``target`` is, if it is one (None: it is not)."""
    if home is not None and target.is_relative_to(home / ".mif"):
        return f"inside the bundle's .mif/ folder ({home / '.mif'})"
    if target.is_dir():
        return None
    if (
        home is not None
        and target.is_relative_to(home)
        and target.suffix.lower() in (".md", ".jsonld")
        and target.exists()
    ):
        return f"a memory file of the bundle {home}"
    for root in roots:
        if target == root or (target.is_relative_to(root) and target.exists()):
            return "an input file"
    return None


def _which(target: Path, given: Path) -> str:
    """The output as given, and where it leads when a symlink takes it elsewhere."""
    return str(given) if str(target) == os.path.abspath(given) else f"{given} (which leads to {target})"


def _input_files(roots: list[Path], home: Path | None) -> Iterator[Path]:
    """Every input file: all files under the input roots, and the bundle's memory files and ``.mif/``."""
    for root in roots:
        yield from _files_under(root)
    if home is not None:
        yield from (
            path for path in _files_under(home) if path.suffix.lower() == ".md" or path.is_relative_to(home / ".mif")
        )


def _hard_link_to_input(target: Path, inputs: Iterator[Path]) -> Path | None:
    """The input file an existing output shares its inode with (only looked for when it has other links)."""
    try:
        info = os.stat(target)
    except OSError:
        return None
    if info.st_nlink < 2 or not stat.S_ISREG(info.st_mode):
        return None
    for path in inputs:
        with contextlib.suppress(OSError):
            other = os.stat(path, follow_symlinks=False)
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                return path
    return None


def _files_under(root: Path) -> Iterator[Path]:
    """``root`` itself when it is a file, else every file below it (symlinked folders not followed)."""
    if not root.is_dir():
        yield root
        return
    for folder, _, names in os.walk(root):
        for name in names:
            yield Path(folder) / name
