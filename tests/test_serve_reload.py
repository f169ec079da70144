"""The incremental reload serve relies on (Bundle.reload -> Bundle.relink): after any change the
links graph and the link problems equal a fresh load's, while only the touched links are written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import assert_isomorphic, memory_text, write_file
from mif_rdf import load_bundle
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
