"""Shared agreements (spec 10.4), read from ``.mif/shared-agreements/*.yaml`` and checked.

A malformed agreement is reported and grants nothing (access fails
closed); a malformed entry in one is left out.
"""

from __future__ import annotations

import re
from typing import Any

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.nsmodel.checks import _name, _names, _problem, _text
from mif_rdf.nsmodel.model import READ_WORDS, Agreement, NamespaceModel

#: One segment of a namespace an agreement names; ``*`` is a wildcard.
_PATTERN_SEGMENT = re.compile(r"^[A-Za-z0-9_*](?:[A-Za-z0-9._+*-]*[A-Za-z0-9_*])?$")


def _agreement(relpath: str, data: dict[str, Any], problems: list[Problem]) -> Agreement | None:
    """An agreement from its YAML, or None (reported) when it cannot grant anything safely."""
    rule = "agreement"
    ident = data.get("id")
    if not _name(ident):
        _problem(
            problems,
            relpath,
            "id",
            ident,
            "an agreement needs an id (letters, digits, '.', '_', '+' and '-'); this agreement is not used",
            rule,
        )
        return None
    stem = relpath.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if ident != stem:
        _problem(
            problems,
            relpath,
            "id",
            ident,
            f"id {ident!r} differs from the file name {stem!r} (spec 10.4 names the file after the agreement)",
            rule,
            Severity.WARNING,
        )
    kind = _text(relpath, "type", data.get("type"), problems, rule)
    if kind is not None and kind not in ("bilateral", "consortium"):
        _problem(
            problems,
            relpath,
            "type",
            kind,
            f"type {kind!r} is not one spec 10.4 shows (bilateral, consortium); read as written",
            rule,
            Severity.WARNING,
        )
    admin = data.get("admin")
    if admin is not None and not _name(admin):
        _problem(problems, relpath, "admin", admin, "admin must be an organization name", rule)
        admin = None
    patterns = _patterns(relpath, data.get("namespaces"), problems)
    access = data.get("access")
    if access is not None and not isinstance(access, dict):
        _problem(problems, relpath, "access", access, "access must be a mapping with read and write", rule)
        access = None
    access = access or {}
    agreement = Agreement(
        relpath,
        ident,
        kind,
        _names(relpath, "parties", data.get("parties"), problems, rule),
        admin,
        _names(relpath, "members", data.get("members"), problems, rule),
        _created(relpath, data.get("created"), problems),
        patterns,
        _access(relpath, "access.read", access.get("read"), problems),
        _access(relpath, "access.write", access.get("write"), problems),
    )
    if agreement.read is None:
        _problem(
            problems,
            relpath,
            "access.read",
            None,
            "no access.read: nobody may read what this agreement covers (access fails closed)",
            rule,
            Severity.WARNING,
        )
    elif isinstance(agreement.read, str) and not agreement.readers():
        _problem(
            problems,
            relpath,
            "access.read",
            agreement.read,
            f"read: {agreement.read} names nobody (the agreement has no {agreement.read})",
            rule,
            Severity.WARNING,
        )
    if kind == "bilateral" and len(agreement.parties) != 2:
        _problem(
            problems,
            relpath,
            "parties",
            data.get("parties"),
            "a bilateral agreement has two parties",
            rule,
            Severity.WARNING,
        )
    return agreement


def _created(relpath: str, value: Any, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else None
    if text is None:
        _problem(problems, relpath, "created", value, "created must be an ISO 8601 date-time", "agreement")
    return text


def _patterns(relpath: str, value: Any, problems: list[Problem]) -> tuple[str, ...]:
    """The ``namespaces`` an agreement covers: ``_shared/...`` paths, with ``*`` wildcards."""
    if not isinstance(value, list) or not value:
        _problem(
            problems,
            relpath,
            "namespaces",
            value,
            "an agreement needs a list of the _shared namespaces it covers; it covers nothing",
            "agreement",
        )
        return ()
    kept = []
    for index, item in enumerate(value):
        parts = item.split("/") if isinstance(item, str) else []
        if (
            len(parts) < 2
            or parts[0] != "_shared"
            or not all(_PATTERN_SEGMENT.match(p) and p not in (".", "..") for p in parts[1:])
        ):
            _problem(
                problems,
                relpath,
                f"namespaces[{index}]",
                item,
                f"{item!r} is not a _shared namespace (as in _shared/acme+bigcorp/api or _shared/cncf/*); left out",
                "agreement-namespace",
            )
        else:
            kept.append(item)
    return tuple(kept)


def _access(relpath: str, key: str, value: Any, problems: list[Problem]) -> str | tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value in READ_WORDS:
            return value
        if _name(value):  # one name written without brackets
            return (value,)
        _problem(
            problems,
            relpath,
            key,
            value,
            f"{key} must be a list of organization names or one of {', '.join(READ_WORDS)}; nobody is granted it",
            "agreement",
        )
        return ""
    return _names(relpath, key, value, problems, "agreement")


def _check_agreement_ids(model: NamespaceModel) -> None:
    seen: dict[str, str] = {}
    kept = []
    for agreement in model.agreements:
        if agreement.id in seen:
            _problem(
                model.problems,
                agreement.relpath,
                "id",
                agreement.id,
                f"agreement id {agreement.id!r} is already used by {seen[agreement.id]}; this one is not used",
                "agreement",
            )
            continue
        seen[agreement.id] = agreement.relpath
        kept.append(agreement)
    model.agreements = kept
