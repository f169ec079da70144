"""Shared test helpers: where the fixtures are, and graph comparison by value."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import graph_diff, to_isomorphic
from rdflib.namespace import RDF, XSD

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
BUNDLES = FIXTURES / "bundles"

#: The project's own fixture bundles (every field family of MIF v1.0), beside the example bundle.
FIXTURE_BUNDLES = {
    "core": BUNDLES / "core",
    "levels": BUNDLES / "levels",
    "properties": BUNDLES / "properties",
    "temporal-good": BUNDLES / "temporal" / "good",
    "temporal-bad": BUNDLES / "temporal" / "bad",
    "legacy-0.1": BUNDLES / "legacy-0.1",
    "namespaces": BUNDLES / "namespaces",
    "examples": EXAMPLES,
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shared",
        metavar="PATH",
        default=None,
        help="the shared/ folder with the upstream MIF data: runs the upstream-conformance suite (tests/conformance)",
    )


#: The CLI keeps its loads in the user cache folder by default (issue 37.5): the suite's go to a folder of its
#: own, removed at the end, never into the user's real one (subprocesses inherit it).
_CACHE_HOME = tempfile.mkdtemp(prefix="mif-rdf-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)


def pytest_configure(config: pytest.Config) -> None:
    """The conformance suite never passes by skipping: a missing --shared path is a usage error."""
    shared = config.getoption("shared")
    if shared is not None and not (Path(shared) / "fixtures" / "upstream" / "mif").is_dir():
        raise pytest.UsageError(
            f"--shared {shared}: no fixtures/upstream/mif there; give the path of the shared/ folder"
        )
    if shared is not None:
        os.environ["MIF_SHARED_DIR"] = str(Path(shared).resolve())
    if shared is None and any("conformance" in Path(str(arg)).parts for arg in config.args):
        raise pytest.UsageError(
            "the upstream-conformance suite needs --shared PATH (the shared/ folder): make conformance"
        )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The main suite runs on a bare clone: the conformance suite is collected only with --shared."""
    if collection_path.name == "conformance" and config.getoption("shared") is None:
        return True
    return None


_NUMERIC = {XSD.integer, XSD.decimal, XSD.double, XSD.float}


def _comparable(term: object) -> object:
    """Literals compared by value, as the design asks (pyld writes 0.94 as 9.399999999999999E-1)."""
    if not isinstance(term, Literal):
        return term
    if term.datatype in _NUMERIC:
        return Literal(_number(str(term)), datatype=URIRef("urn:test:number"))
    if term.datatype == XSD.string:
        return Literal(str(term))
    if term.datatype == URIRef(str(RDF) + "JSON"):  # by JSON value: 0.0 == 0, key order free
        return Literal(json.dumps(_json_numbers(json.loads(str(term))), sort_keys=True), datatype=term.datatype)
    if term.datatype is not None and term.value is not None:
        return Literal(f"{term.value!r}", datatype=URIRef(f"urn:test:value:{term.datatype}"))
    return term


def _number(lexical: str) -> str:
    """A number in one comparable form: integers plain, others as pyld writes doubles.

    pyld writes 0.94 as 9.399999999999999E-1 (16 digits) where our loader keeps
    the author's 0.94; formatting both the pyld way makes them equal by value.
    """
    value = float(lexical) + 0.0  # -0.0 == 0
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return re.sub(r"(\d)0*E\+?(-)?0*(\d)", r"\1E\2\3", f"{value:1.15E}")


