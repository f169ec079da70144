"""The warm-reload cache: a cached load is the load it replaces, and only changed files are read again.

Every warm result is compared with an independent cold load (no cache) of the
same files: graph by graph (isomorphism), record by record, problem by problem.
"""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

import mif_rdf.load.cache_entry
import mif_rdf.load.pipeline
import mif_rdf.load.stages
from conftest import EXAMPLES, isomorphic
from mif_rdf import Bundle, MifRdfError, load_bundle
from mif_rdf.cli.main import main
from synthetic import generate_bundle

STORES = ["default", pytest.param("Oxigraph", id="oxigraph")]


def examples_with_generated(tmp_path: Path, count: int, seed: int) -> Path:
    """The examples bundle (config, entities, links) plus generated memories with every field family."""
    root = tmp_path / "bundle"
    shutil.copytree(EXAMPLES, root)
    generate_bundle(tmp_path / "generated", count, seed=seed)
    shutil.copytree(tmp_path / "generated", root / "generated", ignore=shutil.ignore_patterns(".mif"))
    return root


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return examples_with_generated(tmp_path, 20, seed=7)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def graphs(bundle: Bundle) -> dict[str, set]:
    out: dict[str, set] = {}
    for s, p, o, g in bundle.dataset.quads((None, None, None, None)):
        out.setdefault(str(g), set()).add((s, p, o))
    return out


def assert_same_bundle(warm: Bundle, cold: Bundle) -> None:
    """Same graphs (up to blank node names), records and problems."""
    left, right = graphs(warm), graphs(cold)
    assert set(left) == set(right)
    for name in left:
        from rdflib import Graph

        a, b = Graph(), Graph()
        for triple in left[name]:
            a.add(triple)
        for triple in right[name]:
            b.add(triple)
        assert isomorphic(a, b), f"graph {name} differs"
    assert list(warm.memories) == list(cold.memories) or set(warm.memories) == set(cold.memories)
    for memory_id, record in cold.memories.items():
        other = warm.memories[memory_id]
        assert (other.relpath, other.doc_iri, other.frontmatter, other.body, other.document) == (
            record.relpath,
            record.doc_iri,
            record.frontmatter,
            record.body,
            record.document,
        )
    assert {k: (e.relpath, e.data) for k, e in warm.entities.items()} == {
        k: (e.relpath, e.data) for k, e in cold.entities.items()
    }
    assert warm.config == cold.config
    assert sorted(map(str, warm.problems)) == sorted(map(str, cold.problems))


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every memory and entity file the loader parses."""
    seen: list[str] = []
    for module, name in ((mif_rdf.load.pipeline, "read_memory"), (mif_rdf.load.stages, "parse_entity")):
        original = getattr(module, name)

        def counting(root, relpath, *args, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(relpath)
            return _original(root, relpath, *args, **kwargs)

        monkeypatch.setattr(module, name, counting)
    return seen


def make_old(root: Path, seconds: int = 60) -> None:
    """Move every mtime into the past, as files are between real edits (no racy-clean doubt)."""
    for path in root.rglob("*"):
        if path.is_file():
            info = path.stat()
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - seconds * 10**9))


# -- warm equals cold ---------------------------------------------------------------
@pytest.mark.parametrize("store", STORES)
def test_a_warm_load_is_the_cold_load_it_replaces_and_reads_no_file(
    bundle_dir: Path, cache_dir: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_old(bundle_dir)
    cold = load_bundle(bundle_dir, store=store, cache=cache_dir)
    assert cold.cache is not None and cold.cache.state == "cold"
    parsed = count_parses(monkeypatch)
    warm = load_bundle(bundle_dir, store=store, cache=cache_dir)
    assert warm.cache is not None and (warm.cache.state, warm.cache.reparsed, warm.cache.removed) == ("warm", (), ())
    assert parsed == []
    assert graphs(warm) == graphs(cold)  # the very same terms, blank node names included
    assert_same_bundle(warm, load_bundle(bundle_dir, store=store))


@pytest.mark.parametrize("store", STORES)
def test_literal_lexical_forms_survive_the_cache(tmp_path: Path, cache_dir: Path, store: str) -> None:
    """rdflib's own pickling normalizes "…T10:30:00Z" to "…+00:00"; the cache must not."""
    root = tmp_path / "b"
    (root / "m").mkdir(parents=True)
    (root / "m" / "a.md").write_text(
        "---\nid: 7c9e6679-7425-40de-944b-e07fc1f90ae7\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\n"
        "temporal:\n  valid_from: 2026-01-15T10:30:00.500+01:00\nconfidence: 0.90\n---\nBody\n",
        encoding="utf-8",
    )
    cold = load_bundle(root, store=store, cache=cache_dir)
    warm = load_bundle(root, store=store, cache=cache_dir)
    assert warm.cache.state == "warm"  # type: ignore[union-attr]
    lexicals = {str(o) for _, _, o, _ in warm.dataset.quads((None, None, None, None)) if isinstance(o, Literal)}
    if store == "default":  # Oxigraph itself keeps date-times by value: ".500" comes back as ".5"
        assert {"2026-01-15T10:30:00Z", "2026-01-15T10:30:00.500+01:00"} <= lexicals
    assert lexicals == {str(o) for _, _, o, _ in cold.dataset.quads((None, None, None, None)) if isinstance(o, Literal)}


