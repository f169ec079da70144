"""Issue 19 item 2: every export from the Oxigraph store is written by Oxigraph, with the same quads as before.

The oracle is the memory store's export of the same bundle (rdflib's
serializers); both files are read back by pyoxigraph's parsers (and JSON-LD
also by pyld) and compared graph by graph up to blank-node names (the triples
as rdflib reads them, canonicalized by conftest.canonical).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest
from pyld import jsonld
from rdflib import Dataset, Graph

from conftest import EXAMPLES, canonical
from mif_rdf import MifRdfError
from mif_rdf.bundle import Bundle, load_bundle
from mif_rdf.core.formats import QUAD_FORMATS, RDF_FORMATS
from mif_rdf.core.namespaces import PREFIXES
from mif_rdf.output.policy import ExportPolicy, export_bundle, export_policy
from synthetic import generate_bundle

SCRATCH = "urn:mif:2a7fde8a-2eaf-4677-b33e-e54c32c50127"  # examples/semantic/redis-idempotency-idea.md, _local/scratch
READERS = {
    "turtle": "TURTLE",
    "nt": "N_TRIPLES",
    "nquads": "N_QUADS",
    "trig": "TRIG",
    "json-ld": "JSON_LD",
    "rdfxml": "RDF_XML",
}
XSD = "http://www.w3.org/2001/XMLSchema#"
DECIMAL = ox.NamedNode(XSD + "decimal")
UNION = "union"

#: A memory whose values test lexical forms: an ill-typed date, strings with every quote and escape, odd property keys.
TRICKY = '''---
id: 3f1c2a9e-7d4b-4e8a-9c1f-2b6d8e0a4c71
type: semantic
created: 2026-01-15
namespace: _semantic/edge-cases
title: "Quotes \\" and \'\'\' and \\\\ backslash, tab\\tand é ü 中文 🙂"
tags: [lexical, "weird tag \\"q\\""]
provenance:
  confidence: 1.50
properties:
  price: 1.50
  "a.b": one
  "x-y": two
  "é": four
  big: 12345678901234567890
  flag: true
temporal:
  validFrom: 2026-03-09T19:30:00+00:00
  ttl: P30D
---

Line one with "quotes" and \'\'\'triple\'\'\' and """triple double""".
Line two with a backslash \\ and a tab\there.

Trailing spaces   
'''  # noqa: W291 - the trailing spaces are what the test is about


def _decimal_value(term: object) -> object:
    """Oxigraph's storage keeps xsd:decimal as a value ("1.0" is read back as "1"):
    those compare by value; every other term exactly."""
    if isinstance(term, ox.Literal) and term.datatype == DECIMAL:
        return ox.Literal(str(Decimal(term.value).normalize()), datatype=DECIMAL)
    return term


def _read(data: bytes, fmt: str) -> list[ox.Quad]:
    return list(ox.parse(data, format=getattr(ox.RdfFormat, READERS[fmt])))


def _graphs(quads: list[ox.Quad], fmt: str) -> dict[str, object]:
    """Each graph (or the union, for one-graph formats) as read by rdflib, blank nodes named by structure
    (conftest.canonical), decimals by value."""
    graphs: dict[str, list[ox.Triple]] = defaultdict(list)
    for q in quads:
        graphs[UNION if fmt not in QUAD_FORMATS else str(q.graph_name)].append(
            ox.Triple(q.subject, q.predicate, _decimal_value(q.object))
        )
    return {
        name: canonical(Graph().parse(data=ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES), format="nt"))
        for name, triples in graphs.items()
    }


def _export(bundle: Bundle, fmt: str, policy: ExportPolicy | None = None) -> bytes:
    out = io.BytesIO()
    export_bundle(bundle, fmt, out, policy)
    return out.getvalue()


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Bundle]]:
    """examples/ (it has a _local memory), a generated bundle with broken links,
    and the lexical-forms memory, in both stores."""
    generated = tmp_path_factory.mktemp("generated")
    generate_bundle(generated, 40, seed=3, broken_links=2)
    tricky = tmp_path_factory.mktemp("tricky")
    (tricky / "tricky.md").write_text(TRICKY, encoding="utf-8")
    roots = {"examples": EXAMPLES, "generated": generated, "tricky": tricky}
    return {
        name: {store: load_bundle(root, store=store, progress=False) for store in ("memory", "oxigraph")}
        for name, root in roots.items()
    }


@pytest.mark.parametrize("fmt", list(RDF_FORMATS))
@pytest.mark.parametrize("name", ["examples", "generated"])
def test_native_export_has_the_memory_stores_quads(bundles: dict[str, dict[str, Bundle]], name: str, fmt: str) -> None:
    """Per graph for N-Quads, TriG and JSON-LD; the union, as a set, for Turtle, N-Triples and RDF/XML."""
    native, python = (_read(_export(bundles[name][store], fmt), fmt) for store in ("oxigraph", "memory"))
    assert _graphs(native, fmt) == _graphs(python, fmt)
    assert len(native) == len(python) and (
        fmt in QUAD_FORMATS or len(set(native)) == len(native)
    )  # a set: no triple twice
    assert len(_graphs(native, fmt)) > (20 if fmt in QUAD_FORMATS else 0)


@pytest.mark.parametrize("fmt", list(RDF_FORMATS))
def test_the_local_memory_is_withheld_in_every_native_format(bundles: dict[str, dict[str, Bundle]], fmt: str) -> None:
    """examples/semantic/redis-idempotency-idea.md (_local/scratch):
    its graph is not there, and no shared graph names it."""
    bundle = bundles["examples"]["oxigraph"]
    hidden = {ox.NamedNode(str(term)) for term in export_policy(bundle).hidden}
    assert ox.NamedNode(SCRATCH) in hidden
    quads = _read(_export(bundle, fmt), fmt)
    assert not any(q.subject in hidden for q in quads)  # its own triples (all about it) are not there
    if fmt in QUAD_FORMATS:
        shared = [q for q in quads if not str(q.graph_name).startswith("<urn:mif:")]
        assert shared and not any(q.object in hidden for q in shared)  # no link to it, no path of it
        assert ox.NamedNode(SCRATCH) not in {q.graph_name for q in quads}
    else:  # in the union, only what an exported memory's own graph says of it (its content, sent as written)
        own = {
            q.triple
            for q in _read(_export(bundle, "nquads"), "nquads")
            if q.object in hidden and str(q.graph_name).startswith("<urn:mif:")
        }
        assert own and {q.triple for q in quads if q.object in hidden} == own
    everything = _read(_export(bundle, fmt, ExportPolicy()), fmt)  # nothing withheld: it is there
    assert any(q.subject == ox.NamedNode(SCRATCH) for q in everything)


def test_native_json_ld_is_json_ld_pyld_and_rdflib_read(bundles: dict[str, dict[str, Bundle]]) -> None:
    """pyld (the reference JSON-LD 1.1 processor) and rdflib read Oxigraph's JSON-LD as the memory store's quads."""
    for name in ("examples", "generated"):
        native = _export(bundles[name]["oxigraph"], "json-ld")
        expected = _graphs(_read(_export(bundles[name]["memory"], "nquads"), "nquads"), "nquads")
        by_pyld = jsonld.to_rdf(json.loads(native), {"format": "application/n-quads"}).encode("utf-8")
        by_rdflib = Dataset().parse(data=native, format="json-ld").serialize(format="nquads", encoding="utf-8")
        assert _graphs(_read(by_pyld, "nquads"), "nquads") == expected == _graphs(_read(by_rdflib, "nquads"), "nquads")


def test_lexical_forms_leave_as_the_store_holds_them(bundles: dict[str, dict[str, Bundle]]) -> None:
    """Strings with quotes, escapes and newlines, an ill-typed date, odd property keys: the same in every format.

    What differs is the store, not the writers: Oxigraph keeps numbers, booleans
    and dates with a time zone as values (docs/export.md), so the double
    ``1.5E0`` is read back as ``1.5`` and ``+00:00`` as ``Z``, in every format
    alike (N-Quads from Oxigraph has always been so).
    """
    literals = lambda quads: Counter((q.predicate.value, q.object) for q in quads if isinstance(q.object, ox.Literal))  # noqa: E731
    python = literals(_read(_export(bundles["tricky"]["memory"], "nquads"), "nquads"))
    respelled = {("1.5E0", "1.5"), ("2026-03-09T19:30:00+00:00", "2026-03-09T19:30:00Z")}
    for fmt in RDF_FORMATS:
        native = literals(_read(_export(bundles["tricky"]["oxigraph"], fmt), fmt))
        missing, extra = python - native, native - python
        assert {(a.value, b.value) for (p, a) in missing for (q, b) in extra if p == q} == respelled, fmt
        assert sum(missing.values()) == sum(extra.values()) == len(respelled), fmt
        assert any(o.value == "2026-01-15" for _, o in native), fmt  # ill-typed, kept
        assert any('"""triple double"""' in o.value for _, o in native), fmt


def test_oxigraph_writers_keep_every_lexical_form() -> None:
    """The writers themselves (not the store) keep what they are given,
    shorthand or not, with the project's prefixes."""
    subject, predicate = ox.NamedNode("urn:mif:x"), ox.NamedNode(str(PREFIXES["mifp"]) + "v")
    typed = [
        ("1.50", "decimal"),
        ("9.995E1", "double"),
        ("007", "integer"),
        ("+7", "integer"),
        (".5", "decimal"),
        ("2026-01-15", "dateTime"),
        ("1", "boolean"),
        ("INF", "double"),
    ]
    objects = [ox.Literal(value, datatype=ox.NamedNode(XSD + datatype)) for value, datatype in typed]
    objects += [
        ox.Literal("a\nb \"c\" '''d''' \\ \t é 🙂", language="en"),
        ox.Literal("x" * 5000 + "\r\n"),
        ox.NamedNode("urn:mif:a%20b"),
        ox.NamedNode(str(PREFIXES["mifp"]) + "a.b"),
        ox.NamedNode(str(PREFIXES["mifp"]) + "end."),
        ox.NamedNode(str(PREFIXES["mif"]) + "x/y"),
        ox.NamedNode(str(PREFIXES["mifp"]) + "é-1"),
        ox.BlankNode("b1"),
    ]
    triples = [ox.Triple(subject, predicate, o) for o in objects]
    prefixes = {prefix: str(namespace) for prefix, namespace in PREFIXES.items()}
    for fmt in RDF_FORMATS:
        written = ox.serialize(
            [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode("urn:g")) for t in triples]
            if fmt in QUAD_FORMATS
            else triples,
            format=getattr(ox.RdfFormat, READERS[fmt]),
            prefixes=prefixes,
        )
        back = {q.triple for q in _read(written, fmt)}
        assert back - {t for t in back if isinstance(t.object, ox.BlankNode)} == set(triples[:-1]), fmt
    turtle = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=prefixes).decode()
    assert " 1.50 " in turtle and " 9.995E1 " in turtle and " 007 " in turtle  # shorthand, in the author's spelling


