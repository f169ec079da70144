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
from typing import TYPE_CHECKING

from mif_rdf.rdfplugin import install as _install_rdflib_plugin

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.bundle import Bundle as Bundle
    from mif_rdf.bundle import EntityRecord as EntityRecord
    from mif_rdf.bundle import LoadedBundle as LoadedBundle
    from mif_rdf.bundle import MemoryRecord as MemoryRecord
    from mif_rdf.bundle import load_bundle as load_bundle
    from mif_rdf.bundle import new_dataset as new_dataset
    from mif_rdf.core.errors import MifRdfError as MifRdfError
    from mif_rdf.core.errors import Problem as Problem
    from mif_rdf.core.errors import ProblemLog as ProblemLog
    from mif_rdf.core.errors import Severity as Severity
    from mif_rdf.ontology.suggester import suggest as suggest
    from mif_rdf.ontology.suggestions import Suggestion as Suggestion
    from mif_rdf.ontology.suggestions import SuggestionReport as SuggestionReport
    from mif_rdf.output.export_api import export as export
    from mif_rdf.output.writeback import read_dataset as read_dataset
    from mif_rdf.output.writeback import recover_files as recover_files
    from mif_rdf.output.writeback import write_bundle as write_bundle

__version__ = "0.1.0"
#: public name -> the module that defines it
_HOMES = {
    "Bundle": "mif_rdf.bundle",
    "EntityRecord": "mif_rdf.bundle",
    "LoadedBundle": "mif_rdf.bundle",
    "MemoryRecord": "mif_rdf.bundle",
    "load_bundle": "mif_rdf.bundle",
    "new_dataset": "mif_rdf.bundle",
    "export": "mif_rdf.output.export_api",
    "MifRdfError": "mif_rdf.core.errors",
    "Problem": "mif_rdf.core.errors",
    "ProblemLog": "mif_rdf.core.errors",
    "Severity": "mif_rdf.core.errors",
    "Suggestion": "mif_rdf.ontology.suggestions",
    "SuggestionReport": "mif_rdf.ontology.suggestions",
    "suggest": "mif_rdf.ontology.suggester",
    "read_dataset": "mif_rdf.output.writeback",
    "recover_files": "mif_rdf.output.writeback",
    "write_bundle": "mif_rdf.output.writeback",
}
__all__ = [
    "Bundle",
    "EntityRecord",
    "LoadedBundle",
    "MemoryRecord",
    "MifRdfError",
    "Problem",
    "ProblemLog",
    "Severity",
    "Suggestion",
    "SuggestionReport",
    "export",
    "load_bundle",
    "new_dataset",
    "read_dataset",
    "recover_files",
    "suggest",
    "write_bundle",
]


def __getattr__(name: str) -> object:  # object, not Any: a misspelt name is an error for type checkers too
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


_install_rdflib_plugin()
