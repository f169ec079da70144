"""mif-rdf: MIF knowledge bundles as RDF.

The Python API is the product; the ``mif-rdf`` command and the notebooks only
call it::

    from mif_rdf import load_bundle
    bundle = load_bundle("examples")
    bundle.query("SELECT ...")
    bundle.export("out/examples.trig")   # never _local: the policy of ``mif-rdf export``

The names below are imported on first use (PEP 562), so that ``mif-rdf
--help`` and a command that needs little start fast.  Importing the package
teaches rdflib the ``mif`` format for folders (:mod:`mif_rdf.rdfplugin`).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mif_rdf.rdfplugin import install as _install_rdflib_plugin

if TYPE_CHECKING:
    from mif_rdf.bundle import Bundle, EntityRecord, MemoryRecord, load_bundle, new_dataset
    from mif_rdf.core.errors import MifRdfError, Problem, ProblemLog, Severity
    from mif_rdf.output.export_api import export
    from mif_rdf.ontology.discovery import Suggestion, SuggestionReport, suggest
    from mif_rdf.output.writeback import read_dataset, recover_files, write_bundle

__version__ = "0.1.0"
#: public name -> the module that defines it
_HOMES = {
    "Bundle": ".bundle", "EntityRecord": ".bundle", "MemoryRecord": ".bundle", "load_bundle": ".bundle", "new_dataset": ".bundle",
    "export": ".output.export_api",
    "MifRdfError": ".core.errors", "Problem": ".core.errors", "ProblemLog": ".core.errors", "Severity": ".core.errors",
    "Suggestion": ".ontology.discovery", "SuggestionReport": ".ontology.discovery", "suggest": ".ontology.discovery",
    "read_dataset": ".output.writeback", "recover_files": ".output.writeback", "write_bundle": ".output.writeback",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


_install_rdflib_plugin()
