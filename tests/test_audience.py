"""Audience-scoped exports (spec 10.2, 10.4, 18.1): what leaves for one party, on every route and in every format.

The oracle (:func:`expected`) reads the fixture's files with PyYAML and
applies the spec's rules as plainly as they are written, without the
library: ``_public``, ``_shared`` namespaces an agreement covering them lets
the party read, the party's own root; never ``_local``; ``_system`` only when
asked.  Every output's set of memory IRIs must equal it.
"""

from __future__ import annotations

import io
import json
import re
import urllib.parse
from pathlib import Path

import pytest
import yaml
from rdflib import Dataset, URIRef

from conftest import BUNDLES, EXAMPLES
from mif_rdf import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.errors import MifRdfError
from mif_rdf.nsmodel import audience_for
from mif_rdf.output.policy import export_bundle, export_policy, withheld_reason
from mif_rdf.output.stream_export import stream_nquads

BUNDLE = BUNDLES / "namespaces"
PARTIES = ("acme-corp", "bigcorp-inc", "google", "cncf-foundation")
FORMATS = ("nquads", "trig", "json-ld", "turtle", "nt", "rdfxml")
#: Every memory id of the fixture has this form, so a memory IRI is found in any serialization's text.
MEMORY_IRI = re.compile(r"urn:mif:(6a1d0f7e-[0-9a-f]{4}-4c1a-9a00-[0-9a-f]{12})")
LOOKALIKES = (
    "lookalike/capital.md",
    "lookalike/space.md",
    "lookalike/cyrillic.md",
    "lookalike/fullwidth.md",
    "lookalike/hyphen.md",
    "lookalike/trailing-space.md",
)


# -- the oracle: the spec's rules over the files, written out plainly ---------------------------
def memories() -> dict[str, dict]:
    """bundle path -> frontmatter, read with PyYAML."""
    found = {}
    for path in sorted(BUNDLE.rglob("*.md")):
        if ".mif" not in path.parts:
            found[path.relative_to(BUNDLE).as_posix()] = yaml.safe_load(
                path.read_text(encoding="utf-8").split("---\n")[1]
            )
    return found


def agreements() -> list[dict]:
    return [
        yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted((BUNDLE / ".mif" / "shared-agreements").glob("*.yaml"))
    ]


def covers(pattern: str, namespace: str) -> bool:
    if pattern.endswith("/*"):
        return namespace.startswith(pattern[:-1]) and len(namespace) > len(pattern) - 1
    return namespace == pattern or namespace.startswith(pattern + "/")


def readers(agreement: dict) -> list[str]:
    read = agreement["access"]["read"]
    return agreement.get(read, []) if isinstance(read, str) else read


def expected(party: str | None, include_system: bool = False) -> set[str]:
    """The memory IRIs that may leave for ``party`` (None: no audience, only ``_local`` stays)."""
    out = set()
    for frontmatter in memories().values():
        namespace = frontmatter.get("namespace")
        iri = "urn:mif:" + frontmatter["id"]
        if isinstance(namespace, str) and "_local" in namespace.split("/"):
            continue
        if party is None:
            out.add(iri)
            continue
        if not isinstance(namespace, str):
            continue
        root = namespace.split("/")[0]
        if root in ("_public", party) or (root == "_system" and include_system):
            out.add(iri)
        elif root == "_shared" and any(
            party in readers(a) and any(covers(p, namespace) for p in a["namespaces"]) for a in agreements()
        ):
            out.add(iri)
    return out


def iris_in(text: str) -> set[str]:
    return {"urn:mif:" + m for m in MEMORY_IRI.findall(text)}


def test_the_oracle_tells_the_parties_apart() -> None:
    """The fixture separates the parties: each sees its own root, the agreements it reads, and _public."""
    public = {"urn:mif:6a1d0f7e-0001-4c1a-9a00-000000000001"}
    sets = {party: expected(party) for party in PARTIES}
    assert sets["cncf-foundation"] == public  # the consortium's admin is not a member: read: members
    assert len(sets["google"]) == 2 and len(sets["acme-corp"]) == 6 and len(sets["bigcorp-inc"]) == 5
    assert len({frozenset(s) for s in sets.values()}) == 4
    assert expected("acme-corp", include_system=True) - sets["acme-corp"] == {
        "urn:mif:6a1d0f7e-0011-4c1a-9a00-000000000011"
    }
    assert len(expected(None)) == len(memories()) - 1


