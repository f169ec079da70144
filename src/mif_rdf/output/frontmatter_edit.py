"""Minimal edits of a YAML frontmatter text: change only the keys whose value changed.

Write-back (:mod:`mif_rdf.output.update`) knows the frontmatter a file holds and the
one it must hold.  Re-dumping the YAML would rewrite every line (quoting, key
spelling, comments, blank lines, list indentation), so the diff a user reviews
would hide the one change that matters.  Instead the text is composed with
PyYAML (which gives the position of every node), and only the spans of the
changed values are replaced: a scalar in place (a trailing comment stays), a
removed key or list item line by line, a new key after its mapping's last key
at that mapping's indentation, a new list item after the last item with the
same dash column.  What cannot be edited at that grain (flow style, a key that
shares its line with a ``-``) is replaced one level up.

Every result is checked by parsing it again: it must give exactly the new
frontmatter (timestamps as unquoted timestamps, booleans as booleans).  If
the fine edit does not, the changed top-level keys are rewritten whole, and
as a last resort the whole frontmatter is dumped again; so the answer is
always right, and minimal whenever the text allows.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

import yaml

from mif_rdf.source.fastyaml import load_yaml  # PyYAML's result, faster where provably the same
from mif_rdf.source.yamlio import YamlTimestamp, dump_yaml, dump_yaml_flow

Edit = tuple[int, int, str]  # replace text[start:end] with the string


class _Coarser(Exception):
    """This node cannot be edited at a finer grain: replace it one level up."""


def edit_frontmatter(text: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """``text`` (YAML that parses to ``old``) changed so that it parses to ``new``,
    with as few bytes changed as the text allows."""
    if same(old, new):
        return text
    for fine in (True, False):
        try:
            edited = _apply(text, _edits(text, old, new, fine=fine), _newline(text))
        except (_Coarser, yaml.YAMLError):
            continue
        if _parses_to(edited, new):
            return edited
    dumped = dump_yaml(new)
    return dumped.replace("\n", "\r\n") if _newline(text) == "\r\n" else dumped


def same(a: Any, b: Any) -> bool:
    """Equal as YAML values: also the same kinds (``True`` is not ``1``, a timestamp is not a quoted string).

    The tagged forms are compared as they are (lists of strings, what
    :func:`_canonical` writes out): the same answer without the JSON text."""
    return a is b or _tagged(a) == _tagged(b)


def _canonical(value: Any) -> str:
    return json.dumps(_tagged(value), sort_keys=False, default=str)


def _tagged(value: Any) -> Any:
    if isinstance(value, dict):
        return ["map", [[_tagged(k), _tagged(v)] for k, v in value.items()]]
    if isinstance(value, list):
        return ["seq", [_tagged(v) for v in value]]
    return [type(value).__name__ if not isinstance(value, YamlTimestamp) else "timestamp", repr(value)]


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        data = load_yaml(text).data
    except yaml.YAMLError:
        return False
    return same(data if data is not None else {}, expected)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _apply(text: str, edits: list[Edit], newline: str) -> str:
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    for (_, end, _), (start, _, _) in zip(ordered, ordered[1:]):
        if start < end:
            raise _Coarser("overlapping edits")
    for start, end, replacement in reversed(ordered):
        text = text[:start] + replacement.replace("\n", newline) + text[end:]
    return text


_C_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _edits(text: str, old: dict[str, Any], new: dict[str, Any], *, fine: bool) -> list[Edit]:
    root = _composed(text)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise _Coarser("the frontmatter is not a block mapping")
    edits: list[Edit] = []
    _Editor(text, edits, fine).mapping(root, old, new)
    return edits


def _composed(text: str) -> yaml.Node | None:
    """The YAML node tree of ``text``, each mark's ``index`` counting characters, as str indexes do.

    libyaml composes several times faster than the pure-Python loader (most
    of an update's time per file), but its ``index`` counts UTF-8 bytes: the
    same only for ASCII text.  Its ``line`` and ``column`` count characters,
    so for other text each index is set again from them (the lines broken
    where YAML 1.1 breaks them, as both loaders do).  Without libyaml, or on
    text it refuses, the pure-Python loader reads it.
    """
    if _C_LOADER is yaml.SafeLoader or text.isascii():
        return yaml.compose(text, Loader=_C_LOADER)
    try:
        root = yaml.compose(text, Loader=_C_LOADER)
    except yaml.YAMLError:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        start, end = node.start_mark, node.end_mark  # libyaml's marks are read-only: new ones
        node.start_mark = yaml.Mark(start.name, starts[start.line] + start.column, start.line, start.column, None, 0)
        node.end_mark = yaml.Mark(end.name, starts[end.line] + end.column, end.line, end.column, None, 0)
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return root


#: Where YAML 1.1 (PyYAML and libyaml alike) ends a line.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class _Editor:
    """Collects the edits that turn one node's value into another."""

    def __init__(self, text: str, edits: list[Edit], fine: bool) -> None:
        self.text, self.edits, self.fine = text, edits, fine

    # -- dispatch ---------------------------------------------------------------
    def value(self, node: yaml.Node, old: Any, new: Any) -> None:
        """Edits for a value node; :class:`_Coarser` when it must be replaced whole."""
        if same(old, new):
            return
        if not self.fine:
            raise _Coarser("whole keys only")
        if (
            isinstance(node, yaml.MappingNode)
            and not node.flow_style
            and node.value
            and isinstance(old, dict)
            and isinstance(new, dict)
        ):
            self.mapping(node, old, new)
        elif (
            isinstance(node, yaml.SequenceNode)
            and not node.flow_style
            and node.value
            and isinstance(old, list)
            and isinstance(new, list)
        ):
            self.sequence(node, old, new)
        elif (
            isinstance(node, yaml.ScalarNode)
            and not isinstance(new, (dict, list))
            and node.start_mark.line == node.end_mark.line
        ):
            inline = _inline(new)
            if inline is None:
                raise _Coarser("not a one-line scalar")
            self.edits.append((node.start_mark.index, node.end_mark.index, inline))
        elif (
            isinstance(node, (yaml.MappingNode, yaml.SequenceNode))
            and node.flow_style
            and node.start_mark.line == node.end_mark.line
        ):
            self.edits.append((node.start_mark.index, node.end_mark.index, _flow(new)))  # [a, b] stays one line
        else:
            raise _Coarser("replace the whole value")

    def mapping(self, node: yaml.MappingNode, old: dict[str, Any], new: dict[str, Any]) -> None:
        pairs = node.value
        names = [k.value if isinstance(k, yaml.ScalarNode) else None for k, _ in pairs]
        if len(set(names)) != len(names) or any(n is None or n not in old for n in names) or len(names) != len(old):
            raise _Coarser("keys the text does not spell plainly once each")
        column = pairs[0][0].start_mark.column
        for name, (key, value) in zip(names, pairs):
            start, end = key.start_mark.index, self.end_of(value)
            if name not in new:
                self.edits.append((self.line_start(start, whole_line=True), end, ""))
            elif not same(old[name], new[name]):
                mark = len(self.edits)
                try:
                    self.value(value, old[name], new[name])
                except _Coarser:
                    del self.edits[mark:]
                    self.edits.append((start, end, _indented(dump_yaml({name: new[name]}), column, first=False)))
        added = {k: v for k, v in new.items() if k not in old}
        if added:
            at = self.end_of(pairs[-1][1])
            self.edits.append((at, at, _line_break(self.text, at) + _indented(dump_yaml(added), column)))

    def sequence(self, node: yaml.SequenceNode, old: list[Any], new: list[Any]) -> None:
        items = node.value
        if len(items) != len(old):
            raise _Coarser("items and values disagree")
        dashes = [self.dash_of(item) for item in items]
        column = dashes[0] - self.line_start(dashes[0])
        matcher = difflib.SequenceMatcher(
            a=[_canonical(v) for v in old], b=[_canonical(v) for v in new], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if tag == "replace" and i2 - i1 == j2 - j1:
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    mark = len(self.edits)
                    try:
                        self.value(items[i], old[i], new[j])
                    except _Coarser:
                        del self.edits[mark:]
                        self.edits.append(
                            (
                                self.line_start(dashes[i], whole_line=True),
                                self.end_of(items[i]),
                                _indented(dump_yaml([new[j]]), column),
                            )
                        )
                continue
            for i in range(i1, i2):  # delete (or the deleting half of an uneven replace)
                self.edits.append((self.line_start(dashes[i], whole_line=True), self.end_of(items[i]), ""))
            if j2 > j1:
                rendered = _indented(dump_yaml(new[j1:j2]), column)
                if i1 < len(items):
                    at = self.line_start(dashes[i1], whole_line=True)
                    self.edits.append((at, at, rendered))
                else:
                    at = self.end_of(items[-1])
                    self.edits.append((at, at, _line_break(self.text, at) + rendered))

    # -- positions ----------------------------------------------------------------
    def line_start(self, index: int, whole_line: bool = False) -> int:
        """Start of the line holding ``index``; with ``whole_line``, :class:`_Coarser` unless only blanks precede it."""
        start = self.text.rfind("\n", 0, index) + 1
        if whole_line and self.text[start:index].strip(" \t"):
            raise _Coarser("shares its line")
        return start

    def dash_of(self, item: yaml.Node) -> int:
        dash = self.text.rfind("-", 0, item.start_mark.index)
        if dash < 0 or self.text[dash + 1 : item.start_mark.index].strip(" \t\r\n"):
            raise _Coarser("no dash before the item")
        return dash

    def end_of(self, node: yaml.Node) -> int:
        """Just past the line break ending the node's last line (its trailing comment included)."""
        last = self.content_end(node)
        newline = self.text.find("\n", last)
        return len(self.text) if newline < 0 else newline + 1

    def content_end(self, node: yaml.Node) -> int:
        if isinstance(node, yaml.ScalarNode):
            end = node.end_mark.index
            if node.style in ("|", ">") and not _keeps_trailing_lines(self.text, node):
                while end > node.start_mark.index and self.text[end - 1] in " \t\r\n":
                    end -= 1
            return end
        if (isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.flow_style) or not node.value:
            return node.end_mark.index
        children = [v for pair in node.value for v in pair] if isinstance(node, yaml.MappingNode) else node.value
        return max(self.content_end(child) for child in children)


def _keeps_trailing_lines(text: str, node: yaml.ScalarNode) -> bool:
    """Whether a block scalar's header says ``+`` (keep): then its trailing blank lines are content."""
    header = text[node.start_mark.index : text.find("\n", node.start_mark.index)]
    return "+" in header.split("#", 1)[0]


def _inline(value: Any) -> str | None:
    """The one-line YAML spelling of a scalar, or None when it needs more lines."""
    dumped = dump_yaml({"k": value})
    if not dumped.startswith("k: ") or dumped.count("\n") != 1:
        return None
    return dumped[3:-1]


def _flow(value: Any) -> str:
    """The one-line flow spelling of a value (``[a, b]``); the caller's re-parse checks it."""
    dumped = dump_yaml_flow({"k": value})
    if not dumped.startswith("{k: ") or not dumped.endswith("}\n") or dumped.count("\n") != 1:
        raise _Coarser("no one-line flow spelling")
    return dumped[4:-2]


def _indented(block: str, column: int, first: bool = True) -> str:
    """``block`` with every non-blank line moved right by ``column`` spaces (but the first when ``first`` is false)."""
    pad = " " * column
    lines = block.splitlines(keepends=True)
    return "".join(line if (not line.strip() or (i == 0 and not first)) else pad + line for i, line in enumerate(lines))


def _line_break(text: str, at: int) -> str:
    """A line break to insert before new lines at ``at`` when the text there does not end a
    line (a last line without one)."""
    return "" if at == 0 or text[at - 1] == "\n" else "\n"
