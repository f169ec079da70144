"""Many edits in a row on one served bundle (issue 33): what is served stays a fresh load's after every one.

``serve`` keeps its records by path, by location and who links to what
(:class:`~mif_rdf.load.record_index.RecordIndex`), and each record's part of the
policy, across edits, and brings them up to date from what each reload
replaced.  A seeded random sequence of edits (titles, relationships added and
removed, files renamed, deleted, created, an id changed, a file made invalid
and valid again, memories moved into and out of ``_local`` or the audience's
view; files claiming one id or one location, their holders deleted, renamed
or given another id; one or two changes per batch) is applied in-process;
after each batch the served store must equal a fresh load of the folder
restricted as ``serve`` restricts it, graph by graph, its load problems the
fresh load's, and the kept index (refused files too) a new one.  A file
that no longer loads keeps its last good version: the oracle is then a fresh
load of the folder with that version in its place (written there for the
oracle's load and taken away again: nothing is watching the folder).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import yaml
from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.namespace import XSD

from conftest import BUNDLES, assert_isomorphic, memory_files, memory_text, write_file
from mif_rdf import load_bundle
from mif_rdf.load.incremental import reload
from mif_rdf.load.oxigraph_sink import rdflib_term
from mif_rdf.load.record_index import RecordIndex
from mif_rdf.nsmodel import audience_for
from mif_rdf.ontology import add_types_graph
from mif_rdf.output.policy import export_policy
from mif_rdf.serve.served import ServedBundle
from mif_rdf.source.identity import document_iri
from synthetic import generate_bundle

BASE = "mif://local/sequence/"
BROKEN = "---\nid: broken\ntitle: [not closed\n---\nBody.\n"


#: every kind of change, each made once in every round of a sequence (in a shuffled order)
KINDS = ("title", "link", "unlink", "rename", "delete", "create", "break", "flicker", "fix", "withhold", "share", "id")
#: the changes of claims: a second file with a memory's id (sorting before or after it), an existing file given
#: another's id, a second file at a memory's location ('a b.md' and 'a%20b.md'), and a file of a clash deleted,
#: renamed or given a new id
CLASHES = ("twin-id", "take-id", "twin-place", "clash-delete", "clash-rename", "clash-reid")


class Folder:
    """The bundle folder, and the text each path is served from (its last good one while it does not load)."""

    def __init__(self, root: Path, withheld: list[str], shared: list[str]) -> None:
        self.root = root
        self.withheld = withheld  # namespaces served to nobody here (_local, another party's)
        self.shared = shared
        self.served_text = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in self.memories()}
        self.made = 0
        #: not to be broken in this batch: the files of a clash when it began (a refused file has no last good
        #: version) and those it already changed
        self.contested: set[str] = set()

    def memories(self) -> list[Path]:
        return [p for p in memory_files(self.root) if p.read_text(encoding="utf-8").startswith("---\n")]

    def write(self, relpath: str, text: str) -> None:
        write_file(self.root, relpath, text)
        if text != BROKEN:
            self.served_text[relpath] = text

    def remove(self, relpath: str) -> None:
        (self.root / relpath).unlink()
        self.served_text.pop(relpath, None)

    def fresh_id(self) -> str:
        self.made += 1
        return f"made-{self.made:03d}"


def _frontmatter(text: str) -> tuple[dict[str, Any], str]:
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def _with(text: str, change) -> str:
    data, body = _frontmatter(text)
    change(data)
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body


def _clashing(folder: Folder, relpaths: list[str]) -> list[str]:
    """The files among ``relpaths`` whose id or location another file of the folder has too."""
    ids: dict[str, list[str]] = {}
    places: dict[str, list[str]] = {}
    for relpath, text in folder.served_text.items():
        ids.setdefault(_frontmatter(text)[0]["id"], []).append(relpath)
        places.setdefault(document_iri(BASE, relpath), []).append(relpath)
    shared = {p for group in [*ids.values(), *places.values()] if len(group) > 1 for p in group}
    return [p for p in relpaths if p in shared]


def _twin(relpath: str) -> str:
    """The other spelling of a place: 'a b.md' and 'a%20b.md' have one document IRI."""
    return relpath.replace(" ", "%20") if " " in relpath else relpath.replace("%20", " ")


def _clash(folder: Folder, rng: random.Random, kind: str, loaded: list[str]) -> list[str]:
    """One change of a claim (a kind of :data:`CLASHES`); the paths it touched."""
    clashing = _clashing(folder, loaded)
    if kind.startswith("clash-") and not clashing:
        kind = "twin-id"  # nothing to clash with yet: make a clash
    relpath = rng.choice(clashing or loaded)
    text = folder.served_text[relpath]
    if kind == "twin-id":  # a new file with a memory's id, sorting before or after it
        made = f"{rng.choice(['0-early', 'zz-late'])}/{folder.fresh_id()}.md"
        folder.write(made, _with(text, lambda d: d.update(title=f"Twin of {d['id']}")))
        return [made]
    if kind == "take-id":
        other = rng.choice([p for p in loaded if p != relpath])
        wanted = _frontmatter(folder.served_text[other])[0]["id"]
        folder.write(relpath, _with(text, lambda d: d.update(id=wanted)))
        return [relpath]
    if kind == "twin-place":  # the other spelling of a place ('a b.md', 'a%20b.md'); a new pair when none is missing
        singles = [p for p in loaded if p.startswith("places/") and _twin(p) not in folder.served_text]
        if singles:
            made = [_twin(rng.choice(singles))]
        else:
            pair = folder.fresh_id()
            made = [f"places/{pair} note.md", f"places/{pair}%20note.md"]
        for twin in made:
            folder.write(twin, memory_text(folder.fresh_id(), f"title: At {twin}\n"))
        return made
    if kind == "clash-delete":
        folder.remove(relpath)
        return [relpath]
    if kind == "clash-rename":
        moved = f"{rng.choice(['0-early', 'moved'])}/{rng.randrange(10**6)}-{Path(relpath).name}"
        folder.remove(relpath)
        folder.write(moved, text)
        return [relpath, moved]
    folder.write(relpath, _with(text, lambda d: d.update(id=folder.fresh_id())))  # clash-reid
    return [relpath]


def _edit(folder: Folder, rng: random.Random, kind: str) -> list[str]:
    """One change of ``kind`` to the folder; the paths it touched."""
    loaded = sorted(p for p, t in folder.served_text.items() if (folder.root / p).read_text(encoding="utf-8") == t)
    broken = sorted(set(folder.served_text) - set(loaded))
    if kind in CLASHES:
        return _clash(folder, rng, kind, loaded)
    if kind == "break":  # a file of a clash is not left broken: its last good version yields its claims (docs)
        contested = folder.contested | set(_clashing(folder, loaded))
        loaded = [p for p in loaded if p not in contested] or loaded
    if kind == "fix" and broken:
        relpath = rng.choice(broken)
        folder.write(relpath, _with(folder.served_text[relpath], lambda d: d.update(title="Fixed")))
        return [relpath]
    if kind == "share":  # a withheld memory, if there is one, into a shared namespace
        withheld = [p for p in loaded if _frontmatter(folder.served_text[p])[0].get("namespace") in folder.withheld]
        loaded = withheld or loaded
    relpath = rng.choice(loaded)
    text = folder.served_text[relpath]
    other = rng.choice(sorted(folder.served_text))
    if kind == "link":
        target = rng.choice(
            [f"/{other}", f"urn:mif:{_frontmatter(folder.served_text[other])[0]['id']}", "/no/where.md"]
        )
        folder.write(
            relpath,
            _with(
                text,
                lambda d: d.update(
                    relationships=[*(d.get("relationships") or []), {"type": "relates-to", "target": target}]
                ),
            ),
        )
    elif kind == "unlink":
        folder.write(relpath, _with(text, lambda d: d.pop("relationships", None)))
    elif kind == "rename":
        moved = f"moved/{rng.randrange(10**6)}-{Path(relpath).name}"
        folder.remove(relpath)
        folder.write(moved, text)
        return [relpath, moved]
    elif kind == "delete":
        folder.remove(relpath)
    elif kind == "create":
        made = folder.fresh_id()
        links = f"relationships:\n  - type: relates-to\n    target: /{other}\n"
        folder.write(f"new/{made}.md", memory_text(made, f"title: Made {made}\n{links}"))
        return [f"new/{made}.md"]
    elif kind in ("break", "flicker"):  # left broken until a "fix" or the end, or fixed before it is read
        folder.write(relpath, BROKEN)
        if kind == "flicker":
            folder.write(relpath, text)
    elif kind in ("withhold", "share"):
        namespaces = folder.withheld if kind == "withhold" else folder.shared
        folder.write(relpath, _with(text, lambda d: d.update(namespace=rng.choice(namespaces))))
    elif kind == "id":
        folder.write(relpath, _with(text, lambda d: d.update(id=folder.fresh_id())))
    else:  # a title (and a "fix" with nothing broken)
        folder.write(relpath, _with(text, lambda d: d.update(title=f"Edited {rng.randrange(10**6)}")))
    return [relpath]


def _rdflib(term: Any) -> Any:
    """An Oxigraph term as the restricted dataset of a fresh load holds it (through oxrdflib): literals typed
    (``xsd:string`` too) and normalized as rdflib normalizes them."""
    node = rdflib_term(term)
    if isinstance(node, Literal) and node.language is None:
        return Literal(str(node), datatype=node.datatype or XSD.string)
    return node


def _served_graphs(store: Any) -> dict[str, list[Any]]:
    graphs: dict[str, list[Any]] = {}
    for q in store.quads_for_pattern(None, None, None, None):
        if q.graph_name != ox.DefaultGraph():
            graphs.setdefault(q.graph_name.value, []).append(
                (_rdflib(q.subject), URIRef(q.predicate.value), _rdflib(q.object))
            )
    return graphs


def _fresh_graphs(dataset: Dataset) -> dict[str, list[Any]]:
    graphs: dict[str, list[Any]] = {}
    for s, p, o, g in dataset.quads((None, None, None, None)):
        if g is not None and g != DATASET_DEFAULT_GRAPH_ID:
            graphs.setdefault(str(g), []).append((s, p, o))
    return graphs


def _assert_same_graph(left: list[Any], right: list[Any], label: str) -> None:
    """Equal as sets of triples; through rdflib's isomorphism when blank nodes are in them."""
    if not any(isinstance(t, BNode) for triple in left + right for t in triple):
        assert set(left) == set(right), label
        return
    graphs = []
    for triples in (left, right):
        graph = Graph()
        for triple in triples:
            graph.add(triple)
        graphs.append(graph)
    if not isomorphic(graphs[0], graphs[1]):
        assert_isomorphic(graphs[0], graphs[1], label)  # says what differs


