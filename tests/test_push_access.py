"""The export policy (spec 10.2 ``_local``, spec 18): what may leave the machine, and ``mif-rdf export``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rdflib import Dataset, Literal, URIRef

from conftest import EXAMPLES, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.namespaces import MIF
from mif_rdf.nsmodel.access import local_only
from mif_rdf.output.policy import ExportPolicy, export_bundle, export_policy
from mif_rdf.output.writeback import lexical_literals
from mif_rdf.rdf.layout import AUTHORED_FRONTMATTER
from mif_rdf.source.identity import GRAPH_INFERENCES, graph_iri

SCRATCH = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"  # examples/semantic/redis-idempotency-idea.md, _local/scratch
SCRATCH_PATH = "semantic/redis-idempotency-idea.md"
SCRATCH_TEXT = "appendfsync everysec"  # only in its body
KEEP_IN_POSTGRES = "urn:mif:33117db3-8b95-4061-b487-746a415d912f"  # names the scratch memory in its relationships
IDS = [f"{n}0000000-0000-4000-8000-00000000000{n}" for n in range(1, 6)]


@pytest.mark.parametrize(
    "namespace",
    ["_local", "_local/scratch", "acme/_local/x", "/_local/", "_LOCAL/x", " _local /y", "mif://local/_local/scratch"],
)
def test_any_local_segment_keeps_a_memory_here(namespace: str) -> None:
    reason = local_only(namespace)
    assert reason is not None and "local-only" in reason and "10.2" in reason


@pytest.mark.parametrize(
    "namespace",
    [None, "_semantic/decisions", "acme/local", "_localish/x", "acme/x_local", "_shared/acme+bigcorp/api", "_public/x"],
)
def test_other_namespaces_may_leave(namespace: object) -> None:
    assert local_only(namespace) is None


@pytest.mark.parametrize("namespace", [["_semantic"], {"root": "acme"}, 7])
def test_a_namespace_that_is_not_a_string_fails_closed(namespace: object) -> None:
    reason = local_only(namespace)
    assert reason is not None and "not a string" in reason


def test_examples_withhold_exactly_the_scratch_memory(example_bundle) -> None:
    policy = export_policy(example_bundle)
    assert list(policy.withheld) == [SCRATCH]
    assert policy.withheld[SCRATCH].label == SCRATCH_PATH
    assert "_local/scratch" in policy.withheld[SCRATCH].reason
    # the one exported memory that names it is told so, and still leaves whole
    assert policy.notes == [
        f"semantic/decisions/keep-idempotency-keys-in-postgres.md names withheld {SCRATCH_PATH}; that reference is "
        "its own content and leaves as written"
    ]
    kept = set(policy.outgoing(example_bundle.dataset, URIRef(KEEP_IN_POSTGRES)))
    assert kept == set(example_bundle.dataset.graph(URIRef(KEEP_IN_POSTGRES)))


def test_the_links_graph_neither_links_nor_locates_a_withheld_memory(example_bundle) -> None:
    links = URIRef(example_bundle.links_graph_iri)
    scratch = example_bundle.memories[SCRATCH.removeprefix("urn:mif:")]
    banned = {URIRef(SCRATCH), URIRef(scratch.doc_iri)}
    before = set(example_bundle.dataset.graph(links))
    after = set(export_policy(example_bundle).outgoing(example_bundle.dataset, links))
    dropped = before - after
    assert dropped and all(s in banned or o in banned for s, _, o in dropped)
    assert (URIRef(KEEP_IN_POSTGRES), MIF["conflicts-with"], URIRef(SCRATCH)) in dropped  # an edge *to* it
    assert (URIRef(SCRATCH), MIF.path, Literal(SCRATCH_PATH)) in dropped  # its path
    assert not any(s in banned or o in banned for s, _, o in after)


@pytest.fixture
def mixed_bundle(tmp_path: Path) -> Path:
    """Public and local memories and entities, links between them."""
    root = tmp_path / "mixed"
    write_file(
        root,
        "public.md",
        memory_text(IDS[0], "namespace: acme/team\nrelationships:\n  - type: relates-to\n    target: /nested.md\n"),
    )
    write_file(root, "local.md", memory_text(IDS[1], "namespace: _local\n"))
    write_file(
        root,
        "nested.md",
        memory_text(
            IDS[2], "namespace: acme/_local/drafts\nrelationships:\n  - type: relates-to\n    target: /public.md\n"
        ),
    )
    write_file(
        root,
        "plain.md",
        memory_text(IDS[3], "relationships:\n  - type: uses\n    target: urn:mif:entity:technology:vault\n"),
    )
    write_file(
        root,
        ".mif/entities/technology/vault.yaml",
        "id: vault\ntype: Technology\nname: Vault\nnamespace: _local/secrets\n",
    )
    write_file(root, ".mif/entities/technology/kafka.yaml", "id: kafka\ntype: Technology\nname: Kafka\n")
    return root


def test_local_memories_and_entities_are_withheld_wherever_the_segment_is(mixed_bundle: Path) -> None:
    bundle = load_bundle(mixed_bundle)
    policy = export_policy(bundle)
    assert set(policy.withheld) == {f"urn:mif:{IDS[1]}", f"urn:mif:{IDS[2]}", "urn:mif:entity:technology:vault"}
    names = {str(n) for n in policy.graph_names(bundle.dataset)}
    assert names == {
        f"urn:mif:{IDS[0]}",
        f"urn:mif:{IDS[3]}",
        "urn:mif:entity:technology:kafka",
        bundle.links_graph_iri,
        bundle.layout_graph_iri,
    }
    links = set(policy.outgoing(bundle.dataset, URIRef(bundle.links_graph_iri)))
    mentioned = {str(t) for triple in links for t in triple}
    assert not mentioned & {
        f"urn:mif:{IDS[1]}",
        f"urn:mif:{IDS[2]}",
        "urn:mif:entity:technology:vault",
        "nested.md",
        "local.md",
    }
    assert len(policy.notes) == 2  # public.md names nested.md, plain.md names the vault


def test_trust_is_never_raised_on_the_way_out(tmp_path: Path) -> None:
    bundle = load_bundle(EXAMPLES)
    psp = next(m for m in bundle.memories.values() if m.relpath == "semantic/psp-error-codes.md")  # moderate_confidence
    graph = bundle.graph(psp.id)
    provenance = graph.value(URIRef(psp.iri), MIF.provenance)
    assert export_policy(bundle).allows(psp.iri)
    graph.add((provenance, MIF.trustLevel, MIF.LowConfidence))  # lower: fine
    assert export_policy(bundle).allows(psp.iri)
    graph.add((provenance, MIF.trustLevel, MIF.Verified))  # higher than the file says: stays here
    policy = export_policy(bundle)
    assert not policy.allows(psp.iri)
    assert "moderate_confidence" in policy.withheld[psp.iri].reason and "18.3" in policy.withheld[psp.iri].reason
    custom = tmp_path / "custom-trust"  # levels outside the spec's order are never "raised"
    write_file(custom, "a.md", memory_text(IDS[0], "provenance:\n  trustLevel: team_reviewed\n"))
    write_file(custom, "b.md", memory_text(IDS[1], "provenance:\n  trustLevel: 5\n"))
    assert not export_policy(load_bundle(custom)).withheld


def test_inferences_stay_when_anything_is_withheld(mixed_bundle: Path, tmp_path: Path) -> None:
    inferred = (URIRef("urn:mif:entity:technology:kafka"), URIRef("urn:x:inferred"), Literal("x"))
    bundle = load_bundle(mixed_bundle)
    inferences = graph_iri(bundle.base_iri, GRAPH_INFERENCES)
    bundle.dataset.graph(URIRef(inferences)).add(inferred)
    assert inferences in export_policy(bundle).withheld
    public = tmp_path / "public-only"
    write_file(public, "a.md", memory_text(IDS[4]))
    clean = load_bundle(public)
    clean.dataset.graph(URIRef(graph_iri(clean.base_iri, GRAPH_INFERENCES))).add(inferred)
    policy = export_policy(clean)
    assert not policy.withheld and URIRef(graph_iri(clean.base_iri, GRAPH_INFERENCES)) in policy.graph_names(
        clean.dataset
    )


# -- mif-rdf export ------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["nquads", "trig", "json-ld", "turtle", "nt"])
def test_export_leaves_local_memories_out(capsysbinary, tmp_path: Path, fmt: str, example_bundle) -> None:
    target = tmp_path / f"out.{fmt}"
    assert main(["export", str(EXAMPLES), "--format", fmt, "-o", str(target), "--verbose"]) == 0
    err = capsysbinary.readouterr().err.decode("utf-8")
    assert f"withheld {SCRATCH_PATH}: namespace '_local/scratch' is local-only" in err
    text = target.read_text(encoding="utf-8")
    assert SCRATCH_TEXT not in text and SCRATCH_PATH not in text and "incident-2026-01-duplicate-charges" in text
    if fmt == "nquads":  # the only mention left is the exported memory's own relationship to it (and its layout triple)
        lines = [line for line in text.splitlines() if SCRATCH in line]
        own = (f"<{KEEP_IN_POSTGRES}> .",)
        layout = f"<{KEEP_IN_POSTGRES}> <{AUTHORED_FRONTMATTER}> "
        assert lines and all(line.endswith(own) or line.startswith(layout) for line in lines)
        with lexical_literals():
            exported = Dataset().parse(data=text, format="nquads")
        names = {str(g.identifier) for g in exported.graphs() if len(g)}
        assert names == {str(n) for n in export_policy(example_bundle).graph_names(example_bundle.dataset)}
        assert len(names) == len(example_bundle.memories) - 1 + len(example_bundle.entities) + 2  # links, layout


def test_nquads_export_streams_without_a_second_copy(monkeypatch, example_bundle) -> None:
    def no_copy(self, bundle):
        raise AssertionError("N-Quads export must stream, not copy the dataset")

    monkeypatch.setattr(ExportPolicy, "restrict", no_copy)
    out = io.BytesIO()
    policy = export_bundle(example_bundle, "nquads", out)
    assert policy.withheld and out.getvalue().count(b"\n") == sum(1 for _ in policy.quads(example_bundle.dataset))