def _json_numbers(value: object) -> object:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(repr(value))
    if isinstance(value, list):
        return [_json_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    return value


def comparable_graph(triples) -> Graph:
    graph = Graph()
    for s, p, o in triples:
        graph.add((s, p, _comparable(o)))
    return graph


def _ox_iri(text: str) -> ox.NamedNode:
    try:
        return ox.NamedNode(text)
    except ValueError:  # rdflib keeps IRIs Oxigraph refuses (a space, no scheme): kept apart, one to one
        return ox.NamedNode("urn:test:iri:" + quote(text, safe=""))


def _ox_term(term: object, blank: dict) -> object:
    """An rdflib term as an Oxigraph term, one to one: literals keep their exact lexical form, datatype and language."""
    if isinstance(term, BNode):
        return blank.setdefault(term, ox.BlankNode())
    if isinstance(term, URIRef):
        return _ox_iri(str(term))
    if isinstance(term, Literal):  # rdflib tells "a" from "a"^^xsd:string and takes language tags Oxigraph refuses
        kind = (
            f"@{term.language}"
            if term.language is not None
            else f"^{term.datatype}"
            if term.datatype is not None
            else ""
        )
        return ox.Literal(str(term), datatype=ox.NamedNode("urn:test:literal:" + quote(kind, safe="")))
    raise TypeError(f"not an RDF term: {term!r}")


def canonical(triples) -> frozenset:
    """The triples (rdflib terms) with their blank nodes renamed by structure, by Oxigraph's canonicalization (in Rust).

    Two graphs are isomorphic exactly when their canonical sets are equal: the
    canonicalization only renames blank nodes (checked: no two are merged), so
    equal sets are isomorphic graphs, and isomorphic graphs get the same names.
    rdflib's ``isomorphic`` gives the same answer, seconds slower on bundles
    with hundreds of blank nodes.
    """
    blank: dict = {}
    default = ox.DefaultGraph()
    quads = {ox.Quad(*(_ox_term(t, blank) for t in triple), default) for triple in triples}
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    named = frozenset(q.triple for q in dataset)
    renamed = {t for q in named for t in (q.subject, q.object) if isinstance(t, ox.BlankNode)}
    assert len(named) == len(quads) and len(renamed) == len(blank), "the canonicalization merged blank nodes"
    return named


def isomorphic(left, right) -> bool:
    """``rdflib.compare.isomorphic`` by Oxigraph's canonicalization: the same answer, without the seconds."""
    return canonical(left) == canonical(right)


def assert_isomorphic(left, right, label: str = "", by=comparable_graph) -> None:
    a, b = by(left), by(right)
    if not isomorphic(a, b):
        _, only_left, only_right = graph_diff(to_isomorphic(a), to_isomorphic(b))
        raise AssertionError(
            f"{label}: graphs differ\n--- only left:\n{only_left.serialize(format='nt')}\n--- only right:\n"
            f"{only_right.serialize(format='nt')}"
        )


def memory_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md") if p.name not in ("index.md", "log.md") and ".mif" not in p.parts)


@pytest.fixture(scope="session")
def example_bundle():
    from mif_rdf import load_bundle

    return load_bundle(EXAMPLES)


def write_file(root: Path, relpath: str, text: str | bytes) -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def memory_text(
    memory_id: str,
    extra: str = "",
    body: str = "Body.\n",
    kind: str = "semantic",
    created: str = "2026-01-15T10:30:00Z",
) -> str:
    return f"---\nid: {memory_id}\ntype: {kind}\ncreated: {created}\n{extra}---\n{body}"


def ill_typed_literals(graph) -> list[Literal]:
    """Literals whose lexical form does not fit their datatype, by two readers: rdflib's and owlrl's (stricter)."""
    from owlrl.DatatypeHandling import AltXSDToPYTHON

    bad = []
    for term in set(graph.objects()):
        if not isinstance(term, Literal) or term.datatype is None:
            continue
        try:
            AltXSDToPYTHON.get(term.datatype, str)(str(term))
        except Exception:
            bad.append(term)
            continue
        if term.ill_typed:
            bad.append(term)
    return bad


def relative_paths(graph, folder: Path) -> Graph:
    """File paths in plain literals (sourceFile, messages) made relative to ``folder``, as golden files hold them."""
    out = Graph()
    for s, p, o in graph:
        if isinstance(o, Literal) and o.datatype is None:
            o = Literal(str(o).replace(f"{folder}/", ""), lang=o.language)
        out.add((s, p, o))
    return out


# -- a second JSON-LD processor: pyoxigraph's parser (issue 36 item 7) ---------------------------
def oxigraph_jsonld_graph(document: dict, base: str) -> Graph:
    """What pyoxigraph's JSON-LD parser (in Rust) makes of a document: a second reference beside pyld.

    pyoxigraph loads no remote context, so the published context URL is
    replaced by the pinned context's ``@context`` value, which is what loading
    the URL gives (JSON-LD 1.1 context processing).  Literals keep their exact
    lexical forms (``lexical_literals``).
    """
    from mif_rdf.core.context import MIF_CONTEXT_URL, context_document
    from mif_rdf.rdf.reference import lexical_literals

    pinned = context_document(MIF_CONTEXT_URL)["@context"]
    contexts = document.get("@context")
    contexts = contexts if isinstance(contexts, list) else [contexts]
    inlined = {**document, "@context": [pinned if c == MIF_CONTEXT_URL else c for c in contexts]}
    blanks: dict = {}

    def term(t: object) -> object:
        if isinstance(t, ox.NamedNode):
            return URIRef(t.value)
        if isinstance(t, ox.BlankNode):
            return blanks.setdefault(t.value, BNode())
        return Literal(t.value, lang=t.language, datatype=None if t.language else URIRef(t.datatype.value))

    graph = Graph()
    with lexical_literals():
        for quad in ox.parse(json.dumps(inlined).encode("utf-8"), format=ox.RdfFormat.JSON_LD, base_iri=base):
            graph.add((term(quad.subject), term(quad.predicate), term(quad.object)))
    return graph


def exact_number(lexical: str) -> str | None:
    """A number's exact decimal value (``0.94``, ``9.4E-1`` and ``0.940`` are one value;
    ``9.399999999999999E-1`` is another)."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(lexical.strip())
    except InvalidOperation:
        return None
    return format(value.normalize() + 0, "f") if value.is_finite() else str(value)  # + 0: -0 is 0


def exact_value_graph(triples) -> Graph:
    """Like :func:`comparable_graph`, but numbers by their exact value, datatype kept (not rounded to pyld's 16 digits).

    One documented exception (docs/decisions.md, "Numbers"): a YAML float with
    no fraction (``0.0``) stays an ``xsd:double`` in mif-rdf where JSON-LD
    processors make the JSON number ``0.0`` an ``xsd:integer``.
    """
    graph = Graph()
    for s, p, o in triples:
        if isinstance(o, Literal) and o.datatype in _NUMERIC and exact_number(str(o)) is not None:
            value = exact_number(str(o))
            integral = o.datatype in (XSD.integer, XSD.double) and value.lstrip("-").isdigit()
            o = Literal(value, datatype=URIRef(f"urn:test:exact:{'integral' if integral else o.datatype}"))
        else:
            o = _comparable(o)
        graph.add((s, p, o))
    return graph


def assert_same_values(left, right, label: str = "") -> None:
    """Isomorphic with every number equal in value exactly and of the same datatype."""
    assert_isomorphic(left, right, label, by=exact_value_graph)


def validate_but_spec_dates(bundle, **options):
    """:func:`mif_rdf.validation.validate` without the notes on the spec's own date forms.

    The spec writes ``accessed: 2026-01-20`` where the context types an
    ``xsd:dateTime``: every memory built from its examples gets one
    ``ill-typed-literal`` note (issue 37.2, tested in test_interop_ill_typed.py);
    tests of other rules look past them.
    """
    from mif_rdf.core.errors import Severity
    from mif_rdf.rdf.projection import ILL_TYPED
    from mif_rdf.validation import validate

    report = validate(bundle, **options)
    report.results = [r for r in report.results if not (r.rule == ILL_TYPED and r.severity == Severity.INFO)]
    return report
