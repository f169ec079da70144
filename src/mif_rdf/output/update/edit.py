"""The new text of an existing memory's file from its changed graph, or a refusal naming what it cannot hold.

A key keeps its authored value unless a changed triple hangs under it; a
changed key takes the value the graph now says (:mod:`mif_rdf.rdf.reverse`),
in the author's form where it agrees; the result must project to exactly
the updated graph (:func:`mif_rdf.rdf.layout.template_fits`), and the text
is edited, not dumped (:mod:`mif_rdf.output.frontmatter_edit`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, RDF, XSD
from rdflib.term import Node

from mif_rdf.core.context import MIF_NS, mif_context
from mif_rdf.core.statements import Triple
from mif_rdf.output.body_mirror import mirrored_body
from mif_rdf.output.frontmatter_edit import edit_frontmatter, same
from mif_rdf.output.update.changes import FileChange, Quad, _read, _Refused, _triple
from mif_rdf.rdf.layout import template_fits
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.source.fastyaml import load_yaml  # PyYAML's result, faster where provably the same
from mif_rdf.source.markdown import split_frontmatter

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle, MemoryRecord

CONTENT = URIRef(MIF_NS + "content")


CONCEPT_TYPE = URIRef(MIF_NS + "conceptType")


#: Predicates the projection adds as mirrors of other keys (spec 15.1), and the key each mirrors.
MIRRORS: dict[Node, tuple[str, str]] = {
    URIRef(MIF_NS + "timestamp"): ("timestamp", "modified (or created)"),
    DCTERMS.description: ("description", "summary"),
}


def _memory_change(
    bundle: LoadedBundle,
    record: MemoryRecord,
    plus: list[Quad],
    minus: list[Quad],
    titles: Callable[[str, str], str],
    allow_delete: bool,
) -> FileChange | None:
    """The new text of one memory's file, or :class:`_Refused` naming what it cannot hold."""
    node = URIRef(record.iri)
    graph = bundle.dataset.graph(node)
    if not len(graph):
        if allow_delete:
            return FileChange(record.relpath, _read(bundle.root / record.relpath), None)
        raise _Refused(
            f"the update deletes every triple of {node.n3()}: that removes its file, which needs --allow-delete "
            "(allow_delete=True)"
        )
    if (node, None, None) not in graph:
        raise _Refused(
            f"the update deletes every triple of {node.n3()} but leaves others in its graph (e.g. "
            f"{_triple(minus[0], '-')}); no file can hold them"
        )
    ctx = mif_context()
    triples = set(graph)  # read once: each read of a Dataset's graph asks the store for every triple's graphs
    keys = _top_keys(triples, node, minus)
    refused = []
    for quad in plus:
        try:
            _check_added(quad, node, ctx, keys.get(quad[0]))
        except _Refused as exc:
            refused.append(exc)
    if refused:
        raise _Refused("; ".join(map(str, refused)), refused[0].key)
    for quad in plus + minus:
        if quad[1] in MIRRORS and quad[0] == node and MIRRORS[quad[1]][0] not in record.frontmatter:
            mirror, source = MIRRORS[quad[1]]
            raise _Refused(
                f"{_triple(quad, '+' if quad in plus else '-')}: {quad[1]} only mirrors {source} in the projection "
                f"(spec 15.1); change {source} instead",
                mirror,
            )
    affected = {keys[q[0]] for q in plus + minus if q[0] in keys} | {
        _key_of(ctx, q[1]) for q in plus + minus if q[0] == node
    }
    frontmatter, body = _new_memory(bundle, record, graph, triples, affected)
    if (
        "relationships" in affected and "@body" not in affected
    ):  # the body's mirror follows (Invariant 3), unless the update wrote the body
        body = mirrored_body(
            body,
            record.frontmatter.get("relationships"),
            frontmatter.get("relationships"),
            lambda target: titles(target, record.doc_iri),
        )
    before = _read(bundle.root / record.relpath)
    after = _edited_text(before, frontmatter, affected, body)
    return None if after == before else FileChange(record.relpath, before, after)


