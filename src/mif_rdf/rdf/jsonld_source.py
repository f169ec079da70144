"""Memories read from ``.jsonld`` files: the JSON-LD form of a bundle (spec 2.1, 3.3, 15.2).

A bundle may hold a memory as ``{name}.md``, as ``{name}.jsonld``, or both.
A ``.jsonld`` alone is the memory: its graph (as any JSON-LD processor reads
the document, with the pinned context and no network) is read back into
frontmatter and body by the reverse path (:func:`mif_rdf.rdf.reverse.recover_memory`),
and from there on it is loaded exactly like the ``.md`` it stands for: same
document IRI, projection, graph, links, layout and validation, its findings
naming the ``.jsonld`` file and a JSON pointer.  Beside its ``.md`` the
``.jsonld`` is only a derived projection (Invariant 2: the markdown wins), so
it is checked, never loaded: when it no longer says what the ``.md`` says, a
"stale projection" warning names the keys that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from mif_rdf.core.context import MIF_CONTEXT_URL, MIF_NS, is_absolute_iri, projection_context
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits, yaml_shape_problem
from mif_rdf.rdf.layout import with_timestamps
from mif_rdf.rdf.projection import project_memory
from mif_rdf.rdf.reference import pyld_graph
from mif_rdf.rdf.reverse import RecoveredMemory, drop_mirrors, recover_memory
from mif_rdf.rdf.roundtrip import canonical_frontmatter
from mif_rdf.rdf.tordf import document_triples
from mif_rdf.source.identity import MEMORY_PREFIX, document_iri, id_from_memory_iri, id_problem
from mif_rdf.source.parse import ParsedMemory, _check_required, parse_memory, read_text

SUFFIX = ".jsonld"
_CONCEPT = URIRef(MIF_NS + "Concept")


def markdown_path(relpath: str) -> str:
    """The ``.md`` path a ``.jsonld`` stands for (``a/b.jsonld`` -> ``a/b.md``): its document IRI and OKF identity."""
    return relpath[: -len(SUFFIX)] + ".md" if relpath.endswith(SUFFIX) else relpath


def is_jsonld_path(relpath: str) -> bool:
    return relpath.endswith(SUFFIX)


def is_projection(root: Path, relpath: str) -> bool:
    """Whether ``relpath`` is a ``.jsonld`` with its ``.md`` beside it: a projection, not a memory."""
    return is_jsonld_path(relpath) and (root / markdown_path(relpath)).is_file()


def pair_twins(root: Path, relpaths: Iterable[str]) -> list[str]:
    """The other file of each ``.md``/``.jsonld`` pair among ``relpaths`` that exists, sorted."""
    twins = (
        r[: -len(".md")] + SUFFIX if r.endswith(".md") else markdown_path(r) if is_jsonld_path(r) else None
        for r in relpaths
    )
    return sorted({t for t in twins if t is not None and (root / t).is_file()})


def frontmatter_of_document(document: dict[str, Any]) -> dict[str, Any]:
    """Spec 15.2 as written: ``@id`` -> ``id``, ``conceptType`` -> ``type``, the other properties as they are.

    Timestamp-shaped strings become YAML timestamps again (JSON has no date
    type); the ``timestamp``/``description`` mirrors go when they mirror.
    """
    frontmatter: dict[str, Any] = {"id": id_from_memory_iri(document["@id"])}
    if "conceptType" in document:
        frontmatter["type"] = document["conceptType"]
    types = document.get("@type")
    extra = [t for t in (types if isinstance(types, list) else [types]) if t not in (None, "Concept")]
    if extra:
        frontmatter["@type"] = extra[0] if len(extra) == 1 else extra
    frontmatter.update(
        (k, v) for k, v in document.items() if k not in ("@context", "@id", "@type", "conceptType", "content")
    )
    return drop_mirrors(with_timestamps(frontmatter))


def _contexts(document: dict[str, Any]) -> list[Any]:
    context = document.get("@context")
    return context if isinstance(context, list) else [] if context is None else [context]


def document_base(document: Any) -> str | None:
    """The absolute ``@base`` a document's top-level context names (the
    projections mif-rdf writes do); None without one."""
    contexts = _contexts(document) if isinstance(document, dict) else []
    base = next((c["@base"] for c in contexts if isinstance(c, dict) and isinstance(c.get("@base"), str)), None)
    return base if base is not None and is_absolute_iri(base) else None


def _unknown_context_url(document: Any) -> str | None:
    """The first context URL of the document's top level that mif-rdf cannot serve offline (it never fetches one)."""
    for context in _contexts(document) if isinstance(document, dict) else []:
        if isinstance(context, str) and context != MIF_CONTEXT_URL:
            return context
    return None


