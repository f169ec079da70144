"""A user's own SHACL shapes: read from files in any RDF format, checked against shacl-shacl before they run.

A shapes graph with an ill-formed shape (``sh:minCount "many"``, a path
that is not a path, ``sh:in`` without a list) would otherwise check less
than its author meant, in silence.  So every shapes graph is first validated
against the W3C's "shapes for shapes" (``shapes/shacl-shacl.ttl``, SHACL
section 6), and each finding is an error that names the shape and what is
wrong with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rdflib import BNode, Dataset, Graph, URIRef
from rdflib.namespace import RDF, RDFS, SH

from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.formats import QUAD_FORMATS, RDF_FORMATS, file_format, open_rdf
from mif_rdf.core.resources import data_file

ShapesSource = str | Path | Graph
_TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf, SH.target)


def load_shapes(sources: Sequence[ShapesSource]) -> Graph:
    """The union of the shapes graphs ``sources`` (files by extension, or rdflib graphs), checked by :func:`check`."""
    graph = Graph(bind_namespaces="none")  # the prefixes of the files, for names in messages
    for source in sources:
        part = source if isinstance(source, Graph) else _read(Path(source))
        for prefix, namespace in part.namespaces():
            graph.bind(prefix, namespace, override=False, replace=False)
        for triple in part.triples((None, None, None)):
            graph.add(triple)
    problems = ill_formed(graph)
    if problems:
        where = ", ".join(str(s) for s in sources if not isinstance(s, Graph)) or "the shapes graph"
        raise MifRdfError(
            f"{where}: {len(problems)} ill-formed shape{'s' if len(problems) > 1 else ''} "
            f"(checked against SHACL's shapes for shapes):\n  " + "\n  ".join(problems)
        )
    return graph


def _read(path: Path) -> Graph:
    name = file_format(path)  # x.ttl, or x.ttl.gz: read decompressed
    if not path.is_file():
        raise MifRdfError(f"{path}: no such shapes file")
    try:
        with open_rdf(path) as source:
            if name in QUAD_FORMATS:
                dataset = Dataset(default_union=True)
                dataset.parse(source, format=RDF_FORMATS[name])
                graph = Graph(bind_namespaces="none")
                for prefix, namespace in dataset.namespaces():
                    graph.bind(prefix, namespace)
                for triple in dataset.triples((None, None, None)):
                    graph.add(triple)
                return graph
            return Graph(bind_namespaces="none").parse(source, format=RDF_FORMATS[name])
    except MifRdfError:
        raise
    except Exception as error:  # noqa: BLE001 -- every parser has its own errors; all mean "not readable"
        raise MifRdfError(f"{path}: not readable as {name}: {error}") from error


@lru_cache(maxsize=1)
def shacl_shacl() -> Graph:
    """The W3C shapes graph for shapes graphs (SHACL section 6), shipped with the package."""
    return Graph().parse(data_file("shapes", "shacl-shacl.ttl"), format="turtle")


def ill_formed(shapes: Graph) -> list[str]:
    """What shacl-shacl finds in ``shapes``: one line per finding, naming the shape and what is wrong."""
    from mif_rdf.validation.shacl import run  # the drop-in, whose fast engine handles shacl-shacl itself

    report = run(shapes, shacl_shacl()).graph
    found = set()
    for result in report.objects(None, SH.result):
        focus = report.value(result, SH.focusNode)
        path = report.value(result, SH.resultPath)
        value = report.value(result, SH.value)
        component = report.value(result, SH.sourceConstraintComponent)
        what = str(component).rsplit("#", 1)[-1].removesuffix("ConstraintComponent")
        rule = f"sh:{what[:1].lower()}{what[1:]}"
        subject = (
            f"{term_text(shapes, path)} {term_text(shapes, value)}"
            if path is not None and value is not None
            else (term_text(shapes, path) if path is not None else "the shape")
        )
        found.add(
            f"shape {shape_label(shapes, focus)}: {subject} {_WHY.get(rule, 'is not allowed here')} "
            f"(breaks {rule} of shacl-shacl){_said(report, result)}"
        )
    return sorted(found)


#: What each shacl-shacl finding means, in the words of a shapes author.
_WHY = {
    "sh:xone": "is not exactly one of a node shape and a property shape (a node shape has no sh:path, sh:minCount, "
    "sh:maxCount, sh:uniqueLang, sh:lessThan, sh:qualifiedValueShape; a property shape has one sh:path)",
    "sh:datatype": "has the wrong datatype",
    "sh:nodeKind": "is the wrong kind of term (IRI, blank node or literal)",
    "sh:node": (
        "is not well formed (a list where a list belongs, a path where a path belongs, a shape where a shape belongs)"
    ),
    "sh:in": "is not one of the values SHACL allows there",
    "sh:maxCount": "is given more than once",
    "sh:minCount": "is missing",
    "sh:or": "is not well formed",
    "sh:pattern": "does not have the form SHACL asks for",
    "sh:hasValue": "ends a list that does not end in rdf:nil",
}


def _said(report: Graph, result: Any) -> str:
    message = report.value(result, SH.resultMessage)
    return f" ({message})" if message is not None else ""


def untargeted(shapes: Graph) -> bool:
    """Whether no shape of ``shapes`` has a target (explicit or implicit): such a graph checks nothing."""
    if any((None, p, None) in shapes for p in _TARGETS):
        return False
    return not any(
        (s, RDF.type, RDFS.Class) in shapes
        for k in (SH.NodeShape, SH.PropertyShape)
        for s in shapes.subjects(RDF.type, k)
    )


def shape_label(shapes: Graph, shape: Any) -> str:
    """A shape as a person finds it in the file: its IRI (prefixed), or a blank property shape as ``owner/path``."""
    if isinstance(shape, URIRef):
        return term_text(shapes, shape)
    if isinstance(shape, BNode):
        name = shapes.value(shape, SH.name)
        owner = next(iter(shapes.subjects(SH.property, shape)), None)
        path = shapes.value(shape, SH.path)
        inside = f"{shape_label(shapes, owner)}/" if owner is not None else ""
        if name is not None:
            return f"{inside}{name}"
        if path is not None:
            return f"{inside}{term_text(shapes, path) if isinstance(path, URIRef) else 'a complex path'}"
        return f"{inside}a blank node shape" if inside else "a blank node shape"
    return term_text(shapes, shape)


def term_text(graph: Graph, term: Any) -> str:
    if isinstance(term, URIRef):
        try:
            return term.n3(graph.namespace_manager)
        except Exception:  # noqa: BLE001 -- an IRI no prefix fits
            return f"<{term}>"
    return term.n3() if hasattr(term, "n3") else str(term)
