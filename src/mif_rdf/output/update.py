"""Write-back: a SPARQL Update over a bundle's dataset, applied to its markdown files.

The markdown is canonical (spec Invariant 2), so an update is a way to edit
files, not a change to a store.  :func:`plan_update` runs the update on the
loaded dataset, compares every quad before and after, and turns the change of
each memory's graph back into frontmatter and body:

* a top-level key keeps its authored value unless a changed triple hangs
  under it (directly on the memory node, or on a node reached through it);
  a changed key takes the value the graph now says (:mod:`mif_rdf.rdf.reverse`),
  with the author's list order kept for the items that stay;
* the result must project to exactly the updated graph (the same check the
  reverse path uses, :func:`mif_rdf.rdf.layout.template_fits`): the file written
  is the file that loads to what the user asked for, or nothing is written;
* the text is edited, not dumped (:mod:`mif_rdf.output.frontmatter_edit`): every byte
  of a file but the changed values stays.

A change the markdown cannot hold is a refusal naming the triple and why
(a triple in the links or layout graph, which are derived; a predicate no
frontmatter key maps to; a literal of the wrong datatype for its key; a
memory's IRI, that is its ``id``; a memory under a read-only prefix or a
``_local`` namespace).  One refusal and no file is written.

Files are replaced atomically, each on its own (a temporary file in the same
folder, then a rename), only after every change has been computed and checked.
"""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, RDF, XSD
from rdflib.term import Node

from mif_rdf.core.context import MIF_NS, mif_context
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.core.statements import Quad
from mif_rdf.output.body_mirror import mirrored_body
from mif_rdf.output.frontmatter_edit import edit_frontmatter, same
from mif_rdf.rdf.layout import template_fits
from mif_rdf.rdf.reverse import recover_memory
from mif_rdf.source.identity import ENTITY_PREFIX, MEMORY_PREFIX
from mif_rdf.source.markdown import split_frontmatter
from mif_rdf.source.yamlio import load_yaml

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle, MemoryRecord

CONTENT = URIRef(MIF_NS + "content")
CONCEPT_TYPE = URIRef(MIF_NS + "conceptType")
#: Predicates the projection adds as mirrors of other keys (spec 15.1), and the key each mirrors.
MIRRORS: dict[Node, tuple[str, str]] = {
    URIRef(MIF_NS + "timestamp"): ("timestamp", "modified (or created)"),
    DCTERMS.description: ("description", "summary"),
}


@dataclass
class FileChange:
    """One markdown file write-back would change: its text before and after (None: the file is created, or removed)."""

    relpath: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        return "created" if self.before is None else "removed" if self.after is None else "changed"

    def diff(self) -> str:
        """The change as a unified diff (``a/``, ``b/`` paths, ``/dev/null`` for a created or removed file, as git shows it)."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else f"a/{self.relpath}",
            tofile="/dev/null" if self.after is None else f"b/{self.relpath}",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@dataclass
class UpdateResult:
    """What an update did (or, with ``dry_run`` or refusals, would do) to the bundle's files."""

    changes: list[FileChange] = field(default_factory=list)
    refusals: list[Problem] = field(default_factory=list)
    written: bool = False

    @property
    def changed(self) -> list[str]:
        return [change.relpath for change in self.changes]

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def summary(self) -> str:
        if self.refusals:
            return f"refused: {len(self.refusals)} change(s) cannot be written back; no file written"
        if not self.changes:
            return "no memory changed; no file written"
        counts = {kind: sum(1 for c in self.changes if c.kind == kind) for kind in ("changed", "created", "removed")}
        head = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        lines = "".join(f"\n  {c.relpath}" + ("" if c.kind == "changed" else f" ({c.kind})") for c in self.changes)
        verb = "changed" if self.written else "would change"
        return (
            f"{verb} {len(self.changes)} file(s)"
            + (f" ({head})" if counts["changed"] != len(self.changes) else "")
            + lines
        )


def update_bundle(
    bundle: LoadedBundle,
    update: str,
    *,
    dry_run: bool = False,
    allow_service: bool = False,
    force: bool = False,
    allow_delete: bool = False,
) -> UpdateResult:
    """Run ``update`` on the bundle's dataset and write each changed memory back to its file.

    The changed files are validated at the bundle's conformance level first
    (:func:`validation_refusals`): a change that adds an error is refused
    unless ``force``.  Nothing is written when anything is refused, or with
    ``dry_run``.  A memory whose every triple is deleted loses its file only
    with ``allow_delete``.  The dataset keeps the update either way: reload
    the bundle to see the files.
    """
    return apply_plan(
        bundle,
        plan_update(bundle, update, allow_service=allow_service, allow_delete=allow_delete),
        dry_run=dry_run,
        force=force,
    )


