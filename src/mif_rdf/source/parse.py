"""Parsing: one memory, entity or config file -> its parsed form, with problems.

Each file is read and checked on its own; whatever goes wrong becomes a
:class:`~mif_rdf.core.errors.Problem` naming the file, the key and the line, and the
rest of the bundle loads regardless.  Which files are read is
:mod:`mif_rdf.source.bundle_files`'s.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits, yaml_shape_problem
from mif_rdf.source.bundle_files import _special_kind, config_file
from mif_rdf.source.fastyaml import load_yaml  # PyYAML's result, faster where provably the same
from mif_rdf.source.identity import BASE_TYPES, UUID_RE, default_base_iri, entity_iri, id_problem
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter
from mif_rdf.source.yamlio import yaml_error_line

REQUIRED_KEYS = ("id", "type", "created")


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


def read_text(path: str | Path, relpath: str, problems: list[Problem], limits: Limits = DEFAULT_LIMITS) -> str | None:
    """File text as UTF-8, or None with a problem recorded.

    The file is opened without blocking and checked to be a regular file on
    the open handle, so a FIFO or device put in place after discovery cannot
    hang the load, and at most the size limit is read whatever the file claims.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:  # the descriptor itself, no buffered file object (a third of reading a small file)
            info = os.fstat(fd)
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
                        f"file is {info.st_size:,} bytes, over the limit of {limits.max_file_bytes:,} "
                        "(--max-file-size); not read",
                        rule="limit",
                    )
                )
                return None
            # ask for the size the file has (a request for the limit allocates the limit: 16 MB each time)
            data = _read_up_to(fd, info.st_size + 1)
            if len(data) > info.st_size:  # it grew since: read on, up to just over the limit
                data += _read_up_to(fd, limits.max_file_bytes + 1 - len(data))
        finally:
            os.close(fd)
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


def _read_up_to(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``, or fewer at its end (reads on after a short read, as a buffered file does)."""
    data = os.read(fd, size)
    if len(data) == size or not data:
        return data
    parts, left = [data], size - len(data)
    while left > 0:
        more = os.read(fd, left)
        if not more:
            break
        parts.append(more)
        left -= len(more)
    return data if len(parts) == 1 else b"".join(parts)


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
    bounds = result.bounds  # a document whose text keeps it within the limits needs no walk
    if bounds is None or bounds[0] > limits.max_yaml_values or bounds[1] > limits.max_yaml_depth:
        too_big = yaml_shape_problem(result.data, limits)
    else:
        too_big = None
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
    text = read_text(os.path.join(root, relpath), relpath, problems, limits)  # a str path: pathlib's join cost 3 us
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
                f"id {written} is read by YAML as the {type(value).__name__} {value!r}; the id is the text as "
                f"written, {written!r} (quote it to say so)",
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
    """The bundle's ``.mif/config.yaml`` (or ``.yml``) as parsed, ``{}`` when it has none;
    its problems are the loader's to report."""
    relpath = config_file(root, [])  # discovery's rule: a config symlinked out of the bundle is never read
    return parse_config(root, relpath)[0] if relpath else {}


def bundle_base_iri(root: Path) -> str:
    """The default base IRI of the bundle at ``root``: :func:`~mif_rdf.source.identity.default_base_iri` with its
    config read."""
    return default_base_iri(root, bundle_config(root))