def _assert_served_as_fresh(served: ServedBundle, folder: Folder, audience: str | None, label: str) -> None:
    broken = {p: t for p, t in folder.served_text.items() if (folder.root / p).read_text(encoding="utf-8") == BROKEN}
    for relpath, text in broken.items():  # the oracle: the folder with each file's last good text
        write_file(folder.root, relpath, text)
    fresh = load_bundle(folder.root, base_iri=BASE, store="oxigraph", progress=False)
    for relpath in broken:
        write_file(folder.root, relpath, BROKEN)
    add_types_graph(fresh)
    party = audience_for(folder.root, audience) if audience else None
    want = _fresh_graphs(export_policy(fresh, party).restrict(fresh).dataset)
    store = served.current().store
    have = _served_graphs(store)
    assert sorted(have) == sorted(want), label
    for name, triples in want.items():
        _assert_same_graph(have[name], triples, f"{label}: {name}")
    default = {(q.subject, q.predicate, q.object) for q in store.quads_for_pattern(None, None, None, ox.DefaultGraph())}
    assert default == {
        (q.subject, q.predicate, q.object)
        for q in store.quads_for_pattern(None, None, None, None)
        if q.graph_name != ox.DefaultGraph()
    }, f"{label}: the default graph is the set of the served triples"
    assert _problems(served.bundle.problems, broken) == _problems(fresh.problems, broken), label
    new = RecordIndex(served.bundle)
    assert served.index.refused == new.refused, f"{label}: the files refused for a taken id or location"
    assert served.index.follows(served.bundle), label
    assert sorted(served.index.paths()) == sorted(new.paths()), label
    assert served.index.locations == new.locations, label
    keys = {k for m in served.bundle.memories.values() for k in (m.iri, m.doc_iri)} | {f"{BASE}no/where.md"}
    assert all(served.index.links.sources([k]) == new.links.sources([k]) for k in keys), label
    snapshot = served.current()  # what the page reads: this publication's records, by path too
    assert all(snapshot.memory_by_path(m.relpath) is m for m in served.bundle.memories.values()), label
    assert snapshot.memory_by_path("no/where.md") is None


