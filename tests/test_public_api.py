"""Nothing moves for users (issue 30, item 3): every name a user imported before the
move into subpackages still imports.

The lists below are the public names of release 0598205, the last commit of
the flat layout: the ``__all__`` of each module then (``mif_rdf``'s was the
keys of its ``_HOMES``), and for the modules that declared none
(``reasoning``, ``remote``, ``bundle``) their public module-level names minus
the loader's internals ``bundle.py`` held then (``place_triples``,
``fill``, ... now live in :mod:`mif_rdf.load`).  A name that disappears, or no
longer imports, fails here before it fails a user.  The docs' and notebooks'
own imports, and the dotted paths their prose names, must resolve too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef

from conftest import EXAMPLES, REPO

#: module -> the names users imported from it at release 0598205
RELEASED: dict[str, tuple[str, ...]] = {
    "mif_rdf": (
        "Bundle",
        "EntityRecord",
        "MemoryRecord",
        "load_bundle",
        "new_dataset",
        "export",
        "MifRdfError",
        "Problem",
        "ProblemLog",
        "Severity",
        "Suggestion",
        "SuggestionReport",
        "suggest",
        "read_dataset",
        "recover_files",
        "write_bundle",
    ),
    "mif_rdf.bundle": ("Bundle", "EntityRecord", "MemoryRecord", "Link", "load_bundle", "new_dataset"),
    "mif_rdf.queries": (
        "FORMATS",
        "INIT_NS",
        "TRUST_LEVELS",
        "QuerySyntaxError",
        "Table",
        "conflicts",
        "current_version",
        "decay_profiles",
        "format_result",
        "freshness",
        "memories_about",
        "memories_between",
        "memories_in_namespace",
        "memories_of_class",
        "memories_of_type",
        "memories_with_tag",
        "memory_at_uri",
        "neighbours",
        "python_value",
        "recorded_by",
        "relationship_edges",
        "check_query_safety",
        "compact_iri",
        "run_query",
        "run_update",
        "select",
        "supersession_chain",
        "trusted",
        "valid_at",
    ),
    "mif_rdf.validation": ("ValidationReport", "validate"),
    "mif_rdf.ontology": (
        "BoundOntologies",
        "add_types_graph",
        "OntologyReference",
        "bundle_ontologies",
        "memory_references",
        "Compilation",
        "Registry",
        "builtin_dir",
        "compile_ontologies",
        "compile_owl",
        "compile_shapes",
        "search_path",
        "user_ontology_dirs",
        "vocabulary",
    ),
    "mif_rdf.reasoning": ("RDF_SUFFIXES", "ontology_graph", "infer", "FastRules", "fast_closure", "owlrl_closure"),
    "mif_rdf.remote": ("OXIGRAPH_UNION", "FUSEKI_UNION", "RemoteStore", "remote_dataset", "union_params_for"),
    "mif_rdf.graph_figure": ("relationship_figure",),
    "mif_rdf.shacl": ("Unsupported", "Validation", "run", "validate"),
    "mif_rdf.nsmodel": (
        "GRAPH_INHERITED",
        "GRAPH_NAMESPACES",
        "Agreement",
        "Audience",
        "Inherited",
        "NamespaceFile",
        "NamespaceModel",
        "ReservedPrefix",
        "audience_for",
        "model_graphs",
        "namespace_uri",
        "read_namespace_model",
    ),
    "mif_rdf.push": (
        "Action",
        "Credentials",
        "ExportPolicy",
        "GraphStore",
        "HttpClient",
        "Manifest",
        "Plan",
        "PushResult",
        "RetryPolicy",
        "StoreAuthError",
        "StoreError",
        "StoreFailed",
        "StoreRejected",
        "StoreTimeout",
        "StoreUnreachable",
        "Withheld",
        "execute",
        "export_bundle",
        "export_policy",
        "graph_hash",
        "local_only",
        "plan_push",
        "push_bundle",
        "read_manifest",
        "withheld_reason",
    ),
    "mif_rdf.serve": ("Access", "BundleServer", "Limits", "ServedBundle", "Watcher", "is_loopback", "start", "stop"),
}
#: the modules whose ``__all__`` was their public face then, and still must be (a type checker reads it)
DECLARED = ("mif_rdf", "mif_rdf.queries", "mif_rdf.validation", "mif_rdf.ontology", "mif_rdf.graph_figure")
DECLARED += ("mif_rdf.shacl", "mif_rdf.nsmodel", "mif_rdf.push", "mif_rdf.serve")

CASES = [pytest.param(module, name, id=f"{module}.{name}") for module, names in RELEASED.items() for name in names]
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize(("module", "name"), CASES)
def test_released_name_imports(module: str, name: str) -> None:
    value = getattr(importlib.import_module(module), name, None)
    assert value is not None, f"`from {module} import {name}` worked at release 0598205 and no longer does"
    if module in DECLARED:
        assert name in importlib.import_module(module).__all__, f"{module}.{name} left {module}.__all__"


def test_the_bundle_a_user_loads_is_the_public_bundle() -> None:
    """``load_bundle`` hands out the public Bundle (with ``query``, ``export``), which is a LoadedBundle."""
    import mif_rdf
    from mif_rdf.load.bundle import LoadedBundle

    bundle = mif_rdf.load_bundle(EXAMPLES)
    assert type(bundle) is mif_rdf.Bundle
    assert isinstance(bundle, LoadedBundle) and mif_rdf.LoadedBundle is LoadedBundle
    concepts = {row[0] for row in bundle.query("SELECT ?m WHERE { ?m a mif:Concept }")}
    assert len(bundle.memories) > 0 and {URIRef(m.iri) for m in bundle.memories.values()} <= concepts


def test_rdflib_plugin_entry_point() -> None:
    """rdflib finds the ``mif`` parser by its entry point; importing mif_rdf also lets it read a folder."""
    (parser,) = [e for e in entry_points(group="rdf.plugins.parser") if e.name == "mif"]
    assert parser.value == "mif_rdf.rdfplugin:MifParser"
    assert parser.load().__name__ == "MifParser"
    # a fresh interpreter, nothing of ours imported: rdflib loads the plugin for a file inside the bundle
    script = (
        "import rdflib; "
        f"print(len(rdflib.Dataset().parse({str(EXAMPLES / 'semantic' / 'idempotency-policy.md')!r}, "
        "format='mif')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0
    import mif_rdf  # noqa: F401  (installs the folder source)

    union = Graph().parse(str(EXAMPLES), format="mif")
    dataset = Dataset().parse(str(EXAMPLES), format="mif")
    assert len(union) > 0
    assert len({(s, p, o) for s, p, o, _ in dataset.quads((None, None, None, None))}) == len(
        union
    )  # blank nodes differ
    assert len(set(dataset.graphs())) > 1


@pytest.mark.parametrize(
    "command",
    [[str(Path(sys.executable).parent / "mif-rdf")], [sys.executable, "-m", "mif_rdf.cli"]],
    ids=["console-script", "python-m"],
)
def test_command_line_entry_points(command: list[str]) -> None:
    done = subprocess.run([*command, "load", str(EXAMPLES)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "memories" in done.stdout and "Traceback" not in done.stderr
    version = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and "0." in version.stdout + version.stderr


def _python_blocks(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def _imports(code: str) -> list[tuple[str, str | None]]:
    """(module, name) for each ``from mif_rdf... import name`` and (module, None) for each ``import mif_rdf...``."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a block with a placeholder (``...``) line: read its import lines alone
        tree = ast.parse("\n".join(line for line in code.splitlines() if re.match(r"\s*(from|import) mif_rdf", line)))
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mif_rdf":
            found += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "mif_rdf"]
    return found


