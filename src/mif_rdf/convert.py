"""``mif-rdf convert``: markdown <-> JSON-LD projection, and round-trip checks.

A ``.jsonld`` projection sits beside its ``.md`` (spec 3.3), so a file's
bundle root is found by walking up to the folder holding ``.mif/`` (or, for
a bundle folder given directly, that folder).  Projection documents written
here carry ``{"@base": <document IRI>}`` in their context so that any JSON-LD
processor gives the same graph without extra options.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rdflib import Graph

from .bundle import load_bundle
from .context import CONTEXT_URLS, is_absolute_iri
from .errors import MifRdfError, Problem, Severity
from .identity import MEMORY_PREFIX, default_base_iri, document_iri, normalize_base_iri
from .markdown import render_memory
from .parse import RESERVED_NAMES, parse_memory
from .projection import project_memory
from .reference import pyld_graph
from .reverse import recover_memory
from .roundtrip import differences
from .tordf import document_triples
from .writeback import lexical_literals, read_dataset, recover_files


def bundle_root_of(path: Path) -> Path:
    """The bundle folder of a file: the nearest ancestor holding ``.mif/``, else its folder."""
    path = path.resolve()
    if path.is_dir():
        return path
    for folder in path.parents:
        if (folder / ".mif").is_dir():
            return folder
    return path.parent


def _base(root: Path, base_iri: str | None) -> str:
    return normalize_base_iri(base_iri) if base_iri else default_base_iri(root)


def jsonld_text(document: dict[str, Any], doc_iri: str) -> str:
    """A projection document as a self-contained ``.jsonld`` file."""
    standalone = dict(document)
    standalone["@context"] = [*CONTEXT_URLS, {"@base": doc_iri}]
    return json.dumps(standalone, indent=2, ensure_ascii=False) + "\n"


def jsonld_files(path: Path, base_iri: str | None = None) -> tuple[dict[str, str], list[Problem]]:
    """Projection documents of one memory file or of every memory of a bundle."""
    if not path.exists():
        raise MifRdfError(f"{str(path)!r} does not exist")
    if path.is_dir():
        bundle = load_bundle(path, base_iri=base_iri, progress=False)
        docs = {r.relpath[:-3] + ".jsonld": jsonld_text(r.document, r.doc_iri) for r in bundle.memories.values()}
        return dict(sorted(docs.items())), list(bundle.problems)
    if path.name in RESERVED_NAMES or path.suffix != ".md":
        raise MifRdfError(f"{str(path)!r} is not a memory file: memories are .md files other than {' and '.join(sorted(RESERVED_NAMES))}")
    root = bundle_root_of(path)
    relpath = path.resolve().relative_to(root).as_posix()
    parsed, problems = parse_memory(root, relpath)
    if parsed is None:
        return {}, problems
    base = _base(root, base_iri)
    doc_iri = document_iri(base, relpath)
    projection = project_memory(parsed.frontmatter, parsed.body, path=relpath, doc_iri=doc_iri, base=base)
    return {relpath[:-3] + ".jsonld": jsonld_text(projection.document, doc_iri)}, problems + projection.notes


#: Dataset files ``convert to-markdown`` reads (a whole bundle in one file).
DATASET_SUFFIXES = {".nq": "nquads", ".nquads": "nquads", ".trig": "trig"}


def markdown_from_jsonld(path: Path) -> tuple[dict[str, str], list[Problem]]:
    """Markdown of one ``.jsonld`` projection document, of every one in a folder,
    or of every memory graph in an N-Quads/TriG dataset file."""
    if not path.exists():
        raise MifRdfError(f"{str(path)!r} does not exist")
    path = path.resolve()
    if path.suffix in DATASET_SUFFIXES:
        recovered = recover_files(read_dataset(path, DATASET_SUFFIXES[path.suffix]))
        return {f.relpath: f.text for f in recovered}, [p for f in recovered for p in f.problems]
    root = bundle_root_of(path)
    files = sorted(path.rglob("*.jsonld")) if path.is_dir() else [path]
    out: dict[str, str] = {}
    problems: list[Problem] = []
    for file in files:
        relpath = file.relative_to(root).as_posix()
        try:
            text = markdown_of_document(json.loads(file.read_text(encoding="utf-8")), relpath[: -len(".jsonld")] + ".md", root, problems)
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(Problem(relpath, f"not a JSON document: {exc}", rule="json"))
            continue
        except MifRdfError as exc:
            problems.append(Problem(relpath, str(exc), rule="json-ld"))
            continue
        out[relpath[: -len(".jsonld")] + ".md"] = text
    return out, problems


def markdown_of_document(document: Any, md_relpath: str, root: Path, problems: list[Problem]) -> str:
    """Markdown of one projection document: JSON-LD -> triples -> the reverse path."""
    if not isinstance(document, dict) or not isinstance(document.get("@id"), str) or not document["@id"].startswith(MEMORY_PREFIX):
        raise MifRdfError("not a MIF projection document: it needs a top-level \"@id\": \"urn:mif:<id>\"")
    context = document.get("@context")
    contexts = context if isinstance(context, list) else [context]
    doc_iri = next((c["@base"] for c in contexts if isinstance(c, dict) and isinstance(c.get("@base"), str)), None)
    if doc_iri is None or not is_absolute_iri(doc_iri):
        doc_iri = document_iri(default_base_iri(root), md_relpath)
    suffix = document_iri("", md_relpath)
    base = doc_iri[: -len(suffix)] if doc_iri.endswith(suffix) else doc_iri[: doc_iri.rfind("/") + 1]
    plain = [c for c in contexts if not (isinstance(c, dict) and set(c) == {"@base"})]
    graph = Graph()
    if plain == list(CONTEXT_URLS):
        for triple in document_triples({**document, "@context": plain}, doc_iri):
            graph.add(triple)
    else:  # any other JSON-LD: the general engine
        graph = pyld_graph(document, doc_iri)
    recovered = recover_memory(graph, document["@id"], doc_iri=doc_iri, base=base, path=md_relpath)
    problems.extend(recovered.problems)
    return render_memory(recovered.frontmatter, recovered.body)


def roundtrip_report(path: Path, *, via: str = "nquads", base_iri: str | None = None) -> tuple[list[str], list[Problem], bool]:
    """Check markdown -> RDF -> markdown for every memory of a bundle.

    Returns report lines, the load problems, and whether nothing was lost.
    """
    bundle = load_bundle(path, base_iri=base_iri, progress=False)
    lines: list[str] = []
    lossless = True
    for record in sorted(bundle.memories.values(), key=lambda r: r.relpath):
        if via == "jsonld":
            graph = Graph()
            for triple in document_triples(json.loads(json.dumps(record.document)), record.doc_iri):
                graph.add(triple)
        else:
            text = bundle.graph(record.id).serialize(format="nt", encoding="utf-8")
            graph = Graph()
            with lexical_literals():
                graph.parse(data=text, format="nt")
        recovered = recover_memory(graph, record.iri, doc_iri=record.doc_iri, base=bundle.base_iri, path=record.relpath)
        diffs = differences(record.frontmatter, recovered.frontmatter, doc_iri=record.doc_iri, base=bundle.base_iri)
        if recovered.body != record.body:
            diffs.append("body differs")
        if diffs:
            lossless = False
            lines.append(f"LOSS  {record.relpath}")
            lines.extend(f"      {d}" for d in diffs)
        else:
            lines.append(f"ok    {record.relpath}")
    verdict = "lossless" if lossless else "DATA LOST"
    lines.append(f"{len(bundle.memories)} memories via {via}: {verdict} (frontmatter compared as JSON-LD: @set order and IRI spelling are not data)")
    problems = [p for p in bundle.problems if p.severity != Severity.INFO]
    return lines, problems, lossless
