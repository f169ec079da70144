"""``diff`` of two git revisions, or of a revision and the working tree, from the files that differ, never the
whole bundle.

A 10,000-memory bundle loads in minutes; a change of 100 files should cost
about 100 files.  ``git diff-tree`` names the files that differ, and each
revision becomes a *partial bundle*: a private folder that holds

* the changed memory files as they are at that revision;
* their *context*, the same unchanged files at both revisions: the memories
  their links point at (for the targets' titles, and so a link resolves as in
  the whole bundle) and the memories that may point at them or share an id
  with them (so a link that a change breaks or mends, or an id clash, shows);
* the bundle's ``.mif`` folder (config, namespaces, ontologies, entities).

Files the loader never reads (an image, a file in a hidden folder) are left
out whether they changed or not.

Everything unchanged and outside the context is the same at both revisions
and resolves the same way, so it adds nothing to the difference: the report,
the findings and the RDF difference of the two partial bundles are those of
the whole bundles.  The context is found cheaply and generously:

* link targets: the changed memories' relationship targets, resolved as the
  loader resolves them; a path is looked up in the revision's file list
  (``git ls-tree``), a memory URN ``urn:mif:ID`` by ``git grep -F ID``;
* referrers and id clashes: ``git grep -F`` of each changed file's id (at both
  revisions) and of its file name (as written, percent-encoded and decoded).

A text match is a superset of the real referrers (a file that merely mentions
a name is loaded for nothing and adds nothing to the difference).

Without the validation findings (``--no-findings``, the RDF formats) the
context shrinks to what can change a link or an id: the targets of the edges
that were added or removed, the files that may link by path to a changed file
whose path or id changed (added, removed, renamed, a new id, now malformed),
and the files that mention a changed file's id (an id clash, a ``urn:mif:``
link).  A rule such as derivation order reads the unchanged neighbours too, so
the findings need them all.

The fast path gives way to the whole bundles (:func:`partial_bundles` returns
None) when a change touches anything the loader reads but a plain memory file (``.mif``, a
``.jsonld`` memory or projection, ``index.md``/``log.md``), and, for the RDF
formats, when a graph other than the memories', the links' and the layout's
changes in a way the partial bundles cannot settle (see :func:`exact_changes`).
Limits, written in docs/time.md: a link written with an escape
the file's text does not show (a YAML ``\\u`` escape of an id) is not found by
the text search.
"""

from __future__ import annotations

import os
import shutil
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from mif_rdf.core.outputs import owned_folder
from mif_rdf.load.bundle import LoadedBundle, target_keys
from mif_rdf.load.loader import load
from mif_rdf.load.revisions import changed_files, files_containing, read_blobs, tree_files, worktree_changes
from mif_rdf.output.patch import GraphChange, graph_changes
from mif_rdf.source.bundle_files import RESERVED_NAMES, is_concept_name, is_utf8_name  # the loader's own rules
from mif_rdf.source.identity import ENTITY_PREFIX, GRAPH_TYPES, MEMORY_PREFIX, default_base_iri, document_iri, graph_iri
from mif_rdf.source.parse import bundle_config, parse_memory


@dataclass
class PartialBundles:
    """The two partial bundles and the paths that changed between them."""

    old: LoadedBundle
    new: LoadedBundle
    changed: int  # how many files differ