# -- the Python API, both stores, every format -----------------------------------------------
@pytest.fixture(scope="module", params=["memory", "oxigraph"])
def bundle(request):
    return load_bundle(BUNDLE, store=request.param)


@pytest.mark.parametrize("party", PARTIES)
def test_every_format_on_both_stores_holds_exactly_what_the_party_may_read(bundle, party: str) -> None:
    policy = export_policy(bundle, audience_for(bundle, party))
    for fmt in FORMATS:
        out = io.BytesIO()
        export_bundle(bundle, fmt, out, policy)
        assert iris_in(out.getvalue().decode("utf-8")) == expected(party), (fmt, party)
    dataset = Dataset()
    out = io.BytesIO()
    export_bundle(bundle, "nquads", out, policy)
    dataset.parse(data=out.getvalue(), format="nquads")
    graphs = {str(g.identifier) for g in dataset.graphs() if MEMORY_IRI.fullmatch(str(g.identifier))}
    assert graphs == expected(party)


def test_include_system_adds_the_system_memories(bundle) -> None:
    out = io.BytesIO()
    export_bundle(bundle, "nquads", out, export_policy(bundle, audience_for(bundle, "acme-corp", include_system=True)))
    assert iris_in(out.getvalue().decode()) == expected("acme-corp", include_system=True)


def test_without_an_audience_only_local_stays(bundle) -> None:
    out = io.BytesIO()
    export_bundle(bundle, "trig", out)
    assert iris_in(out.getvalue().decode()) == expected(None)


@pytest.mark.parametrize("party", PARTIES)
def test_the_streamed_export_holds_what_the_loaded_one_holds(tmp_path: Path, party: str) -> None:
    out = io.BytesIO()
    report = stream_nquads(BUNDLE, out, audience=audience_for(BUNDLE, party))
    assert iris_in(out.getvalue().decode()) == expected(party)
    assert {w.graph for w in report.withheld.values() if MEMORY_IRI.fullmatch(w.graph)} == {
        "urn:mif:" + fm["id"] for fm in memories().values()
    } - expected(party)


def test_lookalike_spellings_never_widen_what_leaves() -> None:
    """``_Shared``, ``_shared `` with a space, a Cyrillic ``ѕ``, a full-width ``＿``, a Unicode hyphen in ``acme‐corp``:
    no party reads them, with or without ``_system``, and each says why."""
    found = memories()
    for relpath in LOOKALIKES:
        namespace = found[relpath]["namespace"]
        for party in PARTIES:
            for system in (False, True):
                reason = withheld_reason(namespace, audience_for(BUNDLE, party, include_system=system))
                assert reason is not None and party in reason, (relpath, party)
    assert all("urn:mif:" + found[r]["id"] not in expected(p) for r in LOOKALIKES for p in PARTIES)


@pytest.mark.parametrize(
    "namespace",
    [
        "_shared/acme+bigcorp/integration-api\u200b",
        "_shared/acme+bigcorp//integration-api",
        "_shared/acme+bigcorp/../cncf/x",
        "_shared/ACME+bigcorp/integration-api",
        "/_public/x",
        "_public\t/x",
        "bigcorp-inc /x",
        "BIGCORP-INC/x",
        "_shared/cncf",
        "_shared/cncf*/x",
    ],
)
def test_more_lookalikes_are_withheld_from_bigcorp(namespace: str) -> None:
    assert withheld_reason(namespace, audience_for(BUNDLE, "bigcorp-inc")) is not None


@pytest.mark.parametrize(
    "namespace",
    ["_public/x", "_shared/cncf/x", "_shared/cncf/x/y/z", "_shared/acme+bigcorp/data-formats", "bigcorp-inc"],
)
def test_what_bigcorp_reads(namespace: str) -> None:
    assert withheld_reason(namespace, audience_for(BUNDLE, "bigcorp-inc")) is None


