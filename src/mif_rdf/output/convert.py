"""``mif-rdf convert``: markdown <-> JSON-LD projection, and round-trip checks.

A ``.jsonld`` projection sits beside its ``.md`` (spec 3.3), so a file's
bundle root is the nearest folder above it holding ``.mif/`` or ``index.md``
(or ``--root``).  Projection documents written here carry
``{"@base": <document IRI>}`` in their context so that any JSON-LD processor
gives the same graph without extra options.  A file with no bundle root gets
no ``@base``: its references stay relative, as written, to whatever location
the reader gives the document, and no bundle path is invented.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rdflib import Dataset, Graph, URIRef

from mif_rdf.core.context import projection_context
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.formats import rdf_suffix
from mif_rdf.load.loader import load
from mif_rdf.output.serialize import nquad_line
from mif_rdf.output.writeback import read_dataset, recover_files
from mif_rdf.rdf.jsonld_source import (
    Authored,
    document_base,
    frontmatter_of_document,
    markdown_path,
    memory_of_document,
    stale_keys,
)
from mif_rdf.rdf.layout import authored_frontmatter
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.reference import lexical_literals
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.rdf.roundtrip import differences
from mif_rdf.rdf.tordf import document_triples
from mif_rdf.source.bundle_files import RESERVED_NAMES
from mif_rdf.source.identity import document_iri, normalize_base_iri
from mif_rdf.source.markdown import render_memory
from mif_rdf.source.parse import bundle_base_iri, parse_memory

#: What marks a bundle folder: its ``.mif/`` configuration, or the OKF ``index.md``.
BUNDLE_MARKERS = (".mif", "index.md")


def bundle_root_of(path: Path) -> Path | None:
    """The bundle folder of a file: the nearest folder above it holding
    ``.mif/`` or ``index.md``; None when there is none.

    A folder given directly is its own bundle.
    """
    path = path.resolve()
    if path.is_dir():
        return path
    for folder in path.parents:
        if (folder / ".mif").is_dir() or (folder / "index.md").is_file():
            return folder
    return None


def jsonld_text(document: dict[str, Any], doc_iri: str | None) -> str:
    """A projection document as a ``.jsonld`` file: with its ``@base`` when it has a place in a bundle."""
    standalone = dict(document)
    if doc_iri is not None:
        standalone["@context"] = [*projection_context(), {"@base": doc_iri}]
    return json.dumps(standalone, indent=2, ensure_ascii=False) + "\n"


def jsonld_files(
    path: Path, base_iri: str | None = None, root: Path | None = None
) -> tuple[dict[str, str], list[Problem]]:
    """Projection documents of one memory file or of every memory of a bundle.

    ``root`` is the bundle folder of a single file (default: found by
    :func:`bundle_root_of`).
    """
    if not path.exists():
        raise MifRdfError(f"{str(path)!r} does not exist")
    if path.is_dir():
        bundle = load(path, base_iri=base_iri, progress=False)
        docs = {
            markdown_path(r.relpath)[:-3] + ".jsonld": jsonld_text(r.document, r.doc_iri)
            for r in bundle.memories.values()
        }
        return dict(sorted(docs.items())), list(bundle.problems)
    if path.name in RESERVED_NAMES or path.suffix != ".md":
        raise MifRdfError(
            f"{str(path)!r} is not a memory file: memories are .md files other than "
            f"{' and '.join(sorted(RESERVED_NAMES))}"
        )
    if root is not None and not path.resolve().is_relative_to(root.resolve()):
        raise MifRdfError(f"{str(path)!r} is not inside the bundle root {str(root)!r}")
    root = root.resolve() if root is not None else bundle_root_of(path)
    folder = root if root is not None else path.resolve().parent
    relpath = path.resolve().relative_to(folder).as_posix()
    parsed, problems = parse_memory(folder, relpath)
    if parsed is None:
        return {}, problems
    doc_iri = None  # no bundle and no --base: no @base, nothing invented
    if root is not None or base_iri is not None:
        doc_iri = document_iri(normalize_base_iri(base_iri) if base_iri else bundle_base_iri(folder), relpath)
    # with no bundle, references are checked against the file's own location, the base a reader would use
    projection = project_memory(
        parsed.frontmatter, parsed.body, path=relpath, doc_iri=doc_iri or path.resolve().as_uri()
    )
    return {relpath[:-3] + ".jsonld": jsonld_text(projection.document, doc_iri)}, problems + projection.notes


def check_projections(docs: dict[str, str], folder: Path) -> list[Problem]:
    """For ``convert to-jsonld --check``: a warning for each projection document missing
    under ``folder`` or stale there.

    ``docs`` are the documents ``convert to-jsonld`` would write (bundle
    path -> text).  A file is stale when JSON-LD reads it as another
    frontmatter or body than the document it should be (key order and
    formatting do not count); the warning names the keys that differ.
    """
    problems: list[Problem] = []
    for relpath, text in docs.items():
        if not (folder / relpath).is_file():
            problems.append(
                Problem(
                    relpath,
                    f"missing projection of {markdown_path(relpath)}",
                    Severity.WARNING,
                    rule="missing-projection",
                )
            )
            continue
        document = json.loads(text)
        doc_iri = document_base(document) or (folder / markdown_path(relpath)).resolve().as_uri()
        expected = memory_of_document(document, markdown_path(relpath), doc_iri)
        keys, unreadable = stale_keys(relpath, Authored(expected.frontmatter, expected.body, doc_iri), folder)
        problems.extend(unreadable)
        if keys:
            problems.append(
                Problem(
                    relpath,
                    f"stale projection of {markdown_path(relpath)}; keys that differ: {', '.join(keys)}",
                    Severity.WARNING,
                    rule="stale-projection",
                )
            )
    return problems


#: Dataset files ``convert to-markdown`` reads (a whole bundle in one file).
DATASET_SUFFIXES = {".nq": "nquads", ".nquads": "nquads", ".trig": "trig"}


def markdown_from_jsonld(path: Path) -> tuple[dict[str, str], list[Problem]]:
    """Markdown of one ``.jsonld`` projection document, of every one in a folder,
    or of every memory graph in an N-Quads/TriG dataset file."""
    if not path.exists():
        raise MifRdfError(f"{str(path)!r} does not exist")
    path = path.resolve()
    if rdf_suffix(path) in DATASET_SUFFIXES:  # x.nq, or x.nq.gz read decompressed
        recovered = recover_files(read_dataset(path, DATASET_SUFFIXES[rdf_suffix(path)]))
        return {f.relpath: f.text for f in recovered}, [p for f in recovered for p in f.problems]
    root = bundle_root_of(path)
    folder = root if root is not None else (path if path.is_dir() else path.parent)
    files = sorted(path.rglob("*.jsonld")) if path.is_dir() else [path]
    out: dict[str, str] = {}
    problems: list[Problem] = []
    for file in files:
        relpath = file.relative_to(folder).as_posix()
        md_relpath = relpath[: -len(".jsonld")] + ".md"
        # Without a @base, a reader resolves the document's references against its own location.
        fallback = (
            document_iri(bundle_base_iri(root), md_relpath) if root is not None else file.with_suffix(".md").as_uri()
        )
        try:
            text = markdown_of_document(json.loads(file.read_text(encoding="utf-8")), md_relpath, fallback, problems)
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(Problem(relpath, f"not a JSON document: {exc}", rule="json"))
            continue
        except MifRdfError as exc:
            problems.append(Problem(relpath, str(exc), rule="json-ld"))
            continue
        out[md_relpath] = text
    return out, problems


def markdown_of_document(document: Any, md_relpath: str, fallback_iri: str, problems: list[Problem]) -> str:
    """Markdown of one JSON-LD memory document (spec 15.2), read by
    :func:`~mif_rdf.rdf.jsonld_source.memory_of_document`.

    ``fallback_iri`` is the document IRI when the document names no ``@base``.
    """
    recovered = memory_of_document(document, md_relpath, fallback_iri)
    problems.extend(recovered.problems)
    return render_memory(recovered.frontmatter, recovered.body)


def roundtrip_report(
    path: Path, *, via: str = "nquads", base_iri: str | None = None
) -> tuple[list[str], list[Problem], bool]:
    """Check markdown -> RDF -> markdown for every memory of a bundle, form included.

    ``via="nquads"``: the memory's graph and its layout triple as N-Quads text,
    read back; ``via="jsonld"``: the ``.jsonld`` text ``convert to-jsonld``
    writes, read back.  A memory passes when the frontmatter comes back with
    the same keys, values and order (so the same YAML) and the body byte for
    byte.  Returns report lines, the load problems, and whether nothing was lost.
    """
    bundle = load(path, base_iri=base_iri, progress=False)
    layout = bundle.dataset.graph(URIRef(bundle.layout_graph_iri))
    lines: list[str] = []
    lossless = True
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        template: dict[str, Any] | None
        if via == "jsonld":
            document = json.loads(jsonld_text(record.document, record.doc_iri))
            graph = Graph()
            for triple in document_triples({**document, "@context": projection_context()}, record.doc_iri):
                graph.add(triple)
            template = frontmatter_of_document(document)
        else:
            quads = [(s, p, o, URIRef(record.iri)) for s, p, o in bundle.graph(record.id)] + [
                (s, p, o, layout.identifier) for s, p, o in layout.triples((URIRef(record.iri), None, None))
            ]
            dataset = Dataset(default_union=True)
            with lexical_literals():
                dataset.parse(data="".join(nquad_line(*quad) for quad in quads), format="nquads")
            graph, template = dataset.graph(URIRef(record.iri)), authored_frontmatter(dataset, record.iri)
        recovered = recover_memory(
            graph, record.iri, doc_iri=record.doc_iri, base=bundle.base_iri, path=record.relpath, template=template
        )
        diffs = differences(record.frontmatter, recovered.frontmatter, doc_iri=record.doc_iri)
        if not diffs and _form(recovered.frontmatter) != _form(record.frontmatter):
            diffs.append("same values, but key order, list order or spelling differs")
        if recovered.body != record.body:
            diffs.append("body differs")
        if diffs:
            lossless = False
            lines.append(f"LOSS  {record.relpath}")
            lines.extend(f"      {d}" for d in diffs)
        else:
            lines.append(f"ok    {record.relpath}")
    verdict = "lossless" if lossless else "DATA LOST"
    lines.append(
        f"{len(bundle.memories)} memories via {via}: {verdict} (frontmatter compared with its order and spelling)"
    )
    problems = [p for p in bundle.problems if p.severity != Severity.INFO]
    return lines, problems, lossless


def _form(frontmatter: dict[str, Any]) -> str:
    """The frontmatter with its key and list order (timestamps and strings alike are their text)."""
    return json.dumps(frontmatter, ensure_ascii=False, default=str)
