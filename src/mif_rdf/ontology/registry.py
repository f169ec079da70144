"""Finding ontologies by id along a search path, and resolving ``extends`` (spec 10.8.5).

Sources are searched in precedence order: the built-in ``ontologies/`` folder,
then user folders (``--ontology-dir``, ``MIF_RDF_ONTOLOGY_PATH``), then a
bundle's ``.mif/ontologies/`` (recursive, spec 10.8.1), then ``--path``
folders, then files named on the command line.  When two sources hold the same ontology id the later one
wins (it overrides); a later ontology may also *extend* the earlier definition
of its own id (``id: mif-base`` with ``extends: [mif-base]``), which then
resolves to the next earlier source.  Two files with one id in the same
source are ambiguous and an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import MAX_ONTOLOGY_FILES
from mif_rdf.core.resources import data_dir
from mif_rdf.ontology.loader import read_ontology
from mif_rdf.ontology.model import OntologyFile

#: Environment variable naming user ontology folders (``os.pathsep``-separated), searched
#: after the built-in folder and before a bundle's own (spec 10.8.5's "user ontology").
USER_PATH_VARIABLE = "MIF_RDF_ONTOLOGY_PATH"
#: File names that hold ontologies inside a search folder (spec 10.8.1 and 10.8.5).
PATTERNS = ("*.ontology.yaml", "*.ontology.yml", "ontology.yaml", "ontology.yml")


def builtin_dir() -> Path:
    """The shipped ``ontologies/`` folder (mif-base and the mif: vocabulary)."""
    return data_dir("ontologies")


def bundle_ontology_dir(bundle_root: Path) -> Path:
    return Path(bundle_root) / ".mif" / "ontologies"


def user_ontology_dirs(environ: dict[str, str] | None = None) -> list[Path]:
    """The user ontology folders named by ``MIF_RDF_ONTOLOGY_PATH`` (empty entries ignored)."""
    value = (os.environ if environ is None else environ).get(USER_PATH_VARIABLE, "")
    return [Path(part) for part in value.split(os.pathsep) if part.strip()]


def search_path(
    user_dirs: Iterable[Path | str] = (),
    bundle_root: Path | str | None = None,
    path_dirs: Iterable[Path | str] = (),
) -> list[Path]:
    """Built-in folder, ``user_dirs``, the bundle's ``.mif/ontologies`` (when present), ``path_dirs``.

    That is spec 10.8.5's precedence (base, user, project) with the folders a
    command names (``--path``) last: the most specific source wins.
    """
    dirs = [builtin_dir()]
    for folder in user_dirs:
        dirs.append(_existing(folder))
    if bundle_root is not None and bundle_ontology_dir(Path(bundle_root)).is_dir():
        dirs.append(bundle_ontology_dir(Path(bundle_root)))
    for folder in path_dirs:
        dirs.append(_existing(folder))
    return dirs


def _existing(folder: Path | str) -> Path:
    folder = Path(folder)
    if not folder.is_dir():
        raise MifRdfError(f"ontology search folder {str(folder)!r} does not exist")
    return folder


class Registry:
    """All ontology files of a search path, by id, with ``extends`` resolution."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self.dirs = list(dirs)
        self._by_id: dict[str, list[OntologyFile]] = {}
        self._by_path: dict[Path, OntologyFile] = {}
        #: files of the search folders that could not be read (each an error naming it); the others are used
        self.problems: list[Problem] = []
        for index, folder in enumerate(self.dirs):
            files = _ontology_files(folder)
            if len(files) > MAX_ONTOLOGY_FILES:
                self.problems.append(
                    Problem(
                        str(folder),
                        f"{len(files):,} ontology files, over the limit of {MAX_ONTOLOGY_FILES:,} "
                        f"(mif_rdf.core.limits.MAX_ONTOLOGY_FILES); files after {files[MAX_ONTOLOGY_FILES - 1]} are "
                        "not read",
                        rule="limit",
                    )
                )
                files = files[:MAX_ONTOLOGY_FILES]
            for path in files:
                self._add(path, index, tolerant=True)

    def _add(self, path: Path, index: int, tolerant: bool = False) -> OntologyFile | None:
        """Read and index one file; ``tolerant`` (a file of a folder):
        a file that cannot be read is a problem, not an error."""
        key = path.resolve()
        found = self._by_path.get(key)
        if found is not None:
            return found
        try:
            onto = read_ontology(path, source_index=index)
        except MifRdfError as exc:
            if not tolerant:
                raise
            self.problems.append(
                Problem(
                    str(path), f"{exc}; the other ontologies of the folder are used", Severity.WARNING, rule="ontology"
                )
            )
            return None
        same = [o for o in self._by_id.get(onto.id, []) if o.source_index == index]
        if same:
            raise MifRdfError(
                f"ontology id '{onto.id}' is defined by two files of the same source: {same[0].path} and {path}"
            )
        self._by_path[key] = onto
        self._by_id.setdefault(onto.id, []).append(onto)
        return onto

    def add_file(self, path: Path | str) -> OntologyFile:
        """An ontology file named directly: it takes precedence over every folder."""
        path = Path(path)
        if not path.is_file():
            raise MifRdfError(f"ontology file {str(path)!r} does not exist")
        onto = self._add(path, len(self.dirs))
        assert onto is not None  # not tolerant: it raised instead
        return onto

    def knows(self, ontology_id: str) -> bool:
        """Whether a folder of the search path holds an ontology with this id (never read as a file path)."""
        return ontology_id in self._by_id

    def get(self, ref: str | Path) -> OntologyFile:
        """An ontology by id (the latest source wins) or by file path."""
        if isinstance(ref, Path) or _looks_like_path(ref):
            return self.add_file(ref)
        candidates = self._by_id.get(ref)
        if not candidates:
            raise MifRdfError(f"no ontology with id '{ref}' in the search path ({self._where()}){self._unread()}")
        return max(candidates, key=lambda o: o.source_index)

    def parent(self, child: OntologyFile, parent_id: str) -> OntologyFile:
        """The ontology ``child`` extends under ``parent_id`` (see the module docstring)."""
        candidates = sorted(self._by_id.get(parent_id, []), key=lambda o: o.source_index)
        if candidates and candidates[-1] is child:
            candidates = [o for o in candidates if o.source_index < child.source_index]
            if not candidates:  # no earlier definition to extend: the ontology extends itself
                raise MifRdfError(
                    f"ontology extends cycle: '{child.id}' ({child.path}) -> '{child.id}' ({child.path}): it extends "
                    "itself, and no earlier source of the search path defines that id"
                )
        if not candidates:
            raise MifRdfError(
                f"{child.path}: ontology '{child.id}' extends '{parent_id}', which is not in the search path "
                f"({self._where()}){self._unread()}"
            )
        return candidates[-1]

    def closure(self, onto: OntologyFile) -> list[OntologyFile]:
        """``onto`` and every ontology it extends, parents before children; cycles are errors."""
        order: list[OntologyFile] = []
        done: set[int] = set()

        def visit(node: OntologyFile, stack: tuple[OntologyFile, ...]) -> None:
            if id(node) in done:
                return
            if any(node is s for s in stack):
                cycle = " -> ".join(
                    f"'{o.id}' ({o.path})" for o in stack[[s is node for s in stack].index(True) :] + (node,)
                )
                raise MifRdfError(f"ontology extends cycle: {cycle}")
            for parent_id in node.extends:
                visit(self.parent(node, parent_id), stack + (node,))
            done.add(id(node))
            order.append(node)

        visit(onto, ())
        return order

    def _unread(self) -> str:
        """For a "not found": the files that could not be read, which may be the one meant."""
        return f"; not read: {', '.join(p.path for p in self.problems)}" if self.problems else ""

    def _where(self) -> str:
        return ", ".join(str(d) for d in self.dirs) or "no folders"


def _looks_like_path(ref: str) -> bool:
    return ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref


def _ontology_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    found = {p for pattern in PATTERNS for p in folder.rglob(pattern) if p.is_file()}
    return sorted(found)