def memory_of_document(
    document: Any, md_relpath: str, fallback_iri: str, *, path: str | None = None
) -> RecoveredMemory:
    """Frontmatter and body of one JSON-LD memory document, compacted (spec 6), expanded, or in a ``@graph``.

    The graph JSON-LD makes of the document decides (read with the pinned
    context; any other context URL is refused, never fetched).  A compacted
    document's own properties are the frontmatter template (spec 15.2); it is
    used when it gives that same graph.  ``fallback_iri`` is the document IRI
    when the document names no ``@base``.  Raises :class:`MifRdfError` when the
    document is no MIF memory or cannot be read as JSON-LD.
    """
    unknown = _unknown_context_url(document)
    if unknown is not None:
        raise MifRdfError(
            f"context {unknown!r} is not a context mif-rdf knows (only {MIF_CONTEXT_URL} is served, from the pinned "
            "copy; nothing is fetched)"
        )
    compacted = isinstance(document, dict) and isinstance(document.get("@id"), str) and "@graph" not in document
    doc_iri = (document_base(document) if compacted else None) or fallback_iri
    suffix = document_iri("", md_relpath)
    base = doc_iri[: -len(suffix)] if doc_iri.endswith(suffix) else doc_iri[: doc_iri.rfind("/") + 1]
    plain = (
        [c for c in _contexts(document) if not (isinstance(c, dict) and set(c) == {"@base"})]
        if isinstance(document, dict)
        else []
    )
    if (
        compacted
        and plain == projection_context()
        and document["@id"].startswith(MEMORY_PREFIX)
        and isinstance(document.get("content"), str)
    ):
        fitting = _as_projected(document, doc_iri, path or md_relpath)
        if fitting is not None:
            return fitting
    try:
        if compacted and plain == projection_context():
            graph = Graph()
            for triple in document_triples({**document, "@context": plain}, doc_iri):
                graph.add(triple)
        else:  # any other JSON-LD: the general engine
            graph = pyld_graph(document, doc_iri)
    except RecursionError:
        raise MifRdfError("JSON nesting is too deep to read") from None
    except Exception as exc:  # pyld reads user input: whatever it raises, the file is what is wrong
        raise MifRdfError(f"not readable as JSON-LD: {_innermost(exc)}") from None
    memory = document["@id"] if compacted else _only_memory(graph)
    if not memory.startswith(MEMORY_PREFIX):
        raise MifRdfError(f'not a MIF memory document: its "@id" is {memory!r}, not "urn:mif:<id>"')
    why = id_problem(memory[len(MEMORY_PREFIX) :])
    if why is not None:
        raise MifRdfError(f'"@id" {memory!r}: id {why}')
    template = frontmatter_of_document(document) if compacted else None
    return recover_memory(graph, memory, doc_iri=doc_iri, base=base, path=path or md_relpath, template=template)


