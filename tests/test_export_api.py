"""The safe export is the obvious one in Python (issue 37, item 3): ``bundle.export`` and ``mif_rdf.export``.

``bundle.dataset`` holds the ``_local`` memory of the example bundle; the
API's export leaves it out exactly as ``mif-rdf export`` does (the CLI's file
is the oracle, compared as RDF), lets it in only when asked, and with an
audience writes that party's view and nothing else.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef

import mif_rdf
from conftest import BUNDLES, EXAMPLES, comparable_graph, isomorphic
from mif_rdf import MifRdfError, load_bundle
from mif_rdf.cli.main import main

NAMESPACES = BUNDLES / "namespaces"


@pytest.fixture(scope="module")
def examples():
    return load_bundle(EXAMPLES)


def _local_terms(bundle) -> set[URIRef]:
    """The IRIs that name a ``_local`` memory: its memory IRI and its document IRI (path in the bundle)."""
    local = [m for m in bundle.memories.values() if str(m.frontmatter.get("namespace", "")).startswith("_local")]
    assert local  # the example bundle keeps one on purpose
    return {URIRef(term) for m in local for term in (m.iri, m.doc_iri)}


def _terms(dataset: Dataset) -> set:
    return {term for quad in dataset.quads((None, None, None, None)) for term in quad if term is not None}


def _graphs(dataset: Dataset) -> set[str]:
    return {str(g.identifier) for g in dataset.graphs() if len(g)}


def _same(left: Dataset, right: Dataset, by_value: bool = False) -> bool:
    """The same named graphs, each isomorphic (``by_value``: literals compared by value,
    as Oxigraph writes ``1.0`` as ``1``)."""
    names = _graphs(left)
    graph = comparable_graph if by_value else (lambda triples: triples)
    return names == _graphs(right) and all(
        isomorphic(graph(left.graph(URIRef(n))), graph(right.graph(URIRef(n)))) for n in names
    )


def test_the_dataset_holds_local_and_the_export_does_not(examples, tmp_path: Path) -> None:
    local = _local_terms(examples)
    assert local & {URIRef(str(g.identifier)) for g in examples.dataset.graphs()}  # everything loaded, _local included
    policy = examples.export(tmp_path / "deep" / "api.trig")  # the folder is made, the format is the extension's
    written = Dataset().parse(tmp_path / "deep" / "api.trig", format="trig")
    assert len(written) > 1000 and not local & {URIRef(g) for g in _graphs(written)}  # no graph of it
    assert not local & {q[0] for q in written.quads((None, None, None, None))}  # nothing said about it
    # what names it is the content of a memory that may leave, whose own relationship names it (reported as a note)
    naming = {str(q[3]) for q in written.quads((None, None, None, None)) if q[2] in local}
    assert naming == {examples.memory_by_path("semantic/decisions/keep-idempotency-keys-in-postgres.md").iri}
    assert policy.notes == [
        "semantic/decisions/keep-idempotency-keys-in-postgres.md names withheld semantic/redis-idempotency-idea.md; "
        "that reference is its own content and leaves as written"
    ]
    assert {URIRef(iri) for iri in policy.withheld} <= local and policy.withheld
    assert main(["export", str(EXAMPLES), "-q", "--no-progress", "-o", str(tmp_path / "cli.trig")]) == 0
    assert _same(written, Dataset().parse(tmp_path / "cli.trig", format="trig"))  # exactly the CLI's policy


def test_include_local_writes_the_local_memory_too(examples) -> None:
    out = io.BytesIO()
    policy = mif_rdf.export(examples, out, "nq", include_local=True)
    written = Dataset().parse(data=out.getvalue(), format="nquads")
    assert not policy.withheld and _local_terms(examples) <= _terms(written)
    assert _graphs(written) == _graphs(examples.dataset)


@pytest.mark.parametrize("party", ["acme-corp", "bigcorp-inc"])
def test_an_audience_gets_only_its_view(tmp_path: Path, party: str) -> None:
    bundle = load_bundle(NAMESPACES)
    bundle.export(tmp_path / "api.nq", audience=party)
    assert main(
        ["export", str(NAMESPACES), "-q", "--no-progress", "--audience", party, "-o", str(tmp_path / "cli.nq")]
    ) in (0, 1)
    written, cli = (Dataset().parse(tmp_path / name, format="nquads") for name in ("api.nq", "cli.nq"))
    assert _same(written, cli)
    memories = {m.iri for m in bundle.memories.values()}
    sent = _graphs(written) & memories
    assert sent and sent < memories  # a view, not everything
    everything = io.BytesIO()
    bundle.export(everything, "nq")
    assert sent < _graphs(Dataset().parse(data=everything.getvalue(), format="nquads")) & memories


def test_format_follows_the_extension_or_is_named(examples, tmp_path: Path) -> None:
    examples.export(tmp_path / "x.nt")
    text = (tmp_path / "x.nt").read_text()
    assert (
        "@prefix" not in text and len(Graph().parse(data=text, format="nt")) == len(text.splitlines()) > 1000
    )  # N-Triples
    examples.export(tmp_path / "named.out", format="turtle")
    assert (tmp_path / "named.out").read_text().startswith("@prefix")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda b, d: b.export(d / "x.txt"), r"cannot tell an RDF format from the extension '\.txt'"),
        (lambda b, d: b.export(d), "is a folder"),
        (lambda b, d: b.export(d / "x.nq", format="turtles"), "unknown RDF format 'turtles'"),
        (lambda b, d: b.export(d / "x.nq", audience="acme-corp", include_local=True), "an audience never reads _local"),
        (lambda b, d: b.export(d / "x.nq", include_system=True), "needs an audience"),
        (lambda b, d: b.export(d / "x.nq", audience="nobody-inc"), "not an organization of this bundle"),
    ],
)
def test_mistakes_are_clear_errors_that_write_nothing(examples, tmp_path: Path, call, message: str) -> None:
    with pytest.raises(MifRdfError, match=message):
        call(examples, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_oxigraph_store_exports_what_the_memory_store_does(examples, tmp_path: Path) -> None:
    """From Oxigraph, export_bundle writes with Oxigraph's own writers: the same policy, the same graphs."""
    load_bundle(EXAMPLES, store="oxigraph").export(tmp_path / "ox.nq")
    examples.export(tmp_path / "memory.nq")
    assert _same(*(Dataset().parse(tmp_path / name, format="nquads") for name in ("ox.nq", "memory.nq")), by_value=True)


def test_the_api_never_writes_over_a_file_of_the_bundle_and_replaces_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line's output rules hold in Python: no memory or .mif file is a target;
    a failed write changes nothing."""
    import shutil

    root = tmp_path / "b"
    shutil.copytree(EXAMPLES, root)
    bundle = load_bundle(root, cache=False)
    memory = next(iter(sorted(root.glob("semantic/*.md"))))
    for target in (memory, root / ".mif" / "out.nq"):
        before = memory.read_bytes()
        with pytest.raises(MifRdfError, match="refusing to overwrite an input|inside the bundle's .mif"):
            bundle.export(target, format="nquads")
        assert memory.read_bytes() == before and not (root / ".mif" / "out.nq").exists()
    previous = tmp_path / "kept.nq"
    previous.write_bytes(b"previous\n")

    def failing(*args, **kwargs):
        raise RuntimeError("disk gone")

    monkeypatch.setattr("mif_rdf.output.export_api.export_bundle", failing)
    with pytest.raises(RuntimeError):
        bundle.export(previous)
    assert previous.read_bytes() == b"previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["b", "kept.nq"]
