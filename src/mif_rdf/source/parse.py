"""Discovery and parsing: a bundle folder -> parsed memories, entities, config, problems.

Each file is read and checked on its own; whatever goes wrong becomes a
:class:`~mif_rdf.core.errors.Problem` naming the file, the key and the line, and the
rest of the bundle loads regardless.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits, yaml_shape_problem
from mif_rdf.source.fastyaml import load_yaml  # PyYAML's result, faster where provably the same
from mif_rdf.source.identity import BASE_TYPES, UUID_RE, default_base_iri, entity_iri, id_problem
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter
from mif_rdf.source.yamlio import yaml_error_line

#: OKF reserved file names: never concepts, at any depth.
RESERVED_NAMES = frozenset({"index.md", "log.md"})
REQUIRED_KEYS = ("id", "type", "created")
ENTITIES_DIR = ".mif/entities"


@dataclass
class ParsedMemory:
    """One memory file as read from disk: frontmatter (YAML values) and verbatim body."""

    relpath: str
    frontmatter: dict[str, Any]
    body: str
    #: the line of the file the body starts on (0: not known), for positions inside the body
    body_line: int = 0

    @property
    def id(self) -> str:
        return str(self.frontmatter["id"])


@dataclass
class ParsedEntity:
    relpath: str
    iri: str
    data: dict[str, Any]


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
                elif not _utf8(name):
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
            if not _utf8(name):
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


def _utf8(name: str) -> bool:
    """Whether a name from the file system is valid UTF-8 (Python keeps other bytes as lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(name: str) -> str:
    """A file name that can be printed and stored: bytes that are not UTF-8 are shown as ``\\xe9``."""
    return name if _utf8(name) else os.fsencode(name).decode("utf-8", "backslashreplace")


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


def read_text(path: Path, relpath: str, problems: list[Problem], limits: Limits = DEFAULT_LIMITS) -> str | None:
    """File text as UTF-8, or None with a problem recorded.

    The file is opened without blocking and checked to be a regular file on
    the open handle, so a FIFO or device put in place after discovery cannot
    hang the load, and at most the size limit is read whatever the file claims.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                problems.append(
                    Problem(
                        relpath,
                        f"is {_special_kind(info.st_mode) or 'not a regular file'}, not a regular file; not read",
                        rule="discovery",
                    )
                )
                return None
            if info.st_size > limits.max_file_bytes:
                problems.append(
                    Problem(
                        relpath,
                        f"file is {info.st_size:,} bytes, over the limit of {limits.max_file_bytes:,} (--max-file-size); not read",
                        rule="limit",
                    )
                )
                return None
            data = handle.read(limits.max_file_bytes + 1)
    except OSError as exc:
        problems.append(Problem(relpath, f"cannot read file: {exc.strerror or exc}", rule="read"))
        return None
    if len(data) > limits.max_file_bytes:
        problems.append(
            Problem(
                relpath,
                f"file grew over the limit of {limits.max_file_bytes:,} bytes (--max-file-size) while read; not read",
                rule="limit",
            )
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(
            Problem(relpath, f"not valid UTF-8 (byte {exc.start}): MIF files must be UTF-8", line=line, rule="encoding")
        )
        return None


def parse_yaml_mapping(
    text: str, relpath: str, problems: list[Problem], line_offset: int = 0, limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any] | None:
    """A YAML mapping, or None with a problem; YAML warnings become problems too."""
    try:
        result = load_yaml(text)
    except yaml.YAMLError as exc:
        line = yaml_error_line(exc)
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        problems.append(
            Problem(relpath, f"YAML syntax error: {reason}", line=line + line_offset if line else None, rule="yaml")
        )
        return None
    except RecursionError:
        problems.append(Problem(relpath, "YAML nesting is too deep to read", rule="yaml"))
        return None
    for issue in result.issues:
        message = issue.message
        if issue.first_line is not None:
            message += f" (first on line {issue.first_line + line_offset})"
        problems.append(
            Problem(
                relpath,
                message,
                Severity.WARNING,
                key=issue.key,
                line=(issue.line or 0) + line_offset or None,
                rule="yaml",
            )
        )
    if result.data is None:
        result.data = {}
    too_big = yaml_shape_problem(result.data, limits)
    if too_big is not None:
        problems.append(Problem(relpath, f"{too_big}; not loaded", line=line_offset + 1, rule="limit"))
        return None
    if not isinstance(result.data, dict):
        problems.append(
            Problem(
                relpath,
                f"YAML must be a mapping of keys to values, not a {type(result.data).__name__}",
                line=line_offset + 1,
                rule="yaml",
            )
        )
        return None
    return result.data


def parse_memory(
    root: Path, relpath: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[ParsedMemory | None, list[Problem]]:
    """Read one concept file.  Returns None (with problems) when it cannot be a memory."""
    problems: list[Problem] = []
    text = read_text(root / relpath, relpath, problems, limits)
    if text is None:
        return None, problems
    try:
        split = split_frontmatter(text)
    except FrontmatterError as exc:
        problems.append(Problem(relpath, str(exc), line=exc.line, rule="frontmatter"))
        return None, problems
    if split.had_bom:
        problems.append(
            Problem(relpath, "file starts with a byte-order mark; it is ignored", Severity.INFO, rule="encoding")
        )
    frontmatter = parse_yaml_mapping(split.frontmatter, relpath, problems, line_offset=1, limits=limits)
    if frontmatter is None:
        return None, problems
    if frontmatter.get("id") not in (None, "") and not isinstance(
        frontmatter["id"], (str, dict, list)
    ):  # a YAML number, date, bool
        frontmatter["id"] = _written_id(split.frontmatter, frontmatter["id"], relpath, problems)
    _check_required(frontmatter, relpath, problems)
    if relpath.endswith(".memory.md"):
        problems.append(
            Problem(
                relpath,
                "MIF 0.1 file name (.memory.md); v1.0 uses plain .md (see spec 17)",
                Severity.WARNING,
                rule="legacy",
            )
        )
    if id_problem(frontmatter.get("id")) is not None:
        return None, problems
    return ParsedMemory(relpath, frontmatter, split.body, split.frontmatter.count("\n") + 3), problems


_ID_LINE = re.compile(r"^id:[ \t]+([^\s#'\"][^#\n]*?)[ \t]*(?:#.*)?$", re.M)


def _written_id(frontmatter_text: str, value: object, relpath: str, problems: list[Problem]) -> str:
    """The id as the author wrote it, when YAML read it as something else (``0x10`` is the number 16).

    The memory IRI is built from the text in the file, so two spellings of one
    number never become one memory and a hex id keeps its digits.
    """
    match = _ID_LINE.search(frontmatter_text)
    written = match.group(1) if match else str(value)
    if written != str(value):
        problems.append(
            Problem(
                relpath,
                f"id {written} is read by YAML as the {type(value).__name__} {value!r}; the id is the text as written, {written!r} (quote it to say so)",
                Severity.WARNING,
                key="id",
                value=written,
                rule="id",
            )
        )
    return written if id_problem(written) is None else str(value)


def _check_required(fm: dict[str, Any], relpath: str, problems: list[Problem]) -> None:
    for key in REQUIRED_KEYS:
        if fm.get(key) in (None, ""):
            consequence = "; the file is not loaded" if key == "id" else ""
            problems.append(Problem(relpath, f"required key {key!r} is missing{consequence}", key=key, rule="required"))
    memory_id = fm.get("id")
    if memory_id not in (None, ""):
        why = id_problem(memory_id if isinstance(memory_id, str) else str(memory_id))
        if why:
            problems.append(Problem(relpath, f"id {why}; the file is not loaded", key="id", value=memory_id, rule="id"))
        elif not isinstance(memory_id, str) or not UUID_RE.match(memory_id):
            problems.append(
                Problem(
                    relpath,
                    f"id {memory_id!r} is not a UUID (spec 4.1); accepted",
                    Severity.WARNING,
                    key="id",
                    value=memory_id,
                    rule="id",
                )
            )
    kind = fm.get("type")
    if kind not in (None, "") and kind not in BASE_TYPES:
        problems.append(
            Problem(
                relpath,
                f"type {kind!r} is not a base type ({', '.join(BASE_TYPES)})",
                key="type",
                value=kind,
                rule="type",
            )
        )


def parse_entity(
    root: Path, relpath: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[ParsedEntity | None, list[Problem]]:
    """Read one ``.mif/entities`` YAML file (spec 7.4)."""
    problems: list[Problem] = []
    text = read_text(root / relpath, relpath, problems, limits)
    data = None if text is None else parse_yaml_mapping(text, relpath, problems, limits=limits)
    if data is None:
        return None, problems
    slug, kind = data.get("id"), data.get("type")
    if not isinstance(slug, str) or not slug or not isinstance(kind, str) or not kind:
        problems.append(
            Problem(
                relpath,
                "entity needs string 'id' and 'type' keys; not loaded",
                key="id" if not slug else "type",
                rule="entity",
            )
        )
        return None, problems
    iri = entity_iri(kind, slug)
    why = id_problem(iri[len("urn:mif:") :])
    if why:
        problems.append(Problem(relpath, f"entity id {why}; not loaded", key="id", value=slug, rule="entity"))
        return None, problems
    return ParsedEntity(relpath, iri, data), problems


def parse_config(root: Path, relpath: str, limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[Problem]]:
    problems: list[Problem] = []
    text = read_text(root / relpath, relpath, problems, limits)
    data = None if text is None else parse_yaml_mapping(text, relpath, problems, limits=limits)
    return data or {}, problems


def bundle_config(root: Path) -> dict[str, Any]:
    """The bundle's ``.mif/config.yaml`` (or ``.yml``) as parsed, ``{}`` when it has none; its problems are the loader's to report."""
    relpath = config_file(root, [])  # discovery's rule: a config symlinked out of the bundle is never read
    return parse_config(root, relpath)[0] if relpath else {}


def bundle_base_iri(root: Path) -> str:
    """The default base IRI of the bundle at ``root``: :func:`~mif_rdf.source.identity.default_base_iri` with its config read."""
    return default_base_iri(root, bundle_config(root))
