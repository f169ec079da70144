"""Importing one stage loads that stage and what it needs, not the stages after it (issue 30, review note).

Each case imports a stage in a fresh interpreter and reads ``sys.modules``.
The bounds are the layers of docs/architecture.md: a stage may load the
stages below it (the import contract allows those imports) but none beside
or above it.  Before the package ``__init__``s became lazy, ``import
mif_rdf.ontology`` loaded 47 project modules, the loader among them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: what every case may never load: the top of the import graph
TOP = {"mif_rdf.cli", "mif_rdf.bundle", "mif_rdf.serve", "mif_rdf.notebook", "mif_rdf.push", "mif_rdf.remote"}
LATER = {"mif_rdf.output", "mif_rdf.validation", "mif_rdf.reasoning", "mif_rdf.queries"}


def loaded(statement: str) -> set[str]:
    """The mif_rdf modules a fresh interpreter holds after ``statement``."""
    script = (
        f"import json, sys\n{statement}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('mif_rdf'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(done.stdout))


def within(modules: set[str], packages: set[str]) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)}


@pytest.mark.parametrize(
    ("statement", "forbidden"),
    [
        pytest.param(
            "from mif_rdf.ontology import compile_ontologies, compile_shapes, compile_owl",
            TOP | LATER | {"mif_rdf.load"},
            id="ontology-compiler",
        ),
        pytest.param(
            "from mif_rdf.validation import validate, ValidationReport",
            TOP | {"mif_rdf.output", "mif_rdf.reasoning", "mif_rdf.queries"},
            id="validator",
        ),
        pytest.param(
            "from mif_rdf.shacl import validate",
            TOP | {"mif_rdf.output", "mif_rdf.reasoning", "mif_rdf.queries", "mif_rdf.ontology", "mif_rdf.load.loader"},
            id="shacl-engine",
        ),
        pytest.param(
            "from mif_rdf.output.serialize import serialize_bundle, write_graph_as",
            TOP | {"mif_rdf.validation", "mif_rdf.reasoning", "mif_rdf.queries", "mif_rdf.ontology"},
            id="serializer",
        ),
        pytest.param(
            "from mif_rdf.queries import run_query, memories_with_tag, select",
            TOP | {"mif_rdf.output", "mif_rdf.validation", "mif_rdf.reasoning", "mif_rdf.ontology"},
            id="queries",
        ),
        pytest.param(
            "from mif_rdf.reasoning import infer",
            TOP | {"mif_rdf.output", "mif_rdf.validation", "mif_rdf.queries"},
            id="reasoning",
        ),
    ],
)
def test_a_stage_loads_no_later_stage(statement: str, forbidden: set[str]) -> None:
    modules = loaded(statement)
    assert modules, "the statement imported nothing of mif_rdf"
    assert not within(modules, forbidden), f"`{statement}` loads {sorted(within(modules, forbidden))}"


def test_a_serializer_loads_only_its_own_module_of_the_output_stage() -> None:
    assert within(loaded("import mif_rdf.output.serialize"), {"mif_rdf.output"}) == {
        "mif_rdf.output",
        "mif_rdf.output.serialize",
    }


@pytest.mark.parametrize(
    ("package", "name", "home"),
    [
        ("mif_rdf", "load_bundle", "mif_rdf.bundle"),
        ("mif_rdf.ontology", "compile_ontologies", "mif_rdf.ontology.compiler"),
        ("mif_rdf.validation", "validate", "mif_rdf.validation.run"),
    ],
)
def test_a_lazy_package_loads_a_name_on_first_use(package: str, name: str, home: str) -> None:
    """Importing the package loads none of its stages' work; the first use of a name
    loads the module that defines it."""
    bare = loaded(f"import {package}")
    assert not within(bare, {"mif_rdf.load", "mif_rdf.rdf", home}), sorted(bare)
    used = loaded(f"import {package}\n{package}.{name}")
    assert home in used