def apply_plan(
    bundle: LoadedBundle, result: UpdateResult, *, dry_run: bool = False, force: bool = False
) -> UpdateResult:
    """Validate a plan's changes (unless ``force``) and write them (unless ``dry_run`` or anything was refused)."""
    if result.changes and not result.refusals and not force:
        result.refusals.extend(validation_refusals(bundle, result.changes))
    if not result.refusals and not dry_run and result.changes:
        write_changes(bundle.root, result.changes)
        result.written = True
    return result


def plan_update(
    bundle: LoadedBundle, update: str, *, allow_service: bool = False, allow_delete: bool = False
) -> UpdateResult:
    """The file changes an update means, or the refusals that stop it (nothing is written here)."""
    from mif_rdf.queries.sparql import run_update

    check_update_safety(update)
    dataset = bundle.dataset
    before = set(dataset.quads((None, None, None, None)))
    try:
        run_update(dataset, update, allow_service=allow_service)
    except ValueError as exc:  # rdflib cannot INSERT DATA into the default graph of a Dataset
        raise MifRdfError(
            f"the update could not run ({exc}): write the triples inside GRAPH <memory IRI> {{ ... }}"
        ) from None
    after = set(dataset.quads((None, None, None, None)))
    return plan_changes(bundle, after - before, before - after, allow_delete)


def check_update_safety(update: str) -> None:
    """Refuse ``LOAD`` (it fetches from the network) before anything runs; SERVICE is refused by :func:`run_update`."""
    from rdflib.plugins.sparql import prepareUpdate
    from rdflib.plugins.sparql.parserutils import CompValue

    from mif_rdf.queries.sparql import INIT_NS, QuerySyntaxError

    try:
        prepared = prepareUpdate(update, initNs=INIT_NS)
    except Exception as exc:  # rdflib's parse errors have no common root; the message is the user's
        raise QuerySyntaxError(" ".join(str(exc).split())) from None
    for operation in prepared.algebra or []:
        if isinstance(operation, CompValue) and operation.name == "Load":
            raise MifRdfError(
                f"LOAD is refused: it would fetch {operation.get('iri')} from the network; import the data with a file instead"
            )


def plan_changes(
    bundle: LoadedBundle, added: set[Quad], removed: set[Quad], allow_delete: bool = False
) -> UpdateResult:
    """The file changes (or refusals) that the quads ``added`` to and ``removed`` from the bundle's dataset mean."""
    by_iri = {record.iri: record for record in bundle.memories.values()}
    changed: dict[str, tuple[list[Quad], list[Quad]]] = {}
    created: dict[str, list[Quad]] = {}
    refusals: list[Problem] = []
    for sign, quads in (("+", added), ("-", removed)):
        for quad in sorted(quads, key=lambda q: tuple(map(str, q))):
            graph = str(quad[3])
            if graph in by_iri:
                changed.setdefault(graph, ([], []))[0 if sign == "+" else 1].append(quad)
            elif sign == "+" and is_new_memory_graph(bundle, graph):
                created.setdefault(graph, []).append(quad)
            else:
                refusals.append(_outside_memory(bundle, quad, sign))
    result = UpdateResult(refusals=refusals)
    titles = _titles(bundle)
    for iri, (plus, minus) in sorted(changed.items(), key=lambda item: by_iri[item[0]].relpath):
        record = by_iri[iri]
        try:
            change = _memory_change(bundle, record, plus, minus, titles, allow_delete)
        except _Refused as refused:
            result.refusals.append(
                Problem(record.relpath, str(refused), Severity.ERROR, key=refused.key, rule="write-back")
            )
            continue
        if change is not None:
            result.changes.append(change)
    for iri, quads in sorted(created.items()):
        try:
            result.changes.append(new_memory_file(bundle, iri, quads))
        except _Refused as refused:
            result.refusals.append(Problem(iri, str(refused), Severity.ERROR, key=refused.key, rule="write-back"))
    if result.changes:
        result.refusals.extend(_protected(bundle.root, result.changes))
    return result