DOC_IMPORTS = sorted(
    {
        (path.relative_to(REPO).as_posix(), module, name)
        for path in [*DOCS, *NOTEBOOKS]
        for block in _python_blocks(path)
        for module, name in _imports(block)
    },
    key=str,
)


def test_the_docs_import_from_mif_rdf() -> None:
    documents = {doc for doc, _, _ in DOC_IMPORTS}
    assert len(DOC_IMPORTS) > 30
    assert {"README.md", "docs/queries.md", "docs/validation.md", "notebooks/explore.ipynb"} <= documents


@pytest.mark.parametrize(("doc", "module", "name"), DOC_IMPORTS, ids=[f"{d}:{m}.{n}" for d, m, n in DOC_IMPORTS])
def test_doc_import_resolves(doc: str, module: str, name: str | None) -> None:
    imported = importlib.import_module(module)
    if name is not None:
        assert getattr(imported, name, None) is not None or importlib.util.find_spec(f"{module}.{name}"), (
            f"{doc}: `from {module} import {name}` fails"
        )


def _dotted_paths(path: Path) -> set[str]:
    """The ``mif_rdf.x.y`` paths a document's text names (code spans, prose, notebook markdown)."""
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r"(?<![\w/.])mif_rdf(?:\.[A-Za-z_]\w*)+", text))


DOTTED = sorted({(path.relative_to(REPO).as_posix(), p) for path in [*DOCS, *NOTEBOOKS] for p in _dotted_paths(path)})


def _resolve(dotted: str) -> object:
    """The module or attribute ``dotted`` names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize(("doc", "dotted"), DOTTED, ids=[f"{d}:{p}" for d, p in DOTTED])
def test_dotted_path_in_the_docs_resolves(doc: str, dotted: str) -> None:
    """A module path the docs name exists: after a module moves or splits, the docs move with it."""
    try:
        _resolve(dotted)
    except (ModuleNotFoundError, AttributeError) as error:
        pytest.fail(f"{doc} names {dotted}, which does not resolve ({error})")
