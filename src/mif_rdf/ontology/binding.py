"""Which ontologies a bundle's memories name, found and compiled without a flag (spec 4.3, 10.8.5).

A memory's ``ontology: {id, version, uri}`` is resolved by id along the
search path, in spec 10.8.5's precedence (later extends or overrides
earlier): the shipped base ontology, the user ontology folders
(``--ontology-dir``, ``MIF_RDF_ONTOLOGY_PATH``), the bundle's own
``.mif/ontologies/`` (recursive, spec 10.8.1), then ``--path`` folders.
``ontology.uri`` is an identifier and is never fetched: nothing leaves the
machine unless a user asks.

Problems are per ontology id, not per memory: an id that resolves nowhere is
one warning naming the memories that use it; a ``version`` that differs from
the resolved file's is one warning per written version, naming both versions.
An ontology that does not compile is one warning with the compiler's error,
and the rest still bind: a bad ontology file never stops a bundle's load or
validation.

The compilation is memoised per search path, ids and the ontology files'
sizes and modification times, so a load, its validation and its types graph
compile the set once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.ontology.compiler import CONFIG, Compilation, compile_ontologies
from mif_rdf.ontology.registry import PATTERNS, Registry, search_path, user_ontology_dirs
from mif_rdf.ontology.resolution import ResolvedOntology

#: The rule of the binding problems in reports.
RULE_UNKNOWN = "ontology-unknown"
RULE_VERSION = "ontology-version"
RULE_COMPILE = "ontology-compile"
#: How many compilations stay memoised (a process rarely sees more bundles at once).
_MEMO_SIZE = 8


@dataclass(frozen=True)
class OntologyReference:
    """One memory's ``ontology`` field: the memory's bundle path and what it names."""

    relpath: str
    id: str
    version: str | None = None
    uri: str | None = None


@dataclass
class BoundOntologies:
    """The ontologies a bundle's memories (and ``--ontology``) name, resolved and compiled.

    ``ontologies`` maps each id that resolved to its view (its definitions
    over everything it extends); ``compilation`` holds the OWL and SHACL of
    all of them (None when nothing resolved); ``problems`` the per-id warnings.
    The result is memoised and shared between callers: read it, do not change it.
    """

    ontologies: dict[str, ResolvedOntology] = field(default_factory=dict)
    compilation: Compilation | None = None
    problems: list[Problem] = field(default_factory=list)
    search_path: list[Path] = field(default_factory=list)

    def view(self, ontology_id: str) -> ResolvedOntology | None:
        return self.ontologies.get(ontology_id)


def memory_references(memories: Iterable[Any]) -> list[OntologyReference]:
    """The ``ontology`` references of loaded memories (records with ``relpath`` and ``frontmatter``).

    A reference without a string id is left out: the ``ontology-id`` schema
    rule reports it.
    """
    found: list[OntologyReference] = []
    for record in memories:
        value = record.frontmatter.get("ontology")
        if isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"].strip():
            version, uri = value.get("version"), value.get("uri")
            found.append(
                OntologyReference(
                    record.relpath,
                    value["id"].strip(),
                    None if version is None else str(version),
                    None if uri is None else str(uri),
                )
            )
    return found


def bundle_ontologies(
    bundle_root: Path | str,
    references: Iterable[OntologyReference] = (),
    *,
    user_dirs: Iterable[Path | str] | None = None,
    path_dirs: Iterable[Path | str] = (),
    extra: Iterable[str | Path] = (),
) -> BoundOntologies:
    """Resolve and compile the ontologies ``references`` and ``extra`` name (see the module docstring).

    ``user_dirs``: the user ontology folders (None: ``MIF_RDF_ONTOLOGY_PATH``);
    ``path_dirs``: ``--path`` folders; ``extra``: ``--ontology`` ids or files,
    compiled in addition to what the memories name.  Raises
    :class:`MifRdfError` only for a search folder that does not exist (a
    command-line mistake); everything about the ontologies themselves is a
    problem in the result.
    """
    root = Path(bundle_root)
    users = user_ontology_dirs() if user_dirs is None else [Path(d) for d in user_dirs]
    dirs = search_path(users, root, [Path(d) for d in path_dirs])
    references = list(references)
    extra = list(extra)
    key = _memo_key(dirs, root, references, extra)
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    bound = _bind(root, dirs, users, [Path(d) for d in path_dirs], references, extra)
    _MEMO[key] = bound
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return bound


_MEMO: OrderedDict[tuple[Any, ...], BoundOntologies] = OrderedDict()


def _bind(
    root: Path,
    dirs: list[Path],
    users: list[Path],
    paths: list[Path],
    references: list[OntologyReference],
    extra: list[str | Path],
) -> BoundOntologies:
    bound = BoundOntologies(search_path=dirs)
    try:
        registry = Registry(dirs)
    except MifRdfError as error:  # an unreadable ontology file in a search folder: report, bind nothing
        if extra:
            raise  # the user named ontologies on the command line: say it at once, as before
        bound.problems.append(
            Problem(
                ".",
                f"no ontology is applied: the ontology folders could not be read: {error}",
                Severity.WARNING,
                key="ontology",
                rule=RULE_COMPILE,
            )
        )
        return bound
    bound.problems += [
        _unread(problem, root) for problem in registry.problems
    ]  # the other files of the folder still bind
    users_of: dict[str, list[OntologyReference]] = {}
    for reference in references:
        users_of.setdefault(reference.id, []).append(reference)
    wanted: list[str | Path] = []
    unknown: dict[str, list[OntologyReference]] = {}
    for ontology_id, refs in users_of.items():
        if not registry.knows(ontology_id):  # by id only: a memory's id is never a path to read (`/etc/x.yaml`)
            unknown[ontology_id] = refs  # unless an --ontology file given by path holds that id (below)
            continue
        wanted.append(ontology_id)
    wanted += [e for e in extra if e not in wanted]
    options: dict[str, Any] = {"search_path": paths, "bundle": root if root.is_dir() else None, "user_dirs": users}
    try:
        bound.compilation = compile_ontologies(wanted, **options) if wanted else None
        usable = wanted
    except MifRdfError:
        usable = []
        for ref in wanted:  # find which ones fail; the others still bind
            try:
                compile_ontologies([ref], **options)
                usable.append(ref)
            except MifRdfError as error:
                if isinstance(ref, str) and ref in users_of:
                    names = _memories(users_of[ref])
                    bound.problems.append(
                        Problem(
                            names[0],
                            f"ontology '{ref}' (named by {_listed(names)}) does not compile: {error}",
                            Severity.WARNING,
                            key="ontology.id",
                            value=ref,
                            rule=RULE_COMPILE,
                        )
                    )
                else:
                    raise  # an --ontology the user named on the command line: their mistake, said at once
        bound.compilation = compile_ontologies(usable, **options) if usable else None
    if bound.compilation is not None:
        for ref, view in zip(usable, bound.compilation.roots):
            bound.ontologies[str(ref) if isinstance(ref, str) else view.id] = view
            bound.ontologies.setdefault(view.id, view)
    bound.problems += [_unknown(i, refs, registry) for i, refs in unknown.items() if i not in bound.ontologies]
    for ontology_id, refs in users_of.items():
        resolved = bound.ontologies.get(ontology_id)
        if resolved is not None:
            bound.problems.extend(_version_problems(resolved, refs))
    return bound


def _unread(problem: Problem, root: Path) -> Problem:
    """A search-folder file the registry could not read, as a binding problem (named
    bundle-relative when it is the bundle's)."""
    path = Path(problem.path)
    try:
        shown = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    return Problem(shown, problem.message, Severity.WARNING, key="ontology", rule=RULE_COMPILE)


def _memories(refs: list[OntologyReference]) -> list[str]:
    return sorted({r.relpath for r in refs})


def _listed(names: list[str]) -> str:
    """Five names, then how many more: one warning per id stays readable at 10,000 memories."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _unknown(ontology_id: str, refs: list[OntologyReference], registry: Registry) -> Problem:
    names = _memories(refs)
    shown = _listed(names)
    where = ", ".join(str(d) for d in registry.dirs)
    uris = sorted({r.uri for r in refs if r.uri})
    note = f"; its uri ({', '.join(uris)}) is an identifier and is not fetched" if uris else ""
    return Problem(
        names[0],
        f"ontology '{ontology_id}' is not found in the ontology search path ({where}); named by {len(names)} "
        f"memor{'y' if len(names) == 1 else 'ies'}: {shown}{note}. Put its YAML in the bundle's .mif/ontologies/, "
        f"a user ontology folder (--ontology-dir, MIF_RDF_ONTOLOGY_PATH) or a --path folder",
        Severity.WARNING,
        key="ontology.id",
        value=ontology_id,
        rule=RULE_UNKNOWN,
    )


def _version_problems(view: ResolvedOntology, refs: list[OntologyReference]) -> list[Problem]:
    actual = view.file.version
    by_version: dict[str, list[OntologyReference]] = {}
    for ref in refs:
        if ref.version is not None and actual is not None and ref.version != str(actual):
            by_version.setdefault(ref.version, []).append(ref)
    problems = []
    for version, group in sorted(by_version.items()):
        names = _memories(group)
        shown = _listed(names)
        problems.append(
            Problem(
                names[0],
                f"ontology '{view.id}' version {version} is named by {len(names)} "
                f"memor{'y' if len(names) == 1 else 'ies'} "
                f"({shown}), but the resolved file {view.file.path} has version {actual}",
                Severity.WARNING,
                key="ontology.version",
                value=version,
                rule=RULE_VERSION,
            )
        )
    return problems


def _memo_key(
    dirs: list[Path], root: Path, references: list[OntologyReference], extra: list[str | Path]
) -> tuple[Any, ...]:
    """What the compilation depends on: the folders, the ontology files as they are now, the names asked for."""
    files: list[tuple[str, int, int]] = []
    for folder in dirs:
        if folder.is_dir():
            for pattern in PATTERNS:
                for path in folder.rglob(pattern):
                    info = path.stat()
                    files.append((str(path), info.st_mtime_ns, info.st_size))
    config = root / CONFIG
    stamp = (config.stat().st_mtime_ns, config.stat().st_size) if config.is_file() else None
    named = tuple(sorted({(r.id, r.version) for r in references}, key=str))
    users = tuple(sorted((r.id, r.relpath) for r in references))
    return (tuple(map(str, dirs)), str(root), tuple(sorted(files)), stamp, named, users, tuple(map(str, extra)))
