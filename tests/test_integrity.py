"""Integrity (spec 18.2) and robustness: hashes are checked; nothing a user writes crashes validation."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from conftest import write_file
from mif_rdf import load_bundle, recover_files
from mif_rdf.core.errors import Severity
from mif_rdf.source.integrity import content_hash
from mif_rdf.source.markdown import render_memory
from mif_rdf.validation import validate
from test_equivalence import GENERATED_FRONTMATTER

BODY = "\n# Hashed\n\nThe body is what the hash protects.\n"


def _memory(tmp_path: Path, digest: str, body: str = BODY):
    fm = {"id": "h1", "type": "semantic", "created": "2026-01-15T10:30:00Z", "extensions": {"subcog": {"hash": digest}}}
    write_file(tmp_path, "m.md", render_memory(fm, body))
    return load_bundle(tmp_path)


def test_the_hash_is_sha256_of_the_body_bytes() -> None:
    import hashlib

    assert content_hash(BODY) == "sha256:" + hashlib.sha256(BODY.encode("utf-8")).hexdigest()


def test_a_matching_hash_is_silent(tmp_path: Path) -> None:
    assert [p for p in _memory(tmp_path, content_hash(BODY)).problems if p.rule == "integrity"] == []


def test_a_changed_body_is_an_error_naming_the_key(tmp_path: Path) -> None:
    bundle = _memory(tmp_path, content_hash(BODY), body=BODY + "An edit.\n")
    (problem,) = [p for p in bundle.problems if p.rule == "integrity"]
    assert (problem.path, problem.key, problem.severity) == ("m.md", "extensions.subcog.hash", Severity.ERROR)
    assert content_hash(BODY + "An edit.\n") in problem.message
    assert not validate(bundle, level=1).conforms


def test_a_truncated_digest_is_noted_not_checked(tmp_path: Path) -> None:
    (problem,) = [p for p in _memory(tmp_path, "sha256:4c04b32d").problems if p.rule == "integrity"]
    assert problem.severity == Severity.INFO and "not verified" in problem.message


def test_added_hashes_verify_after_a_round_trip(tmp_path: Path) -> None:
    bundle = _memory(tmp_path / "in", content_hash(BODY))
    bundle.add_content_hashes()
    (text,) = [f.text for f in recover_files(bundle.dataset)]
    write_file(tmp_path / "out", "m.md", text)
    again = load_bundle(tmp_path / "out")
    assert again.memories["h1"].frontmatter["extensions"]["mif-rdf"]["hash"] == content_hash(BODY)
    assert again.memories["h1"].frontmatter["extensions"]["subcog"]["hash"] == content_hash(BODY)
    assert [p for p in again.problems if p.rule == "integrity"] == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter=GENERATED_FRONTMATTER)
def test_validation_never_crashes(frontmatter: dict) -> None:
    """Whatever a frontmatter holds, validation reports; it does not raise."""
    frontmatter = {"id": "p1", "type": "semantic", "created": "2026-01-10T09:00:00Z", **frontmatter}
    with tempfile.TemporaryDirectory() as folder:
        write_file(Path(folder), "p.md", render_memory(frontmatter, "Body.\n"))
        bundle = load_bundle(folder)
        for level in (1, 2, 3):
            report = validate(bundle, level=level)
            assert report.memories == 1
            assert all(r.path for r in report.results)


def test_export_with_hashes_writes_verifiable_digests(tmp_path: Path) -> None:
    from mif_rdf.cli.main import main

    _memory(tmp_path / "in", content_hash(BODY))
    out = tmp_path / "b.nq"
    assert main(["export", str(tmp_path / "in"), "--format", "nquads", "--with-hashes", "-o", str(out)]) == 0
    assert main(["convert", "to-markdown", str(out), "-o", str(tmp_path / "md")]) == 0
    again = load_bundle(tmp_path / "md")
    assert again.memories["h1"].frontmatter["extensions"]["mif-rdf"]["hash"] == content_hash(BODY)
    assert [p for p in again.problems if p.rule == "integrity"] == []
