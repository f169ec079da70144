"""Namespace files (spec 10.7), read from ``.mif/namespaces/**.yaml`` and checked.

A file's namespace is its path below the folder minus the extension
(``acme-corp/project-x.yaml`` is ``acme-corp/project-x``); its defaults are
what the memories of that namespace, and its children, inherit.
"""

from __future__ import annotations

from typing import Any

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.nsmodel.checks import _NAME, _duration, _problem, _text
from mif_rdf.nsmodel.model import NAMESPACES_DIR, NamespaceFile, NamespaceModel, segments


def _namespace_file(relpath: str, data: dict[str, Any], problems: list[Problem]) -> NamespaceFile | None:
    rule = "namespace-file"
    path = relpath[len(NAMESPACES_DIR) + 1 :].rsplit(".", 1)[0]
    if segments(path) is None or any(not _NAME.match(p) for p in path.split("/") if not p.startswith("_")):
        _problem(
            problems, relpath, "id", path, f"{path!r} (from the file's place) is not a namespace name; not used", rule
        )
        return None
    ident = _text(relpath, "id", data.get("id"), problems, rule)
    if ident is not None and ident != path.rsplit("/", 1)[-1]:
        _problem(
            problems,
            relpath,
            "id",
            ident,
            f"id {ident!r} differs from the file name {path.rsplit('/', 1)[-1]!r}; the file's place decides the "
            f"namespace ({path})",
            rule,
            Severity.WARNING,
        )
    parent = _text(relpath, "parent", data.get("parent"), problems, rule)
    folder = path.rpartition("/")[0] or None
    if parent is not None and segments(parent) is None:
        _problem(problems, relpath, "parent", parent, "parent is not a namespace name; the file's folder is used", rule)
        parent = None
    if parent is not None and folder is not None and parent != folder and parent != folder.rsplit("/", 1)[-1]:
        _problem(
            problems,
            relpath,
            "parent",
            parent,
            f"parent {parent!r} is not the folder the file is in ({folder}); the folder is used",
            rule,
        )
    parent = folder if folder is not None else parent
    ttl = _text(relpath, "default_ttl", data.get("default_ttl"), problems, rule)
    if ttl is not None and not _duration(ttl):
        _problem(
            problems,
            relpath,
            "default_ttl",
            ttl,
            f"default_ttl {ttl!r} is not an ISO 8601 duration (as in P365D); not inherited",
            rule,
        )
        ttl = None
    visibility = _text(relpath, "default_visibility", data.get("default_visibility"), problems, rule)
    tags = data.get("default_tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) and t for t in tags)):
        _problem(
            problems, relpath, "default_tags", tags, "default_tags must be a list of tags (text); not inherited", rule
        )
        tags = None
    return NamespaceFile(
        relpath,
        path,
        ident,
        _text(relpath, "type", data.get("type"), problems, rule),
        parent,
        ttl,
        visibility,
        tuple(tags) if tags is not None else None,
    )


def _check_parents(model: NamespaceModel) -> None:
    for ns in model.namespaces.values():
        if ns.parent is not None and ns.parent not in model.namespaces:
            _problem(
                model.problems,
                ns.relpath,
                "parent",
                ns.parent,
                f"parent namespace {ns.parent!r} has no namespace file; nothing is inherited from it",
                "namespace-file",
                Severity.WARNING,
            )
