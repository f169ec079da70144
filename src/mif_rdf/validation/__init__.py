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
    from mif_rdf.validation.baseline import report_against_baseline as report_against_baseline
    from mif_rdf.validation.literals import ill_typed_literals as ill_typed_literals
    from mif_rdf.validation.report import ValidationReport as ValidationReport
    from mif_rdf.validation.report import with_key_lines as with_key_lines
    from mif_rdf.validation.report import with_lines as with_lines
    from mif_rdf.validation.run import validate as validate
    from mif_rdf.validation.user_shapes import load_shapes as load_shapes

#: public name -> the module that defines it
_HOMES = {
    "report_against_baseline": "mif_rdf.validation.baseline",
    "ill_typed_literals": "mif_rdf.validation.literals",
    "ValidationReport": "mif_rdf.validation.report",
    "with_key_lines": "mif_rdf.validation.report",
    "with_lines": "mif_rdf.validation.report",
    "validate": "mif_rdf.validation.run",
    "load_shapes": "mif_rdf.validation.user_shapes",
}
__all__ = [
    "ValidationReport",
    "ill_typed_literals",
    "load_shapes",
    "report_against_baseline",
    "validate",
    "with_key_lines",
    "with_lines",
]


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
