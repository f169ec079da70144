"""An OWL 2 DL structural checker over RDF graphs, in plain rdflib (our own oracle, independent of the compiler).

It reads the graphs as the OWL 2 RDF mapping does and reports what the OWL API's
OWL 2 DL profile check reports for the shapes the compiler can produce:

* each document has exactly one ``owl:Ontology`` header, and every ``owl:imports``
  of the set names an ontology of the set (the imports closure is complete);
* every IRI used as a property is declared as exactly one of ``owl:ObjectProperty``,
  ``owl:DatatypeProperty``, ``owl:AnnotationProperty`` (no property punning, no
  ``rdf:Property``-only term), every class used is declared ``owl:Class``, and no
  IRI is both a class and a datatype;
* no reserved IRI (rdf:, rdfs:, owl:, xsd:) is declared;
* object property values are nodes, datatype property values literals;
* restrictions and ranges: ``owl:onProperty`` never names an annotation property;
  a datatype property's ranges and fillers are datatypes of the OWL 2 datatype
  map (or a declared/``owl:oneOf`` data range of such literals), an object
  property's are classes;
* every literal, in axioms and annotations alike, has a datatype of the map (the OWL
  API reports an ``rdf:JSON`` annotation value as "use of unknown datatype").

Not covered (the OWL API check in the conformance suite covers them): global
restrictions on property chains and number restrictions on non-simple properties,
anonymous-individual cycles, facet restrictions, and the full structural parse of
every axiom form (only those the compiler writes are read).
"""

from __future__ import annotations

from collections.abc import Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, XSD

#: OWL 2 Structural Specification, section 4 (the datatype map), written out independently of the compiler.
DATATYPE_MAP = {
    RDF.PlainLiteral,
    RDF.XMLLiteral,
    RDFS.Literal,
    URIRef(str(RDF) + "langString"),
    OWL.real,
    OWL.rational,
} | {
    XSD[n]
    for n in "decimal integer nonNegativeInteger nonPositiveInteger positiveInteger negativeInteger long int short "
    "byte "
    "unsignedLong unsignedInt unsignedShort unsignedByte double float string normalizedString token language Name "
    "NCName "
    "NMTOKEN boolean hexBinary base64Binary anyURI dateTime dateTimeStamp".split()
}
PROPERTY_KINDS = (OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)
BUILTIN_ANNOTATIONS = {
    RDFS.label,
    RDFS.comment,
    RDFS.seeAlso,
    RDFS.isDefinedBy,
    OWL.versionInfo,
    OWL.deprecated,
    OWL.priorVersion,
    OWL.backwardCompatibleWith,
    OWL.incompatibleWith,
}
RESERVED = (str(RDF), str(RDFS), str(OWL), str(XSD))
#: Predicates of the RDF mapping itself (axioms), not uses of a declared property.
STRUCTURAL = {
    RDF.type,
    RDF.first,
    RDF.rest,
    RDFS.subClassOf,
    RDFS.subPropertyOf,
    RDFS.domain,
    RDFS.range,
    OWL.equivalentClass,
    OWL.equivalentProperty,
    OWL.inverseOf,
    OWL.onProperty,
    OWL.allValuesFrom,
    OWL.someValuesFrom,
    OWL.minCardinality,
    OWL.maxCardinality,
    OWL.cardinality,
    OWL.unionOf,
    OWL.intersectionOf,
    OWL.oneOf,
    OWL.imports,
    OWL.versionIRI,
    OWL.disjointWith,
    OWL.hasValue,
    OWL.complementOf,
    OWL.onDatatype,
    OWL.withRestrictions,
}
#: rdf:type objects that are OWL's own (declarations, property characteristics).
BUILTIN_TYPES = {
    OWL.Ontology,
    OWL.Class,
    OWL.Restriction,
    RDFS.Datatype,
    RDF.Property,
    RDFS.Class,
    OWL.NamedIndividual,
    *PROPERTY_KINDS,
    OWL.SymmetricProperty,
    OWL.TransitiveProperty,
    OWL.FunctionalProperty,
    OWL.InverseFunctionalProperty,
    OWL.AsymmetricProperty,
    OWL.ReflexiveProperty,
    OWL.IrreflexiveProperty,
    RDF.List,
}


def reserved(iri: object) -> bool:
    return isinstance(iri, URIRef) and str(iri).startswith(RESERVED)


def document_violations(graph: Graph) -> list[str]:
    """One document: exactly one ``owl:Ontology``."""
    headers = sorted(str(o) for o in graph.subjects(RDF.type, OWL.Ontology))
    return [] if len(headers) == 1 else [f"document has {len(headers)} owl:Ontology headers: {headers}"]


