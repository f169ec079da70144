"""Incremental push: plan what to send, delete or leave alone, then do it safely.

The plan compares the graphs that may leave the machine (the export policy of
:mod:`.access`, hashed as :mod:`.manifest` says) with the manifest the store
holds.  Execution works in batches and keeps the manifest's invariants at
every step, so a push that dies half-way (server killed, network gone,
Ctrl-C) leaves a manifest that is true of the store, and the next push
completes the rest:

1. mark the batch's graphs *pending* in the store's manifest;
2. write or delete each graph (each request idempotent, retried if transient);
3. record the confirmed ones: their hash, or no entry for a deleted graph --
   also when step 2 failed, for the part that was confirmed; the graph in
   flight then stays pending and the ones never started are restored.

A batch is at least 32 graphs and at most 1/16 of the work, so the manifest
is written about 32 times per push whatever the bundle size; after a crash
at most one batch is resent.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rdflib import URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from mif_rdf.core.errors import MifRdfError, Severity
from mif_rdf.load.bundle import LoadedBundle
from mif_rdf.output.policy import ExportPolicy, export_policy
from mif_rdf.push.manifest import (
    Manifest,
    bundle_owner,
    graph_hash,
    manifest_iri,
    ntriples,
    read_manifest,
    save_manifest,
)
from mif_rdf.remote.gsp import GraphStore, StoreError, StoreTimeout, StoreUnreachable

if TYPE_CHECKING:
    from mif_rdf.nsmodel.audience import Audience

#: What a plan can do with a graph, in the order a plan is shown and executed.
VERBS = ("delete", "send", "withhold", "hold", "skip", "keep")
MIN_BATCH, BATCHES = 32, 16


@dataclass(frozen=True)
class Action:
    verb: str
    graph: str
    label: str
    reason: str
    digest: str | None = None

    def __str__(self) -> str:
        return f"{self.verb:<9} {self.label}: {self.reason}"


@dataclass
class Plan:
    """Every graph's fate, with reasons; ``policy`` says what may leave and is used to send it."""

    policy: ExportPolicy
    actions: list[Action] = field(default_factory=list)

    def of(self, verb: str) -> list[Action]:
        return [a for a in self.actions if a.verb == verb]

    @property
    def work(self) -> list[Action]:
        return [a for a in self.actions if a.verb in ("delete", "send")]

    def lines(self) -> list[str]:
        """One line per graph that is not unchanged, then the count of unchanged ones and the notes."""
        lines = [str(a) for a in self.actions if a.verb != "keep"]
        if self.of("keep"):
            lines.append(f"unchanged {len(self.of('keep'))} graphs")
        return lines + [f"note: {n}" for n in self.policy.notes]


@dataclass
class PushResult:
    plan: Plan
    manifest: Manifest
    sent: int = 0
    deleted: int = 0
    dry_run: bool = False
    #: why a dry run could not read the store's manifest (every graph is then planned as new)
    unchecked: str | None = None

    def summary(self) -> str:
        counts = {verb: len(self.plan.of(verb)) for verb in VERBS}
        if self.dry_run:
            unchecked = (
                f" (the store was not checked: {self.unchecked}; every graph is shown as new)" if self.unchecked else ""
            )
            return (
                f"dry run, nothing written{unchecked}: would send {counts['send']}, delete {counts['delete']}; "
                f"unchanged {counts['keep']}, withheld {counts['withhold']}, not deleted {counts['hold']}"
            )
        return (
            f"sent {self.sent}, deleted {self.deleted}, unchanged {counts['keep']}, "
            f"withheld {counts['withhold']}, not deleted {counts['hold']}"
        )


def plan_push(bundle: LoadedBundle, manifest: Manifest, policy: ExportPolicy | None = None) -> Plan:
    """Decide each graph's fate by comparing what may leave with what the manifest says the store holds."""
    policy = policy or export_policy(bundle)
    plan = Plan(policy)
    labels = {m.iri: m.relpath for m in bundle.memories.values()} | {e.iri: e.relpath for e in bundle.entities.values()}
    outgoing: set[str] = set()
    for name in policy.graph_names(bundle.dataset):
        graph = str(name)
        if name == DATASET_DEFAULT_GRAPH_ID:
            plan.actions.append(Action("skip", graph, "default graph", "push writes named graphs only"))
            continue
        triples = list(policy.outgoing(bundle.dataset, name))
        if not triples:
            continue
        outgoing.add(graph)
        digest = graph_hash(triples)
        label = labels.get(graph, graph)
        if graph not in manifest.entries:
            plan.actions.append(Action("send", graph, label, "new", digest))
        elif manifest.entries[graph] is None:
            plan.actions.append(Action("send", graph, label, "state unknown after an interrupted push", digest))
        elif manifest.entries[graph] != digest:
            plan.actions.append(Action("send", graph, label, "changed", digest))
        else:
            plan.actions.append(Action("keep", graph, label, "unchanged", digest))
    for item in policy.withheld.values():
        verb = "delete" if item.graph in manifest.entries else "withhold"
        plan.actions.append(
            Action(
                verb,
                item.graph,
                item.label,
                ("withheld now, removed from the store: " if verb == "delete" else "") + item.reason,
            )
        )
    unloaded = unloaded_files(bundle)
    for graph in sorted(set(manifest.entries) - outgoing - set(policy.withheld)):
        if unloaded:
            plan.actions.append(
                Action(
                    "hold",
                    graph,
                    graph,
                    "not deleted although gone from the bundle: it may be in a file that did not load "
                    f"({', '.join(unloaded[:3])}{', ...' if len(unloaded) > 3 else ''}); fix and push again",
                )
            )
        else:
            plan.actions.append(Action("delete", graph, graph, "no longer in the bundle"))
    plan.actions.sort(key=lambda a: (VERBS.index(a.verb), a.label))
    return plan


