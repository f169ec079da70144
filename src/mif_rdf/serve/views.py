"""What the page at ``/`` shows, as JSON: the bundle overview, one memory, the example queries.

Every view is computed from one published :class:`~.served.Snapshot` (so a
reload never shows half done), and leaves out what the server withholds
(``_local`` memories without ``--include-local``, the bundle's place on disk).  Validation findings come from
:meth:`ServedBundle.findings` (one validation run per published change).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from importlib import resources
from typing import Any

import pyoxigraph as ox

from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.serve.served import ServedBundle
from mif_rdf.serve.snapshot import Snapshot


def view(served: ServedBundle, name: str, params: dict[str, str]) -> Any:
    """The JSON of one view; raises LookupError for an unknown view or memory."""
    views: dict[str, Callable[[ServedBundle, Snapshot, dict[str, str]], Any]] = {
        "status": status,
        "overview": overview,
        "memory": memory,
        "examples": lambda served, snap, p: examples(),
    }
    if name not in views:
        raise LookupError(f"no view {name!r}")
    return served.read(lambda snap: views[name](served, snap, params))[1]


def status(served: ServedBundle, snap: Snapshot, params: dict[str, str]) -> dict[str, Any]:
    """The change counter the page polls to know when to refresh."""
    return {"generation": snap.generation, "memories": sum(1 for m in snap.memories.values() if snap.allows(m.iri))}


def overview(served: ServedBundle, snap: Snapshot, params: dict[str, str]) -> dict[str, Any]:
    """Counts by type and namespace, the number of triples, and every problem (load and validation)."""
    shown = [m for m in snap.memories.values() if snap.allows(m.iri)]
    kinds = Counter(str(m.frontmatter.get("type", "?")) for m in shown)
    namespaces = Counter(str(m.frontmatter.get("namespace", "(none)")) for m in shown)
    problems = served.findings(snap)
    return {
        "folder": snap.name,
        "base": snap.base_iri,
        "generation": snap.generation,
        "memories": len(shown),
        "triples": snap.triples,
        "by_type": dict(sorted(kinds.items())),
        "by_namespace": dict(sorted(namespaces.items())),
        "prefixes": {prefix: str(ns) for prefix, ns in PREFIXES.items()},
        "problems": [p.to_dict() for p in problems],
        "kept": sorted(snap.kept),
        "list": sorted(
            (
                {
                    "id": m.id,
                    "iri": m.iri,
                    "path": m.relpath,
                    "title": _title(m.frontmatter),
                    "type": m.frontmatter.get("type"),
                }
                for m in shown
            ),
            key=lambda item: item["path"],
        ),
    }


def memory(served: ServedBundle, snap: Snapshot, params: dict[str, str]) -> dict[str, Any]:
    """One memory by ``id``, ``iri`` or ``path``: markdown, frontmatter, triples, typed links both ways, findings."""
    wanted = params.get("id") or params.get("iri", "").removeprefix("urn:mif:")
    record = snap.memories.get(wanted) if wanted else snap.memory_by_path(params.get("path", ""))
    if record is None or not snap.allows(record.iri):
        raise LookupError(f"no memory {wanted or params.get('path')!r} is served")
    graph = ox.NamedNode(record.iri)
    triples = [
        [_term(q.subject), _term(q.predicate), _term(q.object)]
        for q in snap.store.quads_for_pattern(None, None, None, graph)
    ]
    links = ox.NamedNode(snap.links_graph_iri)
    titles = {m.iri: _title(m.frontmatter) for m in snap.memories.values() if snap.allows(m.iri)}
    outgoing = [
        {"type": _short(q.predicate.value), "iri": q.object.value, "title": titles.get(q.object.value)}
        for q in snap.store.quads_for_pattern(graph, None, None, links)
        if q.object.value in titles
    ]
    incoming = [
        {"type": _short(q.predicate.value), "iri": q.subject.value, "title": titles.get(q.subject.value)}
        for q in snap.store.quads_for_pattern(None, None, graph, links)
        if q.subject.value in titles
    ]
    return {
        "id": record.id,
        "iri": record.iri,
        "path": record.relpath,
        "title": _title(record.frontmatter),
        "frontmatter": record.frontmatter,
        "body": record.body,
        "triples": sorted(triples, key=lambda t: [(x["type"], x["value"]) for x in t]),
        "outgoing": sorted(outgoing, key=lambda link: (link["type"], link["iri"])),
        "incoming": sorted(incoming, key=lambda link: (link["type"], link["iri"])),
        "problems": [p.to_dict() for p in served.findings(snap) if p.path == record.relpath],
        "kept": record.relpath in snap.kept,
    }


def examples() -> list[dict[str, str]]:
    """The README's ten first queries, shipped with the page (a test keeps them equal to the README)."""
    return json.loads(resources.files(__package__).joinpath("static", "examples.json").read_text(encoding="utf-8"))


def _title(frontmatter: dict[str, Any]) -> str | None:
    title = frontmatter.get("title")
    return title if isinstance(title, str) else None


def _term(term: Any) -> dict[str, str]:
    if isinstance(term, ox.NamedNode):
        return {"type": "iri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    found = {"type": "literal", "value": term.value}
    if term.language:
        found["lang"] = term.language
    elif term.datatype.value != "http://www.w3.org/2001/XMLSchema#string":
        found["datatype"] = term.datatype.value
    return found


def _short(iri: str) -> str:
    """``mif:supersedes`` for an IRI under a known prefix, else the IRI."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(str(namespace)) and iri != str(namespace):
            return f"{prefix}:{iri[len(str(namespace)) :]}"
    return iri