def test_local_never_leaves_for_an_audience_even_with_include_local() -> None:
    audience = audience_for(BUNDLE, "acme-corp")
    assert withheld_reason("acme-corp/_local/x", audience, include_local=True) is not None
    assert withheld_reason("acme-corp/_local/x", None, include_local=True) is None


def test_an_unknown_party_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(MifRdfError, match="bigcorp-inc"):
        audience_for(BUNDLE, "bigcorp")
    with pytest.raises(MifRdfError, match="names none"):
        audience_for(EXAMPLES, "acme-corp")


def test_references_to_withheld_memories_are_handled_as_local_ones(bundle) -> None:
    """acme-corp's architecture names bigcorp's roadmap: it leaves whole, with a note;
    no link or location of the roadmap leaves."""
    policy = export_policy(bundle, audience_for(bundle, "acme-corp"))
    architecture = URIRef("urn:mif:6a1d0f7e-0006-4c1a-9a00-000000000006")
    roadmap = next(m for m in bundle.memories.values() if m.relpath == "bigcorp/roadmap.md")
    assert (
        "acme/architecture.md names withheld bigcorp/roadmap.md; that reference is its own content and leaves as "
        "written" in policy.notes
    )
    assert set(policy.outgoing(bundle.dataset, architecture)) == set(bundle.dataset.graph(architecture))
    for graph in (bundle.links_graph_iri, bundle.layout_graph_iri, f"{bundle.base_iri}#inherited"):
        for s, _, o in policy.outgoing(bundle.dataset, URIRef(graph)):
            assert URIRef(roadmap.iri) not in (s, o) and URIRef(roadmap.doc_iri) not in (s, o)


def test_the_namespaces_graph_stays_home_for_an_audience(bundle) -> None:
    namespaces = f"{bundle.base_iri}#namespaces"
    assert len(bundle.dataset.graph(URIRef(namespaces))) > 0
    assert not export_policy(bundle, audience_for(bundle, "google")).allows(namespaces)
    assert export_policy(bundle).allows(namespaces)


# -- the command line: export (streamed and loaded), load -o, convert to-jsonld ---------------
@pytest.mark.parametrize("party", PARTIES)
def test_cli_routes_write_exactly_what_the_party_may_read(tmp_path: Path, party: str, capsys) -> None:
    runs = {
        "export streamed": (
            ["export", str(BUNDLE), "--audience", party, "-o", str(tmp_path / "a.nq")],
            tmp_path / "a.nq",
        ),
        "export trig": (
            [
                "export",
                "--no-progress",
                "--format",
                "trig",
                "-o",
                str(tmp_path / "b.trig"),
                "--audience",
                party,
                str(BUNDLE),
            ],
            tmp_path / "b.trig",
        ),
        "export store": (
            ["export", str(BUNDLE), "--store", "oxigraph", "--audience", party, "-o", str(tmp_path / "c.jsonld")],
            tmp_path / "c.jsonld",
        ),
        "load -o": (["load", "--audience", party, str(BUNDLE), "-o", str(tmp_path / "d.ttl")], tmp_path / "d.ttl"),
    }
    for label, (argv, output) in runs.items():
        assert main(argv) in (0, 1), label
        assert iris_in(output.read_text(encoding="utf-8")) == expected(party), label
    assert main(["convert", "to-jsonld", str(BUNDLE), "-o", str(tmp_path / "jsonld"), "--audience", party]) in (0, 1)
    written = {json.loads(p.read_text(encoding="utf-8"))["@id"] for p in (tmp_path / "jsonld").rglob("*.jsonld")}
    assert written == expected(party)
    err = capsys.readouterr().err
    assert "--audience PARTY writes only" not in err  # the hint is for runs without an audience


def test_without_audience_the_output_is_as_before_plus_one_hint_line(tmp_path: Path, capsys) -> None:
    assert main(["export", str(BUNDLE), "-o", str(tmp_path / "all.nq")]) in (0, 1)
    assert iris_in((tmp_path / "all.nq").read_text(encoding="utf-8")) == expected(None)
    err = capsys.readouterr().err
    assert err.count("--audience PARTY writes only what PARTY may read") == 1
    assert main(["export", str(EXAMPLES), "-o", str(tmp_path / "ex.nq")]) == 0
    assert "--audience" not in capsys.readouterr().err  # no agreements, no hint