def _titles(bundle: LoadedBundle) -> Callable[[str, str], str]:
    """The link text of a mirror line for a target written in a document: the target memory's title,
    the entity's name, else the target."""
    from mif_rdf.source.identity import resolve_target

    names: dict[str, str] = {}

    def title_of(target: str, doc_iri: str) -> str:
        if not names:
            names.update({iri: str(e.data.get("name") or "") for iri, e in bundle.entities.items()})
            names.update({r.doc_iri: str(r.frontmatter.get("title") or "") for r in bundle.memories.values()})
            names.update({r.iri: str(r.frontmatter.get("title") or "") for r in bundle.memories.values()})
        return names.get(resolve_target(target, doc_iri, bundle.base_iri).split("#", 1)[0]) or target

    return title_of


def _key_of(ctx: Any, predicate: Any) -> str:
    """The top-level frontmatter key a predicate of the memory node comes from."""
    if predicate == CONCEPT_TYPE:
        return "type"
    if predicate == CONTENT:
        return "@body"
    if predicate == RDF.type:
        return "@type"
    return str(ctx.compact_iri(str(predicate)))


def _top_keys(triples: set[Triple], node: URIRef, minus: list[Quad]) -> dict[Any, str]:
    """For every node reached from the memory node (in the graph before or after), the top-level key it hangs under."""
    ctx = mif_context()
    edges: dict[Any, list[Any]] = {}
    removed = {(s, p, o) for s, p, o, _ in minus}
    for source in (triples, removed):
        for s, _, o in source:
            if isinstance(o, BNode):
                edges.setdefault(s, []).append(o)
    keys: dict[Any, str] = {}
    for source in (triples, removed):
        for s, p, o in source:
            if s == node and isinstance(o, BNode) and o not in keys:
                key = _key_of(ctx, p)
                stack = [o]
                while stack:
                    current = stack.pop()
                    if current not in keys:
                        keys[current] = key
                        stack.extend(edges.get(current, []))
    return keys


def _check_added(quad: Quad, node: URIRef, ctx: Any, key: str | None) -> None:
    s, p, o = quad[:3]
    if s == node:
        if p in (CONTENT, CONCEPT_TYPE, RDF.type) or p in MIRRORS:
            if p == CONTENT and not (isinstance(o, Literal) and o.datatype in (None, XSD.string)):
                raise _Refused(f"{_triple(quad, '+')}: the body (mif:content) is a plain string", "content")
            return
        name = ctx.compact_iri(str(p))
        term = ctx.terms.get(name)
        if term is None or name in ("id", "@id"):
            raise _Refused(
                f"{_triple(quad, '+')}: no frontmatter key maps to the predicate {p.n3()} (the MIF context and "
                "mif-rdf's extension define the keys)"
            )
        _check_datatype(quad, name, term.coerce)
    elif key is None:
        if isinstance(s, URIRef) and s.startswith("urn:mif:") and not s.startswith("urn:mif:entity:"):
            raise _Refused(
                f"{_triple(quad, '+')}: <{s}> is another memory's IRI; a memory's IRI is its id, which write-back "
                "never changes (nor moves triples between memories)",
                "id",
            )
        raise _Refused(
            f"{_triple(quad, '+')}: the subject is not reached from the memory {node.n3()}, so no frontmatter key "
            "can hold it"
        )


def _check_datatype(quad: Quad, key: str, coerce: str | None) -> None:
    o = quad[2]
    if coerce in ("@id", "@vocab"):
        if isinstance(o, Literal):
            raise _Refused(f"{_triple(quad, '+')}: {key!r} holds IRIs, not literals", key)
    elif coerce is not None and coerce.startswith("http"):
        if not isinstance(o, Literal) or str(o.datatype) != coerce or o.ill_typed:
            raise _Refused(
                f"{_triple(quad, '+')}: {key!r} holds {coerce.rsplit('#', 1)[-1]} literals (datatype <{coerce}>), "
                "well formed",
                key,
            )


