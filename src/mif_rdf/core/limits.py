"""Resource limits for reading bundles, so hostile input cannot hang or exhaust a machine.

A bundle is data from elsewhere: one 2 GB file, a YAML "billion laughs" alias
bomb or a million nested brackets must each become one clear problem, not a
hang or an out-of-memory kill.  The defaults fit real bundles with a wide margin
(the largest memory of the examples is 6 KB; a 100,000-memory bundle loads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one load accepts; exceeding a limit is a problem for that file (or bundle)."""

    max_file_bytes: int = 16 * 1024 * 1024  # a memory file larger than this is not read
    max_yaml_values: int = 100_000  # values in one frontmatter after alias expansion
    max_yaml_depth: int = 64  # nesting of mappings and lists in one frontmatter
    max_memories: int = 1_000_000  # memory files per bundle; later paths (sorted) are not loaded


DEFAULT_LIMITS = Limits()

#: Ontology YAML files are read like memory files (issue 39): a file over this size is not read, and its
#: YAML is held to the same shape limits with room for large vocabularies (values, nesting).
ONTOLOGY_LIMITS = Limits(max_file_bytes=16 * 1024 * 1024, max_yaml_values=2_000_000, max_yaml_depth=64)
#: Fields of entity types once traits and supertypes are composed, over all compiled ontologies: each becomes
#: some 45 triples of OWL and SHACL (about 50 KB of memory in rdflib's store), and a few trait lines of YAML
#: can give thousands of types each of them; past this a compile into rdflib graphs (the Python API,
#: ``--output-dir``, JSON-LD and RDF/XML outputs) stops before building any graph.
MAX_ONTOLOGY_FIELDS = 20_000
#: Past this many composed fields ``mif-rdf ontology compile`` writes ``-o``/``--shapes`` (Turtle or
#: N-Triples) as N-Triples lines while it compiles, holding no graph: memory then follows the YAML's size.
STREAM_ONTOLOGY_FIELDS = 2_000
#: Ontology files one search folder may hold; the ones after it (in path order) are not read.
MAX_ONTOLOGY_FILES = 10_000

#: SPARQL text longer than this is refused before any parser sees it (a 700,000-pattern query crashed a server).
MAX_QUERY_BYTES = 512 * 1024
#: Brackets (``{ ( [``) open at once, at most: pyoxigraph's parser overflows its stack (a segfault) at about
#: 2,200 nested ``{`` and rdflib's raises RecursionError near 40, so real queries (a handful) have a wide margin.
MAX_QUERY_DEPTH = 32


def yaml_shape_problem(data: Any, limits: Limits) -> str | None:
    """Why a parsed YAML value is too big, too deep or cyclic once aliases are expanded; None if fine.

    PyYAML builds an alias as a shared reference, so parsing a bomb is cheap; it
    is every later tree walk (projection, triples) that would expand it.  Sizes
    are counted over the shared structure with memoization, in linear time.
    Most frontmatter is a small tree: a plain walk that gives up at the limits
    settles it at a third of the cost, and only what it gives up on is measured
    with memoization.
    """
    try:
        if _tree_within(data, 1, limits):
            return None
    except RecursionError:
        pass
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    active: set[int] = set()

    def measure(value: Any) -> tuple[int, int]:
        if not isinstance(value, (dict, list)):
            return 1, 0
        key = id(value)
        if key in sizes:
            return sizes[key], depths[key]
        if key in active:
            raise _Cycle
        active.add(key)
        children = value.values() if isinstance(value, dict) else value
        size, depth = 1, 0
        for child in children:
            child_size, child_depth = measure(child)
            size += child_size
            depth = max(depth, child_depth)
            if size > limits.max_yaml_values or depth + 1 > limits.max_yaml_depth:
                break
        active.discard(key)
        sizes[key], depths[key] = size, depth + 1
        return size, depth + 1

    try:
        size, depth = measure(data)
    except _Cycle:
        return "YAML refers to itself (an alias inside its own anchor): it has no finite value"
    except RecursionError:
        return f"YAML is nested deeper than {limits.max_yaml_depth} levels"
    if depth > limits.max_yaml_depth:
        return f"YAML is nested {depth} levels deep, over the limit of {limits.max_yaml_depth}"
    if size > limits.max_yaml_values:
        return f"YAML expands (aliases included) to more than {limits.max_yaml_values:,} values, over the limit"
    return None


class _Cycle(Exception):
    pass


def _tree_within(value: Any, depth: int, limits: Limits) -> bool:
    """Whether ``value`` (at nesting ``depth``), walked as a plain tree, stays within the limits.

    An alias is walked again each time it is used, which is what the limits
    count; a bomb or a cycle runs into a limit and is left to the exact count.
    """
    if not isinstance(value, (dict, list)):
        return True
    return _size_within(value, depth, limits) is not None


def _size_within(value: dict[Any, Any] | list[Any], depth: int, limits: Limits) -> int | None:
    if depth > limits.max_yaml_depth:
        return None
    size = 1
    for child in value.values() if isinstance(value, dict) else value:
        if isinstance(child, (dict, list)):
            inner = _size_within(child, depth + 1, limits)
            if inner is None:
                return None
            size += inner
        else:
            size += 1
        if size > limits.max_yaml_values:
            return None
    return size