def partial_bundles(
    folder: str | Path,
    commit_a: str,
    commit_b: str | None,
    *,
    base_iri: str | None = None,
    neighbours: bool = True,
    **options: Any,
) -> PartialBundles | None:
    """The partial bundles of ``folder`` at two commits (see the module docstring), loaded with ``options``
    (``load``'s); None when the change needs the whole bundles.

    ``commit_b`` None is the working tree: the files as they are on disk, tracked or not
    (:func:`~mif_rdf.load.revisions.worktree_changes` says which differ from ``commit_a``).
    ``neighbours=False`` leaves out the context that only validation needs: the
    memories that link to a changed file whose path and id stay, and the
    targets of links that did not change (the report and the RDF difference
    are the same; the findings would not be).
    """
    folder = Path(folder)
    if commit_b is None:
        found = worktree_changes(folder, commit_a)
        if found is None:
            return None
        changes, fresh = found
        tree = {f.relpath: f.blob for f in tree_files(folder, commit_a)}
        for change in changes:
            tree.pop(change.old_path or "", None)
        tree.update({c.new_path: c.new_blob for c in changes if c.new_path and c.new_blob})
    else:
        changes, fresh = changed_files(folder, commit_a, commit_b), {}
        tree = {f.relpath: f.blob for f in tree_files(folder, commit_b)}
    old_paths = {c.old_path: c.old_blob for c in changes if c.old_path and c.old_blob}
    new_paths = {c.new_path: c.new_blob for c in changes if c.new_path and c.new_blob}
    kinds = {_kind(path, tree) for path in (*old_paths, *new_paths)}
    if "other" in kinds:
        return None
    old_paths = {p: b for p, b in old_paths.items() if _kind(p, tree) == "memory"}
    new_paths = {p: b for p, b in new_paths.items() if _kind(p, tree) == "memory"}
    blobs = read_blobs(folder, [b for b in (*old_paths.values(), *new_paths.values()) if b not in fresh]) | fresh
    settings = {p: b for p, b in tree.items() if p.startswith(".mif/")}
    sides: list[Path] = []
    try:
        for paths in (old_paths, new_paths):
            sides.append(owned_folder("diff", _scratch()))
            _write(sides[-1], {p: blobs[b] for p, b in paths.items()})
        settings_contents = read_blobs(folder, list(settings.values()))
        for side in sides:
            _write(side, settings_contents, names=settings)
        base = base_iri or default_base_iri(folder.resolve(), bundle_config(sides[1]))
        unchanged_at = commit_b or commit_a  # the files outside the change are the same at both sides
        context = _context(folder, unchanged_at, base, sides, old_paths.keys() | new_paths.keys(), tree, neighbours)
        known = {p: tree[p] for p in context}
        contents = read_blobs(folder, list(known.values()))
        for side in sides:
            _write(side, contents, names=known)
        old = load(sides[0], base_iri=base, progress=False, **options)
        weakref.finalize(old, shutil.rmtree, sides[0], True)
        new = load(sides[1], base_iri=base, progress=False, **options)
        weakref.finalize(new, shutil.rmtree, sides[1], True)
    except BaseException:
        for side in sides:
            shutil.rmtree(side, ignore_errors=True)
        raise
    return PartialBundles(old, new, len(changes))


def exact_changes(partial: PartialBundles) -> list[GraphChange] | None:
    """The RDF difference of the whole bundles, from the partial ones; None when it cannot be told from them.

    A memory's graph is its own file's, so its change is exact.  The links,
    layout and types graphs hold every memory's triples and no blank node: the
    triples of the partial bundles that differ are those of the whole bundles
    that differ, unless a partial graph empties (the whole one may not: the
    change would drop it), and in the types graph the class hierarchy (triples
    about classes, not memories) must not change, as it depends on every
    memory's class.  Any other graph that changes (the namespace graphs, say)
    sends the diff to the whole bundles.
    """
    old, new = partial.old, partial.new
    shared = {old.links_graph_iri, old.layout_graph_iri, graph_iri(old.base_iri, GRAPH_TYPES)}
    exact = []
    for change in graph_changes(old, new):
        if change.name.startswith(MEMORY_PREFIX):
            exact.append(change)
            continue
        if change.name not in shared or change.replaced:
            return None
        touched = change.deleted | change.inserted
        if change.name.endswith("#types") and any(not s.startswith(f"<{MEMORY_PREFIX}") for s, _, _ in touched):
            return None
        exact.append(change)
    return exact


def _scratch() -> str | None:
    """Where the partial bundles go: ``$TMPDIR`` when the user set one, else ``/dev/shm`` (a folder in memory)
    where the system has it, else the system's temporary folder.  Hundreds of small files are written and read
    once: measured on a loaded 2-core machine, 944 files cost 0.03 s in ``/dev/shm`` against 0.5 s on its disk."""
    if os.environ.get("TMPDIR"):
        return None
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


