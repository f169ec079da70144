"""``Dataset().parse("bundle/", format="mif")``: MIF bundles as an rdflib parser.

rdflib opens the source before it picks the parser, which fails on a folder;
:func:`install` teaches rdflib's input-source factory to hand a folder through
when, and only when, ``format="mif"``.  It runs when :mod:`mif_rdf` is
imported.  A file inside the bundle (``bundle/.mif/config.yaml``, any memory)
works without it: the bundle root is then found by walking up to ``.mif/``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import rdflib.graph
import rdflib.parser
from rdflib import Dataset, Graph
from rdflib.parser import InputSource, Parser

from .errors import MifRdfError

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

    def create_input_source(source: Any = None, publicID: Any = None, location: Any = None, file: Any = None, data: Any = None, format: Any = None) -> InputSource:  # noqa: N803
        target = source if source is not None else location
        if format == "mif" and isinstance(target, (str, os.PathLike)) and os.path.isdir(target):
            return _FolderSource(os.fspath(target))
        return original(source=source, publicID=publicID, location=location, file=file, data=data, format=format)

    rdflib.parser.create_input_source = create_input_source
    rdflib.graph.create_input_source = create_input_source  # Graph.parse imported the name
    _installed = True


def bundle_root(source: InputSource) -> Path:
    """The bundle folder an input source points into."""
    if isinstance(source, _FolderSource):
        return Path(source.folder)
    system_id = source.getSystemId() or ""
    if not system_id.startswith("file:"):
        raise MifRdfError(f"format 'mif' reads local bundle folders, not {system_id!r}")
    from urllib.request import url2pathname

    path = Path(url2pathname(system_id[len("file://") :] if system_id.startswith("file://") else system_id[5:]))
    for folder in [path.parent, *path.parent.parents]:
        if (folder / ".mif").is_dir():
            return folder
    return path.parent


class MifParser(Parser):
    """rdflib parser plugin: loads a whole bundle into the target Dataset/graph."""

    def parse(self, source: InputSource, sink: Graph, **kwargs: Any) -> None:
        from .bundle import load_bundle

        bundle = load_bundle(bundle_root(source), base_iri=kwargs.get("base_iri"), progress=kwargs.get("progress"))
        if sink.store.context_aware:  # a Dataset (rdflib hands the parser a graph on its store)
            target = Dataset(store=sink.store)
            graphs: dict[Any, Graph] = {}

            def graph(name: Any) -> Graph:
                name = getattr(name, "identifier", name)
                if name not in graphs:
                    graphs[name] = target.graph(name)
                return graphs[name]

            target.addN((s, p, o, graph(g)) for s, p, o, g in bundle.dataset.quads((None, None, None, None)))
        else:
            sink.addN((s, p, o, sink) for s, p, o in bundle.dataset.triples((None, None, None)))
        for prefix, namespace in bundle.dataset.namespaces():
            sink.bind(prefix, namespace, override=False)