class _Refused(Exception):
    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def _triple(quad: Quad, sign: str) -> str:
    s, p, o = (term.n3() for term in quad[:3])
    return f"{'inserting' if sign == '+' else 'deleting'} {s} {p} {o}"


def _outside_memory(bundle: LoadedBundle, quad: Quad, sign: str) -> Problem:
    graph = str(quad[3])
    if graph == bundle.links_graph_iri:
        why = "the links graph is derived from the memories' relationships: change a memory's relationships in its own graph instead"
    elif graph == bundle.layout_graph_iri:
        why = "the layout graph is derived from the files; it is not written back"
    elif graph.startswith("urn:x-rdflib:default") or graph == "None":
        why = "the default graph holds no memory: write the triple inside GRAPH <urn:mif:ID> { ... } (the memory's own graph)"
    elif graph in bundle.entities:
        why = "entity files are not written back"
    elif graph.startswith("urn:mif:"):
        why = f"no memory of this bundle has the graph <{graph}>"
    else:
        why = f"the graph <{graph}> is not a memory's graph, so no file holds it"
    return Problem(graph, f"{_triple(quad, sign)}: {why}; nothing written", Severity.ERROR, rule="write-back")


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
            f"the update deletes every triple of {node.n3()}: that removes its file, which needs --allow-delete (allow_delete=True)"
        )
    if (node, None, None) not in graph:
        raise _Refused(
            f"the update deletes every triple of {node.n3()} but leaves others in its graph (e.g. {_triple(minus[0], '-')}); no file can hold them"
        )
    ctx = mif_context()
    keys = _top_keys(graph, node, minus)
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
                f"{_triple(quad, '+' if quad in plus else '-')}: {quad[1]} only mirrors {source} in the projection (spec 15.1); change {source} instead",
                mirror,
            )
    affected = {keys[q[0]] for q in plus + minus if q[0] in keys} | {
        _key_of(ctx, q[1]) for q in plus + minus if q[0] == node
    }
    frontmatter, body = _new_memory(bundle, record, graph, affected)
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
    """The link text of a mirror line for a target written in a document: the target memory's title, the entity's name, else the target."""
    from mif_rdf.source.identity import resolve_target

    names: dict[str, str] = {}

    def title_of(target: str, doc_iri: str) -> str:
        if not names:
            names.update({iri: str(e.data.get("name") or "") for iri, e in bundle.entities.items()})
            names.update({r.doc_iri: str(r.frontmatter.get("title") or "") for r in bundle.memories.values()})
            names.update({r.iri: str(r.frontmatter.get("title") or "") for r in bundle.memories.values()})
        return names.get(resolve_target(target, doc_iri, bundle.base_iri).split("#", 1)[0]) or target

    return title_of


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def is_new_memory_graph(bundle: LoadedBundle, graph: str) -> bool:
    """Whether a graph name is a memory IRI (``urn:mif:<id>``, not an entity's) the bundle does not have."""
    return graph.startswith(MEMORY_PREFIX) and not graph.startswith(ENTITY_PREFIX) and graph not in bundle.entities


def new_memory_path(root: Path, memory_id: str, namespace: Any) -> str:
    """Where a new memory's file goes (spec 3.2/3.3): ``<namespace>/<id>.md``, under ``memories/`` when the bundle has that folder."""
    folder = "memories/" if (root / "memories").is_dir() else ""
    if isinstance(namespace, str) and namespace.strip("/"):
        folder += namespace.strip("/") + "/"
    return f"{folder}{memory_id}.md"


def new_memory_file(bundle: LoadedBundle, iri: str, quads: list[Quad]) -> FileChange:
    """The file of a memory the update inserted: its graph read back as frontmatter and body, at :func:`new_memory_path`."""
    from mif_rdf.output.writeback import output_target
    from mif_rdf.source.identity import document_iri, id_from_memory_iri
    from mif_rdf.source.markdown import render_memory

    node = URIRef(iri)
    graph = bundle.dataset.graph(node)
    missing = [
        name
        for name, predicate in (("mif:conceptType", CONCEPT_TYPE), ("dc:created", DCTERMS.created))
        if graph.value(node, predicate) is None
    ]
    if missing:
        raise _Refused(
            f"{_triple(quads[0], '+')}: a new memory's graph needs {' and '.join(missing)} on <{iri}> (spec 4.1: type and created are required)"
        )
    memory_id = id_from_memory_iri(iri)
    relpath = new_memory_path(bundle.root, memory_id, graph.value(node, URIRef(MIF_NS + "namespace")))
    try:
        target = output_target(bundle.root, relpath, ".md")
    except MifRdfError as exc:
        raise _Refused(str(exc), "id") from None
    if target.exists():
        raise _Refused(f"a new memory <{iri}> would be written to {relpath}, which exists; nothing written", "id")
    doc_iri = document_iri(bundle.base_iri, relpath)
    recovered = recover_memory(graph, iri, doc_iri=doc_iri, base=bundle.base_iri, path=relpath)
    if not template_fits(
        recovered.frontmatter, recovered.body, _without_mirrors(graph, recovered.frontmatter), doc_iri=doc_iri
    ):
        raise _Refused(
            f"the graph of the new memory <{iri}> does not read back to frontmatter that loads to the same triples; nothing written"
        )
    return FileChange(relpath, None, render_memory(recovered.frontmatter, recovered.body))


