"""YAML read with a peak memory near its result's, for large files (ontologies, issue 39).

:func:`~mif_rdf.source.yamlio.load_yaml` (PyYAML) first builds a node for
every value of the document, each with two position marks, and only then the
Python values: its peak is about 55 times the text (a 16 MiB ontology:
nearly a gigabyte) where the result is about 10.  :func:`load_yaml_lean`
gives the same result (values, types, timestamps, duplicate-key issues, syntax
errors) but turns each item of a top-level collection (an entity type of
``entity_types``, a trait of ``traits``) into its Python value as soon as its
nodes are complete, and lets the nodes go, so the peak is the result plus the
largest single item.

Anchors keep the usual way: once the document has defined one, the rest is
read as :func:`load_yaml` reads it (an alias must share the value its anchor
built, which the limits' bomb count relies on), and a ``<<`` merge value stays
a node, as the merge needs.
"""

from __future__ import annotations

import sys
from typing import Any

from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from mif_rdf.source.yamlio import YamlResult, _Loader

_MERGE = "tag:yaml.org,2002:merge"
_BUILT = "tag:mif-rdf,2026:built"  # a node standing for a value already built (never constructed again)


class _LeanLoader(_Loader):
    """The project's loader, composed in Python from the parser's events, building values item by item."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.anchors: dict[str, Node] = {}
        self.depth = 0  # collections open around the node being composed (the root's items are at 2)

    def get_single_node(self) -> Any:
        return Composer.get_single_node(self)  # the Python composer, on the parser's events

    def compose_document(self) -> Any:
        return Composer.compose_document(self)

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        self.depth += 1
        try:
            node: Node = Composer.compose_node(self, parent, index)  # type: ignore[assignment]  # never None here
        finally:
            self.depth -= 1
        if self.depth != 2 or index is None or self.anchors or not isinstance(node, (MappingNode, SequenceNode)):
            return node  # not an item of a top-level collection, a key, a scalar, or after an anchor: as PyYAML
        if isinstance(index, ScalarNode) and index.tag == _MERGE:
            return node  # a merge reads the node itself
        kept: dict[Node, Any] = self.constructed_objects  # type: ignore[has-type]  # PyYAML is not annotated
        self.constructed_objects = {}
        try:
            value = self.construct_object(node, deep=True)
        finally:
            self.constructed_objects = kept
        built = ScalarNode(_BUILT, "", node.start_mark, node.end_mark)
        kept[built] = value
        return built

    def compose_scalar_node(self, anchor: str | None) -> Node:
        node: Node = Composer.compose_scalar_node(self, anchor)  # type: ignore[arg-type]
        node.value = sys.intern(node.value)  # "type", "string", "description"...: one object each, not one a use
        return node

    def compose_sequence_node(self, anchor: str | None) -> Node:
        return Composer.compose_sequence_node(self, anchor)  # type: ignore[arg-type]

    def compose_mapping_node(self, anchor: str | None) -> Node:
        return Composer.compose_mapping_node(self, anchor)  # type: ignore[arg-type]


def load_yaml_lean(text: str) -> YamlResult:
    """:func:`~mif_rdf.source.yamlio.load_yaml`, with its peak memory near the result's size."""
    loader = _LeanLoader(text)
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    return YamlResult(data, loader.issues)
