"""A drop-in for ``pyshacl.validate``: the same arguments, the same ``(conforms, results_graph, results_text)``.

    from mif_rdf.validation.shacl import validate          # was: from pyshacl import validate
    conforms, results_graph, results_text = validate(data_graph, shacl_graph=shapes)

mif-rdf's fast engine (:mod:`mif_rdf.validation.engine`) runs when it knows
every shape of the shapes graph; otherwise (SHACL-SPARQL, advanced
features, custom components, options only pySHACL has) pySHACL runs, so the
answer is always SHACL's.  ``engine="fast"`` raises :class:`Unsupported`
instead of falling back, ``engine="pyshacl"`` always runs pySHACL.  The W3C
SHACL Core suite is the test (tests/conformance/test_w3c_shacl.py).

Arguments mean what they mean to pySHACL: ``shacl_graph=None`` takes the
shapes from the data graph; ``inference`` ("none", "rdfs", "owlrl", "both")
expands a copy of the data graph with owlrl first, as pySHACL does;
``allow_warnings`` lets results of severity ``sh:Warning`` and ``sh:Info``
leave ``conforms`` true (SHACL itself says a report with any result does not
conform); ``abort_on_first`` stops at the first result; ``advanced`` turns
on SHACL Advanced Features (the fast engine has none of them: shapes that
use them go to pySHACL).  Graphs may be rdflib graphs (an Oxigraph-backed
one is read natively) or anything pySHACL loads (a file path, RDF text).
Any other keyword (``ont_graph``, ``allow_infos``, ``meta_shacl``, ...) is
pySHACL's and is passed to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any
from typing import Literal as Literal_

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SH

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError
from mif_rdf.load.stores import memory_copy
from mif_rdf.validation.engine import Unsupported, validate_graph

__all__ = ["Unsupported", "Validation", "run", "validate"]

#: Which SHACL engine validates: the fast one where it understands the shapes ("auto"), it alone, or pySHACL.
ShaclEngine = Literal_["auto", "fast", "pyshacl"]
_INFERENCE = ("rdfs", "owlrl", "both")
#: pySHACL keywords the fast engine honours itself (the rest send a validation to pySHACL).
_FAST_OPTIONS = {"allow_infos"}


@dataclass
class Validation:
    """One validation: what :func:`validate` returns, plus which engine gave it (``"fast"`` or ``"pyshacl"``)."""

    conforms: bool
    graph: Graph
    engine: str
    pyshacl_text: str | None = None

    @cached_property
    def text(self) -> str:
        """The report for people, in pySHACL's layout (pySHACL's own text when it ran)."""
        return self.pyshacl_text if self.pyshacl_text is not None else report_text(self.graph)


def validate(
    data_graph: Any,
    shacl_graph: Any = None,
    *,
    inference: str | None = None,
    abort_on_first: bool = False,
    allow_warnings: bool = False,
    advanced: bool = False,
    engine: ShaclEngine = "auto",
    **pyshacl_options: Any,
) -> tuple[bool, Graph, str]:
    """SHACL validation of ``data_graph`` by ``shacl_graph``: ``(conforms, results_graph, results_text)`` as pySHACL.

    See the module's docstring for the arguments; :func:`run` gives the same with the engine that ran.
    """
    result = run(
        data_graph,
        shacl_graph,
        inference=inference,
        abort_on_first=abort_on_first,
        allow_warnings=allow_warnings,
        advanced=advanced,
        engine=engine,
        **pyshacl_options,
    )
    return result.conforms, result.graph, result.text


def run(data_graph: Any, shacl_graph: Any = None, **options: Any) -> Validation:
    """:func:`validate` (the same arguments), saying which engine ran."""
    inference: str | None = options.pop("inference", None)
    abort_on_first: bool = options.pop("abort_on_first", False)
    allow_warnings: bool = options.pop("allow_warnings", False)
    advanced: bool = options.pop("advanced", False)
    engine: ShaclEngine = options.pop("engine", "auto")
    pyshacl_options = options
    if engine not in ("auto", "fast", "pyshacl"):
        raise MifRdfError(f"engine must be auto, fast or pyshacl, not {engine!r}")
    if inference not in (None, "none", *_INFERENCE):
        raise MifRdfError(f"inference must be none, rdfs, owlrl or both, not {inference!r}")
    data = _graph(data_graph, pyshacl_options.pop("data_graph_format", None))
    shapes = data if shacl_graph is None else _graph(shacl_graph, pyshacl_options.pop("shacl_graph_format", None))
    if engine != "pyshacl":
        try:
            foreign = sorted(set(pyshacl_options) - _FAST_OPTIONS)
            if foreign:
                raise Unsupported(f"pySHACL options {', '.join(foreign)}")
            return _fast(
                data, shapes, inference, abort_on_first, allow_warnings, bool(pyshacl_options.get("allow_infos"))
            )
        except Unsupported:
            if engine == "fast":
                raise
    copy = memory_copy(data)  # pySHACL asks one triple pattern at a time: a copy read in one pass
    conforms, graph, text = _pyshacl().validate(
        data if copy is None else copy,
        shacl_graph=shapes,
        inference=inference or "none",
        abort_on_first=abort_on_first,
        allow_warnings=allow_warnings,
        advanced=advanced,
        **pyshacl_options,
    )
    return Validation(bool(conforms), graph, "pyshacl", text)


def _fast(
    data: Graph, shapes: Graph, inference: str | None, abort_on_first: bool, allow_warnings: bool, allow_infos: bool
) -> Validation:
    if inference not in (None, "none"):
        data = _inferred(data, inference)
    with no_cyclic_gc():
        graph = validate_graph(
            data, shapes, allow_warnings=allow_warnings, allow_infos=allow_infos, abort_on_first=abort_on_first
        )
    for prefix, namespace in shapes.namespaces():  # the report names terms as the shapes do, as pySHACL's does
        graph.bind(prefix, namespace, override=False)
    root = next(graph.subjects(RDF.type, SH.ValidationReport))
    conforms = graph.value(root, SH.conforms)
    return Validation(isinstance(conforms, Literal) and bool(conforms.toPython()), graph, "fast")


def _inferred(data: Graph, inference: str) -> Graph:
    """A copy of ``data`` expanded by owlrl with pySHACL's own semantics for each ``inference`` option."""
    import owlrl
    from pyshacl.inference import CustomRDFSOWLRLSemantics, CustomRDFSSemantics

    semantics = {"rdfs": CustomRDFSSemantics, "owlrl": owlrl.OWLRL_Semantics, "both": CustomRDFSOWLRLSemantics}[
        inference
    ]
    copy = memory_copy(data)
    if copy is None:
        copy = Graph()
        for triple in data.triples((None, None, None)):
            copy.add(triple)
    owlrl.DeductiveClosure(semantics).expand(copy)
    return copy


