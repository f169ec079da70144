"""Values whose lexical form does not fit their datatype: problem records, never tracebacks.

The context types ``created``, ``validFrom``, ``accessCount`` ... (``xsd:dateTime``,
``xsd:integer`` ...).  A value such as ``created: yesterday``, ``2026-02-30`` or
year 0 still becomes that typed literal -- the triples must stay those of
standard JSON-LD toRdf, and the author's text is kept -- but it is reported on
its file and key at load time.  rdflib logs a warning *with a traceback* each
time it builds such a literal (when loading, parsing an export back, validating,
querying); those log records are dropped here, since the problem record says
the same thing once and where.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from rdflib import Literal, URIRef

from mif_rdf.core.bounded_cache import bounded_cache
from mif_rdf.core.context import mif_context
from mif_rdf.core.errors import Problem, Severity
from mif_rdf.rdf.well_typed import surely_well_typed

#: Subtrees whose keys are not the context's terms (their own vocabularies).
_OWN_VOCABULARY = ("extensions", "properties")
_XSD = "http://www.w3.org/2001/XMLSchema#"


class _IllTypedLiteralFilter(logging.Filter):
    """Drops rdflib's "Failed to convert Literal lexical form" warnings (a traceback each)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to convert Literal lexical form")


def quiet_rdflib() -> None:
    """Install the filter on rdflib's term logger (once; idempotent)."""
    logger = logging.getLogger("rdflib.term")
    if not any(isinstance(f, _IllTypedLiteralFilter) for f in logger.filters):
        logger.addFilter(_IllTypedLiteralFilter())


@functools.cache
def typed_terms() -> dict[str, str]:
    """Context term name -> XSD datatype IRI, for the terms the context types with one."""
    return {
        name: term.coerce for name, term in mif_context().terms.items() if term.coerce and term.coerce.startswith(_XSD)
    }


def ill_typed_values(relpath: str, frontmatter: dict[str, Any]) -> list[Problem]:
    """A warning for each string value whose typed literal rdflib cannot read, naming file and key path."""
    typed = typed_terms()
    found: list[tuple[str, str, str]] = []
    _typed_strings(frontmatter, "", typed, found)
    return [
        Problem(
            relpath,
            f"{value!r} is not a valid xsd:{typed[key][len(_XSD) :]}; kept as written with that datatype",
            Severity.WARNING,
            key=f"{parent}.{key}" if parent else key,
            value=value,
            rule="datatype",
        )
        for parent, key, value in found
        if not surely_well_typed(value, typed[key]) and is_ill_typed(value, typed[key])
    ]


@bounded_cache(8 << 20)  # a third of the typed values of a bundle repeat (dates, durations)
def is_ill_typed(lexical: str, datatype: str) -> bool:
    """Whether rdflib reads ``lexical`` as ill-typed for ``datatype``, as a Literal of it would say.

    ``normalize=False`` leaves out rdflib's rewriting of the lexical form, which comes after
    the ill-typed verdict and cost two thirds of the call; tests/test_lexical_fast.py checks
    the verdict against a default Literal on generated values.
    """
    return bool(Literal(lexical, datatype=_datatype(datatype), normalize=False).ill_typed)


@functools.cache
def _datatype(iri: str) -> URIRef:
    return URIRef(iri)


def _typed_strings(value: Any, keypath: str, typed: dict[str, str], found: list[tuple[str, str, str]]) -> None:
    """Add (key path of the parent, key, string) for every string under a key the context types, outside other
    vocabularies, in document order; the key path of a string is only joined for a problem (most strings have
    none), and one list is filled by plain recursion (nested generators cost a tenth of a memory's preparation)."""
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str) or (not keypath and key in _OWN_VOCABULARY):
                continue
            if isinstance(child, str):
                if key in typed:
                    found.append((keypath, key, child))
            elif isinstance(child, (dict, list)):
                _typed_strings(child, f"{keypath}.{key}" if keypath else key, typed, found)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            if isinstance(child, (dict, list)):  # a string item has no key of its own: its key was the list's
                _typed_strings(child, f"{keypath}[{index}]", typed, found)


quiet_rdflib()
