"""An update planned and applied: run it on the loaded dataset, compare every quad before and after, and turn
the change of each memory's graph into a file change or a refusal; write only when nothing is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdflib import Graph

from mif_rdf.core.collector import no_cyclic_gc
from mif_rdf.core.errors import MifRdfError, Problem, Severity
from mif_rdf.output.update.changes import Quad, UpdateResult, _Refused, _triple, write_changes
from mif_rdf.output.update.edit import _memory_change, _titles
from mif_rdf.output.update.new_memory import is_new_memory_graph, new_memory_file
from mif_rdf.output.update.refusals import _protected, validation_refusals

if TYPE_CHECKING:
    from mif_rdf.load.bundle import LoadedBundle


def update_bundle(
    bundle: LoadedBundle,
    update: str,
    *,
    dry_run: bool = False,
    allow_service: bool = False,
    force: bool = False,
    allow_delete: bool = False,
    engine: str = "auto",
) -> UpdateResult:
    """Run ``update`` on the bundle's dataset and write each changed memory back to its file.

    The changed files are validated at the bundle's conformance level first
    (:func:`validation_refusals`): a change that adds an error is refused
    unless ``force``.  Nothing is written when anything is refused, or with
    ``dry_run``.  A memory whose every triple is deleted loses its file only
    with ``allow_delete``.  The dataset keeps the update either way: reload
    the bundle to see the files.  ``engine``: see :func:`plan_update`.

    The cyclic collector is paused meanwhile, as in a load: the update makes
    few cycles, and each full collection walks every object of the loaded
    bundle (about a second at 10,000 memories).
    """
    with no_cyclic_gc():
        return apply_plan(
            bundle,
            plan_update(bundle, update, allow_service=allow_service, allow_delete=allow_delete, engine=engine),
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
    bundle: LoadedBundle,
    update: str,
    *,
    allow_service: bool = False,
    allow_delete: bool = False,
    keep: bool = True,
    engine: str = "auto",
) -> UpdateResult:
    """The file changes an update means, or the refusals that stop it (nothing is written here).

    ``keep=False`` puts the dataset back as it was once the plan is made: a
    server's working bundle then changes only by reloading the files written
    (a refused update leaves no trace in it).

    ``engine="auto"`` runs the update on an in-memory pyoxigraph copy of the
    dataset (:mod:`.oxigraph_engine`, many times faster on large bundles)
    when the bundle is on rdflib's memory store, pyoxigraph is installed and
    the update means the same on both engines; else, and always with
    ``engine="rdflib"``, rdflib's SPARQL engine runs it on the dataset
    itself.  The files written are the same either way.
    """
    algebra = check_update_safety(update)
    dataset = bundle.dataset
    if _on_oxigraph(bundle, update, algebra, engine):
        from mif_rdf.output.update.oxigraph_engine import run_on_oxigraph
        from mif_rdf.queries.sparql import INIT_NS

        try:
            added, removed = run_on_oxigraph(dataset, update, INIT_NS, algebra)
        except (SyntaxError, ValueError, OSError):  # Oxigraph reads it otherwise: rdflib's engine says what is wrong
            added, removed = _run_on_rdflib(dataset, update, allow_service)
    else:
        added, removed = _run_on_rdflib(dataset, update, allow_service)
    try:
        return plan_changes(bundle, added, removed, allow_delete)
    finally:
        if not keep:

            def graph(name: Any) -> Graph:
                return dataset.graph(name) if name is not None else dataset.default_context

            for s, p, o, g in added:
                dataset.remove((s, p, o, graph(g)))
            dataset.addN((s, p, o, graph(g)) for s, p, o, g in removed)


ENGINES = ("auto", "rdflib")


def _on_oxigraph(bundle: LoadedBundle, update: str, algebra: Any, engine: str) -> bool:
    """Whether the update runs on an Oxigraph copy of the dataset (see :func:`plan_update`'s ``engine``)."""
    from mif_rdf.load.stores import oxigraph_installed, rdflib_memory
    from mif_rdf.output.update.oxigraph_engine import oxigraph_can_run

    if engine not in ENGINES:
        raise MifRdfError(f"unknown update engine {engine!r}: use one of {', '.join(ENGINES)}")
    if engine == "rdflib" or not oxigraph_installed():
        return False
    return rdflib_memory(bundle.dataset) and oxigraph_can_run(update, algebra)


def _run_on_rdflib(dataset: Any, update: str, allow_service: bool) -> tuple[set[Quad], set[Quad]]:
    """Run the update with rdflib's SPARQL engine on the dataset itself; return the quads (added, removed)."""
    from mif_rdf.queries.sparql import run_update

    before = set(dataset.quads((None, None, None, None)))
    try:
        run_update(dataset, update, allow_service=allow_service)
    except ValueError as exc:  # rdflib cannot INSERT DATA into the default graph of a Dataset
        raise MifRdfError(
            f"the update could not run ({exc}): write the triples inside GRAPH <memory IRI> {{ ... }}"
        ) from None
    after = set(dataset.quads((None, None, None, None)))
    return after - before, before - after


def check_update_safety(update: str) -> Any:
    """Refuse ``LOAD`` (it fetches from the network) before anything runs; SERVICE is refused by :func:`run_update`.

    Returns rdflib's parse of the update (its algebra), from which :func:`plan_update` picks the engine."""
    from rdflib.plugins.sparql import prepareUpdate
    from rdflib.plugins.sparql.parserutils import CompValue

    from mif_rdf.queries.sparql import INIT_NS
    from mif_rdf.queries.syntax import GRAMMAR_LOCK, syntax_error

    try:
        with GRAMMAR_LOCK:
            prepared = prepareUpdate(update, initNs=INIT_NS)
    except Exception as exc:  # rdflib's parse errors have no common root; the message is the user's
        raise syntax_error(update, exc, update=True) from None
    for operation in prepared.algebra or []:
        if isinstance(operation, CompValue) and operation.name == "Load":
            raise MifRdfError(
                f"LOAD is refused: it would fetch {operation.get('iri')} from the network; import the data with a "
                "file instead"
            )
    return prepared.algebra


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
    for iri, graph_quads in sorted(created.items()):
        try:
            result.changes.append(new_memory_file(bundle, iri, graph_quads))
        except _Refused as refused:
            result.refusals.append(Problem(iri, str(refused), Severity.ERROR, key=refused.key, rule="write-back"))
    if result.changes:
        result.refusals.extend(_protected(bundle.root, result.changes))
    return result


def _outside_memory(bundle: LoadedBundle, quad: Quad, sign: str) -> Problem:
    graph = str(quad[3])
    if graph == bundle.links_graph_iri:
        why = (
            "the links graph is derived from the memories' relationships: change a memory's relationships in its "
            "own graph instead"
        )
    elif graph == bundle.layout_graph_iri:
        why = "the layout graph is derived from the files; it is not written back"
    elif graph.startswith("urn:x-rdflib:default") or graph == "None":
        why = (
            "the default graph holds no memory: write the triple inside GRAPH <urn:mif:ID> { ... } (the memory's "
            "own graph)"
        )
    elif graph in bundle.entities:
        why = "entity files are not written back"
    elif graph.startswith("urn:mif:"):
        why = f"no memory of this bundle has the graph <{graph}>"
    else:
        why = f"the graph <{graph}> is not a memory's graph, so no file holds it"
    return Problem(graph, f"{_triple(quad, sign)}: {why}; nothing written", Severity.ERROR, rule="write-back")
