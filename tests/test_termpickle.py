"""Terms come back from a worker or the cache exactly as they went: lexical form, datatype, language and value."""

from __future__ import annotations

import pickle

import pytest
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD

from mif_rdf.load import termpickle

LITERALS = [
    Literal("plain"),
    Literal("hallo", lang="de"),
    Literal("2026-01-15T10:30:00Z", datatype=XSD.dateTime, normalize=False),  # rdflib's own pickling gives +00:00
    Literal("2026-01-15T10:30:00.500+02:00", datatype=XSD.dateTime, normalize=False),
    Literal("2026-01-15", datatype=XSD.date, normalize=False),
    Literal("2026-01-15", datatype=XSD.dateTime, normalize=False),  # ill-typed: kept, and still ill-typed
    Literal("10:30:00", datatype=XSD.time, normalize=False),
    Literal("01", datatype=XSD.integer, normalize=False),
    Literal("0.940", datatype=XSD.decimal, normalize=False),
    Literal("1.5E0", datatype=XSD.double, normalize=False),
    Literal("-0.0E0", datatype=XSD.double, normalize=False),
    Literal("true", datatype=XSD.boolean, normalize=False),
    Literal("1", datatype=XSD.boolean, normalize=False),
    Literal("P30D", datatype=XSD.duration, normalize=False),
    Literal("P1Y2M", datatype=XSD.duration, normalize=False),
    Literal("2026", datatype=XSD.gYear, normalize=False),
    Literal("not a number", datatype=XSD.integer, normalize=False),
    Literal('{"a":[1,2]}', datatype=URIRef(str(RDF) + "JSON"), normalize=False),
    Literal("<b>x</b>", datatype=RDF.XMLLiteral, normalize=False),
    Literal("x", datatype=URIRef("https://example.org/own-type"), normalize=False),
]


@pytest.mark.parametrize("literal", LITERALS, ids=lambda literal: f"{literal}^^{literal.datatype}@{literal.language}")
def test_a_literal_comes_back_as_it_was(literal: Literal) -> None:
    back = pickle.loads(termpickle.dumps(literal))
    assert type(back) is Literal
    assert (str(back), back.language, back.datatype, back.ill_typed) == (
        str(literal),
        literal.language,
        literal.datatype,
        literal.ill_typed,
    )
    assert type(back.value) is type(literal.value)
    same = (
        back.value.toxml() == literal.value.toxml() if hasattr(literal.value, "toxml") else back.value == literal.value
    )  # a DOM has no ==
    assert same
    assert back == literal and hash(back) == hash(literal) and back.eq(literal)


def test_shared_terms_stay_shared_and_iris_stay_iris() -> None:
    iri, literal, blank = URIRef("urn:mif:x"), LITERALS[2], BNode("b1")
    back = pickle.loads(termpickle.dumps([(iri, literal, blank), (iri, literal, blank)]))
    assert back[0] == (iri, literal, blank) and type(back[0][0]) is URIRef
    assert back[0][1] is back[1][1]  # one object, as in the store's indexes


def test_a_pickle_of_many_frames_is_pickles_own() -> None:
    """The frames are joined as the pickler writes them: large texts, bytes and buffers past one frame (64 KiB) come
    back whole and in order, and without terms the bytes are the standard pickler's."""
    value = [
        "é" * 100_000,
        b"\x00\xff" * 70_000,
        bytearray(b"x" * 200_000),
        {"k": [Literal("01", datatype=XSD.integer, normalize=False)] * 3},
        b"tail",
    ]
    assert pickle.loads(termpickle.dumps(value)) == value
    plain = ["é" * 100_000, b"\x00" * 140_000, {"a": [1, 2.5, None]}]
    assert termpickle.dumps(plain) == pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL)
