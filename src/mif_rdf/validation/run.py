"""Running a validation: SHACL over the dataset, then the bundle rules, one report."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence
from typing import Literal as Literal_

import pyshacl
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import SH

from ..bundle import Bundle, no_cyclic_gc
from ..errors import Problem, Severity
from ..namespaces import MIF
from ..oxigraph_sink import memory_copy
from .bundle_rules import bundle_problems, unindexed, unusable_iri_problems
from .engine import Unsupported, validate_graph
from .locate import key_path, owner, shown_value
from .ontology_rules import LEVEL as ONTOLOGY_LEVEL
from .ontology_rules import RULE_ENTITY_SCHEMA as ONTOLOGY_SCHEMA_RULE
from .entity_schemas import entity_schema_report
from .ontology_rules import ontology_binding, ontology_problems
from .report import ValidationReport
from .shapes import rules, severity_of, shapes_graph

#: Load problems a SHACL rule reports better (with its level and rule name).
_SUPERSEDED = {("required", "type"), ("required", "created"), ("type", "type")}


Engine = Literal_["auto", "fast", "pyshacl"]


def validate(
    bundle: Bundle,
    level: int = 3,
    *,
    strict_temporal: bool = False,
    ontologies: Sequence[str | Path] = (),
    search_path: Sequence[str | Path] = (),
    engine: Engine = "auto",
    on_stage: Callable[[str], None] | None = None,
    user_dirs: Sequence[str | Path] | None = None,
    memory_ontologies: bool = True,
) -> ValidationReport:
    """Check a loaded bundle against conformance ``level`` (1, 2 or 3).

    The report holds the bundle's load problems, the SHACL results (each with
    its file, frontmatter key path, value, rule and level) and the body and
    cross-memory rules.  ``strict_temporal`` makes a derivation target created
    after its source an error instead of a warning.  ``ontologies`` (ids or
    YAML files) add to the ontologies the memories name in their
    ``ontology`` field; at level 2 and above those are resolved without a flag
    (:func:`~mif_rdf.ontology.bundle_ontologies`: the built-in folder,
    ``user_dirs`` (default ``MIF_RDF_ONTOLOGY_PATH``), the bundle's
    ``.mif/ontologies/``, ``search_path``) and each memory is checked by the
    ontology rules of :mod:`~mif_rdf.validation.ontology_rules` (unless
    ``memory_ontologies`` is false: then only ``ontologies`` apply, as before
    issue 28).  The SHACL
    shapes compiled from the entity schemas apply to memories whose
    ``entity:`` payload has that type.
    ``engine``: ``"fast"`` is mif-rdf's own engine for the SHACL Core subset
    the shipped shapes use (tested to give pyshacl's results), ``"pyshacl"``
    the reference, ``"auto"`` the fast one unless the shapes need more (the
    ontology shapes use SPARQL targets: pyshacl runs those).
    ``on_stage`` hears the name of each stage as it starts (SHACL shapes,
    ontology shapes, bundle rules), for progress on a terminal.
    """
    stage = on_stage or (lambda name: None)
    with no_cyclic_gc():  # millions of index entries and terms, no cycles: full collections walked the whole bundle
        stage("SHACL shapes")
        shapes = shapes_graph(level)
        data = bundle.dataset
        report_graph = shacl_report(data, shapes, engine)
        results = [p for p in bundle.problems if (p.rule, p.key) not in _SUPERSEDED]
        results += shacl_problems(bundle, report_graph, level, shapes)
        bound = ontology_binding(bundle, level, ontologies, search_path, user_dirs, named=memory_ontologies)
        if bound is not None and bound.compilation is not None:
            stage("ontology shapes")
            extra_report, extra = entity_schema_report(bound, bundle)  # on the payloads only
            results += shacl_problems(bundle, extra_report, level, extra)
            report_graph += extra_report
        if bound is not None and level >= ONTOLOGY_LEVEL:
            results += ontology_problems(bundle, bound)
        stage("bundle rules")
        results += [p for p in bundle_problems(bundle, strict_temporal=strict_temporal) if (p.level or 0) <= level]
        results = _with_unusable_iris(results, unusable_iri_problems(bundle, shapes, rules(level)))
        shown = {(p.path, p.key) for p in results if p.rule != "datatype"}
        results = [p for p in results if p.rule != "datatype" or (p.path, p.key) not in shown]  # a shape's rule says it better
        if not bundle.memories:  # an empty folder (a typo in a CI path) must not pass as "conforms"
            results.append(Problem(".", f"no memories to validate in {bundle.root}", Severity.ERROR, rule="empty"))
    return ValidationReport(level=level, results=results, memories=len(bundle.memories), shacl_graph=report_graph)


def _with_unusable_iris(results: list[Problem], unusable: list[Problem]) -> list[Problem]:
    """Add the IRI-form findings; a "missing" SHACL result for the same value (the graph lacks it) goes."""
    gone = {(p.path, unindexed(p.key)) for p in unusable}
    return [p for p in results if (p.path, unindexed(p.key)) not in gone or p.rule == "projection"] + unusable


def shacl_report(data: Graph, shapes: Graph, engine: Engine = "auto") -> Graph:
    """The SHACL validation report graph of ``data``, by the chosen engine.

    The fast engine reads ``data`` where it lives (on Oxigraph, through
    Oxigraph's own queries).  pyshacl asks one triple pattern at a time, so
    on Oxigraph it gets a copy read in one pass, with every literal as stored
    (:func:`~mif_rdf.oxigraph_sink.memory_copy`).
    """
    if engine != "pyshacl":
        try:
            with no_cyclic_gc():
                return validate_graph(data, shapes)
        except Unsupported:
            if engine == "fast":
                raise
    copy = memory_copy(data)
    _, report, _ = pyshacl.validate(
        data if copy is None else copy, shacl_graph=shapes, inference="none", advanced=True,
        allow_warnings=True, allow_infos=True, abort_on_first=False,
    )
    return report


def shacl_problems(bundle: Bundle, report: Graph, level: int, shapes: Graph) -> list[Problem]:
    """pyshacl's results as problems that name file, key path, value, rule and level."""
    known = rules(level)
    problems: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    for result in report.objects(None, SH.result):  # top-level results only (sh:detail nests others)
        focus = report.value(result, SH.focusNode)
        if isinstance(focus, Literal):  # a plain value where an object belongs: its parent's *-object rule says so
            continue
        path = report.value(result, SH.resultPath)
        shape = report.value(result, SH.sourceShape)
        rule = known.get(shape) if isinstance(shape, URIRef) else None
        record = owner(bundle, focus)
        message = report.value(result, SH.resultMessage)
        value: Any = report.value(result, SH.value) if path is not None else None  # node shapes: the value is the node
        identity = (focus, path, shape, value)  # one finding per rule and value, however many components failed
        if identity in seen:
            continue
        seen.add(identity)
        if record is None:
            key = None
        elif isinstance(path, URIRef) or path is None:
            key = key_path(bundle, record, focus, path)
        else:  # an ontology field rule: its path runs mif:entity / mif:<field> ...
            field = shapes.value(shape, SH.name)
            key = f"entity.{field}" if field is not None else "entity"
        source = shapes.value(shape, MIF.sourceOntology)
        problems.append(Problem(
            path=record.relpath if record is not None else str(focus),
            message=str(message) if message is not None else "does not conform to a SHACL shape",
            severity=severity_of(report.value(result, SH.resultSeverity)),
            key=key,
            value=shown_value(bundle, record, value, key or ""),
            rule=rule.name if rule else (ONTOLOGY_SCHEMA_RULE if source is not None else str(shape)),
            level=rule.level if rule else (ONTOLOGY_LEVEL if source is not None else None),
        ))
    return problems
