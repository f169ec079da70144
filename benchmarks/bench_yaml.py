"""YAML parser benchmark: faster parsers against our PyYAML-based load_yaml.

For one generated bundle (default 10,000 memories, seed 1) it extracts every
memory's frontmatter and times, on the same texts:

* ``load_yaml``  -- mif_rdf.source.yamlio.load_yaml (PyYAML CSafeLoader + our constructor), the reference
* ``CSafeLoader`` -- plain ``yaml.load(text, Loader=yaml.CSafeLoader)``
* every installed candidate: rapidyaml (``ryml``, with a Python tree walk that
  resolves scalars by PyYAML's YAML 1.1 rules), yaml-rs, fastyaml-rs, ryaml,
  pyyaml-rs, oryaml, py-yaml12, pyrs-yaml (core and yaml1.1 schema), rs-turboyaml
* ``mif_rdf.source.fastyaml`` -- the pre-check + yaml-rs path that falls back to PyYAML

and counts the documents on which each result differs from the reference:
for the candidates after mapping our YamlTimestamp to ``str`` (whether a
candidate returns ``datetime`` for timestamps is shown in its own column);
for ``mif_rdf.source.fastyaml`` exactly (types incl. YamlTimestamp, duplicate-key
issues, exception type and message).  The same comparison runs on every YAML
text among tests/fixtures (with the large hostile cases of
tests/fixtures/hostile/make_hostile.py), examples/ and the shared fixtures
(``$MIF_SHARED_DIR``, default ../shared), and on probe documents for each
YAML 1.1 pitfall, which fill the "differs on" column.  Fixtures and probes run
in a child process per parser with memory and time limits, so an alias bomb
or a parser crash is recorded instead of ending the run.

    python benchmarks/bench_yaml.py [--count N] [--seed S] [--data DIR] [--repeat R] [--no-large]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import pickle
import resource
import signal
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from mif_rdf.source import fastyaml
from mif_rdf.source.bundle_files import discover
from mif_rdf.source.markdown import FrontmatterError, split_frontmatter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the bundle generator, tests/synthetic.py
from mif_rdf.source.yamlio import YamlTimestamp, load_yaml
from synthetic import generate_bundle

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MIF_SHARED_DIR", REPO.parent / "shared"))

# --------------------------------------------------------------------------
# Probe documents, one list per pitfall
# --------------------------------------------------------------------------
PROBES: dict[str, list[str]] = {
    "1.1 booleans": ["a: yes", "a: No", "a: on", "a: OFF", "a: y", "a: n", "yes: 1"],
    "timestamps": [
        "a: 2024-01-01",
        "a: 2024-01-01T10:00:00Z",
        "a: 2024-1-1 10:00:00",
        "a: '2024-01-01'",
        "a: 2024-01-01T10:00:00.5+05:00",
        "a: 2024-13-45",
    ],
    "anchors/aliases": ["a: &x 1\nb: *x", "a: &x [1, 2]\nb: *x", "a: &x {k: v}\nb: [*x, *x]"],
    "merge keys": ["base: &b {x: 1}\nd:\n  <<: *b\n  y: 2", "b: &b {x: 1}\nd: {<<: [*b], x: 2}", "'<<': 1"],
    "duplicate keys": ["a: 1\na: 2", "x:\n  a: 1\n  a: 2", "a: 1\n'a': 2"],
    "octal/sexagesimal ints": [
        "a: 010",
        "a: 0o10",
        "a: 0x1F",
        "a: 0b101",
        "a: 1_000",
        "a: 1:30",
        "a: 190:20:30",
        "a: _1",
        "a: 09",
        "a: +12",
        "a: 12345678901234567890",
    ],
    ".inf/.nan/floats": [
        "a: .inf",
        "a: -.Inf",
        "a: .nan",
        "a: inf",
        "a: nan",
        "a: 1e3",
        "a: 1.0e+3",
        "a: 1.",
        "a: 1_0.5",
        "a: 1:30.5",
    ],
    "tags": ["a: !!str 1", "a: !!binary aGk=", "a: !!set {x}", "a: !!int '7'", "a: !foo x"],
    "errors": [
        "a: [1, 2",
        "a: 'unclosed",
        "- a\nb: 1",
        "a: 1\n---\nb: 2",
        "a: =",
        "? [1]\n: x",
        "\ta: 1",
        "a:\n  b: 1\n c: 2",
        "  - x\n- y",
    ],
}


# --------------------------------------------------------------------------
# Parsers
# --------------------------------------------------------------------------
class Parser(NamedTuple):
    name: str
    dist: str  # the PyPI distribution (for its version)
    load: Callable[[str], Any] | None  # None: not installed
    exact: bool = False  # returns a YamlResult compared exactly


def _ryml_loader() -> Callable[[str], Any]:
    """rapidyaml parses into a C++ tree; Python walks it and resolves plain
    scalars with PyYAML's YAML 1.1 resolver (timestamps as YamlTimestamp)."""
    import ryml
    from yaml.constructor import SafeConstructor
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    resolver, constructor = Resolver(), SafeConstructor()
    constructors = SafeConstructor.yaml_constructors
    timestamp_tag = "tag:yaml.org,2002:timestamp"
    str_tag = "tag:yaml.org,2002:str"
    none = ryml.NONE

    def scalar(text: str, quoted: bool) -> Any:
        if quoted:
            return text
        tag = resolver.resolve(ScalarNode, text, (True, False))
        if tag == str_tag:
            return text
        if tag == timestamp_tag:
            return YamlTimestamp(text)
        return constructors.get(tag, SafeConstructor.construct_undefined)(constructor, ScalarNode(tag, text))

    def walk(tree: Any, node: int) -> Any:
        if tree.is_map(node):
            mapping = {}
            child = tree.first_child(node)
            while child != none:
                key = scalar(bytes(tree.key(child)).decode(), tree.is_key_quoted(child))
                mapping[key] = walk(tree, child)
                child = tree.next_sibling(child)
            return mapping
        if tree.is_seq(node):
            items = []
            child = tree.first_child(node)
            while child != none:
                items.append(walk(tree, child))
                child = tree.next_sibling(child)
            return items
        if not tree.has_val(node) or tree.val_is_null(node):
            return None
        return scalar(bytes(tree.val(node)).decode(), tree.is_val_quoted(node))

    def load(text: str) -> Any:
        tree = ryml.parse_in_arena(text.encode("utf-8"))
        tree.resolve()  # anchors, aliases and merge keys
        root = tree.root_id()
        if tree.is_stream(root):
            root = tree.first_child(root)
            if root == none:
                return None
        if tree.is_doc(root) and not tree.is_container(root) and not tree.has_val(root):
            return None
        return walk(tree, root)

    return load


