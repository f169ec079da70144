"""Conflict rules exactly as strict as spec 10.8.6 (issue 16), on the project's own corpus.

Errors only for what the spec requires or what makes the output meaningless;
every other disagreement compiles with a warning naming both definitions and
both files, follows the precedence of docs/ontology.md, and is an error with
``strict``.  The corpus reproduces the four shapes of the published corpus
that a stricter compiler refused: a subtype redefining a supertype field
(lab), a supertype field against a trait field of the subtype (agri), two
parents defining a trait differently (kit-joint), an undefined trait (the
spec's 10.8.3 example, spec-component).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import RDFS

from conftest import FIXTURES, write_file
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.namespaces import MIF
from mif_rdf.ontology import compile_ontologies
from mif_rdf.ontology.compiler import Compilation
from mif_rdf.ontology.iris import MIFO
from mif_rdf.ontology.model import STRICT_RULES

CORPUS = FIXTURES / "ontology" / "corpus"
CORPUS_REFS = sorted(p.name.split(".")[0] for p in CORPUS.glob("*.ontology.yaml"))
SPEC_TRAITS = FIXTURES / "ontology" / "spec-traits.ontology.yaml"
ONT = "https://mif-spec.dev/ontologies/"
#: the ontologies of the corpus that hold one of the four shapes (or extend one that does)
LENIENT = {"agri", "kit-joint", "lab", "lab-field", "spec-component"}


def compiled(ref: str | Path, **options: object) -> Compilation:
    return compile_ontologies([ref], search_path=[CORPUS], **options)  # type: ignore[arg-type]


def strict_warnings(result: Compilation) -> list[str]:
    return [str(w) for w in result.warnings if w.rule in STRICT_RULES]


def fields(result: Compilation, ontology: str, entity: str) -> dict[str, dict]:
    composer = next(c for c in result.composers if c.view.id == ontology)
    return {name: f.schema for name, f in composer.compose(entity).fields.items()}


@pytest.mark.parametrize("ref", CORPUS_REFS)
def test_every_corpus_ontology_compiles_and_strict_refuses_exactly_the_four_shapes(ref: str) -> None:
    result = compiled(ref)
    assert bool(strict_warnings(result)) is (ref in LENIENT), strict_warnings(result)
    if ref in LENIENT:
        with pytest.raises(MifRdfError, match=r"\(--strict"):
            compiled(ref, strict=True)
    else:
        compiled(ref, strict=True)


def test_a_subtype_redefining_a_supertype_field_type_compiles_with_a_warning_and_the_subtype_wins() -> None:
    """lab: quantity.value is a number, its supertype measurement.value text."""
    result = compiled("lab")
    (warning,) = strict_warnings(result)
    assert "entity type 'quantity' of ontology 'lab': field 'value' is {type: number}" in warning
    assert "{type: string} in its supertype 'measurement'" in warning
    assert warning.count("lab.ontology.yaml") >= 3  # the file, and the file of each definition
    assert fields(result, "lab", "quantity")["value"] == {"type": "number"}
    assert fields(result, "lab", "measurement")["value"] == {"type": "string"}
    assert fields(result, "lab", "reading")["value"] == {"type": "integer"}  # narrows quantity's number: no warning
    assert (URIRef(ONT + "lab/quantity"), RDFS.subClassOf, URIRef(ONT + "lab/measurement")) in result.owl


def test_an_ontology_extending_one_with_a_subtype_warning_compiles_and_reports_it_once() -> None:
    result = compiled("lab-field")
    assert len(strict_warnings(result)) == 1 and "'quantity'" in strict_warnings(result)[0]
    assert fields(result, "lab-field", "sample")["value"] == {"type": "number"}  # through quantity


def test_a_trait_field_overrides_a_supertype_field_with_a_warning_naming_both() -> None:
    """agri: farm is subtype_of site (location: text) and has trait geolocated (location: a mapping)."""
    result = compiled("agri")
    (warning,) = strict_warnings(result)
    assert (
        "field 'location' is {properties: {lat: {type: number}, lon: {type: number}}, type: object} in trait "
        "'geolocated'" in warning
    )
    assert "{type: string} in its supertype 'site' (entity type 'site' of ontology 'agri'" in warning
    assert fields(result, "agri", "farm")["location"]["type"] == "object"
    assert "site_name" in fields(result, "agri", "farm")  # still inherits the rest


def test_parents_defining_a_trait_differently_compile_with_a_warning_and_the_later_parent_wins() -> None:
    """kit-joint extends kit-left and kit-right, which define trait `reviewable` differently; nothing composes it."""
    result = compiled("kit-joint")
    (warning,) = strict_warnings(result)
    assert (
        "ontology 'kit-joint' extends 'kit-left' and 'kit-right', which define trait 'reviewable' differently"
        in warning
    )
    assert "kit-left.ontology.yaml" in warning and "kit-right.ontology.yaml" in warning
    assert "the later parent in extends wins ('kit-right')" in warning
    assert result.roots[0].traits["reviewable"].origin.ontology == "kit-right"


def test_an_entity_type_composing_the_disputed_trait_gets_the_later_parents(tmp_path: Path) -> None:
    child = write_file(
        tmp_path,
        "child.ontology.yaml",
        textwrap.dedent("""
        ontology: {id: child, version: "1.0.0", extends: [kit-right, kit-left]}
        entity_types:
          - {name: review, base: episodic, traits: [reviewable]}
    """),
    )
    result = compile_ontologies([child], search_path=[CORPUS])
    assert fields(result, "child", "review")["review_state"] == {
        "type": "string",
        "enum": ["pending", "approved"],
    }  # kit-left: later here
    assert any("the later parent in extends wins ('kit-left')" in w for w in strict_warnings(result))


def test_a_child_defining_the_disputed_trait_itself_chooses_without_a_warning(tmp_path: Path) -> None:
    child = write_file(
        tmp_path,
        "child.ontology.yaml",
        textwrap.dedent("""
        ontology: {id: child, version: "1.0.0", extends: [kit-left, kit-right]}
        traits:
          reviewable: {fields: {review_state: {type: string}}}
    """),
    )
    result = compile_ontologies([child], search_path=[CORPUS], strict=True)
    assert result.roots[0].traits["reviewable"].origin.ontology == "child"


def test_parents_defining_an_entity_type_differently_compile_with_a_warning(tmp_path: Path) -> None:
    for name, kind in (("left", "string"), ("right", "integer")):
        write_file(
            tmp_path,
            f"{name}.ontology.yaml",
            f"ontology: {{id: {name}}}\nentity_types:\n"
            f"  - {{name: memo, base: semantic, schema: {{properties: {{code: {{type: {kind}}}}}}}}}\n",
        )
    write_file(tmp_path, "both.ontology.yaml", "ontology: {id: both, extends: [left, right]}\n")
    result = compile_ontologies(["both"], search_path=[tmp_path])
    assert any("which define entity type 'memo' differently" in w for w in strict_warnings(result))
    assert fields(result, "both", "memo")["code"] == {"type": "integer"}


def test_the_spec_10_8_3_example_compiles_without_its_undefined_trait() -> None:
    """component uses traits [versioned, documented]; kit-base defines versioned, nothing defines documented."""
    result = compiled("spec-component")
    (warning,) = strict_warnings(result)
    assert warning.startswith(str(CORPUS / "spec-component.ontology.yaml"))
    assert (
        "entity type 'component' of ontology 'spec-component' uses trait 'documented', which is not defined" in warning
    )
    assert set(fields(result, "spec-component", "component")) == {
        "name",
        "responsibility",
        "dependencies",
        "version_tag",
    }
    component = URIRef(ONT + "spec-component/component")
    assert (component, MIF.definesTrait, URIRef(ONT + "kit-base/trait/versioned")) in result.owl
    assert (component, MIFO.traits, Literal("documented")) in result.owl  # kept, not as a trait IRI that names nothing


def test_a_trait_extending_an_undefined_trait_is_a_warning(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "t.ontology.yaml",
        textwrap.dedent("""
        ontology: {id: t}
        traits:
          child: {extends: [ghost], fields: {code: {type: string}}}
        entity_types:
          - {name: thing, base: semantic, traits: [child, child]}
    """),
    )
    result = compile_ontologies([path])
    (warning,) = strict_warnings(result)  # once, however often the trait is used
    assert "trait 'child' of ontology 't' uses trait 'ghost', which is not defined" in warning
    assert set(fields(result, "t", "thing")) == {"code"}


def test_two_supertypes_that_disagree_compile_and_the_first_listed_wins(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        "t.ontology.yaml",
        textwrap.dedent("""
        ontology: {id: t}
        entity_types:
          - {name: a, base: semantic, schema: {properties: {size: {type: integer}}}}
          - {name: b, base: semantic, schema: {properties: {size: {type: string}}}}
          - {name: ab, base: semantic, subtype_of: [a, b]}
    """),
    )
    result = compile_ontologies([path])
    assert fields(result, "t", "ab")["size"] == {"type": "integer"}
    (warning,) = strict_warnings(result)
    assert "field 'size' is {type: integer} in entity type 'a'" in warning and "in its supertype 'b'" in warning


def test_the_spec_10_8_6_examples_compile_strictly() -> None:
    """Diamond through a shared ancestor, child trait over parent, entity schema resolving a conflict: no warning."""
    result = compile_ontologies([SPEC_TRAITS], strict=True)
    assert not strict_warnings(result)


@pytest.mark.parametrize(
    "body, error",
    [
        (
            "traits:\n  a: {fields: {s: {type: string}}}\n  b: {fields: {s: {type: integer}}}\n"
            "entity_types:\n  - {name: x, base: semantic, traits: [a, b]}\n",
            "field 's' is defined differently by trait 'a'",
        ),
        ("entity_types:\n  - {name: x, base: semantic, subtype_of: [x]}\n", "is subtype_of itself"),
        (
            "entity_types:\n  - {name: x, base: semantic, subtype_of: [y]}\n",
            "is subtype_of 'y', which is not an entity type",
        ),
        (
            "entity_types:\n  - {name: x, base: semantic, subtype_of: [y]}\n"
            "  - {name: y, base: semantic, subtype_of: [x]}\n",
            "subtype_of cycle",
        ),
        (
            "entity_types:\n  - {name: p, base: semantic, schema: {required: [k]}}\n"
            "  - {name: c, base: semantic, subtype_of: [p], schema: {required: [j]}}\n",
            "does not require 'k'",
        ),
    ],
)
def test_what_the_spec_requires_stays_an_error(tmp_path: Path, body: str, error: str) -> None:
    path = write_file(tmp_path, "e.ontology.yaml", "ontology: {id: e}\n" + body)
    with pytest.raises(MifRdfError, match=error) as err:
        compile_ontologies([path])
    assert str(err.value).startswith(str(path))


def test_cli_strict_turns_the_warnings_into_a_one_line_error() -> None:
    command = [sys.executable, "-m", "mif_rdf.cli", "ontology", "compile", "agri", "--path", str(CORPUS)]
    lenient = subprocess.run(command, capture_output=True, text=True, check=False)
    assert lenient.returncode == 0, lenient.stderr
    assert "warning [location]" in lenient.stderr and "@prefix agri:" in lenient.stdout
    strict = subprocess.run(command + ["--strict"], capture_output=True, text=True, check=False)
    assert strict.returncode == 2 and strict.stdout == ""
    assert strict.stderr.count("\n") == 1 and strict.stderr.startswith("mif-rdf: error: ")
    assert "field 'location'" in strict.stderr and strict.stderr.rstrip().endswith("(--strict)")
    assert "Traceback" not in strict.stderr + lenient.stderr