def test_cli_refuses_an_unknown_party_and_include_system_alone(tmp_path: Path, capsys) -> None:
    assert main(["export", str(BUNDLE), "--audience", "acme", "-o", str(tmp_path / "x.nq")]) == 2
    assert "not an organization of this bundle" in capsys.readouterr().err
    assert main(["export", str(BUNDLE), "--include-system", "-o", str(tmp_path / "y.nq")]) == 2
    assert "--include-system needs --audience" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "--audience", "acme", "-o", "{out}/x.nq", "--format", "nquads", "--store", "memory"],
        ["export", "--audience", "acme", "-o", "{out}/x.ttl"],
        ["load", "--audience", "acme", "-o", "{out}/x.ttl"],
        ["push", "--audience", "acme", "--endpoint", "http://127.0.0.1:9/store", "--dry-run"],
        ["serve", "--audience", "acme", "--port", "0"],
    ],
    ids=lambda argv: " ".join(argv[:3]),
)
def test_an_unknown_party_is_refused_before_the_bundle_loads(argv, tmp_path: Path, capsys, monkeypatch) -> None:
    from mif_rdf.cli.commands import _common

    def no_load(*_args, **_kwargs):
        raise AssertionError("the bundle was loaded before the party was checked")

    monkeypatch.setattr(_common, "load", no_load)
    args = [a.replace("{out}", str(tmp_path)) for a in argv]
    assert main([args[0], str(BUNDLE), *args[1:]]) == 2
    assert "--audience 'acme': not an organization of this bundle" in capsys.readouterr().err


# -- push to a real store, serve on every route -------------------------------------------------
from oxigraph_server import OxigraphServer, oxigraph  # noqa: E402,F401  (oxigraph: the server fixture)
from serve_process import ServeProcess  # noqa: E402


def test_push_makes_the_store_hold_the_audiences_view(oxigraph: OxigraphServer, capsys) -> None:  # noqa: F811
    for party in ("acme-corp", "bigcorp-inc"):  # the second push deletes what only acme-corp may read
        assert main(["push", str(BUNDLE), "--endpoint", oxigraph.store_url, "--audience", party]) in (0, 1)
        names = {n for n in oxigraph.graph_names() if MEMORY_IRI.fullmatch(n)}
        assert names == expected(party), party
        rows = oxigraph.select(
            "SELECT DISTINCT ?s WHERE { GRAPH ?g { ?s ?p ?o } FILTER(isIRI(?s) && STRSTARTS(STR(?s), 'urn:mif:6a1d')) }"
        )
        assert {r["s"] for r in rows} == expected(party)
    capsys.readouterr()


def _get(url: str, accept: str) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_serve_with_an_audience_serves_only_its_view_on_every_route() -> None:
    party = "google"
    want = expected(party)
    with ServeProcess(BUNDLE, "--audience", party, "--no-watch") as server:
        status, body = _get(server.url + "store", "application/n-quads")
        assert status == 200 and iris_in(body.decode()) == want
        for query in (
            "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
            "SELECT DISTINCT ?s ?o WHERE { ?s ?p ?o }",
            "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }",
        ):
            accept = "application/n-triples" if query.startswith("CONSTRUCT") else "application/sparql-results+json"
            status, body = _get(server.query_url + "?" + urllib.parse.urlencode({"query": query}), accept)
            assert status == 200 and iris_in(body.decode()) == want, query
        status, body = _get(server.url + "api/overview", "application/json")
        assert status == 200 and {item["iri"] for item in json.loads(body)["list"]} == want
        withheld = sorted({"urn:mif:" + fm["id"] for fm in memories().values()} - want)
        for iri in withheld[:3]:
            status, _ = _get(server.url + "api/memory?" + urllib.parse.urlencode({"iri": iri}), "application/json")
            assert status == 404


