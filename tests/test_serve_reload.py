"""The incremental reload serve relies on (Bundle.reload -> Bundle.relink): after any change the
links graph and the link problems equal a fresh load's, while only the touched links are written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from conftest import assert_isomorphic, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.load.incremental import reload
from mif_rdf.load.record_index import RecordIndex
from synthetic import generate_bundle


def link_problems(bundle) -> set:
    return {(p.path, p.key, p.value) for p in bundle.problems if p.rule == "link"}


@pytest.mark.parametrize("store", ["memory", "oxigraph"])
def test_reload_keeps_links_equal_to_a_fresh_load(tmp_path: Path, store: str) -> None:
    root = tmp_path / "bundle"
    paths = [p.relative_to(root).as_posix() for p in generate_bundle(root, 120, seed=3)]
    bundle = load_bundle(root, store=store, base_iri="mif://local/b/")
    rng = random.Random(5)
    target = paths[0]
    steps = [
        ("delete a linked memory", lambda: (root / target).unlink(), [target]),
        ("bring it back", lambda: write_file(root, target, memory_text("back-again", "title: Back\n")), [target]),
        ("change its id", lambda: write_file(root, target, memory_text("back-renamed", "title: Back\n")), [target]),
        (
            "a new memory linking by path and by urn",
            lambda: write_file(
                root,
                "new/linker.md",
                memory_text(
                    "linker",
                    f"relationships:\n  - type: relates-to\n    target: /{paths[1]}\n  - type: supersedes\n"
                    "    target: urn:mif:back-renamed\n  - type: relates-to\n    target: ./nowhere.md\n",
                    body=(
                        f"L.\n\n## Relationships\n- relates-to [A](/{paths[1]})\n"
                        "- supersedes [B](urn:mif:back-renamed)\n- relates-to [C](./nowhere.md)\n"
                    ),
                ),
            ),
            ["new/linker.md"],
        ),
        (
            "the missing target appears",
            lambda: write_file(root, "new/nowhere.md", memory_text("nowhere", "title: Now here\n")),
            ["new/nowhere.md"],
        ),
        ("move a memory", lambda: (root / paths[1]).rename(root / "new" / "moved.md"), [paths[1], "new/moved.md"]),
    ]
    for label, change, changed in steps + [(f"random edit {i}", None, [rng.choice(paths[2:])]) for i in range(5)]:
        if change is None:
            path = root / changed[0]
            path.write_text(
                path.read_text(encoding="utf-8").replace("\ntitle: ", "\ntitle: Edited ", 1), encoding="utf-8"
            )
        else:
            change()
        subjects = bundle.reload(*changed)
        fresh = load_bundle(root, base_iri="mif://local/b/")
        assert_isomorphic(bundle.links, fresh.links, label)
        assert link_problems(bundle) == link_problems(fresh), label
        assert len(subjects) < len(fresh.memories) / 2, f"{label}: {len(subjects)} subjects rewritten"


def _edit_relationships(path: Path, change) -> None:
    """Rewrite a generated memory's frontmatter relationships with ``change(list) -> list``."""
    _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(front)
    data["relationships"] = change(list(data.get("relationships") or []))
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False) + "---\n" + body, encoding="utf-8")


def test_a_kept_link_index_relinks_as_a_fresh_load_links(tmp_path: Path) -> None:
    """serve keeps one RecordIndex across edits: links and link problems stay a fresh load's, and the index
    stays what a new index of the bundle would say, through edits that add, remove and retarget links."""
    root = tmp_path / "bundle"
    paths = [p.relative_to(root).as_posix() for p in generate_bundle(root, 120, seed=4)]
    bundle = load_bundle(root, store="oxigraph", base_iri="mif://local/b/")
    index = RecordIndex(bundle)
    a, b, c, d, e = paths[:5]
    c_id = bundle.memory_by_path(c).id
    linked = next(p for p in paths[5:] if bundle.memory_by_path(p).iri in {str(s) for s in bundle.links.objects()})

    def link(*targets: str):
        return lambda rels: rels + [{"type": "relates-to", "target": t} for t in targets]

    steps = [
        ("add links by path and by urn", a, link(f"/{b}", f"urn:mif:{c_id}")),
        ("remove every link", d, lambda rels: []),
        ("retarget to a missing file", e, lambda rels: [{**rels[0], "target": "/new/later.md"}, *rels[1:]]),
        ("retarget back to a memory", e, lambda rels: [{**rels[0], "target": f"/{b}"}, *rels[1:]]),
        ("link to the missing file again", b, link("/new/later.md")),
    ]
    for label, relpath, change in steps:
        _edit_relationships(root / relpath, change)
        assert_relinked(bundle, index, root, [relpath], label)
    write_file(root, "new/later.md", memory_text("later", "title: Later\n"))
    assert_relinked(bundle, index, root, ["new/later.md"], "the missing target appears")
    text = (root / c).read_text(encoding="utf-8")
    (root / c).write_text(text.replace(f"id: {c_id}", "id: c-renamed", 1), encoding="utf-8")
    assert_relinked(bundle, index, root, [c], "a linked memory changes its id")
    (root / linked).unlink()
    assert_relinked(bundle, index, root, [linked], "a linked memory is deleted")


def assert_relinked(bundle, index: RecordIndex, root: Path, changed: list[str], label: str) -> None:
    reload(bundle, *changed, index=index)
    fresh = load_bundle(root, base_iri="mif://local/b/")
    assert_isomorphic(bundle.links, fresh.links, label)
    assert link_problems(bundle) == link_problems(fresh), label
    keys = {m.iri for m in fresh.memories.values()} | {m.doc_iri for m in fresh.memories.values()}
    keys |= {"mif://local/b/new/gone.md"}
    new = RecordIndex(bundle)
    for key in keys:
        assert index.links.sources([key]) == new.links.sources([key]), f"{label}: {key}"
    assert any(index.links.sources([key]) for key in keys), label  # the comparison saw links
    every = bundle.targets()
    keys |= set(every) | {"urn:mif:entity:nobody"}
    assert index.links.targets(bundle, keys) == {k: v for k, v in every.items() if k in keys}, label
    assert index.follows(bundle), label
    assert sorted(index.paths()) == sorted(new.paths()), label
    assert all(index.at(p) is new.at(p) for p in new.paths()), label
    assert index.locations == new.locations, label