def violations(documents: Iterable[Graph]) -> list[str]:
    """OWL 2 DL violations of a set of documents read together (an imports closure)."""
    documents = list(documents)
    found = [v for g in documents for v in document_violations(g)]
    g = Graph()
    for document in documents:
        g += document
    ontologies = set(g.subjects(RDF.type, OWL.Ontology))
    found += [f"owl:imports <{o}> is not in the set" for o in set(g.objects(None, OWL.imports)) - ontologies]
    declared: dict[URIRef, set[URIRef]] = {}
    for s, kind in g.subject_objects(RDF.type):
        if isinstance(s, URIRef) and kind in (*PROPERTY_KINDS, OWL.Class, RDFS.Datatype, RDF.Property):
            declared.setdefault(s, set()).add(kind)
    for iri, kinds in sorted(declared.items()):
        if reserved(iri):
            found.append(f"reserved IRI declared: <{iri}> a {sorted(kinds)}")
        if len(kinds & set(PROPERTY_KINDS)) > 1:
            found.append(f"property punning: <{iri}> is {sorted(str(k) for k in kinds & set(PROPERTY_KINDS))}")
        if RDF.Property in kinds and not kinds & set(PROPERTY_KINDS):
            found.append(f"<{iri}> is typed only rdf:Property")
        if {OWL.Class, RDFS.Datatype} <= kinds:
            found.append(f"<{iri}> is both a class and a datatype")

    def kind(p: URIRef) -> URIRef | None:
        if p in BUILTIN_ANNOTATIONS:
            return OWL.AnnotationProperty
        kinds = declared.get(p, set()) & set(PROPERTY_KINDS)
        return next(iter(kinds)) if len(kinds) == 1 else None

    def is_class(c: object) -> bool:
        if isinstance(c, BNode):
            return (c, RDF.type, OWL.Class) in g or (c, RDF.type, OWL.Restriction) in g
        return c in (OWL.Thing, OWL.Nothing) or OWL.Class in declared.get(c, set())  # type: ignore[arg-type]

    def is_data_range(d: object) -> bool:
        if isinstance(d, BNode):
            members = g.value(d, OWL.oneOf)
            return (
                (d, RDF.type, RDFS.Datatype) in g
                and members is not None
                and all(
                    isinstance(m, Literal) and (m.datatype is None or m.datatype in DATATYPE_MAP)
                    for m in Collection(g, members)
                )
            )
        return d in DATATYPE_MAP or (not reserved(d) and RDFS.Datatype in declared.get(d, set()))  # type: ignore[arg-type]

    for _s, p, o in g:
        if p in STRUCTURAL or p in BUILTIN_ANNOTATIONS:
            continue
        k = kind(p)
        if k is None:
            found.append(f"property used but not declared as exactly one OWL kind: <{p}>")
        elif k == OWL.ObjectProperty and isinstance(o, Literal):
            found.append(f"object property <{p}> has a literal value {o!r}")
        elif k == OWL.DatatypeProperty and not isinstance(o, Literal):
            found.append(f"datatype property <{p}> has a node value <{o}>")
        if isinstance(o, Literal) and o.datatype is not None and o.datatype not in DATATYPE_MAP:
            found.append(f"literal of <{p}> typed <{o.datatype}>, outside the OWL 2 datatype map")
    for s, c in g.subject_objects(RDF.type):
        if c not in BUILTIN_TYPES and not is_class(c):
            found.append(f"<{s}> a <{c}>: class not declared")
    for s, c in g.subject_objects(RDFS.subClassOf):
        for node in (s, c):
            if not is_class(node):
                found.append(f"rdfs:subClassOf of something not a declared class: <{node}>")
    for restriction in g.subjects(RDF.type, OWL.Restriction):
        p = g.value(restriction, OWL.onProperty)
        k = kind(p)
        if k not in (OWL.ObjectProperty, OWL.DatatypeProperty):
            found.append(f"restriction on <{p}>, which is no object or datatype property")
        for filler in g.objects(restriction, OWL.allValuesFrom):
            ok = is_data_range(filler) if k == OWL.DatatypeProperty else is_class(filler)
            if not ok:
                found.append(
                    f"restriction on <{p}>: filler <{filler}> is no "
                    f"{'data range of the datatype map' if k == OWL.DatatypeProperty else 'class'}"
                )
        for number in (
            o for q in (OWL.minCardinality, OWL.maxCardinality, OWL.cardinality) for o in g.objects(restriction, q)
        ):
            if not (isinstance(number, Literal) and number.datatype == XSD.nonNegativeInteger):
                found.append(f"restriction on <{p}>: cardinality {number!r} is no xsd:nonNegativeInteger")
    for p, r in g.subject_objects(RDFS.range):
        k = kind(p)
        if k == OWL.DatatypeProperty and not is_data_range(r):
            found.append(f"datatype property <{p}> has range <{r}>, no datatype of the OWL 2 datatype map")
        elif k == OWL.ObjectProperty and not is_class(r):
            found.append(f"object property <{p}> has range <{r}>, no declared class")
    for p, d in g.subject_objects(RDFS.domain):
        if kind(p) in (OWL.ObjectProperty, OWL.DatatypeProperty) and not is_class(d):
            found.append(f"property <{p}> has domain <{d}>, no declared class")
    for p, q in g.subject_objects(OWL.inverseOf):
        if kind(p) != OWL.ObjectProperty or kind(q) != OWL.ObjectProperty:
            found.append(f"owl:inverseOf between <{p}> and <{q}>, not both object properties")
    return sorted(set(found))