def _prefixes(text: bytes) -> set[tuple[str, str]]:
    return set(re.findall(r"^@prefix ([\w-]*): <([^>]*)> \.$", text.decode("utf-8"), re.MULTILINE))


@pytest.mark.parametrize("fmt", ["turtle", "trig"])
def test_turtle_and_trig_declare_the_same_prefixes_from_both_stores(
    bundles: dict[str, dict[str, Bundle]], fmt: str
) -> None:
    """The project's prefixes (mif_rdf.core.namespaces.PREFIXES), used or not, and no invented ``ns1:``."""
    expected = {(prefix, str(namespace)) for prefix, namespace in PREFIXES.items()}
    for name in ("examples", "generated"):
        native, python = (_prefixes(_export(bundles[name][store], fmt)) for store in ("oxigraph", "memory"))
        assert native == python == expected, name
    assert b"<team:reinforces>" in _export(
        bundles["examples"]["memory"], fmt
    )  # a custom relationship type outside them, in full


def test_every_format_is_written_by_oxigraph_and_reads_no_rdflib_terms(
    bundles: dict[str, dict[str, Bundle]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rdflib path (restricted copy, rdflib serializers, quad-by-quad writer) refuses to run,
    and oxrdflib converts no term."""
    import oxrdflib.store

    import mif_rdf.output.policy as access

    def refuse(*_args: object) -> None:
        raise AssertionError("the rdflib path was used for an Oxigraph store")

    bundle = bundles["examples"]["oxigraph"]
    policy = export_policy(bundle)
    converted = []
    real = oxrdflib.store.from_ox
    monkeypatch.setattr(oxrdflib.store, "from_ox", lambda term: converted.append(term) or real(term))
    for name in ("serialize_bundle", "write_quads"):
        monkeypatch.setattr(access, name, refuse)
    for name in ("restrict", "quads", "outgoing", "graph_names"):
        monkeypatch.setattr(ExportPolicy, name, refuse)
    for fmt in RDF_FORMATS:
        assert len(_read(_export(bundle, fmt, policy), fmt)) > 1000, fmt
    sizes = policy.sizes(bundle.dataset)
    assert converted == []
    assert sum(sizes.values()) == len(_read(_export(bundle, "nquads", policy), "nquads"))


def test_the_summary_counts_are_the_stores_count_of_what_was_written(bundles: dict[str, dict[str, Bundle]]) -> None:
    for name in ("examples", "generated"):
        native, python = bundles[name]["oxigraph"], bundles[name]["memory"]
        sizes = export_policy(native).sizes(native.dataset)
        assert sizes == export_policy(python).sizes(python.dataset)
        quads = _read(_export(native, "nquads"), "nquads")
        assert sum(sizes.values()) == len(quads) and len(sizes) == len({q.graph_name for q in quads})


@pytest.fixture
def unsplittable(tmp_path: Path) -> Path:
    """A memory with a property key ``2024``: the predicate ``mifp:2024`` has no XML element name."""
    (tmp_path / "station.md").write_text(
        TRICKY.replace("  price: 1.50\n", '  price: 1.50\n  "2024": degraded\n'), encoding="utf-8"
    )
    return tmp_path


@pytest.mark.parametrize("store", ["oxigraph", "memory"])
def test_rdfxml_that_cannot_name_a_predicate_is_a_clear_error(unsplittable: Path, store: str) -> None:
    out = io.BytesIO()
    with pytest.raises(
        MifRdfError, match=r"^RDF/XML cannot write this graph \(.*property/2024.*\); use turtle or nquads$"
    ) as caught:
        export_bundle(load_bundle(unsplittable, store=store, progress=False), "rdfxml", out)
    if store == "oxigraph":
        assert "station.md" in str(caught.value) and out.getvalue() == b""  # names the file, and stops before writing


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mif_rdf.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_cli_rdfxml_refusal_is_one_line_from_oxigraph(unsplittable: Path, tmp_path: Path) -> None:
    done = _cli("export", unsplittable, "--store", "oxigraph", "--format", "rdfxml", "-o", tmp_path / "out.rdf")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        "RDF/XML cannot write this graph (https://mif-spec.dev/ns/property/2024 has no XML element name; it is used "
        "in station.md)" in done.stderr
    )


def _summary(stderr: str, target: Path) -> str:
    [line] = [line for line in stderr.splitlines() if line.startswith("wrote ")]
    return line.replace(str(target), "OUT")


@pytest.mark.parametrize(
    ("command", "extra", "name"), [("export", ("--format", "ttl"), "out.ttl"), ("load", (), "out.trig")]
)
def test_cli_native_export_says_what_the_memory_store_says(
    tmp_path: Path, command: str, extra: tuple[str, ...], name: str
) -> None:
    """`mif-rdf export --store oxigraph --format ttl -o out.ttl`,
    `mif-rdf load --store oxigraph -o out.trig`: the same summary."""
    summaries, files = {}, {}
    for store in ("oxigraph", "memory"):
        target = tmp_path / store / name
        done = _cli(command, EXAMPLES, "--store", store, *extra, "-o", target)
        assert done.returncode == 0, done.stderr
        summaries[store], files[store] = _summary(done.stderr, target), target.read_bytes()
    assert summaries["oxigraph"] == summaries["memory"] and "1 withheld" in summaries["oxigraph"]
    fmt = "turtle" if name.endswith(".ttl") else "trig"
    assert _graphs(_read(files["oxigraph"], fmt), fmt) == _graphs(_read(files["memory"], fmt), fmt)
    counted = re.search(r"(\d+) quads in (\d+) graphs|union of (\d+) graphs \((\d+) quads\)", summaries["oxigraph"])
    assert counted is not None
    written = _read(files["oxigraph"], fmt)
    if fmt == "trig":
        assert counted.groups()[:2] == (str(len(written)), str(len({q.graph_name for q in written})))