def _as_projected(document: dict[str, Any], doc_iri: str, path: str) -> RecoveredMemory | None:
    """The memory of a document that is exactly the projection of its own spec 15.2 reading (what
    ``convert to-jsonld`` writes); None otherwise.

    The same document makes the same graph, so this settles in a JSON
    comparison what the graph comparison of the reverse path would (a
    quarter of the load time of a .jsonld bundle otherwise).
    """
    template = frontmatter_of_document(document)
    projected = project_memory(template, document["content"], path=path, doc_iri=doc_iri).document
    same = json.dumps({k: v for k, v in projected.items() if k != "@context"}, default=str) == json.dumps(
        {k: v for k, v in document.items() if k != "@context"}, default=str
    )
    return RecoveredMemory(template, document["content"]) if same else None


def _only_memory(graph: Graph) -> str:
    """The one memory (``urn:mif:`` node typed ``Concept``) of an expanded or ``@graph`` document."""
    memories = sorted(
        {
            str(s)
            for s in graph.subjects(RDF.type, _CONCEPT)
            if isinstance(s, URIRef) and str(s).startswith(MEMORY_PREFIX)
        }
    )
    if len(memories) != 1:
        found = "no node" if not memories else f"{len(memories)} nodes ({', '.join(memories[:3])})"
        raise MifRdfError(
            f'not a MIF memory document: it needs one node "urn:mif:<id>" of type Concept, and has {found}'
        )
    return memories[0]


def _innermost(exc: BaseException) -> str:
    """The message of the deepest cause, or of mif-rdf's own (pyld wraps the reason in "Could not expand input ...")."""
    seen = 0
    while (
        not isinstance(exc, MifRdfError) and (inner := exc.__cause__ or exc.__context__) is not None and seen < 20
    ):  # ours says it best
        exc, seen = inner, seen + 1
    text = str(exc.args[0]) if exc.args else str(exc)
    lines = text.strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def read_document(root: Path, relpath: str, problems: list[Problem], limits: Limits) -> Any:
    """The JSON object or array of a ``.jsonld`` file, or None with a problem recorded."""
    text = read_text(root / relpath, relpath, problems, limits)
    if text is None:
        return None
    if not text.lstrip().startswith(("{", "[")):  # a bare JSON value (null, 1, "x") is no JSON-LD document
        problems.append(
            Problem(relpath, "not a JSON-LD document: it must be a JSON object or array", line=1, rule="json")
        )
        return None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(Problem(relpath, f"not a JSON document: {exc.msg}", line=exc.lineno, rule="json"))
        return None
    except RecursionError:
        problems.append(Problem(relpath, "JSON nesting is too deep to read", rule="json"))
        return None
    too_big = yaml_shape_problem(document, limits)
    if too_big is not None:
        problems.append(Problem(relpath, f"{too_big}; not loaded", rule="limit"))
        return None
    return document