def _kind(relpath: str, tree: dict[str, str]) -> str:
    """What a changed file is to the diff: ``memory``, a memory file whose change stays within itself
    (``*.md`` outside hidden folders, no reserved name, no ``.jsonld`` beside it); ``ignored``, a file the
    loader never reads (in a hidden folder other than ``.mif``, or neither markdown nor JSON-LD); or
    ``other``, one that needs the whole bundle."""
    parts = relpath.split("/")
    if parts[0] == ".mif":
        return "other"
    if any(part.startswith(".") for part in parts) or not relpath.endswith((".md", ".jsonld")):
        return "ignored"
    if relpath.endswith(".jsonld") or parts[-1] in RESERVED_NAMES or relpath[:-3] + ".jsonld" in tree:
        return "other"
    return "memory"


def _context_file(relpath: str, tree: dict[str, str]) -> bool:
    """An unchanged file the loader reads as a memory (or as the projection beside one)."""
    parts = relpath.split("/")
    return not any(part.startswith(".") for part in parts) and is_concept_name(parts[-1])


def _write(root: Path, contents: dict[str, bytes], names: dict[str, str] | None = None) -> None:
    """Write files into a partial bundle: ``contents`` by path, or by blob id with ``names`` path -> blob."""
    items = contents.items() if names is None else ((path, contents[blob]) for path, blob in names.items())
    for relpath, data in items:
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _context(
    folder: Path, commit: str, base: str, sides: list[Path], changed: set[str], tree: dict[str, str], neighbours: bool
) -> set[str]:
    """The unchanged memory files the diff needs beside the changed ones (see the module docstring)."""
    needles: set[str] = set()
    placed: list[dict[str, str | None]] = []  # per side: changed path -> the id it loads as (None: not loaded)
    edges: list[set[tuple[str, str, str, str]]] = []  # per side: (memory id, type, target as written, resolved)
    for side in sides:
        placed.append({})
        edges.append(set())
        for relpath in changed:
            if not (side / relpath).is_file():
                continue
            parsed, _ = parse_memory(side, relpath)
            usable = parsed is not None and is_utf8_name(relpath)  # the loader never reads a name that is not UTF-8
            memory_id = parsed.frontmatter.get("id") if parsed is not None and usable else None
            placed[-1][relpath] = memory_id if isinstance(memory_id, str) else None
            if parsed is None or not isinstance(memory_id, str):
                continue
            needles.add(memory_id)  # the memories that share its id, or name it by urn:mif:
            for _, rel, key in target_keys(parsed.frontmatter, document_iri(base, relpath), base):
                edges[-1].add((memory_id, rel["type"], rel["target"], key))
    moved = {path for path in changed if placed[0].get(path, "") != placed[1].get(path, "")}
    for relpath in changed if neighbours else moved:  # what may link to it by path
        name = relpath.rsplit("/", 1)[-1]
        needles |= {name, quote(name, errors="surrogateescape"), unquote(name)}
    keys = set()
    for _, _, _, key in edges[0] | edges[1] if neighbours else edges[0] ^ edges[1]:
        if key.startswith(ENTITY_PREFIX):  # an entity of .mif/entities: in the partial bundles already
            continue
        if key.startswith(MEMORY_PREFIX):
            needles.add(key[len(MEMORY_PREFIX) :])
        else:
            keys.add(key)
    found = set(files_containing(folder, commit, needles))
    if keys:
        found |= {path for path in tree if is_utf8_name(path) and document_iri(base, path) in keys}
    found = {path for path in found if path not in changed and _context_file(path, tree)}
    siblings = {path[: -len(".md")] + ".jsonld" for path in found if path.endswith(".md")}
    siblings |= {path[: -len(".jsonld")] + ".md" for path in found if path.endswith(".jsonld")}
    return found | {path for path in siblings if path in tree and path not in changed}
