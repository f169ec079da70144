"""What ``.mif/config.yaml`` says of namespaces: custom reserved prefixes (spec 10.5),
``allow_system_namespace`` and ``authority``."""

from __future__ import annotations

import re
from typing import Any

from mif_rdf.nsmodel.checks import _duration, _problem
from mif_rdf.nsmodel.model import (
    AUTHORITY_KEY,
    DEFAULT_AUTHORITY,
    PREFIX_ACCESS,
    SPEC_PREFIXES,
    SYSTEM_KEY,
    NamespaceModel,
    ReservedPrefix,
)
from mif_rdf.source.identity import BUNDLE_ID_KEY, bundle_id_problem

_PREFIX = re.compile(r"^_[a-z0-9][a-z0-9_-]*$")
_AUTHORITY = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?$")


def _read_config(config: dict[str, Any], model: NamespaceModel) -> None:
    """``reserved_prefixes``, ``allow_system_namespace`` and ``authority`` of ``.mif/config.yaml``."""
    relpath = model.config_path or ".mif/config.yaml"
    problems, rule = model.problems, "reserved-prefix"
    declared = config.get("reserved_prefixes")
    if declared is not None and not isinstance(declared, dict):
        _problem(
            problems,
            relpath,
            "reserved_prefixes",
            declared,
            "reserved_prefixes must map each prefix to its rules",
            rule,
        )
        declared = None
    for name, rules in (declared or {}).items():
        key = f"reserved_prefixes.{name}"
        if not isinstance(name, str) or not _PREFIX.match(name):
            _problem(
                problems,
                relpath,
                key,
                name,
                "a reserved prefix starts with '_' then lower-case letters, digits, '_' or '-' (spec 10.5); not used",
                rule,
            )
            continue
        if name in SPEC_PREFIXES:
            _problem(
                problems,
                relpath,
                key,
                name,
                f"{name} is reserved by the spec (10.2) and keeps the spec's meaning; this entry is not used",
                rule,
            )
            continue
        if rules is None:
            rules = {}
        if not isinstance(rules, dict):
            _problem(
                problems,
                relpath,
                key,
                rules,
                "a reserved prefix's rules are a mapping (description, access, ttl, provenance_required); not used",
                rule,
            )
            continue
        access = rules.get("access")
        if access is not None and access not in PREFIX_ACCESS:
            _problem(
                problems,
                relpath,
                f"{key}.access",
                access,
                f"access must be one of {', '.join(PREFIX_ACCESS)}; read as read-only (the safer reading)",
                rule,
            )
            access = "read-only"
        ttl = rules.get("ttl")
        if ttl is not None and not (isinstance(ttl, str) and _duration(ttl)):
            _problem(
                problems,
                relpath,
                f"{key}.ttl",
                ttl,
                "ttl must be an ISO 8601 duration (as in P30D); not inherited",
                rule,
            )
            ttl = None
        required = rules.get("provenance_required", False)
        if not isinstance(required, bool):
            _problem(
                problems,
                relpath,
                f"{key}.provenance_required",
                required,
                "provenance_required must be true or false; read as true (the stricter reading)",
                rule,
            )
            required = True
        description = rules.get("description")
        model.prefixes[name] = ReservedPrefix(
            name, description if isinstance(description, str) else None, access, ttl, required
        )
    allow = config.get(SYSTEM_KEY, False)
    if not isinstance(allow, bool):
        _problem(
            problems,
            relpath,
            SYSTEM_KEY,
            allow,
            f"{SYSTEM_KEY} must be true or false; read as false",
            "system-namespace",
        )
        allow = False
    model.allow_system = allow
    model.authority = authority_of(config)
    if config.get(AUTHORITY_KEY) is not None and model.authority != config[AUTHORITY_KEY]:
        _problem(
            problems,
            relpath,
            AUTHORITY_KEY,
            config[AUTHORITY_KEY],
            f"{AUTHORITY_KEY} must be a host name (as in github.com or registry); {model.authority!r} is used",
            "authority",
        )


def authority_of(config: dict[str, Any]) -> str:
    """The authority of the bundle's namespace URIs (spec 10.6): ``authority`` of the config,
    else its ``bundle_id``, else ``local``."""
    authority = config.get(AUTHORITY_KEY)
    if isinstance(authority, str) and _AUTHORITY.match(authority):
        return authority
    bundle_id = config.get(BUNDLE_ID_KEY)
    return bundle_id if isinstance(bundle_id, str) and bundle_id_problem(bundle_id) is None else DEFAULT_AUTHORITY
