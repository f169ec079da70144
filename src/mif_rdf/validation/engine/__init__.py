"""A fast SHACL Core engine: right by the W3C SHACL Core tests, or it steps aside.

pyshacl is the reference (and the fallback): general, but it spends most of
its time on per-focus-node machinery (docs/performance.md).  This engine
compiles a shapes graph once and evaluates each shape on all its focus nodes
at once, with one index scan per predicate, then writes a standard SHACL
validation report graph.  It knows the targets (class with subclasses,
implicit class, node, subjects-of, objects-of), predicate/inverse/sequence/
alternative/repetition paths, and every constraint component of SHACL
Core; ``sh:deactivated`` shapes are skipped.  Every shape of the graph is
compiled before anything runs, and a shapes graph that uses anything else
(SHACL-SPARQL, custom components, advanced features, recursion, an
ill-formed shape, a pattern RE2 reads otherwise than XPath)
raises :class:`Unsupported`, so the caller runs pyshacl:
it never passes what it did not check.  ``tests/conformance/test_w3c_shacl.py``
runs the W3C suite through it; the project's tests hold its results to
pyshacl's on the shipped shapes.

The engine's modules, by job: :mod:`.data` (the data as the engine reads
it), :mod:`.compiled` (the compiled shapes and :class:`Unsupported`),
:mod:`.checks` (the value checks of the constraint components),
:mod:`.compile` (the compiler and its feature check), :mod:`.evaluate`
(node and path evaluation), :mod:`.report` (the report graph) and
:mod:`.validate` (one run, start to end).
"""

from mif_rdf.validation.engine.compiled import Unsupported
from mif_rdf.validation.engine.report import copy_structure
from mif_rdf.validation.engine.validate import validate_graph

__all__ = ["Unsupported", "copy_structure", "validate_graph"]