# -- invalidation -------------------------------------------------------------------
@pytest.mark.parametrize("store", STORES)
def test_a_changed_file_is_the_only_one_read_again(
    bundle_dir: Path, cache_dir: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_old(bundle_dir)
    first = load_bundle(bundle_dir, store=store, cache=cache_dir)
    target = next(r for r in first.memories.values() if r.relpath.startswith("generated/"))
    path = bundle_dir / target.relpath
    path.write_text(
        path.read_text(encoding="utf-8").replace("\n---\n", "\ntitle: Edited title\n---\n", 1), encoding="utf-8"
    )
    parsed = count_parses(monkeypatch)
    warm = load_bundle(bundle_dir, store=store, cache=cache_dir)
    assert parsed == [target.relpath]
    assert warm.cache.reparsed == (target.relpath,)  # type: ignore[union-attr]
    assert "Edited title" in {str(o) for o in warm.graph(target.id).objects()}
    monkeypatch.undo()
    assert_same_bundle(warm, load_bundle(bundle_dir, store=store))
    again = load_bundle(bundle_dir, store=store, cache=cache_dir)  # the entry was brought up to date
    assert again.cache.reparsed == () and graphs(again) == graphs(warm)  # type: ignore[union-attr]


@pytest.mark.parametrize("store", STORES)
def test_new_deleted_and_entity_files(
    bundle_dir: Path, cache_dir: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_old(bundle_dir)
    first = load_bundle(bundle_dir, store=store, cache=cache_dir)
    victim = sorted(first.memories.values(), key=lambda r: r.relpath)[0]
    (bundle_dir / victim.relpath).unlink()
    (bundle_dir / "semantic" / "new.md").write_text(
        "---\nid: 0f8fad5b-d9cb-469f-a165-70867728950e\ntype: semantic\ncreated: 2026-02-01T00:00:00Z\n"
        "relationships:\n  - type: relates-to\n    target: /nowhere.md\n---\nNew memory\n",
        encoding="utf-8",
    )
    entity = sorted((bundle_dir / ".mif" / "entities").rglob("*.yaml"))[0]
    entity.write_text(entity.read_text(encoding="utf-8") + "\ndescription: edited entity\n", encoding="utf-8")
    parsed = count_parses(monkeypatch)
    warm = load_bundle(bundle_dir, store=store, cache=cache_dir)
    entity_rel = entity.relative_to(bundle_dir).as_posix()
    assert sorted(parsed) == sorted(["semantic/new.md", entity_rel])
    assert warm.cache.removed == (victim.relpath,)  # type: ignore[union-attr]
    assert victim.id not in warm.memories
    assert any(p.path == "semantic/new.md" and p.rule == "link" for p in warm.problems)  # links were rebuilt
    monkeypatch.undo()
    assert_same_bundle(warm, load_bundle(bundle_dir, store=store))


def test_a_touched_but_unchanged_file_is_not_read_again(
    bundle_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_old(bundle_dir)
    first = load_bundle(bundle_dir, cache=cache_dir)
    relpath = next(iter(first.memories.values())).relpath
    os.utime(bundle_dir / relpath)  # a new mtime, the same bytes
    parsed = count_parses(monkeypatch)
    warm = load_bundle(bundle_dir, cache=cache_dir)
    assert (warm.cache.state, warm.cache.reparsed, parsed) == ("warm", (), [])  # type: ignore[union-attr]


def test_an_edit_hidden_by_the_clock_tick_is_still_seen(tmp_path: Path, cache_dir: Path) -> None:
    """Same size, same mtime, new bytes, right after the entry was written: the content decides."""
    root = tmp_path / "b"
    root.mkdir()
    path = root / "a.md"
    text = (
        "---\nid: 7c9e6679-7425-40de-944b-e07fc1f90ae7\ntype: semantic\ncreated: 2026-01-15\ntitle: AAAA\n---\nBody\n"
    )
    path.write_text(text, encoding="utf-8")
    load_bundle(root, cache=cache_dir)
    mtime = path.stat().st_mtime_ns
    path.write_text(text.replace("AAAA", "BBBB"), encoding="utf-8")
    os.utime(path, ns=(mtime, mtime))
    warm = load_bundle(root, cache=cache_dir)
    assert warm.cache.reparsed == ("a.md",)  # type: ignore[union-attr]
    assert warm.memories["7c9e6679-7425-40de-944b-e07fc1f90ae7"].frontmatter["title"] == "BBBB"


def test_config_changes_and_duplicate_ids_mean_a_cold_load(bundle_dir: Path, cache_dir: Path) -> None:
    make_old(bundle_dir)
    load_bundle(bundle_dir, cache=cache_dir)
    config = bundle_dir / ".mif" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    after_config = load_bundle(bundle_dir, cache=cache_dir)
    assert (after_config.cache.state, after_config.cache.reason) == ("cold", "the bundle config changed")  # type: ignore[union-attr]
    # a copy of a memory under another name: its id now clashes, and the first in path order must win
    first = min(after_config.memories.values(), key=lambda r: r.relpath)
    shutil.copy(bundle_dir / first.relpath, bundle_dir / "zz-copy.md")
    clash = load_bundle(bundle_dir, cache=cache_dir)
    assert clash.cache.state == "cold"  # type: ignore[union-attr]
    assert_same_bundle(clash, load_bundle(bundle_dir))
    assert any(p.rule == "duplicate-id" for p in clash.problems)
    # and it stays cold while the clash lasts: the winner depends on every file
    assert load_bundle(bundle_dir, cache=cache_dir).cache.state == "cold"  # type: ignore[union-attr]


# -- corruption and foreign entries ---------------------------------------------------
DAMAGES = [  # the manifest and records files are the same for both stores
    (victim, store, damage)
    for victim, stores in (("manifest", ["default"]), ("records", ["default"]), ("triples", ["default", "Oxigraph"]))
    for store in stores
    for damage in ("flip", "truncate", "delete")
]


@pytest.mark.parametrize(("victim", "store", "damage"), DAMAGES)
def test_a_damaged_entry_is_detected_and_rebuilt(
    tmp_path: Path, cache_dir: Path, store: str, damage: str, victim: str
) -> None:
    bundle_dir = tmp_path / "examples"
    shutil.copytree(EXAMPLES, bundle_dir)
    make_old(bundle_dir)
    cold = load_bundle(bundle_dir, store=store, cache=cache_dir)
    entry = cold.cache.entry  # type: ignore[union-attr]
    del cold
    gc.collect()
    name = {"triples": "dataset" if store == "default" else "oxigraph"}.get(victim, victim)
    path = entry / name
    if path.is_dir():  # the Oxigraph database: damage its data files
        tables = sorted(path.glob("*.sst"))
        assert tables
        if damage == "delete":
            shutil.rmtree(path)
        else:
            _damage(tables[len(tables) // 2], damage)
    elif damage == "delete":
        path.unlink()
    else:
        _damage(path, damage)
    rebuilt = load_bundle(bundle_dir, store=store, cache=cache_dir)
    assert rebuilt.cache.state == "cold", rebuilt.cache  # type: ignore[union-attr]
    assert_same_bundle(rebuilt, load_bundle(bundle_dir, store=store))
    assert load_bundle(bundle_dir, store=store, cache=cache_dir).cache.state == "warm"  # type: ignore[union-attr]


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        del data[len(data) // 2 :]
    path.write_bytes(bytes(data))


def test_an_entry_written_by_other_code_is_not_used(
    bundle_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_bundle(bundle_dir, cache=cache_dir)
    monkeypatch.setattr(mif_rdf.load.cache_entry, "code_fingerprint", lambda: "another version")
    other = load_bundle(bundle_dir, cache=cache_dir)
    assert other.cache.state == "cold" and "changed" in other.cache.reason  # type: ignore[union-attr]


def test_the_cache_folder_can_be_deleted_at_any_time(bundle_dir: Path, cache_dir: Path) -> None:
    load_bundle(bundle_dir, cache=cache_dir)
    shutil.rmtree(cache_dir)
    again = load_bundle(bundle_dir, cache=cache_dir)
    assert again.cache.state == "cold" and again.cache.reason == "no cache entry yet"  # type: ignore[union-attr]


def test_the_cached_oxigraph_database_is_never_handed_out(bundle_dir: Path, cache_dir: Path) -> None:
    first = load_bundle(bundle_dir, store="Oxigraph", cache=cache_dir)
    del first
    gc.collect()  # a session copy goes when its store is collected (a Dataset holds reference cycles)
    warm = load_bundle(bundle_dir, store="Oxigraph", cache=cache_dir)
    size = len(warm.dataset)
    marker = URIRef("urn:test:added")
    warm.dataset.graph(marker).add((marker, marker, Literal("added after loading")))
    session = warm.cache.entry / "sessions"  # type: ignore[union-attr]
    assert len(list(session.iterdir())) == 1
    del warm
    gc.collect()
    assert list(session.iterdir()) == []  # the session copy went with its store
    again = load_bundle(bundle_dir, store="Oxigraph", cache=cache_dir)
    assert again.cache.state == "warm" and len(again.dataset) == size  # type: ignore[union-attr]
    assert (marker, marker, None) not in again.dataset


def test_settings_that_change_the_graph_get_their_own_entry(bundle_dir: Path, cache_dir: Path) -> None:
    one = load_bundle(bundle_dir, cache=cache_dir)
    other = load_bundle(bundle_dir, cache=cache_dir, base_iri="https://example.org/kb/")
    assert other.cache.state == "cold" and other.cache.entry != one.cache.entry  # type: ignore[union-attr]
    assert all(str(g).startswith(("https://example.org/kb/", "urn:")) for g in graphs(other))


def test_only_the_memory_and_oxigraph_stores_can_be_cached(bundle_dir: Path, cache_dir: Path) -> None:
    with pytest.raises(MifRdfError, match="the cache works with"):
        load_bundle(bundle_dir, store="SimpleMemory", cache=cache_dir)


def test_the_cli_reuses_the_cache(
    bundle_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert main(["load", str(bundle_dir), "--cache", "--no-progress"]) in (0, 1)
    assert "cache: cold" in capsys.readouterr().out
    assert main(["load", str(bundle_dir), "--cache", "--no-progress"]) in (0, 1)
    assert "cache: warm" in capsys.readouterr().out
    assert any((tmp_path / "xdg" / "mif-rdf").iterdir())
    assert main(["load", str(bundle_dir), "--cache-dir", str(tmp_path / "mine"), "--no-progress"]) in (0, 1)
    assert "cache: cold" in capsys.readouterr().out and any((tmp_path / "mine").iterdir())


def test_a_cache_folder_that_is_a_file_is_a_clear_error(bundle_dir: Path, tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x", encoding="utf-8")
    with pytest.raises(MifRdfError, match="cache folder .*file.* cannot be used"):
        load_bundle(bundle_dir, cache=not_a_folder)
