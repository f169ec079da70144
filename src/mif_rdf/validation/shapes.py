"""The shipped SHACL shapes: which files make a level, and what each rule says about itself."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from rdflib import Graph, Namespace, URIRef
from rdflib.namespace import RDF, SH

from mif_rdf.core.errors import MifRdfError, Severity
from mif_rdf.core.resources import data_file

MIFSH = Namespace("https://mif-spec.dev/ns/shapes/")
LEVELS = (1, 2, 3)
#: OKF rules hold at every level; level N adds the files of levels 1..N.
_FILES = {0: "okf.ttl", 1: "level1.ttl", 2: "level2.ttl", 3: "level3.ttl"}
_SEVERITIES = {SH.Violation: Severity.ERROR, SH.Warning: Severity.WARNING, SH.Info: Severity.INFO}


@dataclass(frozen=True)
class Rule:
    """What a report needs to know about one named shape."""

    name: str
    level: int | None
    section: str | None
    severity: Severity


@cache
def shapes_graph(level: int) -> Graph:
    """The SHACL shapes of conformance ``level`` (including the levels below and OKF)."""
    if level not in LEVELS:
        raise MifRdfError(f"conformance level must be 1, 2 or 3, not {level!r}")
    graph = Graph()
    for number in range(0, level + 1):
        graph.parse(data_file("shapes", _FILES[number]), format="turtle")
    return graph


@cache
def rules(level: int) -> dict[URIRef, Rule]:
    """Named shapes of a level, by IRI."""
    graph = shapes_graph(level)
    found = {}
    for shape in set(graph.subjects(RDF.type, SH.PropertyShape)) | set(graph.subjects(RDF.type, SH.NodeShape)):
        if not isinstance(shape, URIRef) or not str(shape).startswith(str(MIFSH)):
            continue
        level_value = graph.value(shape, MIFSH.level)
        section = graph.value(shape, MIFSH.section)
        found[shape] = Rule(
            name=str(shape)[len(str(MIFSH)) :],
            level=int(str(level_value)) if level_value is not None else None,
            section=str(section) if section is not None else None,
            severity=severity_of(graph.value(shape, SH.severity)),
        )
    return found


def severity_of(term: Any) -> Severity:
    return _SEVERITIES.get(term, Severity.ERROR)
