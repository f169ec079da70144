"""Running a validation: SHACL over the dataset, then the bundle rules, one report."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import SH

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.namespaces import MIF
from mif_rdf.core.patterns import DEFAULT_TIME_LIMIT, take_stopped
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.rdf.jsonld_source import json_pointer, json_pointer_keys
from mif_rdf.rdf.projection import ILL_TYPED
from mif_rdf.validation import shacl
from mif_rdf.validation.bundle_rules import bundle_problems, unindexed, unusable_iri_problems
from mif_rdf.validation.entity_schemas import entity_schema_report
from mif_rdf.validation.literals import ill_typed_literals
from mif_rdf.validation.locate import key_path, owner, shown_value
from mif_rdf.validation.ontology_rules import LEVEL as ONTOLOGY_LEVEL
from mif_rdf.validation.ontology_rules import RULE_ENTITY_SCHEMA as ONTOLOGY_SCHEMA_RULE
from mif_rdf.validation.ontology_rules import ontology_binding, ontology_problems
from mif_rdf.validation.report import ValidationReport, finding_identity
from mif_rdf.validation.shacl import ShaclEngine
from mif_rdf.validation.shapes import rules, severity_of, shapes_graph
from mif_rdf.validation.user_shapes import ShapesSource, load_shapes, shape_label, untargeted

#: Load problems a SHACL rule reports better (with its level and rule name).
_SUPERSEDED = {("required", "type"), ("required", "created"), ("type", "type")}
_SUPERSEDED |= {(rule, json_pointer(key)) for rule, key in _SUPERSEDED}  # the same, for a memory read from .jsonld


def validate(
    bundle: LoadedBundle,
    level: int = 3,
    *,
    strict_temporal: bool = False,
    ontologies: Sequence[str | Path] = (),
    search_path: Sequence[str | Path] = (),
    engine: ShaclEngine = "auto",
    on_stage: Callable[[str], None] | None = None,
    shapes: Sequence[ShapesSource] = (),
    inference: str | None = None,
    user_dirs: Sequence[str | Path] | None = None,
    memory_ontologies: bool = True,
) -> ValidationReport:
    """Check a loaded bundle against conformance ``level`` (1, 2 or 3; 0: only ``shapes``).

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
    ``shapes``: the user's own SHACL shapes (files in any RDF format the
    project reads, or rdflib graphs), checked against shacl-shacl first (an
    ill-formed shape raises :class:`~mif_rdf.core.errors.MifRdfError` naming it)
    and applied beside the level's shapes; at ``level`` 0 they are the only
    rules (the load problems are still reported).  ``inference`` ("rdfs",
    "owlrl", "both") expands the data for the user's shapes, as pySHACL's
    ``inference``; the level shapes read the bundle as written.
    ``on_stage`` hears the name of each stage as it starts (SHACL shapes,
    ontology shapes, user shapes, bundle rules), for progress on a terminal.
    """
    stage = on_stage or (lambda name: None)
    user = load_shapes(shapes) if shapes else None  # an ill-formed shape stops here, before anything runs
    if level == 0 and user is None:
        raise MifRdfError("level 0 checks only the shapes given (--shapes FILE, or shapes=... in Python)")
    take_stopped()  # pattern searches stopped by an earlier run of this thread are not this report's
    with no_cyclic_gc():  # millions of index entries and terms, no cycles: full collections walked the whole bundle
        data = bundle.dataset
        results = [p for p in bundle.problems if (p.rule, p.key) not in _SUPERSEDED]
        # what an export would hold as ill-typed literals: the same finding everywhere (level 0: only the given shapes)
        if level:
            results += ill_typed_literals(bundle)
        from_shacl: list[Problem] = []
        if level:
            stage("SHACL shapes")
            level_shapes = shapes_graph(level)
            report_graph = shacl_report(data, level_shapes, engine)
            found = shacl_problems(bundle, report_graph, level, level_shapes)
            from_shacl += found
            results += found
        else:
            report_graph = Graph()
        if user is not None:
            stage("user shapes")
            user_report = shacl_report(data, user, engine, inference=inference, users=True)
            found = shacl_problems(bundle, user_report, level, user)
            from_shacl += found
            results += found
            results += _untargeted(user, shapes)
            report_graph += user_report
        bound = ontology_binding(bundle, level, ontologies, search_path, user_dirs, named=memory_ontologies)
        if bound is not None and bound.compilation is not None:
            stage("ontology shapes")
            extra_report, extra = entity_schema_report(bound, bundle)  # on the payloads only
            found = shacl_problems(bundle, extra_report, level, extra)
            from_shacl += found
            results += found
            report_graph += extra_report
        if bound is not None and level >= ONTOLOGY_LEVEL:
            results += ontology_problems(bundle, bound)
        if level:
            stage("bundle rules")
            results += [p for p in bundle_problems(bundle, strict_temporal=strict_temporal) if (p.level or 0) <= level]
            results = _with_unusable_iris(results, unusable_iri_problems(bundle, level_shapes, rules(level)))
        results += _stopped_patterns()
        results = json_pointer_keys(results)  # a memory read from .jsonld: findings point into its JSON document
        results = _told_once(results)
        if not bundle.memories:  # an empty folder (a typo in a CI path) must not pass as "conforms"
            results.append(Problem(".", f"no memories to validate in {bundle.root}", Severity.ERROR, rule="empty"))
    return ValidationReport(
        level=level,
        results=results,
        memories=len(bundle.memories),
        shacl_graph=report_graph,
        origins={
            **{finding_identity(p): "load" for p in bundle.problems},
            **{finding_identity(p): "shacl" for p in from_shacl},
        },
    )


_SAID_BETTER = ("datatype", ILL_TYPED)
_ITEM = re.compile(r"\[\d*\]$")


def _told_once(results: list[Problem]) -> list[Problem]:
    """Leave out a datatype or ill-typed-literal finding about a value a shape's rule already judges.

    The shape names the key (``modified``), the literal check the item of a
    list under it (``modified[0]``): both are the same value, told once.
    """
    shown = {(p.path, p.key) for p in results if p.rule not in _SAID_BETTER}

    def said(p: Problem) -> bool:
        return (p.path, p.key) in shown or (p.rule == ILL_TYPED and (p.path, _ITEM.sub("", p.key or "")) in shown)

    return [p for p in results if p.rule not in _SAID_BETTER or not said(p)]


def _with_unusable_iris(results: list[Problem], unusable: list[Problem]) -> list[Problem]:
    """Add the IRI-form findings; a "missing" SHACL result for the same value (the graph lacks it) goes."""
    gone = {(p.path, unindexed(p.key)) for p in unusable}
    return [p for p in results if (p.path, unindexed(p.key)) not in gone or p.rule == "projection"] + unusable


def _stopped_patterns() -> list[Problem]:
    """A warning per pattern the time limit stopped: its value is reported as not matching, and this says why."""
    return [
        Problem(
            ".",
            f"sh:pattern {source!r} was stopped after {DEFAULT_TIME_LIMIT:g} s on the value {text!r} "
            "(a pattern that backtracks without end): the value is reported as not matching it",
            Severity.WARNING,
            rule="pattern-time-limit",
        )
        for source, text in dict.fromkeys(take_stopped())
    ]


def _untargeted(user: Graph, sources: Sequence[ShapesSource]) -> list[Problem]:
    if not untargeted(user):
        return []
    where = ", ".join(str(s) for s in sources if not isinstance(s, Graph)) or "shapes"
    return [
        Problem(
            where,
            "no shape has a target (sh:targetClass, sh:targetNode, ... or an implicit class target): "
            "these shapes check nothing",
            Severity.WARNING,
            rule="shapes",
        )
    ]


def shacl_report(
    data: Graph, shapes: Graph, engine: ShaclEngine = "auto", *, inference: str | None = None, users: bool = False
) -> Graph:
    """The SHACL validation report graph of ``data``, by the chosen engine (:func:`mif_rdf.validation.shacl.run`).

    The fast engine reads ``data`` where it lives (on Oxigraph, through
    Oxigraph's own queries); pyshacl runs on the shapes it refuses.
    ``users``: the shapes are a user's, and pyshacl's refusal of one of them
    is the user's error (:class:`~mif_rdf.core.errors.MifRdfError`), not a crash.
    """
    try:
        return shacl.run(
            data, shapes, engine=engine, inference=inference, advanced=True, allow_warnings=True, allow_infos=True
        ).graph
    except Exception as error:
        if users and type(error).__module__.startswith("pyshacl"):
            raise MifRdfError(f"the shapes cannot be used: {error}") from error
        raise


def _unsaid(shapes: Graph, shape: Any, component: Any) -> str:
    """The message of a result whose shape gives none: the constraint it breaks (``breaks sh:minLength 26``)."""
    if component is None:
        return "does not conform to a SHACL shape"
    name = str(component).rsplit("#", 1)[-1].removesuffix("ConstraintComponent")
    parameter = name[:1].lower() + name[1:]
    value = shapes.value(shape, SH[parameter])
    shown = (
        f" {value}"
        if isinstance(value, Literal)
        else f" {value.n3(shapes.namespace_manager)}"
        if isinstance(value, URIRef)
        else ""
    )
    return f"breaks sh:{parameter}{shown}"


def shacl_problems(bundle: LoadedBundle, report: Graph, level: int, shapes: Graph) -> list[Problem]:
    """pyshacl's results as problems that name file, key path, value, rule and level."""
    known = rules(level) if level else {}
    problems: list[Problem] = []
    seen: set[tuple[Any, ...]] = set()
    for result in report.objects(None, SH.result):  # top-level results only (sh:detail nests others)
        focus = report.value(result, SH.focusNode)
        if isinstance(focus, Literal):  # a plain value where an object belongs: its parent's *-object rule says so
            continue
        path = report.value(result, SH.resultPath)
        shape = report.value(result, SH.sourceShape)
        rule = known.get(shape) if isinstance(shape, URIRef) else None
        source = shapes.value(shape, MIF.sourceOntology)
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
        elif source is None:  # a user's shape with a complex path: no one frontmatter key
            key = None
        else:  # an ontology field rule: its path runs mif:entity / mif:<field> ...
            field = shapes.value(shape, SH.name)
            key = f"entity.{field}" if field is not None else "entity"
        problems.append(
            Problem(
                path=record.relpath if record is not None else str(focus),
                message=str(message)
                if message is not None
                else _unsaid(shapes, shape, report.value(result, SH.sourceConstraintComponent)),
                severity=severity_of(report.value(result, SH.resultSeverity)),
                key=key,
                value=shown_value(bundle, record, value, key or ""),
                rule=rule.name
                if rule
                else (ONTOLOGY_SCHEMA_RULE if source is not None else shape_label(shapes, shape)),
                level=rule.level if rule else (ONTOLOGY_LEVEL if source is not None else None),
            )
        )
    return problems
