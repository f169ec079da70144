"""Content integrity (spec 18.2): ``extensions.<provider>.hash`` checked on load.

What is hashed: the memory's body -- every byte after the line that closes the
frontmatter, as UTF-8, exactly the ``content`` literal -- with SHA-256, written
``sha256:<64 lowercase hex digits>``.  The frontmatter is not included, so a
hash can live in the frontmatter it protects and metadata may be edited
without invalidating it; the body (the knowledge itself) may not.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from mif_rdf.core.errors import Problem, Severity

PROVIDER = "mif-rdf"  # the extensions provider under which `export --with-hashes` writes
_DIGEST = re.compile(r"^sha256:([0-9a-fA-F]{64})$")


def content_hash(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def hash_problems(relpath: str, frontmatter: dict[str, Any], body: str) -> list[Problem]:
    """A problem for every ``extensions.*.hash`` that does not match the body (or cannot be checked)."""
    extensions = frontmatter.get("extensions")
    if not isinstance(extensions, dict):
        return []
    problems = []
    actual: str | None = None
    for provider, payload in extensions.items():
        value = payload.get("hash") if isinstance(payload, dict) else None
        if not isinstance(value, str) or not value.lower().startswith("sha256:"):
            continue
        key = f"extensions.{provider}.hash"
        match = _DIGEST.match(value)
        if match is None:
            problems.append(
                Problem(
                    relpath,
                    "not a full SHA-256 digest (sha256: and 64 hex digits); not verified",
                    Severity.INFO,
                    key=key,
                    value=value,
                    rule="integrity",
                )
            )
            continue
        actual = actual or content_hash(body)
        if match.group(1).lower() != actual[len("sha256:") :]:
            problems.append(
                Problem(
                    relpath,
                    f"the body does not match its hash (it is {actual}): it changed after it was hashed, or the hash "
                    "is wrong",
                    Severity.ERROR,
                    key=key,
                    value=value,
                    rule="integrity",
                )
            )
    return problems


def with_hash(frontmatter: dict[str, Any], body: str) -> dict[str, Any]:
    """The frontmatter plus ``extensions.mif-rdf.hash`` of the body (other keys untouched)."""
    extensions = dict(frontmatter.get("extensions") or {}) if isinstance(frontmatter.get("extensions"), dict) else {}
    mine = dict(extensions.get(PROVIDER) or {}) if isinstance(extensions.get(PROVIDER), dict) else {}
    mine["hash"] = content_hash(body)
    extensions[PROVIDER] = mine
    return {**frontmatter, "extensions": extensions}