def parse_jsonld_memory(
    root: Path, relpath: str, base: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[ParsedMemory | None, list[Problem]]:
    """Read one ``.jsonld`` memory file: None (with problems) when it cannot be a memory.

    Its document IRI is the one of the ``.md`` it stands for in this bundle,
    so it loads to the same graph as that ``.md`` would.
    """
    problems: list[Problem] = []
    document = read_document(root, relpath, problems, limits)
    if document is None:
        return None, problems
    md_relpath = markdown_path(relpath)
    try:
        recovered = memory_of_document(document, md_relpath, document_iri(base, md_relpath), path=relpath)
    except MifRdfError as exc:
        problems.append(Problem(relpath, f"{exc}; not loaded", rule="json-ld"))
        return None, problems
    frontmatter = recovered.frontmatter
    problems.extend(json_pointer_keys(recovered.problems))
    _check_required(frontmatter, relpath, problems)
    if id_problem(frontmatter.get("id")) is not None:
        return None, json_pointer_keys(problems)
    return ParsedMemory(relpath, frontmatter, recovered.body), json_pointer_keys(problems)


def read_memory(
    root: Path, relpath: str, base: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[ParsedMemory | None, list[Problem]]:
    """One memory file, ``.md`` (:func:`~mif_rdf.source.parse.parse_memory`) or ``.jsonld``
    (:func:`parse_jsonld_memory`)."""
    if is_jsonld_path(relpath):
        return parse_jsonld_memory(root, relpath, base, limits)
    return parse_memory(root, relpath, limits)


# -- findings ------------------------------------------------------------------------
def json_pointer(key: str) -> str:
    """A frontmatter key path (``relationships[2].strength``) as the JSON pointer of the document
    (``/relationships/2/strength``).

    ``id`` is ``/@id``, ``type`` is ``/conceptType`` (spec 15.1).  An
    unknown list position (``citations[].accessed``) stops at the list.
    """
    if key.startswith("/") or not key:
        return key
    parts: list[str] = []
    for step in key.replace("]", "").split("."):
        name, _, index = step.partition("[")
        parts.append(name.replace("~", "~0").replace("/", "~1"))
        if "[" in step:
            if not index:
                break
            parts.append(index)
    if parts[0] == "id":
        parts[0] = "@id"
    elif parts[0] == "type":
        parts[0] = "conceptType"
    return "/" + "/".join(parts)


def json_pointer_keys(problems: Iterable[Problem]) -> list[Problem]:
    """Findings about ``.jsonld`` files with their keys as JSON pointers, and no line (a line of the
    memory's markdown form names nothing in the JSON document); others as they are."""
    return [
        replace(p, key=json_pointer(p.key), line=None)
        if p.key and is_jsonld_path(p.path) and not p.key.startswith("/")
        else p
        for p in problems
    ]


# -- projections beside their markdown ----------------------------------------------------
@dataclass(frozen=True)
class Authored:
    """What a ``.md`` says, for the stale check: frontmatter, body, document IRI."""

    frontmatter: dict[str, Any]
    body: str
    doc_iri: str


def stale_keys(
    relpath: str, authored: Authored, root: Path, limits: Limits = DEFAULT_LIMITS
) -> tuple[list[str], list[Problem]]:
    """The top-level keys where the ``.jsonld`` at ``relpath`` no longer says what its ``.md`` says.

    Compared as JSON-LD reads both (so key order and the spelling of an IRI do
    not count); ``content`` is the body.  A ``.jsonld`` that cannot be read is
    a problem instead.
    """
    problems: list[Problem] = []
    document = read_document(root, relpath, problems, limits)
    if document is None:
        return [], problems
    try:
        recovered = memory_of_document(document, markdown_path(relpath), authored.doc_iri, path=relpath)
    except MifRdfError as exc:
        return [], [
            Problem(
                relpath,
                f"projection of {markdown_path(relpath)} cannot be read: {exc}",
                Severity.WARNING,
                rule="stale-projection",
            )
        ]
    ours, theirs = authored.frontmatter, recovered.frontmatter

    def meaning(frontmatter: dict[str, Any], key: str) -> dict[str, Any]:
        return canonical_frontmatter({key: frontmatter[key]} if key in frontmatter else {}, doc_iri=authored.doc_iri)

    keys = sorted(k for k in {**ours, **theirs} if isinstance(k, str) and meaning(ours, k) != meaning(theirs, k))
    if recovered.body != authored.body:
        keys.append("content")
    return keys, []


def projection_problems(
    root: Path, projections: Iterable[str], authored: Callable[[str], Authored | None], limits: Limits = DEFAULT_LIMITS
) -> list[Problem]:
    """A "stale projection" warning for each ``.jsonld`` that no longer is the projection of its loaded ``.md``."""
    problems: list[Problem] = []
    for relpath in projections:
        md = authored(markdown_path(relpath))
        if md is None:  # the .md did not load: its own problems say why
            continue
        keys, unreadable = stale_keys(relpath, md, root, limits)
        problems.extend(unreadable)
        if keys:
            problems.append(
                Problem(
                    relpath,
                    f"stale projection: no longer the projection of {markdown_path(relpath)} (the markdown wins); "
                    f"keys that differ: {', '.join(keys)}",
                    Severity.WARNING,
                    key=json_pointer(keys[0]),
                    rule="stale-projection",
                )
            )
    return problems