def _optional(make: Callable[[], Callable[[str], Any]]) -> Callable[[str], Any] | None:
    try:
        return make()
    except ImportError:
        return None


def _yaml_rs() -> Callable[[str], Any]:
    import yaml_rs

    policy = yaml_rs.DuplicateKeyPolicy.LastWins
    return lambda text: yaml_rs.loads(text, parse_datetime=False, duplicate_key_policy=policy)


def _yaml_rs_datetime() -> Callable[[str], Any]:
    import yaml_rs

    return yaml_rs.loads  # defaults: parse_datetime=True, duplicate keys raise


def _fast_yaml() -> Callable[[str], Any]:
    import fast_yaml

    return fast_yaml.safe_load


def _ryaml() -> Callable[[str], Any]:
    import ryaml

    return ryaml.loads


def _pyyaml_rs() -> Callable[[str], Any]:
    import pyyaml_rs

    return pyyaml_rs.safe_load


def _oryaml() -> Callable[[str], Any]:
    import oryaml

    return oryaml.loads


def _yaml12() -> Callable[[str], Any]:
    import yaml12

    return yaml12.parse_yaml


def _pyrs(schema: str | None) -> Callable[[], Callable[[str], Any]]:
    def make() -> Callable[[str], Any]:
        import pyrs_yaml

        return lambda text: pyrs_yaml.safe_load(text, schema=schema, allow_duplicate_keys=True)

    return make


def _turbo() -> Callable[[str], Any]:
    import turboyaml

    return lambda text: turboyaml.load(text, yaml_1_1_bools=True)


