"""Issue 17 on the upstream data: projections other tools read, the upstream JSON Schema, lossless round trips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from upstream import SCHEMA, UPSTREAM_BUNDLES

from mif_rdf import load_bundle
from mif_rdf.core.context import MIF_CONTEXT_URL
from test_interop_projection import (
    check_projection_passes_every_field_through,
    check_projections_expand_with_only_the_published_context,
    converted,
)
from test_interop_roundtrip import check_round_trip_with_form

BUNDLES = list(UPSTREAM_BUNDLES)


@pytest.mark.parametrize("name", BUNDLES)
def test_upstream_projections_expand_with_only_the_published_context(name: str, tmp_path: Path) -> None:
    check_projections_expand_with_only_the_published_context(UPSTREAM_BUNDLES[name], tmp_path)


@pytest.mark.parametrize("name", BUNDLES)
def test_upstream_projections_pass_every_field_through(name: str, tmp_path: Path) -> None:
    check_projection_passes_every_field_through(UPSTREAM_BUNDLES[name], tmp_path)


@pytest.mark.parametrize("name", BUNDLES)
@pytest.mark.parametrize("via", ["jsonld", "nquads"])
def test_upstream_bundles_round_trip_with_their_form(name: str, via: str, capsys) -> None:
    check_round_trip_with_form(UPSTREAM_BUNDLES[name], via, capsys)


def schema_validator() -> Draft202012Validator:
    """The upstream MIF JSON Schema, with the definitions it refers to."""
    resources = []
    for path in [SCHEMA / "mif.schema.json", *sorted((SCHEMA / "definitions").glob("*.json"))]:
        document = json.loads(path.read_text(encoding="utf-8"))
        resources.append((document["$id"], Resource.from_contents(document)))
    registry = Registry().with_resources(resources)
    return Draft202012Validator(json.loads((SCHEMA / "mif.schema.json").read_text(encoding="utf-8")), registry=registry)


def spec_projection(frontmatter: dict[str, Any], body: str) -> dict[str, Any]:
    """Spec 15.1 done by hand, nothing else: the oracle for which memories the schema accepts at all."""
    document: dict[str, Any] = {"@context": MIF_CONTEXT_URL, "@type": "Concept", "@id": f"urn:mif:{frontmatter['id']}"}
    if "type" in frontmatter:
        document["conceptType"] = frontmatter["type"]
    document.update((k, v) for k, v in frontmatter.items() if k not in ("id", "type"))
    document["content"] = body
    mirror = frontmatter.get("modified") or frontmatter.get("created")
    if isinstance(mirror, str):
        document.setdefault("timestamp", mirror)
    if isinstance(frontmatter.get("summary"), str):
        document.setdefault("description", frontmatter["summary"])
    return json.loads(json.dumps(document, default=str))


def _errors(validator: Draft202012Validator, document: dict[str, Any]) -> set[str]:
    return {f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)}


@pytest.mark.parametrize("name", BUNDLES)
def test_the_upstream_schema_accepts_every_projection_of_a_schema_valid_memory(name: str, tmp_path: Path) -> None:
    """Item 2: the projection adds no schema error; a memory the schema accepts projects to a document it accepts."""
    validator = schema_validator()
    bundle = load_bundle(UPSTREAM_BUNDLES[name])
    documents = converted(UPSTREAM_BUNDLES[name], tmp_path)
    accepted = 0
    for record in bundle.memories.values():
        ours = _errors(validator, documents[record.relpath])
        oracle = _errors(validator, spec_projection(record.frontmatter, record.body))
        assert ours <= oracle, f"{record.relpath}: the projection adds schema errors {sorted(ours - oracle)}"
        accepted += not oracle
    assert accepted or name in ("upstream-temporal-bad", "upstream-legacy-0.1"), (
        "no memory the schema accepts: the check proves nothing"
    )
