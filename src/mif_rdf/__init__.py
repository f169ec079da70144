"""mif-rdf: MIF knowledge bundles as RDF.

The Python API is the product; the ``mif-rdf`` command and the notebooks only
call it::

    from mif_rdf import load_bundle
    bundle = load_bundle("examples")
    bundle.dataset.query("SELECT ...")
"""
from __future__ import annotations

from .bundle import Bundle, EntityRecord, MemoryRecord, load_bundle, new_dataset
from .errors import MifRdfError, Problem, ProblemLog, Severity
from .rdfplugin import install as _install_rdflib_plugin
from .writeback import read_dataset, recover_files, write_bundle

__version__ = "0.1.0"
__all__ = [
    "Bundle",
    "EntityRecord",
    "MemoryRecord",
    "MifRdfError",
    "Problem",
    "ProblemLog",
    "Severity",
    "load_bundle",
    "new_dataset",
    "read_dataset",
    "recover_files",
    "write_bundle",
]

_install_rdflib_plugin()
