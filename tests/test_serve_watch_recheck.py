"""The watcher never loses an edit that lands while its batch is being applied (issue 33, item 6).

The shape of the lost edits of the 10,000-memory runs: a second save of a
file arrives while the first is being reloaded, keeps the file's size and
its modification time (one tick), and brings no batch of its own (its event
was folded into the batch being handled).  Driven in-process, without a
watcher thread, so the interleaving is exact: the served store must end on
the bytes on disk, as a fresh load reads them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest

from conftest import EXAMPLES
from mif_rdf import load_bundle
from mif_rdf.serve import ServedBundle, Watcher

POLICY = "semantic/idempotency-policy.md"
TITLE = ox.NamedNode("http://purl.org/dc/terms/title")


def served_titles(served: ServedBundle) -> set[str]:
    record = served.bundle.memory_by_path(POLICY)
    assert record is not None
    return {q.object.value for q in served.store.quads_for_pattern(ox.NamedNode(record.iri), TITLE, None, None)}


@pytest.fixture()
def served(tmp_path: Path) -> ServedBundle:
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    return ServedBundle(load_bundle(folder, store="oxigraph", cache=False))


def retitle(path: Path, old: str, new: str, *, keep_stamp: bool) -> None:
    stat = path.stat()
    text = path.read_text(encoding="utf-8")
    assert f"\ntitle: {old}\n" in text
    path.write_text(text.replace(f"\ntitle: {old}\n", f"\ntitle: {new}\n", 1), encoding="utf-8")
    if keep_stamp:  # the same tick: mtime and size as before, only the bytes differ
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert path.stat().st_size == stat.st_size


def test_an_edit_saved_during_the_reload_of_the_same_file_is_served(served: ServedBundle) -> None:
    path = served.bundle.root / POLICY
    real_apply = served.apply
    calls: list[set[str]] = []

    def apply_then_save_again(relpaths: set[str]) -> bool:
        done = real_apply(relpaths)
        if not calls:  # the second save lands after the reload read the file, before its batch ends
            retitle(path, "Idempotency Key Policy A", "Idempotency Key Policy B", keep_stamp=True)
        calls.append(set(relpaths))
        return done

    served.apply = apply_then_save_again  # type: ignore[method-assign]
    retitle(path, "Idempotency Key Policy", "Idempotency Key Policy A", keep_stamp=False)
    Watcher(served).handle([str(path)])  # one batch: the second save brings no event of its own
    assert served_titles(served) == {"Idempotency Key Policy B"}
    assert calls == [{POLICY}, {POLICY}]  # applied again once, only the file that changed


def test_a_batch_whose_files_stay_put_is_applied_once(served: ServedBundle) -> None:
    path = served.bundle.root / POLICY
    calls: list[set[str]] = []
    real_apply = served.apply

    def counting(relpaths: set[str]) -> bool:
        calls.append(set(relpaths))
        return real_apply(relpaths)

    served.apply = counting  # type: ignore[method-assign]
    retitle(path, "Idempotency Key Policy", "Idempotency Key Policy A", keep_stamp=False)
    Watcher(served).handle([str(path), str(served.bundle.root / "notes.txt")])
    assert calls == [{POLICY}]
    assert served_titles(served) == {"Idempotency Key Policy A"}
