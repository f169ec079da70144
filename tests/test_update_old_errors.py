"""Write-back's validation gate and errors the bundle already had (issue 31): an old error is no reason to refuse.

The gate validates the changed files twice, as they are and as they would be,
each set in a scratch bundle of its own (``before/``, ``after/``), and refuses
only errors that are new.  An ontology rule's message names the ontology
file by its full path, which is the scratch bundle's: compared as written,
``.../before/.mif/ontologies/ops.ontology.yaml`` and ``.../after/...`` made an
old error look new, and an update of a memory that broke a rule of its ontology
was refused (7 false refusals in the 10,000-memory bench row of session 12).
The fix (:func:`mif_rdf.output.update.refusals.validation_refusals`) names the
bundle's own folder in the messages.  With the scratch paths put back (the
messages compared as the scratch bundles' validation writes them), the first
test's update is refused and the third test's refusal names ``.../after/...``:
both fail (checked when the tests were written); the second is the neighbour
the old code also passed (the broken memory is not copied to the scratch bundles).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mif_rdf.bundle import load_bundle
from mif_rdf.output.update import update_bundle
from mif_rdf.validation import validate

ONTOLOGY = """\
ontology:
  id: ops
  version: "1.0.0"
entity_types:
  - name: component
    base: semantic
    schema:
      required: [name]
      properties:
        name: {type: string}
        tier: {type: integer, enum: [1, 2]}
"""

BROKEN = "11111111-1111-4111-8111-111111111111"  # its entity breaks the ontology: tier 3
CLEAN = "22222222-2222-4222-8222-222222222222"


def _memory(memory_id: str, title: str, tier: int) -> str:
    return f"""\
---
id: {memory_id}
type: semantic
created: 2026-01-10T09:00:00Z
namespace: _semantic/components
title: {title}
tags:
- ops
ontology:
  id: ops
  version: "1.0.0"
entity:
  name: {title}
  entity_type: component
  tier: {tier}
---

# {title}

A component of the platform.
"""


def _bundle(root: Path) -> Path:
    (root / ".mif" / "ontologies").mkdir(parents=True)
    (root / ".mif" / "config.yaml").write_text('mif_version: "1.0.0"\nconformance_level: 3\n', encoding="utf-8")
    (root / ".mif" / "ontologies" / "ops.ontology.yaml").write_text(ONTOLOGY, encoding="utf-8")
    (root / "semantic").mkdir()
    (root / "semantic" / "gateway.md").write_text(_memory(BROKEN, "Gateway", 3), encoding="utf-8")
    (root / "semantic" / "ledger.md").write_text(_memory(CLEAN, "Ledger", 1), encoding="utf-8")
    return root


def _retag(memory_id: str) -> str:
    return f'INSERT DATA {{ GRAPH <urn:mif:{memory_id}> {{ <urn:mif:{memory_id}> mif:tags "reviewed" }} }}'


def _old_error(root: Path) -> str:
    """The bundle's own error on the broken memory, which names the ontology file by its path."""
    errors = [p for p in validate(load_bundle(root), 3).errors if p.path == "semantic/gateway.md"]
    assert [p.rule for p in errors] == ["ontology-entity-schema"], errors
    assert str(root / ".mif" / "ontologies" / "ops.ontology.yaml") in errors[0].message
    return errors[0].message


def test_an_update_of_a_memory_with_an_old_ontology_error_is_written(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "bundle")
    old = _old_error(root)
    result = update_bundle(load_bundle(root), _retag(BROKEN))
    assert result.refusals == [] and result.written and result.changed == ["semantic/gateway.md"]
    text = (root / "semantic" / "gateway.md").read_text(encoding="utf-8")
    assert "- ops\n- reviewed\n" in text and "  tier: 3\n" in text
    assert _old_error(root) == old  # the same error as before, no other


def test_an_update_of_another_memory_is_written(tmp_path: Path) -> None:
    root = _bundle(tmp_path / "bundle")
    before = (root / "semantic" / "gateway.md").read_bytes()
    result = update_bundle(load_bundle(root), _retag(CLEAN))
    assert result.refusals == [] and result.written and result.changed == ["semantic/ledger.md"]
    assert "- ops\n- reviewed\n" in (root / "semantic" / "ledger.md").read_text(encoding="utf-8")
    assert (root / "semantic" / "gateway.md").read_bytes() == before


def test_a_new_error_under_the_same_rule_is_still_refused(tmp_path: Path) -> None:
    """The gate still sees an error the change adds to a memory of the same ontology (the clean one's tier 1 -> 3),
    and names the bundle's ontology file, not a scratch copy's; nothing is written."""
    root = _bundle(tmp_path / "bundle")
    before = (root / "semantic" / "ledger.md").read_bytes()
    update = (
        f"DELETE {{ GRAPH <urn:mif:{CLEAN}> {{ ?e mif:tier 1 }} }} "
        f"INSERT {{ GRAPH <urn:mif:{CLEAN}> {{ ?e mif:tier 3 }} }} "
        f"WHERE {{ GRAPH <urn:mif:{CLEAN}> {{ <urn:mif:{CLEAN}> mif:entity ?e . ?e mif:tier 1 }} }}"
    )
    result = update_bundle(load_bundle(root), update)
    assert not result.written and [(p.path, p.rule) for p in result.refusals] == [
        ("semantic/ledger.md", "write-back-validation")
    ]
    assert str(root / ".mif" / "ontologies" / "ops.ontology.yaml") in result.refusals[0].message
    assert (root / "semantic" / "ledger.md").read_bytes() == before


def test_changed_files_without_errors_are_validated_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No error in the changed files after the change: nothing can be new, so the files as they were are not
    validated (one scratch bundle, not two); with an error after it, both sides are (the first test's case)."""
    import mif_rdf.validation

    root = _bundle(tmp_path / "bundle")
    bundle = load_bundle(root)
    seen: list[list[str]] = []
    validate_now = mif_rdf.validation.validate

    def counted(checked: Any, level: int) -> Any:
        seen.append(sorted(record.relpath for record in checked.memories.values()))
        return validate_now(checked, level)

    monkeypatch.setattr(mif_rdf.validation, "validate", counted)
    assert update_bundle(bundle, _retag(CLEAN)).written and seen == [["semantic/ledger.md"]]
    seen.clear()
    assert update_bundle(load_bundle(root), _retag(BROKEN)).written and seen == [["semantic/gateway.md"]] * 2