def _key_of(ctx: Any, predicate: Any) -> str:
    """The top-level frontmatter key a predicate of the memory node comes from."""
    if predicate == CONCEPT_TYPE:
        return "type"
    if predicate == CONTENT:
        return "@body"
    if predicate == RDF.type:
        return "@type"
    return str(ctx.compact_iri(str(predicate)))


def _top_keys(graph: Graph, node: URIRef, minus: list[Quad]) -> dict[Any, str]:
    """For every node reached from the memory node (in the graph before or after), the top-level key it hangs under."""
    ctx = mif_context()
    edges: dict[Any, list[Any]] = {}
    removed = Graph()
    for s, p, o, _ in minus:
        removed.add((s, p, o))
    for source in (graph, removed):
        for s, _, o in source:
            if isinstance(o, BNode):
                edges.setdefault(s, []).append(o)
    keys: dict[Any, str] = {}
    for source in (graph, removed):
        for p, o in source.predicate_objects(node):
            if isinstance(o, BNode) and o not in keys:
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
                f"{_triple(quad, '+')}: no frontmatter key maps to the predicate {p.n3()} (the MIF context and mif-rdf's extension define the keys)"
            )
        _check_datatype(quad, name, term.coerce)
    elif key is None:
        if isinstance(s, URIRef) and s.startswith("urn:mif:") and not s.startswith("urn:mif:entity:"):
            raise _Refused(
                f"{_triple(quad, '+')}: <{s}> is another memory's IRI; a memory's IRI is its id, which write-back never changes (nor moves triples between memories)",
                "id",
            )
        raise _Refused(
            f"{_triple(quad, '+')}: the subject is not reached from the memory {node.n3()}, so no frontmatter key can hold it"
        )


def _check_datatype(quad: Quad, key: str, coerce: str | None) -> None:
    o = quad[2]
    if coerce in ("@id", "@vocab"):
        if isinstance(o, Literal):
            raise _Refused(f"{_triple(quad, '+')}: {key!r} holds IRIs, not literals", key)
    elif coerce is not None and coerce.startswith("http"):
        if not isinstance(o, Literal) or str(o.datatype) != coerce or o.ill_typed:
            raise _Refused(
                f"{_triple(quad, '+')}: {key!r} holds {coerce.rsplit('#', 1)[-1]} literals (datatype <{coerce}>), well formed",
                key,
            )


def _new_memory(
    bundle: LoadedBundle, record: MemoryRecord, graph: Graph, affected: set[str]
) -> tuple[dict[str, Any], str]:
    """The frontmatter and body the updated graph means, the unchanged keys kept as authored."""
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
    fit_graph = _without_mirrors(graph, template)
    for frontmatter in candidates:
        if template_fits(frontmatter, body, fit_graph, doc_iri=record.doc_iri):
            return frontmatter, body
    changed = sorted(k for k in affected if not k.startswith("@"))
    raise _Refused(
        f"the markdown cannot hold the changed graph of {', '.join(repr(k) for k in changed) or 'this memory'}: "
        "the frontmatter read back from it does not load to the same triples (check the shape of the nodes under those keys)",
        changed[0] if changed else None,
    )


def _without_mirrors(graph: Graph, template: dict[str, Any]) -> Graph:
    """The graph without the projection's mirror triples the frontmatter does not write itself (they follow what they mirror)."""
    mirrors = [p for p, (key, _) in MIRRORS.items() if key not in template]
    if not mirrors:
        return graph
    out = Graph()
    for triple in graph:
        if triple[1] not in mirrors:
            out.add(triple)
    return out