def _problems(problems: Any, skip: Any) -> list[tuple[str, ...]]:
    """The load problems, as comparable tuples (those of the files in ``skip``, served from their last good
    version, left out: their problem is that they do not load)."""
    return sorted(
        (p.path, str(p.rule), p.message, str(p.severity), str(p.key), repr(p.value))
        for p in problems
        if p.path not in skip
    )


def _run(
    root: Path, withheld: list[str], shared: list[str], seed: int, rounds: int, audience: str | None = None
) -> None:
    folder = Folder(root, withheld, shared)
    bundle = load_bundle(root, base_iri=BASE, store="oxigraph", progress=False)
    add_types_graph(bundle)
    served = ServedBundle(bundle, audience=audience_for(root, audience) if audience else None)
    rng = random.Random(seed)
    kept_once = False
    every = KINDS + CLASHES
    for step in range(rounds * len(every)):
        if step % len(every) == 0:
            kinds = list(every)
            rng.shuffle(kinds)
        batch = [kinds[step % len(every)]]
        if rng.random() < 0.3:  # two changes in one batch
            batch.append(rng.choice(every))
        folder.contested = set(_clashing(folder, sorted(folder.served_text)))
        changed = []
        for kind in batch:
            changed += _edit(folder, rng, kind)
            folder.contested |= set(changed)  # a version written in this batch is not served before it breaks
        served.apply(changed)
        _assert_served_as_fresh(served, folder, audience, f"seed {seed}, step {step}: {batch} {changed}")
        broken = [p for p, t in folder.served_text.items() if (root / p).read_text(encoding="utf-8") != t]
        assert served.kept == set(broken), step
        kept_once = kept_once or bool(broken)
    assert kept_once, "a file was served from its last good version"
    for relpath in broken:
        folder.write(relpath, folder.served_text[relpath])
    served.apply(broken)
    _assert_served_as_fresh(served, folder, audience, f"seed {seed}: every file fixed")
    assert not served.kept
    assert served.index.reads == 1  # told of every change: never had to read the whole bundle again