def _new_memory(
    bundle: LoadedBundle, record: MemoryRecord, graph: Graph, triples: set[Triple], affected: set[str]
) -> tuple[dict[str, Any], str]:
    """The frontmatter and body the updated graph (``triples``: its triples) means, the unchanged keys kept as
    authored."""
    template = record.frontmatter
    # no template: it cannot fit a changed graph, and checking costs an isomorphism test
    recovered = recover_memory(graph, record.iri, doc_iri=record.doc_iri, base=bundle.base_iri, path=record.relpath)
    body = recovered.body
    candidates = []
    for merge in (True, False):
        frontmatter: dict[str, Any] = {}
        for key in [*template, *(k for k in recovered.frontmatter if k not in template)]:
            if key not in affected and key in template:
                frontmatter[key] = template[key]
            elif key in recovered.frontmatter:
                new = recovered.frontmatter[key]
                frontmatter[key] = (
                    _merged(template[key], new) if merge and key in template else _shaped(template.get(key), new)
                )
        candidates.append(frontmatter)
    fit = _without_mirrors(triples, template)
    for frontmatter in candidates:
        if template_fits(frontmatter, body, fit, doc_iri=record.doc_iri):
            return frontmatter, body
    changed = sorted(k for k in affected if not k.startswith("@"))
    raise _Refused(
        f"the markdown cannot hold the changed graph of {', '.join(repr(k) for k in changed) or 'this memory'}: "
        "the frontmatter read back from it does not load to the same triples (check the shape of the nodes under "
        "those keys)",
        changed[0] if changed else None,
    )


def _without_mirrors(triples: set[Triple], template: dict[str, Any]) -> set[Triple]:
    """The triples without the projection's mirror triples the frontmatter does not write
    itself (they follow what they mirror)."""
    mirrors = [p for p, (key, _) in MIRRORS.items() if key not in template]
    if not mirrors:
        return triples
    return {triple for triple in triples if triple[1] not in mirrors}


def _merged(old: Any, new: Any) -> Any:
    """``new``, in the author's form where it agrees with ``old``:
    list items that stay keep their order, new ones follow."""
    if isinstance(old, dict) and isinstance(new, dict):  # a null the author wrote has no triple: it stays
        out = {k: _merged(v, new[k]) if k in new else v for k, v in old.items() if k in new or v is None}
        out.update({k: v for k, v in new.items() if k not in old})
        return out
    if isinstance(old, list):
        items = new if isinstance(new, list) else [new]
        left = list(items)
        stays = []
        for item in old:
            match = next((i for i, candidate in enumerate(left) if _equivalent(item, candidate)), None)
            stays.append(match is not None)
            if match is not None:
                del left[match]
        kept = []
        for item, stay in zip(
            old, stays
        ):  # a new item takes the place of a removed one (a renamed tag stays where it was)
            if stay:
                kept.append(item)
            elif left:
                kept.append(left.pop(0))
        return kept + left
    if _equivalent(old, new):
        return old
    return new


def _equivalent(old: Any, new: Any) -> bool:
    """The same value read back from RDF: key order aside, nulls aside,
    scalars by value (a quoted date, an int as float)."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = {k for k, v in old.items() if v is not None}
        return keys == set(new) and all(_equivalent(old[k], new[k]) for k in keys)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(any(_equivalent(a, b) for b in new) for a in old)
    return same(old, new) or _same_value(old, new)


def _same_value(old: Any, new: Any) -> bool:
    """A value read back from RDF that equals the authored one but for its
    YAML type (a quoted date, an int as float)."""
    return not isinstance(old, (dict, list, bool)) and not isinstance(new, (dict, list, bool)) and old == new


def _shaped(old: Any, new: Any) -> Any:
    """``new`` as a list when the author wrote a list (one value and a one-item list mean the same in JSON-LD)."""
    return [new] if isinstance(old, list) and not isinstance(new, list) else new


def _edited_text(text: str, frontmatter: dict[str, Any], affected: set[str], body: str) -> str:
    """``text`` with its frontmatter edited to ``frontmatter`` and its body replaced by ``body``."""
    split = split_frontmatter(text)
    offset = 1 if split.had_bom else 0
    start = text.index("\n", offset) + 1
    yaml_end = start + len(split.frontmatter)
    body_start = len(text) - len(split.body)
    old = load_yaml(split.frontmatter).data or {}
    edited = edit_frontmatter(split.frontmatter, old, _as_written(old, frontmatter, affected))
    return text[:start] + edited + text[yaml_end:body_start] + body


def _as_written(file_frontmatter: dict[str, Any], frontmatter: dict[str, Any], affected: set[str]) -> dict[str, Any]:
    """The file's own frontmatter with the affected keys set as ``frontmatter`` says (the
    others stay as the text has them)."""
    out = {
        k: frontmatter[k] if k in affected else v
        for k, v in file_frontmatter.items()
        if k not in affected or k in frontmatter
    }
    out.update({k: v for k, v in frontmatter.items() if k in affected and k not in file_frontmatter})
    return out
