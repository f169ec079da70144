"""An ontology's namespace tree (spec 10.8.2), as validation and the extended types read it.

The tree of an ontology view is its own nodes over those of every ontology it
extends (the view's ``type_hint`` wins).  Paths are normalized: the corpus
writes some base-type roots without the underscore (``semantic:`` with
children, while its discovery patterns suggest ``_semantic/science``), so a
top-level node named after a base type is read as that base-type prefix, and
a memory may write either form.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mif_rdf.ontology.model import NamespaceDef
from mif_rdf.ontology.resolution import ResolvedOntology
from mif_rdf.source.identity import BASE_TYPES


def normalized_namespace(namespace: str) -> str:
    """``semantic/science`` -> ``_semantic/science`` (the corpus writes base-type roots both ways); outer slashes go."""
    parts = namespace.strip().strip("/").split("/")
    if parts and parts[0] in BASE_TYPES:
        parts[0] = "_" + parts[0]
    return "/".join(parts)


def root_type(path: str) -> str | None:
    """The base type a normalized path's base-type root names (``_episodic/x`` -> episodic), else None."""
    root = path.split("/", 1)[0]
    return root[1:] if root.startswith("_") and root[1:] in BASE_TYPES else None


@dataclass
class Node:
    """A namespace node: its normalized path (base-type roots with ``_``), its own ``type_hint``, its children."""

    path: str
    type_hint: str | None
    children: set[str] = field(default_factory=set)


class NamespaceTree:
    """An ontology's namespace tree, its own nodes over those of every ontology it extends."""

    def __init__(self, view: ResolvedOntology) -> None:
        self.nodes: dict[str, Node] = {}
        self.roots: set[str] = set()
        for onto in [view, *view.ancestors()]:  # the view first: its hints win
            self._add(onto.file.namespaces.values(), None)

    def _add(self, defs: Iterable[NamespaceDef], parent: Node | None) -> None:
        for definition in defs:
            path = normalized_namespace(definition.path)
            node = self.nodes.get(path)
            if node is None:
                node = self.nodes[path] = Node(path, definition.type_hint)
            elif node.type_hint is None:
                node.type_hint = definition.type_hint
            if parent is None:
                self.roots.add(path)
            else:
                parent.children.add(path)
            self._add(definition.children.values(), node)

    def implied_type(self, path: str) -> str | None:
        """The nearest ``type_hint`` on the path, else the base-type root's type."""
        parts = path.split("/")
        for depth in range(len(parts), 0, -1):
            node = self.nodes.get("/".join(parts[:depth]))
            if node is not None and node.type_hint:
                return node.type_hint
        return root_type(path)