def _merged(old: Any, new: Any) -> Any:
    """``new``, in the author's form where it agrees with ``old``: list items that stay keep their order, new ones follow."""
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
    """The same value read back from RDF: key order aside, nulls aside, scalars by value (a quoted date, an int as float)."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = {k for k, v in old.items() if v is not None}
        return keys == set(new) and all(_equivalent(old[k], new[k]) for k in keys)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(any(_equivalent(a, b) for b in new) for a in old)
    return same(old, new) or _same_value(old, new)


def _same_value(old: Any, new: Any) -> bool:
    """A value read back from RDF that equals the authored one but for its YAML type (a quoted date, an int as float)."""
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
    """The file's own frontmatter with the affected keys set as ``frontmatter`` says (the others stay as the text has them)."""
    out = {
        k: frontmatter[k] if k in affected else v
        for k, v in file_frontmatter.items()
        if k not in affected or k in frontmatter
    }
    out.update({k: v for k, v in frontmatter.items() if k in affected and k not in file_frontmatter})
    return out


def _protected(root: Path, changes: list[FileChange]) -> list[Problem]:
    """Refusals for files no writer may change: under a read-only prefix (spec 10.5) or in a ``_local`` namespace."""
    from mif_rdf.nsmodel.access import local_only
    from mif_rdf.nsmodel.readonly import read_only_refusals

    _, refused = read_only_refusals(root, {change.relpath: change.after or change.before or "" for change in changes})
    for change in changes:
        for text in filter(None, (change.before, change.after)):
            namespace = (load_yaml(split_frontmatter(text).frontmatter).data or {}).get("namespace")
            if local_only(namespace) is not None:
                refused.append(
                    Problem(
                        change.relpath,
                        f"the memory is local-only (namespace {namespace!r}, spec 10.2): write-back never changes it; nothing written",
                        Severity.ERROR,
                        key="namespace",
                        rule="write-back",
                    )
                )
                break
    return refused


def validation_refusals(bundle: LoadedBundle, changes: list[FileChange]) -> list[Problem]:
    """A refusal for every validation error the changes add to their files, at the bundle's conformance level.

    Only the changed files are validated, as they are and as they would be
    (two scratch bundles with the bundle's ``.mif/`` and those files, loaded
    under the same base IRI), so the check costs what the change costs, not
    what the bundle costs.  Only errors that were not there before count: a
    bundle with old errors can still be edited, and what a partial bundle
    cannot see (a link to a memory not copied) is the same on both sides.
    """
    import shutil

    from mif_rdf.load.loader import load
    from mif_rdf.validation import validate

    level = bundle.config.get("conformance_level", 3)
    level = level if level in (1, 2, 3) else 3

    def errors(folder: Path, side: str) -> set[tuple[str, str | None, str]]:
        if (bundle.root / ".mif").is_dir():
            shutil.copytree(bundle.root / ".mif", folder / ".mif", symlinks=True)
        folder.mkdir(parents=True, exist_ok=True)
        for change in changes:
            text = change.before if side == "before" else change.after
            if text is not None:
                (folder / change.relpath).parent.mkdir(parents=True, exist_ok=True)
                (folder / change.relpath).write_text(text, encoding="utf-8", newline="")
        report = validate(
            load(folder, base_iri=bundle.base_iri, engine=bundle.engine, limits=bundle.limits, progress=False), level
        )
        return {(p.path, p.key, p.message) for p in report.errors}

    with tempfile.TemporaryDirectory(prefix="mif-rdf-update-") as scratch:
        added = errors(Path(scratch) / "after", "after") - errors(Path(scratch) / "before", "before")
    paths = {change.relpath for change in changes}
    return [
        Problem(
            path,
            f"the change would add a level-{level} validation error ({message}); nothing written (--force / force=True writes it anyway)",
            Severity.ERROR,
            key=key,
            rule="write-back-validation",
        )
        for path, key, message in sorted(added, key=str)
        if path in paths
    ]


def write_changes(root: Path, changes: Iterable[FileChange]) -> None:
    """Replace each changed file atomically (temporary file in its folder, then rename): a file is old or new, never half-written."""
    from mif_rdf.core.outputs import write_file
    from mif_rdf.output.writeback import output_target

    for change in changes:
        target = output_target(root, change.relpath, ".md")
        if change.after is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_file(target, change.after.encode("utf-8"))  # mif_rdf.core.outputs: old or new, never half-written
