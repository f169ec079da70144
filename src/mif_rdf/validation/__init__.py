"""Conformance validation: SHACL shapes (levels 1-3, OKF) plus the rules that
need the markdown body or several memories at once, in one report.

    from mif_rdf import load_bundle
    from mif_rdf.validation import validate
    report = validate(load_bundle("examples"), level=3)
    report.conforms, report.errors, report.to_dict()

The names are imported on first use (PEP 562): the SHACL engine alone
(:mod:`mif_rdf.shacl`, ``validate --shapes``) and the report's formats load
without the bundle and ontology rules :func:`validate` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mif_rdf.core.lazy import lazy_names

if TYPE_CHECKING:  # the names a type checker sees; at run time __getattr__ imports each on first use
    from mif_rdf.validation.report import ValidationReport as ValidationReport
    from mif_rdf.validation.run import validate as validate

#: public name -> the module that defines it
_HOMES = {"ValidationReport": "mif_rdf.validation.report", "validate": "mif_rdf.validation.run"}
__all__ = ["ValidationReport", "validate"]


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
