"""``Dataset().parse("bundle/", format="mif")``: MIF bundles as an rdflib parser.

rdflib opens the source before it picks the parser, which fails on a folder;
:func:`install` teaches rdflib's input-source factory to hand a folder through
when, and only when, ``format="mif"``.  It runs when :mod:`mif_rdf` is
imported.  A file inside the bundle (``bundle/.mif/config.yaml``, any memory)
works without it: the bundle root is then the nearest folder above it holding
``.mif/`` or ``index.md``, as for ``mif-rdf convert`` (else the file's own folder).

Where the triples go: ``Dataset().parse(...)`` gets one named graph per
memory and entity plus the links graph, as :func:`~mif_rdf.load_bundle`
loads them; any other graph (a plain ``Graph``) gets their union, since it has
no named graphs to hold them.  A memory ``.md`` file is read as a one-memory
bundle: its own graph and its links, resolved against its bundle.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import rdflib.graph
import rdflib.parser
from rdflib import Dataset, Graph, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.parser import InputSource, Parser

from mif_rdf.core.errors import MifRdfError

_installed = False


class _FolderSource(InputSource):
    """An input source that is a folder: nothing to read, just a location."""

    def __init__(self, folder: str) -> None:
        super().__init__(system_id=Path(folder).resolve().as_uri())
        self.folder = folder


def install() -> None:
    """Let ``create_input_source`` accept a folder for ``format="mif"`` (idempotent)."""
    global _installed
    if _installed:
        return
    original = rdflib.parser.create_input_source

    def create_input_source(
        source: Any = None,
        publicID: Any = None,
        location: Any = None,
        file: Any = None,
        data: Any = None,
        format: Any = None,
    ) -> InputSource:  # noqa: N803
        target = source if source is not None else location
        if format == "mif" and isinstance(target, (str, os.PathLike)) and os.path.isdir(target):
            return _FolderSource(os.fspath(target))
        return original(source=source, publicID=publicID, location=location, file=file, data=data, format=format)

    rdflib.parser.create_input_source = create_input_source
    rdflib.graph.create_input_source = create_input_source  # Graph.parse imported the name
    _installed = True


def source_path(source: InputSource) -> Path:
    """The local folder or file an input source names."""
    if isinstance(source, _FolderSource):
        return Path(source.folder)
    system_id = source.getSystemId() or ""
    if not system_id.startswith("file:"):
        raise MifRdfError(f"format 'mif' reads local bundle folders and memory files, not {system_id!r}")
    from urllib.request import url2pathname

    return Path(url2pathname(system_id[len("file://") :] if system_id.startswith("file://") else system_id[5:]))


class MifParser(Parser):
    """rdflib parser plugin: loads a whole bundle into the target Dataset/graph."""

    def parse(self, source: InputSource, sink: Graph, **kwargs: Any) -> None:
        from mif_rdf.bundle import load_bundle
        from mif_rdf.output.convert import (
            bundle_root_of,  # the one single-file root rule, shared with `convert to-jsonld`
        )

        path = source_path(source)
        root = bundle_root_of(path) or path.parent
        bundle = load_bundle(root, base_iri=kwargs.get("base_iri"), progress=kwargs.get("progress"))
        quads = bundle.dataset.quads((None, None, None, None))
        if path.suffix == ".md":
            quads = _one_memory(bundle, path.resolve().relative_to(root.resolve()).as_posix())
        if sink.identifier == DATASET_DEFAULT_GRAPH_ID:  # Dataset.parse hands the parser its default graph
            target = Dataset(store=sink.store)
            graphs: dict[Any, Graph] = {}

            def graph(name: Any) -> Graph:
                name = getattr(name, "identifier", name)
                if name not in graphs:
                    graphs[name] = target.graph(name)
                return graphs[name]

            target.addN((s, p, o, graph(g)) for s, p, o, g in quads)
        else:
            sink.addN((s, p, o, sink) for s, p, o, _ in quads)
        for prefix, namespace in bundle.dataset.namespaces():
            sink.bind(prefix, namespace, override=False)


def _one_memory(bundle: Any, relpath: str) -> Any:
    """The quads of one memory: its graph, and the links-graph triples about it."""
    record = bundle.memory_by_path(relpath)
    if record is None:
        problems = "; ".join(str(p) for p in bundle.problems.for_path(relpath)) or "not a memory file of the bundle"
        raise MifRdfError(f"{relpath}: {problems}")
    memory, links = URIRef(record.iri), URIRef(bundle.links_graph_iri)
    yield from ((s, p, o, memory) for s, p, o in bundle.dataset.graph(memory))
    yield from ((s, p, o, links) for s, p, o in bundle.links.triples((memory, None, None)))