@pytest.mark.parametrize("seed", [1, 2])
def test_a_random_sequence_of_edits_serves_a_fresh_load_after_each(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "bundle"
    generate_bundle(root, 16, seed=seed)
    _run(root, ["_local/scratch", "_local/drafts/wip"], ["_semantic/knowledge", "_episodic/sessions"], seed, rounds=1)


def test_a_random_sequence_for_an_audience_serves_only_its_view_after_each(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / "namespaces", root)
    _run(
        root,
        ["bigcorp-inc/roadmap", "_local/scratch"],
        ["acme-corp/project-x/architecture", "_public/notes"],
        seed=3,
        rounds=1,
        audience="acme-corp",
    )


# -- claims changing hands, case by case ------------------------------------------------------------------------
def _serving(tmp_path: Path, files: dict[str, str]) -> tuple[ServedBundle, Folder]:
    root = tmp_path / "bundle"
    for relpath, text in {"keep.md": memory_text("keep", "title: Keep\n"), **files}.items():
        write_file(root, relpath, text)
    bundle = load_bundle(root, base_iri=BASE, store="oxigraph", progress=False)
    add_types_graph(bundle)
    return ServedBundle(bundle), Folder(root, [], [])


def _held(served: ServedBundle) -> dict[str, str]:
    """Memory id -> the path of the file served for it."""
    return {m.id: m.relpath for m in served.bundle.memories.values()}


def _refusals(served: ServedBundle) -> dict[str, str]:
    """Path of a refused file -> the problem's rule and the holder it names."""
    return {
        p.path: f"{p.rule}: {p.message.split('already used by ')[-1].split(' as ')[-1].split(' ')[0]}"
        for p in served.bundle.problems
        if p.rule in ("duplicate-id", "duplicate-path")
    }


def _text(memory_id: str, title: str) -> str:
    return memory_text(memory_id, f"title: {title}\nrelationships:\n  - type: relates-to\n    target: urn:mif:keep\n")


@pytest.mark.parametrize("move", ["delete", "rename", "new id"])
def test_a_refused_file_is_served_when_the_holder_of_its_id_lets_it_go(tmp_path: Path, move: str) -> None:
    served, folder = _serving(tmp_path, {"a.md": _text("x", "First"), "b.md": _text("x", "Second")})
    assert _held(served)["x"] == "a.md" and _refusals(served) == {"b.md": "duplicate-id: a.md"}
    if move == "delete":
        folder.remove("a.md")
        served.apply(["a.md"])
    elif move == "rename":  # z.md sorts after b.md: b.md is the first claimant now
        folder.remove("a.md")
        folder.write("z.md", _text("x", "First"))
        served.apply(["a.md", "z.md"])
    else:
        folder.write("a.md", _text("y", "First"))
        served.apply(["a.md"])
    assert _held(served)["x"] == "b.md"
    assert _refusals(served) == ({"z.md": "duplicate-id: b.md"} if move == "rename" else {})
    _assert_served_as_fresh(served, folder, None, move)


def test_a_new_file_earlier_in_path_order_takes_the_id_and_the_holder_is_refused(tmp_path: Path) -> None:
    served, folder = _serving(tmp_path, {"m.md": _text("x", "Holder"), "z.md": _text("x", "Refused")})
    folder.write("a.md", _text("x", "Earlier"))
    served.apply(["a.md"])
    assert _held(served)["x"] == "a.md"
    assert _refusals(served) == {"m.md": "duplicate-id: a.md", "z.md": "duplicate-id: a.md"}  # both name a.md now
    _assert_served_as_fresh(served, folder, None, "earlier claimant")
    folder.write("a.md", _text("a", "Earlier, its own id"))  # and gives it back
    served.apply(["a.md"])
    assert _held(served)["x"] == "m.md" and _refusals(served) == {"z.md": "duplicate-id: m.md"}
    _assert_served_as_fresh(served, folder, None, "the earlier claimant's id changed")


def test_an_existing_file_given_a_held_id_takes_it_when_it_sorts_first(tmp_path: Path) -> None:
    served, folder = _serving(tmp_path, {"a.md": _text("a", "Own"), "m.md": _text("x", "Holder")})
    folder.write("a.md", _text("x", "Now x"))
    served.apply(["a.md"])
    assert _held(served)["x"] == "a.md" and _refusals(served) == {"m.md": "duplicate-id: a.md"}
    _assert_served_as_fresh(served, folder, None, "id taken by an edit")


@pytest.mark.parametrize("move", ["delete", "rename", "earlier twin"])
def test_a_location_changes_hands_as_in_a_fresh_load(tmp_path: Path, move: str) -> None:
    # 'p q.md' and 'p%20q.md' have one document IRI; ' ' sorts before '%'
    served, folder = _serving(tmp_path, {"n/p q.md": _text("one", "One"), "n/p%20q.md": _text("two", "Two")})
    assert "two" not in _held(served) and _refusals(served) == {"n/p%20q.md": "duplicate-path: n/p"}
    if move == "delete":
        folder.remove("n/p q.md")
        served.apply(["n/p q.md"])
        assert _held(served)["two"] == "n/p%20q.md" and not _refusals(served)
    elif move == "rename":
        folder.remove("n/p q.md")
        folder.write("n/other.md", _text("one", "One"))
        served.apply(["n/p q.md", "n/other.md"])
        assert _held(served)["two"] == "n/p%20q.md" and not _refusals(served)
    else:  # the holder first deleted, then its twin written again: the twin sorts first and takes the place back
        folder.remove("n/p q.md")
        served.apply(["n/p q.md"])
        assert _held(served)["two"] == "n/p%20q.md"
        folder.write("n/p q.md", _text("three", "Three"))
        served.apply(["n/p q.md"])
        assert _held(served)["three"] == "n/p q.md" and "two" not in _held(served)
        assert _refusals(served) == {"n/p%20q.md": "duplicate-path: n/p"}
    _assert_served_as_fresh(served, folder, None, move)


def test_a_file_refused_for_its_location_is_refused_for_its_id_once_an_earlier_file_takes_it(tmp_path: Path) -> None:
    """A fresh load checks the id first: the refusal's kind follows claims the refused file never touched."""
    served, folder = _serving(tmp_path, {"n/p q.md": _text("one", "One"), "n/p%20q.md": _text("two", "Two")})
    folder.write("a.md", _text("two", "Takes two"))
    served.apply(["a.md"])
    assert _held(served)["two"] == "a.md"
    assert _refusals(served) == {"n/p%20q.md": "duplicate-id: a.md"}
    _assert_served_as_fresh(served, folder, None, "id before location")
    folder.remove("n/p q.md")  # the place is free, the id is not
    served.apply(["n/p q.md"])
    assert _refusals(served) == {"n/p%20q.md": "duplicate-id: a.md"}
    _assert_served_as_fresh(served, folder, None, "the place freed")


def test_an_entity_refused_for_its_iri_is_served_when_its_holder_goes(tmp_path: Path) -> None:
    entity = "id: jane-doe\ntype: Person\nname: Jane Doe\n"
    served, folder = _serving(
        tmp_path,
        {".mif/entities/person/a.yaml": entity, ".mif/entities/person/b.yaml": entity.replace("Jane Doe", "Jane")},
    )
    (iri,) = served.bundle.entities
    assert served.bundle.entities[iri].relpath == ".mif/entities/person/a.yaml"
    (folder.root / ".mif/entities/person/a.yaml").unlink()
    served.apply([".mif/entities/person/a.yaml"])
    assert served.bundle.entities[iri].relpath == ".mif/entities/person/b.yaml"
    assert not _refusals(served)
    _assert_served_as_fresh(served, folder, None, "entity holder deleted")


def test_a_file_kept_from_its_last_good_version_yields_its_id_to_a_new_claimant(tmp_path: Path) -> None:
    served, folder = _serving(tmp_path, {"a.md": _text("x", "Holder")})
    folder.write("a.md", BROKEN)
    served.apply(["a.md"])
    assert served.kept == {"a.md"} and _held(served)["x"] == "a.md"
    folder.write("z.md", _text("x", "Claimant"))
    served.apply(["z.md"])
    assert _held(served)["x"] == "z.md" and not served.kept  # no warning left for a version no longer served
    folder.served_text.pop("a.md")  # the oracle: the folder as it is, a.md broken
    _assert_served_as_fresh(served, folder, None, "kept holder yields")


def test_a_reload_without_a_kept_index_finds_the_refused_files_from_their_problems(tmp_path: Path) -> None:
    """The load cache's reload makes its index from the bundle: the refused files come from their problems."""
    root = tmp_path / "bundle"
    files = {
        "a.md": _text("x", "A"),
        "b.md": _text("x", "B"),
        "n/p q.md": _text("one", "1"),
        "n/p%20q.md": _text("two", "2"),
    }
    for relpath, text in {"keep.md": memory_text("keep", "title: Keep\n"), **files}.items():
        write_file(root, relpath, text)
    bundle = load_bundle(root, base_iri=BASE, progress=False)
    (root / "a.md").unlink()
    (root / "n/p q.md").unlink()
    reload(bundle, "a.md", "n/p q.md")
    fresh = load_bundle(root, base_iri=BASE, progress=False)
    assert {m.id: m.relpath for m in bundle.memories.values()} == {"keep": "keep.md", "x": "b.md", "two": "n/p%20q.md"}
    assert {m.id: m.relpath for m in bundle.memories.values()} == {m.id: m.relpath for m in fresh.memories.values()}
    assert _problems(bundle.problems, ()) == _problems(fresh.problems, ())
    assert len(bundle.dataset) == len(fresh.dataset)
    assert {str(g.identifier) for g in bundle.dataset.graphs()} == {str(g.identifier) for g in fresh.dataset.graphs()}


def test_a_file_kept_from_its_last_good_version_keeps_its_inherited_namespace_triples(tmp_path: Path) -> None:
    """The reload reads the namespace graphs before the last good record is given back: they are read again."""
    root = tmp_path / "bundle"
    shutil.copytree(BUNDLES / "namespaces", root)
    bundle = load_bundle(root, base_iri=BASE, store="oxigraph", progress=False)
    add_types_graph(bundle)
    served, folder = ServedBundle(bundle), Folder(root, [], [])
    folder.write("acme/architecture.md", BROKEN)
    served.apply(["acme/architecture.md"])
    assert served.kept == {"acme/architecture.md"}
    _assert_served_as_fresh(served, folder, None, "kept in #inherited")