def parsers() -> list[Parser]:
    return [
        Parser("load_yaml (reference)", "PyYAML", load_yaml, exact=True),
        Parser("yaml.load CSafeLoader", "PyYAML", lambda text: yaml.load(text, Loader=yaml.CSafeLoader)),
        Parser("mif_rdf.source.fastyaml", "yaml-rs", fastyaml.load_yaml if fastyaml.backend() else None, exact=True),
        Parser("rapidyaml + walk", "rapidyaml", _optional(_ryml_loader)),
        Parser("yaml-rs", "yaml-rs", _optional(_yaml_rs)),
        Parser("yaml-rs parse_datetime", "yaml-rs", _optional(_yaml_rs_datetime)),
        Parser("fastyaml-rs", "fastyaml-rs", _optional(_fast_yaml)),
        Parser("ryaml", "ryaml", _optional(_ryaml)),
        Parser("pyyaml-rs", "pyyaml-rs", _optional(_pyyaml_rs)),
        Parser("oryaml", "oryaml", _optional(_oryaml)),
        Parser("py-yaml12", "py-yaml12", _optional(_yaml12)),
        Parser("pyrs-yaml core", "pyrs-yaml", _optional(_pyrs(None))),
        Parser("pyrs-yaml yaml1.1", "pyrs-yaml", _optional(_pyrs("yaml1.1"))),
        Parser("rs-turboyaml", "rs-turboyaml", _optional(_turbo)),
    ]


# --------------------------------------------------------------------------
# Comparable outcomes
# --------------------------------------------------------------------------
class _TooBig(Exception):
    pass


