"""Hostile bundles (issue 7): each case is one clear problem and every other memory loads intact."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import REPO, isomorphic
from mif_rdf import load_bundle
from mif_rdf.core.errors import Severity
from mif_rdf.core.limits import Limits
from mif_rdf.validation import validate

HOSTILE = REPO / "tests" / "fixtures" / "hostile"
GOOD = "good.md"
GOOD_ID = "11111111-2222-4333-8444-555555555555"
E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: case file -> (loaded?, expected (severity, rule, words in the message) for that file)
CASES = {
    "unclosed-quote.md": (False, (E, "yaml", "YAML syntax error")),
    "tab-indentation.md": (False, (E, "yaml", "YAML syntax error")),
    "duplicate-keys.md": (True, (W, "yaml", "duplicate key 'title'")),
    "alias-bomb.md": (False, (E, "limit", "expands")),
    "alias-cycle.md": (False, (E, "limit", "refers to itself")),
    "frontmatter-not-closed.md": (False, (E, "frontmatter", "not closed")),
    "empty.md": (False, (E, "frontmatter", "no YAML frontmatter")),
    "yaml-not-mapping.md": (False, (E, "yaml", "mapping")),
    "binary.md": (False, (E, "encoding", "UTF-8")),
    "latin1.md": (False, (E, "encoding", "UTF-8")),
    "bom.md": (True, (I, "encoding", "byte-order mark")),
    "id-with-space.md": (False, (E, "id", "valid IRI")),
    "id-breaks-iris.md": (False, (E, "id", "valid IRI")),
}


def _bundle_with(tmp_path: Path, *names: str, limits: Limits = Limits()):
    for name in (GOOD, *names):
        shutil.copyfile(HOSTILE / name, tmp_path / name)
    return load_bundle(tmp_path, limits=limits)


@pytest.fixture(scope="module")
def good_alone(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("good")
    shutil.copyfile(HOSTILE / GOOD, folder / GOOD)
    return load_bundle(folder, base_iri="mif://local/hostile/").graph(GOOD_ID)


def _good_is_intact(bundle, good_alone) -> None:
    assert GOOD_ID in bundle.memories
    assert isomorphic(bundle.graph(GOOD_ID), good_alone)
    assert not [p for p in bundle.problems if p.path == GOOD]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_file(tmp_path: Path, name: str, good_alone) -> None:
    loaded, (severity, rule, words) = CASES[name]
    bundle = _bundle_with(tmp_path, name)
    bundle_base = load_bundle(tmp_path, base_iri="mif://local/hostile/")
    _good_is_intact(bundle_base, good_alone)
    found = [p for p in bundle.problems if p.path == name]
    assert [(p.severity, p.rule) for p in found if p.rule == rule] == [(severity, rule)], found
    assert words in next(p for p in found if p.rule == rule).message
    assert (len(bundle.memories) == 2) is loaded


def test_crlf_body_is_kept_byte_for_byte(tmp_path: Path) -> None:
    bundle = _bundle_with(tmp_path, "crlf.md")
    record = bundle.memory_by_path("crlf.md")
    assert record is not None and record.frontmatter["title"] == "Windows"
    assert record.body == "\r\nLine one.\r\nLine two.\r\n"


def test_dashes_in_the_body_stay_in_the_body(tmp_path: Path) -> None:
    record = _bundle_with(tmp_path, "dashes-in-body.md").memory_by_path("dashes-in-body.md")
    assert record is not None and record.body.count("---") == 2 and "Below a thematic break." in record.body


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        ("wrong-types.md", {"tags-text", "title-text", "modified-datetime", "aliases-text"}),
        ("date-only.md", {"created-datetime"}),
        ("impossible-date.md", {"created-datetime"}),  # the load's "datatype" warning gives way to the shape's rule
    ],
)
def test_wrong_types_load_and_validation_names_them(tmp_path: Path, name: str, rules: set[str]) -> None:
    bundle = _bundle_with(tmp_path, name)
    assert bundle.memory_by_path(name) is not None
    report = validate(bundle, level=3)
    assert {r.rule for r in report.results if r.path == name} - {"id"} == rules  # (their ids are not UUIDs)


def test_targets_that_escape_the_bundle_are_never_read(tmp_path: Path, monkeypatch) -> None:
    bundle_dir = tmp_path / "bundle"
    bundle_dir.mkdir()
    read: list[Path] = []
    original = os.open
    monkeypatch.setattr(
        os, "open", lambda path, *args, **kw: read.append(Path(path).resolve()) or original(path, *args, **kw)
    )
    bundle = _bundle_with(bundle_dir, "escaping-targets.md")
    assert read and all(path.is_relative_to(bundle_dir.resolve()) for path in read)
    warnings = [p for p in bundle.problems if p.rule == "link"]
    assert {p.value for p in warnings} == {
        "../../etc/passwd",
        "/../../../etc/passwd",
        "/etc/passwd",
    }  # file: URLs point anywhere
    assert all("passwd" not in str(o) for o in bundle.links.objects())  # no edge to anything outside


def test_symlink_loops_and_links_outside(tmp_path: Path, good_alone) -> None:
    bundle_dir = tmp_path / "bundle"
    bundle_dir.mkdir()
    (tmp_path / "secret.md").write_text((HOSTILE / GOOD).read_text().replace(GOOD_ID, "secret-id"), encoding="utf-8")
    os.symlink(bundle_dir, bundle_dir / "loop", target_is_directory=True)
    os.symlink(tmp_path / "secret.md", bundle_dir / "outside.md")
    bundle = _bundle_with(bundle_dir)
    assert "secret-id" not in bundle.memories
    assert {(p.path, p.severity) for p in bundle.problems} == {("loop", W), ("outside.md", W)}


def test_large_cases(tmp_path: Path) -> None:
    """A 50 MB file, 10,000-deep nesting, 100,000 empty files: clear problems, bounded time."""
    from fixtures.hostile.make_hostile import write_large

    bundle_dir = tmp_path / "bundle"
    write_large(bundle_dir, tiny_files=100_000)
    shutil.copyfile(HOSTILE / GOOD, bundle_dir / GOOD)
    start = time.perf_counter()
    bundle = load_bundle(bundle_dir)
    elapsed = time.perf_counter() - start
    assert GOOD_ID in bundle.memories and len(bundle.memories) == 1
    by_path = {p.path: p for p in bundle.problems}
    assert by_path["huge.md"].rule == "limit" and "over the limit" in by_path["huge.md"].message
    assert by_path["deep-nesting.md"].rule in ("limit", "yaml")
    tiny = [p for p in bundle.problems if p.path.startswith("tiny/")]
    assert len(tiny) == 100_000 and {p.rule for p in tiny} == {"frontmatter"}
    assert elapsed < 120, f"100,000 tiny files took {elapsed:.0f} s"


def test_max_memories_limit(tmp_path: Path) -> None:
    for number in range(5):
        (tmp_path / f"m{number}.md").write_text(
            (HOSTILE / GOOD).read_text().replace(GOOD_ID, f"id-{number}"), encoding="utf-8"
        )
    bundle = load_bundle(tmp_path, limits=Limits(max_memories=3))
    assert sorted(bundle.memories) == ["id-0", "id-1", "id-2"]
    (limit,) = [p for p in bundle.problems if p.rule == "limit"]
    assert "m2.md" in limit.message and "5" in limit.message
