"""YAML reading and writing that keeps what the author wrote.

PyYAML's safe loader turns unquoted timestamps into ``datetime``/``date``
objects, which loses the author's lexical form (``2026-01-15T10:30:00Z`` would
come back as ``2026-01-15 10:30:00+00:00``).  Literals and round trips need the
exact text, so timestamps are kept as :class:`YamlTimestamp`, a ``str`` that
remembers it was an unquoted YAML timestamp and is written back unquoted.
Everything else is exactly what ``yaml.safe_load`` yields.  The C parser is
used when the platform has it (it is much faster than the pure-Python one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

#: The YAML 1.1 timestamp pattern PyYAML resolves implicitly.
TIMESTAMP_RE = re.compile(
    r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
    r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
    r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
)


class YamlTimestamp(str):
    """A YAML timestamp scalar kept verbatim (it was unquoted in the source)."""

    __slots__ = ()


@dataclass
class YamlIssue:
    """Something about the YAML text that is legal for PyYAML but worth saying.

    Lines are 1-based within the YAML text; ``first_line`` is the earlier
    occurrence of a duplicate key.
    """

    message: str
    line: int | None = None
    key: str | None = None
    first_line: int | None = None


class _Loader(_BaseLoader):
    """Safe loader with verbatim timestamps and duplicate-key detection."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.issues: list[YamlIssue] = []

    def construct_yaml_timestamp(self, node: yaml.Node) -> YamlTimestamp:
        return YamlTimestamp(self.construct_scalar(node))

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = key_node.value
                if key in seen and key_node.tag != "tag:yaml.org,2002:merge":
                    self.issues.append(
                        YamlIssue(
                            f"duplicate key {key!r}; the later value wins",
                            line=key_node.start_mark.line + 1,
                            key=str(key),
                            first_line=seen[key] + 1,
                        )
                    )
                seen.setdefault(key, key_node.start_mark.line)
        return super().construct_mapping(node, deep=deep)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)


@dataclass
class YamlResult:
    data: Any
    issues: list[YamlIssue] = field(default_factory=list)
    #: the most values and the deepest nesting the document can hold, when its text alone bounds them (the fast
    #: path of :mod:`mif_rdf.source.fastyaml`): then a size check within both needs no walk; None: not known
    bounds: tuple[int, int] | None = None


def load_yaml(text: str) -> YamlResult:
    """Parse one YAML document; raises ``yaml.YAMLError`` on syntax errors."""
    loader = _Loader(text)
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    return YamlResult(data, loader.issues)


def yaml_error_line(exc: yaml.YAMLError) -> int | None:
    """1-based line of a YAML error inside the parsed text, when PyYAML knows it."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 1 if mark is not None else None


class _Dumper(_BaseDumper):
    """Safe dumper: verbatim timestamps, block style for multi-line strings."""


def _represent_timestamp(dumper: yaml.SafeDumper, data: YamlTimestamp) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", str(data))


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data and not data.startswith((" ", "\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(YamlTimestamp, _represent_timestamp)
_Dumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    """Write YAML the way people write frontmatter: block style, keys in order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


class _FlowDumper(yaml.SafeDumper):
    """Flow style on one line, timestamps unquoted (as :func:`dump_yaml` writes them)."""


_FlowDumper.add_representer(YamlTimestamp, _represent_timestamp)


def dump_yaml_flow(data: Any) -> str:
    """Write YAML in flow style on one line (``{k: [a, b]}``), keys in order:
    for an edit that keeps a flow value flow."""
    return yaml.dump(
        data, Dumper=_FlowDumper, default_flow_style=True, width=2**31, allow_unicode=True, sort_keys=False
    )