def unloaded_files(bundle: LoadedBundle) -> list[str]:
    """Files with errors that gave no memory or entity: a graph that seems gone may be in one of them."""
    loaded = {m.relpath for m in bundle.memories.values()} | {e.relpath for e in bundle.entities.values()}
    return sorted({p.path for p in bundle.problems.by_severity(Severity.ERROR)} - loaded)


def execute(
    plan: Plan,
    bundle: LoadedBundle,
    store: GraphStore,
    manifest: Manifest,
    *,
    batch_size: int | None = None,
    on_done: Callable[[Action], None] | None = None,
) -> PushResult:
    """Carry out a plan batch by batch, keeping the manifest true of the store throughout."""
    work = plan.work
    size = batch_size or max(MIN_BATCH, -(-len(work) // BATCHES))
    result = PushResult(plan, manifest)
    for start in range(0, len(work), size):
        batch = work[start : start + size]
        before = result.manifest
        result.manifest = before.with_entries({a.graph: None for a in batch})
        save_manifest(store, before, result.manifest)
        changes: dict[str, str | None] = {}
        removed: list[str] = []
        index = -1  # the action in flight when something raises
        try:
            for index, action in enumerate(batch):  # noqa: B007 - index is read by the except clause
                if action.verb == "send":
                    store.put_graph(action.graph, ntriples(plan.policy.outgoing(bundle.dataset, URIRef(action.graph))))
                    changes[action.graph] = action.digest
                    result.sent += 1
                else:
                    store.delete_graph(action.graph)
                    removed.append(action.graph)
                    result.deleted += 1
                if on_done is not None:
                    on_done(action)
        except BaseException:
            # The action in flight stays pending (it may or may not have happened);
            # those never started go back to what they were.  If the store no longer
            # answers, all stay pending, which is still true of the store.
            for action in batch[index + 1 :]:
                if action.graph in before.entries:
                    changes[action.graph] = before.entries[action.graph]
                else:
                    removed.append(action.graph)
            with contextlib.suppress(StoreError):
                _record(store, result, changes, removed)
            raise
        _record(store, result, changes, removed)
    return result


def _record(store: GraphStore, result: PushResult, changes: dict[str, str | None], removed: list[str]) -> None:
    done = result.manifest.with_entries(changes, removed)
    save_manifest(store, result.manifest, done)
    result.manifest = done


class ForeignManifest(MifRdfError):
    """The store's manifest was written by another bundle, and the push would delete its graphs."""


def push_bundle(
    bundle: LoadedBundle,
    store: GraphStore,
    *,
    dry_run: bool = False,
    batch_size: int | None = None,
    on_done: Callable[[Action], None] | None = None,
    on_plan: Callable[[Plan], None] | None = None,
    take_over: bool = False,
    audience: Audience | None = None,
) -> PushResult:
    """Make the store hold exactly the bundle's graphs that may leave the machine, sending only changes.

    Reads the manifest from the store, plans (``on_plan`` sees the plan before
    anything is written), and unless ``dry_run`` executes.  Raises a
    :class:`~mif_rdf.remote.gsp.StoreError` subclass when the store fails; the
    manifest then still tells the truth, and pushing again completes the rest.
    Raises :class:`ForeignManifest` when the manifest at this base IRI was
    written by another bundle and the plan deletes graphs: they are
    that bundle's, unless ``take_over`` says this bundle replaces it.
    With ``audience`` the store is made to hold what that party may read
    (:func:`~mif_rdf.output.policy.export_policy`).
    """
    unchecked = None
    try:
        manifest = read_manifest(store, bundle.base_iri)
    except (StoreUnreachable, StoreTimeout) as error:
        if not dry_run:
            raise
        manifest, unchecked = Manifest(manifest_iri(bundle.base_iri)), str(error)  # a plan is still worth showing
    plan = plan_push(bundle, manifest, export_policy(bundle, audience))
    if on_plan is not None:
        on_plan(plan)
    owner = bundle_owner(bundle.root, bundle.config)
    doomed = plan.of("delete")
    if manifest.owner not in (None, owner) and doomed and not take_over:
        raise ForeignManifest(
            f"the store's manifest <{manifest.iri}> was written by another bundle with the same base IRI; "
            f"this push would delete {len(doomed)} graphs that bundle created "
            f"({doomed[0].graph}{', ...' if len(doomed) > 1 else ''}). "
            "Give this bundle its own --base, or push with --take-over if it replaces that bundle"
        )
    if dry_run:
        return PushResult(plan, manifest, dry_run=True, unchecked=unchecked)
    if manifest.owner != owner:
        adopted = dataclasses.replace(manifest, owner=owner)
        save_manifest(store, manifest, adopted)
        manifest = adopted
    return execute(plan, bundle, store, manifest, batch_size=batch_size, on_done=on_done)
