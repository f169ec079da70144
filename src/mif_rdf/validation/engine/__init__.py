"""The fast SHACL Core engine (moving into modules by job; see :mod:`.compile` for now)."""

from mif_rdf.validation.engine.compile import _LEXICAL_PARSERS as _LEXICAL_PARSERS
from mif_rdf.validation.engine.compile import Data as Data
from mif_rdf.validation.engine.compile import Unsupported as Unsupported
from mif_rdf.validation.engine.compile import _has_datatype as _has_datatype
from mif_rdf.validation.engine.compile import _memory_index as _memory_index
from mif_rdf.validation.engine.compile import _parses as _parses
from mif_rdf.validation.engine.compile import _pattern_check as _pattern_check
from mif_rdf.validation.engine.compile import copy_structure as copy_structure
from mif_rdf.validation.engine.compile import validate_graph as validate_graph
