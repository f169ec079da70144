"""Validation rules about memories' namespaces (spec 10.2, 10.4, 10.5), found with the bundle's namespace model.

The model's own files (agreements, namespace files, ``reserved_prefixes``)
are checked as they are read (:mod:`.model`) and their problems are load
problems; these rules look at each memory's ``namespace`` against the model:

* ``shared-agreement`` -- a ``_shared`` namespace no agreement covers;
* ``system-namespace`` -- a ``_system`` namespace while the config does not
  say ``allow_system_namespace: true``;
* ``provenance-required`` -- a memory under a prefix with
  ``provenance_required: true`` and no ``provenance``;
* ``reserved-prefix-unknown`` -- a root starting with ``_`` that neither the
  spec nor the config reserves (``_Shared``, a Cyrillic ``_ѕhared``): it goes
  to no audience.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.nsmodel.model import SPEC_PREFIXES, NamespaceModel, segments

#: The conformance level these findings belong to (the namespace path pattern is a level-2 shape).
LEVEL = 2


def namespace_problems(model: NamespaceModel, memories: Iterable[tuple[str, dict[str, Any]]]) -> list[Problem]:
    """Findings for each ``(bundle path, frontmatter)`` of a memory, in the order given."""
    problems: list[Problem] = []
    for relpath, frontmatter in memories:
        namespace = frontmatter.get("namespace")
        if not isinstance(namespace, str):
            continue

        def add(
            message: str,
            rule: str,
            severity: Severity = Severity.ERROR,
            key: str = "namespace",
            value: Any = namespace,
            relpath: str = relpath,
        ) -> None:
            problems.append(Problem(relpath, message, severity, key=key, value=value, rule=rule, level=LEVEL))

        parts = segments(namespace)
        if parts is None:  # the level-2 shape namespace-path reports its form; no agreement or audience matches it
            continue
        root = parts[0]
        if root == "_shared" and not model.covering(namespace):
            add(
                f"namespace {namespace!r} is under _shared but no agreement in .mif/shared-agreements covers it "
                "(spec 10.4): "
                "it is shared with nobody",
                "shared-agreement",
            )
        elif root == "_system" and not model.allow_system:
            add(
                "_system is reserved for implementation use (spec 10.2); a memory may sit there only when "
                ".mif/config.yaml "
                "says allow_system_namespace: true",
                "system-namespace",
            )
        elif root.startswith("_") and root not in SPEC_PREFIXES and root not in model.prefixes:
            add(
                f"{root} is not a reserved prefix the spec (10.2) or .mif/config.yaml (reserved_prefixes) defines; "
                "names starting "
                "with '_' are reserved, and this one goes to no audience",
                "reserved-prefix-unknown",
                Severity.WARNING,
            )
        prefix = model.prefixes.get(root)
        if prefix is not None and prefix.provenance_required and not frontmatter.get("provenance"):
            add(
                f"memories under {root} must say where they come from (reserved_prefixes.{root}.provenance_required); "
                "this one has no provenance",
                "provenance-required",
                key="provenance",
                value=None,
            )
    return problems
