"""Dataset -> markdown bundle: the reverse path applied to every memory graph.

Each memory's graph goes back through :func:`~mif_rdf.reverse.recover_memory`
(with the layout graph's template, when the dataset holds one) to frontmatter and body and is written to the bundle path recorded in the
links graph (``mif:path``), or to ``<id>.md`` when the dataset has none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from rdflib import Dataset, URIRef

from .bundle import LOCATION, PATH
from .errors import MifRdfError, Problem, Severity
from .identity import ENTITY_PREFIX, MEMORY_PREFIX, document_iri
from .layout import authored_frontmatter
from .markdown import render_memory
from .reference import lexical_literals
from .reverse import recover_memory


def read_dataset(source: str | Path | IO[bytes], fmt: str) -> Dataset:
    """Parse an N-Quads/TriG/... file into a Dataset, keeping lexical forms."""
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
        elif base_iri is not None:
            base, doc_iri = base_iri, document_iri(base_iri, path)
        else:
            raise MifRdfError(f"{name}: the dataset has no mif:location for it; give a base IRI")
        recovered = recover_memory(dataset.graph(node), name, doc_iri=doc_iri, base=base, path=path, template=authored_frontmatter(dataset, name))
        files.append(RecoveredFile(path, render_memory(recovered.frontmatter, recovered.body), recovered.problems))
    return files


def write_bundle(dataset: Dataset, out_dir: str | Path, base_iri: str | None = None) -> list[Problem]:
    """Write every memory of the dataset as a markdown file under ``out_dir``."""
    out = Path(out_dir)
    problems: list[Problem] = []
    for item in recover_files(dataset, base_iri):
        target = (out / item.relpath).resolve()
        if not target.is_relative_to(out.resolve()):
            problems.append(Problem(item.relpath, "path leaves the output folder; not written", Severity.ERROR))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(item.text, encoding="utf-8", newline="")
        problems.extend(item.problems)
    return problems