def _graph(source: Any, rdf_format: str | None = None) -> Graph:
    """An rdflib graph as it is; anything else (a path, RDF text, bytes) loaded as pySHACL loads it
    (``data_graph_format``/``shacl_graph_format`` name the format, as for pySHACL)."""
    if isinstance(source, Graph):
        return source
    from pyshacl.rdfutil.load import load_from_source

    loaded: Graph = load_from_source(source, rdf_format=rdf_format)  # pySHACL's functions are not annotated
    return loaded


def _pyshacl() -> Any:
    import pyshacl  # imported when it runs: a fast-engine validation never pays for it

    from mif_rdf.validation.pyshacl_patterns import bound

    bound()  # sh:pattern with a time limit per value (docs/security.md)
    return pyshacl


def report_text(graph: Graph) -> str:
    """A validation report graph as text, laid out as pySHACL's ``results_text``."""
    root = next(graph.subjects(RDF.type, SH.ValidationReport))
    results = list(graph.objects(root, SH.result))
    conforms = graph.value(root, SH.conforms)
    lines = [
        "Validation Report",
        f"Conforms: {bool(conforms.toPython()) if isinstance(conforms, Literal) else conforms}",
    ]
    if results:
        lines.append(f"Results ({len(results)}):")
    for result in sorted(results, key=lambda r: tuple(str(graph.value(r, k)) for k in _SHOWN)):
        component = graph.value(result, SH.sourceConstraintComponent)
        severity = graph.value(result, SH.resultSeverity)
        lines.append(f"Constraint Violation in {_local(component)} ({component}):")  # pySHACL's words, any severity
        lines.append(f"\tSeverity: {_short(graph, severity)}")
        for key, label in _SHOWN.items():
            for value in graph.objects(result, key):
                lines.append(f"\t{label}: {_short(graph, value)}")
    return "\n".join(lines) + "\n"


_SHOWN = {
    SH.sourceShape: "Source Shape",
    SH.focusNode: "Focus Node",
    SH.value: "Value Node",
    SH.resultPath: "Result Path",
    SH.resultMessage: "Message",
}


def _local(term: Any) -> str:
    text = str(term)
    return text.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _short(graph: Graph, term: Any) -> str:
    if isinstance(term, URIRef):
        return term.n3(graph.namespace_manager)
    return str(term) if isinstance(term, Literal) else term.n3()