def test_a_served_audience_view_follows_file_changes(tmp_path: Path) -> None:
    """A memory moved into _public is served to the audience after the reload;
    inherited values follow a moved memory."""
    import shutil

    import pyoxigraph as ox

    from mif_rdf.serve.served import ServedBundle

    root = tmp_path / "b"
    shutil.copytree(BUNDLE, root)
    served = ServedBundle(load_bundle(root, store="oxigraph"), audience=audience_for(root, "acme-corp"))

    def served_memories() -> set[str]:
        return {
            q.graph_name.value
            for q in served.store.quads_for_pattern(None, None, None, None)
            if MEMORY_IRI.fullmatch(getattr(q.graph_name, "value", ""))
        }

    roadmap, architecture = (
        "urn:mif:6a1d0f7e-0009-4c1a-9a00-000000000009",
        "urn:mif:6a1d0f7e-0006-4c1a-9a00-000000000006",
    )
    assert roadmap not in served_memories() and architecture in served_memories()
    tags = lambda: {
        q.object.value
        for q in served.store.quads_for_pattern(
            ox.NamedNode(architecture), ox.NamedNode("https://mif-spec.dev/ns/tags"), None, None
        )
    }
    assert tags() == {"project-x"}

    def move(relpath: str, old: str, new: str) -> None:
        path = root / relpath
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        assert served.apply([relpath])

    move(
        "acme/architecture.md", "acme-corp/project-x/architecture", "acme-corp/architecture"
    )  # still acme-corp's: the policy stays
    assert tags() == set()  # no longer below project-x
    move("bigcorp/roadmap.md", "bigcorp-inc/roadmap", "_public/roadmap")
    assert roadmap in served_memories()


def test_entity_files_follow_the_same_rule(tmp_path: Path) -> None:
    """An entity file without a namespace cannot be shown to be the party's: withheld; one under _public leaves."""
    import shutil

    from conftest import write_file

    root = tmp_path / "b"
    shutil.copytree(BUNDLE, root)
    write_file(root, ".mif/entities/person/jane.yaml", "id: jane-doe\ntype: person\nname: Jane Doe\n")
    write_file(
        root,
        ".mif/entities/technology/k8s.yaml",
        "id: kubernetes\ntype: technology\nname: Kubernetes\nnamespace: _public/tech\n",
    )
    loaded = load_bundle(root)
    out = io.BytesIO()
    export_bundle(loaded, "nquads", out, export_policy(loaded, audience_for(loaded, "google")))
    text = out.getvalue().decode()
    assert "urn:mif:entity:technology:kubernetes" in text and "urn:mif:entity:person:jane-doe" not in text
    out = io.BytesIO()
    export_bundle(loaded, "nquads", out)
    assert "urn:mif:entity:person:jane-doe" in out.getvalue().decode()  # without an audience, as before


@pytest.mark.parametrize("party", PARTIES)
def test_suggestions_of_memories_the_party_may_not_read_never_join_its_export(party: str) -> None:
    """A suggestion carries body text and names no withheld memory in its other triples, so it is left out whole."""
    from mif_rdf.ontology.suggestions import Suggestion, SuggestionReport, add_suggestions

    loaded = load_bundle(BUNDLE, cache=False)
    report = SuggestionReport(
        [
            Suggestion(
                r.relpath,
                r.frontmatter["id"],
                "probe",
                "probe.ontology.yaml",
                "secret",
                "k",
                "content",
                "thing",
                (),
                None,
                1.0,
                f"text of {r.relpath}",
                1,
                1,
            )
            for r in loaded.memories.values()
        ]
    )
    audience = audience_for(loaded, party)
    name = add_suggestions(loaded, report, audience)
    out = io.BytesIO()
    export_bundle(loaded, "nquads", out, export_policy(loaded, audience))
    exported = out.getvalue().decode()
    leaving = {r.relpath for r in loaded.memories.values() if "urn:mif:" + r.frontmatter["id"] in expected(party)}
    assert leaving, party
    for record in loaded.memories.values():
        assert (f'"text of {record.relpath}"' in exported) == (record.relpath in leaving), record.relpath
    assert str(name) in exported