def _norm(value: Any, exact: bool, seen: dict[int, int], budget: list[int], flags: set[str]) -> Any:
    """A comparable form of value with exact types.  Exact: a container met
    again (a YAML alias, which PyYAML shares) is a reference to its first
    visit.  Otherwise aliases are compared by value (expanded, within the
    budget) and YamlTimestamp counts as str."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    kind = type(value)
    if kind is dict or kind is list:
        if exact:
            if id(value) in seen:
                return ("ref", seen[id(value)])
            seen[id(value)] = len(seen)
        if kind is dict:
            return (
                "dict",
                tuple(
                    (_norm(k, exact, seen, budget, flags), _norm(v, exact, seen, budget, flags))
                    for k, v in value.items()
                ),
            )
        return ("list", tuple(_norm(v, exact, seen, budget, flags) for v in value))
    if kind is YamlTimestamp:
        flags.add("YamlTimestamp")
        if not exact:
            return ("str", str(value))
    if isinstance(value, (datetime.date, datetime.datetime)):
        flags.add("datetime")
    if kind is float:
        return ("float", repr(value))
    try:
        hash(value)
    except TypeError:
        return (kind.__name__, repr(value))
    return (kind.__name__, value)


_FAILED = object()


def outcome(parser: Parser, text: str) -> tuple[Any, frozenset[str]]:
    """(comparable result, flags) of one parse; exceptions are results too."""
    try:
        return judge(parser, parser.load(text))  # type: ignore[misc]
    except BaseException as exc:  # noqa: BLE001 - Rust panics included
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return judge(parser, _FAILED, exc)


def judge(parser: Parser, result: Any, exc: BaseException | None = None) -> tuple[Any, frozenset[str]]:
    """The comparable form of a parse result (or of the exception it raised)."""
    if exc is not None:
        if isinstance(exc, RecursionError):
            return ("error", "RecursionError", ""), frozenset()
        return ("error", type(exc).__name__, str(exc) if parser.exact else ""), frozenset()
    flags: set[str] = set()
    try:
        if parser.exact:
            norm = _norm(result.data, True, {}, [1_000_000], flags)
            return ("ok", norm, tuple(tuple(sorted(vars(i).items())) for i in result.issues)), frozenset(flags)
        return ("ok", _norm(result, False, {}, [1_000_000], flags), ()), frozenset(flags)
    except _TooBig:
        return ("too big",), frozenset()
    except RecursionError:
        return ("too deep",), frozenset()


def same(expected: Any, got: Any, exact: bool) -> bool:
    """Exact parsers must match everything, errors included; the others must
    match the data and raise where PyYAML raises (any exception)."""
    if not exact and expected[0] == "error":
        return got[0] == "error"
    return got == expected


# --------------------------------------------------------------------------
# Isolation for hostile input
# --------------------------------------------------------------------------
def run_isolated(parser: Parser, texts: list[str], seconds: int = 3, memory: int = 2 << 30) -> list[Any]:
    """Outcomes of parser on texts, in child processes: a crash, an alias bomb
    that eats memory or a hang becomes the outcome ("crash", ...) of that text."""
    results: list[Any] = []
    while len(results) < len(texts):
        start = len(results)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            os.close(read_end)
            try:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                with os.fdopen(write_end, "wb") as out:
                    for text in texts[start:]:
                        signal.alarm(seconds)
                        frame = pickle.dumps(outcome(parser, text))
                        out.write(struct.pack("<Q", len(frame)) + frame)
                        out.flush()
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as incoming:
            while True:
                head = incoming.read(8)
                if len(head) < 8:
                    break
                results.append(pickle.loads(incoming.read(struct.unpack("<Q", head)[0])))
        _, status = os.waitpid(pid, 0)
        if len(results) < len(texts):
            if os.WIFSIGNALED(status):
                how = "timeout" if os.WTERMSIG(status) == signal.SIGALRM else f"signal {os.WTERMSIG(status)}"
            else:
                how = f"exit {os.WEXITSTATUS(status)}"
            results.append((("crash", how), frozenset()))
    return results


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------
def frontmatters(root: Path) -> list[str]:
    texts = []
    for relpath in discover(root).memories:
        texts.append(split_frontmatter((root / relpath).read_bytes().decode("utf-8")).frontmatter)
    return texts


def fixture_texts(large_dir: Path | None) -> list[tuple[str, str]]:
    folders = [REPO / "tests" / "fixtures", REPO / "examples", SHARED]
    if large_dir is not None:
        folders.append(large_dir)
    texts = []
    for folder in folders:
        if not folder.is_dir():
            print(f"  (missing: {folder})", file=sys.stderr)
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix not in (".md", ".yaml", ".yml"):
                continue
            text = path.read_bytes().decode("utf-8", errors="surrogateescape")
            if path.suffix == ".md":
                try:
                    text = split_frontmatter(text).frontmatter
                except FrontmatterError:
                    continue  # no YAML to compare
            texts.append((str(path), text))
    return texts


def _dist_version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "-"


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, help="bundle folder to (re)use; generated there if empty")
    parser.add_argument(
        "--repeat", type=int, default=2, help="timing passes per parser (one if it takes over 2 s); the best counts"
    )
    parser.add_argument("--no-large", action="store_true", help="skip the 50 MB / 10,000-deep hostile cases")
    parser.add_argument("--verbose", action="store_true", help="name the fixtures and probes each parser differs on")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp) / "bundle"
        if not root.is_dir() or not any(root.iterdir()):
            print(f"generating {args.count} memories (seed {args.seed}) in {root}", flush=True)
            generate_bundle(root, args.count, seed=args.seed)
        docs = frontmatters(root)
        large = None
        if not args.no_large:
            sys.path.insert(0, str(REPO / "tests" / "fixtures" / "hostile"))
            from make_hostile import write_large

            large = Path(tmp) / "large"
            write_large(large, tiny_files=0)
        fixtures = fixture_texts(large)
        probes = [(category, text) for category, texts in PROBES.items() for text in texts]
        print(
            f"{len(docs)} generated frontmatters, {len(fixtures)} fixture YAML texts, {len(probes)} probes", flush=True
        )

        all_parsers = parsers()
        reference = all_parsers[0]
        plain_reference = Parser("load_yaml data", "PyYAML", lambda text: load_yaml(text).data)
        expected: dict[bool, dict[str, list[Any]]] = {}
        for exact, ref in ((True, reference), (False, plain_reference)):
            expected[exact] = {  # "docs" is filled from the reference's own timing run
                "fixtures": [r for r, _ in run_isolated(ref, [t for _, t in fixtures])],
                "probes": [r for r, _ in run_isolated(ref, [t for _, t in probes])],
            }
        rows: list[tuple[Any, ...]] = []
        base_time = None
        for item in all_parsers:
            if item.load is None:
                rows.append((item.name, _dist_version(item.dist), None, None, "-", "-", "-", "not installed"))
                continue
            best = float("inf")
            load = item.load
            raw: list[tuple[Any, BaseException | None]] = []
            for attempt in range(args.repeat):
                gc.collect()
                keep = raw.append if attempt == 0 else None
                start = time.perf_counter()
                for text in docs:
                    try:
                        value = load(text)
                        if keep:
                            keep((value, None))
                    except Exception as exc:  # noqa: BLE001 - compared below
                        if keep:
                            keep((_FAILED, exc))
                best = min(best, time.perf_counter() - start)
                if best > 2.0:  # a slow parser's second pass changes nothing in the table
                    break
            results = [judge(item, value, exc) for value, exc in raw]
            if item is reference:
                expected[True]["docs"] = [r for r, _ in results]
                expected[False]["docs"] = [
                    judge(plain_reference, value if exc else value.data, exc)[0] for value, exc in raw
                ]
            del raw
            if item is reference:
                base_time = best
            want = expected[item.exact]
            flags: set[str] = set()
            differ_docs = 0
            for (got, got_flags), wanted in zip(results, want["docs"]):
                flags |= got_flags
                differ_docs += not same(wanted, got, item.exact)
            fix = run_isolated(item, [t for _, t in fixtures])
            differ_fix = 0
            crashes = 0
            for (name, _), (got, got_flags), wanted in zip(fixtures, fix, want["fixtures"]):
                flags |= got_flags
                if not same(wanted, got, item.exact):
                    differ_fix += 1
                    if args.verbose:
                        print(f"    {item.name}: {name}: {str(got)[:100]}", flush=True)
                crashes += got[0] == "crash"
            categories = []
            for (category, text), (got, got_flags), wanted in zip(
                probes, run_isolated(item, [t for _, t in probes]), want["probes"]
            ):
                flags |= got_flags
                if got[0] == "crash":
                    crashes += 1
                if not same(wanted, got, item.exact):
                    if args.verbose:
                        print(f"    {item.name}: probe {text!r}: {str(got)[:100]}", flush=True)
                    if category not in categories:
                        categories.append(category)
            if crashes:
                categories.append(f"{crashes} crash(es)/timeout(s)")
            stamps = "YamlTimestamp" if "YamlTimestamp" in flags else "datetime" if "datetime" in flags else "str"
            rows.append(
                (
                    item.name,
                    _dist_version(item.dist),
                    best,
                    best * 1e6 / len(docs),
                    f"{differ_docs}/{len(docs)}",
                    f"{differ_fix}/{len(fixtures)}",
                    stamps,
                    ", ".join(categories) or "nothing",
                )
            )
            print(f"  {item.name:<24} {best:7.2f} s", flush=True)

    print()
    header = (
        "parser",
        "version",
        "time s",
        "us/doc",
        "vs load_yaml",
        "generated differ",
        "fixtures differ",
        "timestamps",
        "differs on (probes)",
    )
    table = []
    for name, ver, secs, per_doc, d_docs, d_fix, stamps, what in rows:
        ratio = f"{base_time / secs:.2f}x" if secs and base_time else "-"
        table.append(
            (
                name,
                ver,
                f"{secs:.2f}" if secs else "-",
                f"{per_doc:.1f}" if per_doc else "-",
                ratio,
                d_docs,
                d_fix,
                stamps,
                what,
            )
        )
    widths = [max(len(str(r[i])) for r in [header, *table]) for i in range(len(header))]
    for line in [header, tuple("-" * w for w in widths), *table]:
        print("| " + " | ".join(str(cell).ljust(width) for cell, width in zip(line, widths)) + " |")
    print(
        f"\n{len(docs)} generated memories (seed {args.seed}); 'vs load_yaml' is speed-up (>1 is faster);"
        " candidates compared after YamlTimestamp -> str; load_yaml and mif_rdf.source.fastyaml compared exactly."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
