"""Pickling rdflib terms exactly as they are.

rdflib pickles a Literal as ``Literal(lexical, lang, datatype)``, which
normalizes the lexical form on the way back (``...T10:30:00Z`` returns as
``...T10:30:00+00:00``, ``"01"^^xsd:integer`` as ``"1"``); the loader keeps
the author's form, so everything that moves terms between processes or onto
disk (worker processes, the load cache) pickles them through here.  IRIs were
checked when first made and are not checked again.
"""
from __future__ import annotations

import copyreg
import io
import pickle
from typing import Any

from rdflib import Literal, URIRef


def dumps(value: Any) -> bytes:
    """``pickle.dumps`` with exact terms."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {
        **copyreg.dispatch_table,
        URIRef: lambda iri: (_uriref, (str(iri),)),
        Literal: lambda literal: (_literal, (str(literal), literal.language, literal.datatype)),
    }
    pickler.dump(value)
    return buffer.getvalue()


def _uriref(iri: str) -> URIRef:
    return str.__new__(URIRef, iri)


def _literal(lexical: str, language: str | None, datatype: URIRef | None) -> Literal:
    return Literal(lexical, language, datatype, normalize=False)
