"""Conformance validation: SHACL shapes (levels 1-3, OKF) plus the rules that
need the markdown body or several memories at once, in one report.

    from mif_rdf import load_bundle
    from mif_rdf.validation import validate
    report = validate(load_bundle("examples"), level=3)
    report.conforms, report.errors, report.to_dict()
"""

from __future__ import annotations

from mif_rdf.validation.report import ValidationReport
from mif_rdf.validation.run import validate

__all__ = ["ValidationReport", "validate"]
