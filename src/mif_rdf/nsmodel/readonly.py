"""Read-only reserved prefixes (spec 10.5: ``_archive: {access: read-only}``): no writer changes such a memory.

Every writer of markdown into a folder goes through
:func:`mif_rdf.output.writeback.write_files`; it asks :func:`read_only_refusals`
first.  When the output folder is (inside) a bundle whose config declares
read-only prefixes, a file is refused if the memory already there, or the
one about to be written, has a namespace under such a prefix.  So an archived
memory is neither overwritten nor written into the archive by conversion or
write-back.
"""

from __future__ import annotations

from pathlib import Path

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.nsmodel.model import NamespaceModel
from mif_rdf.nsmodel.reading import read_namespace_model
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter
from mif_rdf.source.parse import parse_yaml_mapping, read_text


def read_only_refusals(out_dir: Path, texts: dict[str, str]) -> tuple[dict[str, str], list[Problem]]:
    """The markdown files that may be written under ``out_dir``, and a problem for each one refused."""
    root = _bundle_of(out_dir)
    if root is None:
        return texts, []
    model = read_namespace_model(root)
    if not any(prefix.read_only for prefix in model.prefixes.values()):
        return texts, []
    kept: dict[str, str] = {}
    refused: list[Problem] = []
    for relpath, text in texts.items():
        existing = out_dir / relpath
        written = read_text(existing, relpath, []) if existing.is_file() and not existing.is_symlink() else None
        why = _read_only(model, written, "the memory already at this path") or _read_only(
            model, text, "the memory to be written"
        )
        if why is None:
            kept[relpath] = text
        else:
            refused.append(Problem(relpath, f"{why}; not written", Severity.ERROR, key="namespace", rule="read-only"))
    return kept, refused


def _read_only(model: NamespaceModel, text: str | None, which: str) -> str | None:
    if text is None:
        return None
    try:
        frontmatter = parse_yaml_mapping(split_frontmatter(text).frontmatter, "", [])
    except FrontmatterError:
        return None
    namespace = (frontmatter or {}).get("namespace")
    prefix = model.prefix_of(namespace)
    if prefix is not None and prefix.read_only:
        return f"{which} is in {namespace!r}, under {prefix.name}, which .mif/config.yaml makes read-only (spec 10.5)"
    return None


def _bundle_of(folder: Path) -> Path | None:
    """The bundle an output folder is in: itself or the nearest folder above it holding ``.mif/``."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".mif").is_dir() and not (candidate / ".mif").is_symlink():
            return candidate
    return None
