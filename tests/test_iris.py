"""Issue 39 item 2: every IRI made from user data is one the stores accept.

The oracle is the stores themselves: ``pyoxigraph.NamedNode`` (Oxigraph's
RFC 3987 parser) and rdflib both accepting it, and every N-Quads file the
project writes bulk-loading into Oxigraph.
"""

from __future__ import annotations

import io
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib.term import _is_valid_uri

from conftest import memory_text, write_file
from mif_rdf.bundle import load_bundle
from mif_rdf.cli.main import main
from mif_rdf.core.context import iri_problem, is_valid_iri
from mif_rdf.output.policy import export_bundle
from mif_rdf.output.stream_export import stream_nquads
from oxigraph_server import OxigraphServer, assert_store_matches, oxigraph  # noqa: F401  (oxigraph: fixture)

#: The characters that broke loads, pushes and servers (issue 39), and their neighbours.
HOSTILE = (
    '[]%#<>"{}|\\^` \t\n'
    "\x00\x7f?/:@!$&'()*+,;=~.-_aZ09é\ue000\uf8ff\ufdd0\ufdef\ufffe\uffff\U0001f600\U000f0000\U000e0001\u00a0\u200b"
)
BAD_IDS = {
    "a[b]": "'['",
    "p%": "'%'",
    "p%zz": "'%'",
    "x#y#z": "'#'",
    "a\ue000": "U+E000",
    "b\ufdd0": "U+FDD0",
    "c]": "']'",
}


def stores_accept(text: str) -> bool:
    try:
        ox.NamedNode(text)
    except ValueError:
        return False
    return _is_valid_uri(text)


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=HOSTILE, max_size=12),
    st.sampled_from(["urn:mif:", "http://h/", "mif://b-1/x/", "http://[::1]/", "urn:mif:x?", "urn:mif:x#"]),
)
def test_the_check_is_what_the_stores_accept(tail: str, head: str) -> None:
    text = head + tail
    # Unicode white space (U+00A0 ...) RFC 3987 allows, but pyld reads no such IRI as absolute:
    # refused, as both engines do
    assert is_valid_iri(text) == (stores_accept(text) and not any(c.isspace() for c in text)), (text, iri_problem(text))


@pytest.mark.parametrize(
    "text",
    [
        "http://[zz]/",
        "http://[v1.x]/",
        "http://h:8x/",
        "http://u@h:/",
        "x:",
        "a:b:c",
        "http://a/b?\ue000#\ue000",
        "urn:mif:%41",
    ],
)
def test_hosts_ports_and_private_use_match_the_stores(text: str) -> None:
    assert is_valid_iri(text) == stores_accept(text)


@pytest.mark.parametrize("memory_id, char", list(BAD_IDS.items()))
def test_an_id_oxigraph_refuses_is_a_problem_naming_file_key_and_character(
    tmp_path: Path, memory_id: str, char: str
) -> None:
    write_file(tmp_path, "bad.md", memory_text(yaml_string(memory_id)))
    write_file(
        tmp_path, "good.md", memory_text("good-one", "relationships:\n  - type: relates-to\n    target: bad.md\n")
    )
    for store in ("memory", "Oxigraph"):
        bundle = load_bundle(tmp_path, store=store, progress=False)
        assert set(bundle.memories) == {"good-one"}
        problem = next(p for p in bundle.problems if p.path == "bad.md")
        assert problem.key == "id" and char in problem.message and "not loaded" in problem.message


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar, every character that is not plain ASCII escaped."""
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def hostile_bundle(root: Path, ids: list[str], types: list[str]) -> None:
    for index, memory_id in enumerate(ids):
        relationships = "".join(
            f"  - type: {yaml_string(kind)}\n    target: m{(index + 1) % len(ids)}.md\n" for kind in types
        )
        write_file(
            root,
            f"m{index}.md",
            memory_text(yaml_string(memory_id), f"relationships:\n{relationships}" if relationships else ""),
        )
    write_file(root, "plain.md", memory_text("plain", "relationships:\n  - type: relates-to\n    target: m0.md\n"))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    ids=st.lists(st.text(alphabet=HOSTILE, min_size=1, max_size=6), min_size=1, max_size=4, unique=True),
    types=st.lists(st.text(alphabet=HOSTILE, min_size=1, max_size=6).map(lambda t: "team:" + t), max_size=3),
)
def test_every_nquads_file_written_bulk_loads_into_oxigraph(
    tmp_path_factory: pytest.TempPathFactory, ids: list[str], types: list[str]
) -> None:
    root = tmp_path_factory.mktemp("hostile")
    hostile_bundle(root, ids, types)
    out = io.BytesIO()
    report = stream_nquads(root, out, progress=False)
    written = [out.getvalue()]
    for store in ("memory", "Oxigraph"):
        bundle = load_bundle(root, store=store, progress=False)
        assert "plain" in bundle.memories  # the rest of the bundle always loads
        into = io.BytesIO()
        export_bundle(bundle, "nquads", into)
        written.append(into.getvalue())
    for data in written:
        store = ox.Store()
        store.bulk_load(data, format=ox.RdfFormat.N_QUADS)  # raises on any IRI Oxigraph refuses
        assert any(q.graph_name == ox.NamedNode("urn:mif:plain") for q in store)
    assert report.graphs >= 1


def test_a_push_with_bad_ids_sends_the_rest_and_its_manifest(
    tmp_path: Path, oxigraph: OxigraphServer, capsys: pytest.CaptureFixture[str]
) -> None:  # noqa: F811
    hostile_bundle(tmp_path, list(BAD_IDS) + ["fine"], ["team:a[b]", "relates-to"])
    code = main(["push", str(tmp_path), "--endpoint", oxigraph.store_url])
    _, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err and "internal error" not in err
    for _memory_id, char in BAD_IDS.items():
        assert char in err
    bundle = load_bundle(tmp_path, progress=False)
    assert set(bundle.memories) == {"fine", "plain"}
    assert_store_matches(oxigraph, bundle)
