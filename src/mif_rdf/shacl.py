"""The drop-in pySHACL API: ``from mif_rdf.shacl import validate`` where a pipeline
had ``from pyshacl import validate``.

This public path stays for users; the engine and the rules for stepping
aside live in :mod:`mif_rdf.validation.shacl`.
"""

from mif_rdf.validation.shacl import Unsupported as Unsupported
from mif_rdf.validation.shacl import Validation as Validation
from mif_rdf.validation.shacl import run as run
from mif_rdf.validation.shacl import validate as validate

__all__ = ["Unsupported", "Validation", "run", "validate"]
