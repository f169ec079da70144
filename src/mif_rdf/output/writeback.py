"""Dataset -> markdown bundle: the reverse path applied to every memory graph.

Each memory's graph goes back through :func:`~mif_rdf.rdf.reverse.recover_memory`
(with the layout graph's template, when the dataset holds one) to frontmatter and body and is written to the bundle
path recorded in the links graph (``mif:path``), or to ``<id>.md`` when the dataset has none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import IO

from rdflib import Dataset, URIRef

from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.formats import open_rdf
from mif_rdf.core.outputs import write_file
from mif_rdf.load.bundle import LOCATION, PATH
from mif_rdf.rdf.layout import authored_frontmatter
from mif_rdf.rdf.reference import lexical_literals
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.source.identity import ENTITY_PREFIX, GRAPH_LINKS, MEMORY_PREFIX, document_iri, graph_iri
from mif_rdf.source.markdown import render_memory


def read_dataset(source: str | Path | IO[bytes], fmt: str) -> Dataset:
    """Parse an N-Quads/TriG/... file into a Dataset, keeping lexical forms (a ``.gz`` file decompressed)."""
    if isinstance(source, (str, Path)):
        with open_rdf(Path(source)) as handle:
            return read_dataset(handle, fmt)
    dataset = Dataset(default_union=True)
    with lexical_literals():
        dataset.parse(source, format=fmt)
    return dataset


@dataclass
class RecoveredFile:
    relpath: str
    text: str
    problems: list[Problem] = field(default_factory=list)


def memory_graph_names(dataset: Dataset) -> list[str]:
    names = (str(g.identifier) for g in dataset.graphs())
    return sorted(n for n in names if n.startswith(MEMORY_PREFIX) and not n.startswith(ENTITY_PREFIX))


def recover_files(dataset: Dataset, base_iri: str | None = None) -> list[RecoveredFile]:
    """Markdown text of every memory graph in the dataset, with its bundle path."""
    files = []
    for name in memory_graph_names(dataset):
        node = URIRef(name)
        relpath = dataset.value(node, PATH)
        location = dataset.value(node, LOCATION)
        path = str(relpath) if relpath is not None else name[len(MEMORY_PREFIX) :] + ".md"
        if location is not None and relpath is not None and str(location).endswith(document_iri("", path)):
            doc_iri = str(location)
            base = doc_iri[: len(doc_iri) - len(document_iri("", path))]
        elif (links_base := base_iri or _links_base(dataset, node)) is not None:
            doc_iri, base = document_iri(links_base, path), links_base
        else:
            raise MifRdfError(f"{name}: the dataset has no mif:location for it; give a base IRI")
        recovered = recover_memory(
            dataset.graph(node),
            name,
            doc_iri=doc_iri,
            base=base,
            path=path,
            template=authored_frontmatter(dataset, name),
        )
        files.append(RecoveredFile(path, render_memory(recovered.frontmatter, recovered.body), recovered.problems))
    return files


def _links_base(dataset: Dataset, node: URIRef) -> str | None:
    """The base IRI a memory's ``mif:path`` names through its graph ``<base>#links``, if it does."""
    suffix = graph_iri("", GRAPH_LINKS)
    for _, _, _, graph in dataset.quads((node, PATH, None, None)):
        name = str(getattr(graph, "identifier", graph))
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def write_bundle(dataset: Dataset, out_dir: str | Path, base_iri: str | None = None) -> list[Problem]:
    """Write every memory of the dataset as a markdown file under ``out_dir``."""
    recovered = recover_files(dataset, base_iri)
    problems = write_files(out_dir, {item.relpath: item.text for item in recovered}, ".md")
    refused = {p.path for p in problems}
    return problems + [p for item in recovered if item.relpath not in refused for p in item.problems]


def output_target(out_dir: Path, relpath: str, suffix: str) -> Path:
    """Where a bundle path goes under ``out_dir``; :class:`MifRdfError` when it may not be written there.

    Paths come from data (``mif:path`` of a dataset, a document's location), so
    they are checked like any input: relative, no empty, ``.`` or ``..``
    segment, nothing hidden (memories never live in hidden folders, and
    ``.git/hooks`` must stay out of reach), the expected suffix, and after
    resolving symlinks already in the output folder, still inside it.
    """
    segments = relpath.replace(os.sep, "/").split("/")
    if (
        not relpath
        or relpath.startswith("/")
        or "\0" in relpath
        or PureWindowsPath(relpath).drive
        or any(not part or part.startswith(".") for part in segments)
        or not relpath.endswith(suffix)
    ):
        raise MifRdfError(f"path {relpath!r} is not a relative {suffix} path of plain folder names; not written")
    root = out_dir.resolve()
    target = (root / relpath).resolve()
    if not target.is_relative_to(root) or target == root:
        raise MifRdfError(f"path {relpath!r} leaves the output folder {str(out_dir)!r}; not written")
    return target


def write_files(out_dir: str | Path, texts: dict[str, str], suffix: str) -> list[Problem]:
    """Write ``relpath -> text`` under ``out_dir``: every file writer of a folder goes through here.

    A path that would leave the folder (or is otherwise unfit, see
    :func:`output_target`) is a problem naming it; the other files are written.
    """
    out = Path(out_dir)
    problems: list[Problem] = []
    if suffix == ".md":  # a bundle's read-only prefixes (spec 10.5) are never written into or over
        from mif_rdf.nsmodel.readonly import read_only_refusals

        texts, problems = read_only_refusals(out, texts)
    for relpath, text in texts.items():
        try:
            target = output_target(out, relpath, suffix)
        except MifRdfError as exc:
            problems.append(Problem(relpath, str(exc), Severity.ERROR, key="path", rule="output"))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, text.encode("utf-8"))  # whole or not at all
    return problems
