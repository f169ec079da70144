"""The namespace model of spec section 10, read from a bundle's ``.mif`` folder.

Three sources, each file read with the rules memories are read with (the
size and YAML limits of :mod:`mif_rdf.core.limits`, symlinks not followed, only
regular files, a problem naming file and key instead of an exception):

* ``.mif/shared-agreements/*.yaml`` -- who may read which ``_shared``
  namespaces (10.4);
* ``.mif/namespaces/**.yaml`` -- namespace files with defaults a memory
  inherits (10.7); a file's namespace is its path below the folder minus
  the extension (``acme-corp/project-x.yaml`` is ``acme-corp/project-x``);
* ``reserved_prefixes`` of ``.mif/config.yaml`` -- custom reserved prefixes
  (10.5), plus ``allow_system_namespace`` and ``authority`` (mif-rdf keys).

What is malformed is reported and left out, so a broken agreement grants
nothing (access fails closed); it never makes a memory leave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mif_rdf.core.errors import Problem, Severity
from mif_rdf.core.limits import DEFAULT_LIMITS, Limits
from mif_rdf.nsmodel.agreements import _agreement, _check_agreement_ids
from mif_rdf.nsmodel.config import _read_config
from mif_rdf.nsmodel.model import AGREEMENTS_DIR, MAX_MODEL_FILES, NAMESPACES_DIR, NamespaceModel
from mif_rdf.nsmodel.namespace_files import _check_parents, _namespace_file
from mif_rdf.source.bundle_files import BundleFiles, _walk, config_file
from mif_rdf.source.parse import parse_config, parse_yaml_mapping, read_text


def read_namespace_model(
    root: str | Path, config: dict[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS
) -> NamespaceModel:
    """Read and check the namespace model of the bundle at ``root``; never raises for what the files say.

    ``config`` is the parsed ``.mif/config.yaml`` when the caller has it
    (a load does); read here otherwise.
    """
    root = Path(root).resolve()
    model = NamespaceModel()
    model.config_path = config_file(root, [])
    if config is None:
        config = parse_config(root, model.config_path, limits)[0] if model.config_path else {}
    _read_config(config, model)
    mif = root / ".mif"
    if not mif.is_dir() or mif.is_symlink():
        return model
    for relpath in _files(root, AGREEMENTS_DIR, model.problems):
        data = _mapping(root, relpath, limits, model.problems)
        if data is not None:
            agreement = _agreement(relpath, data, model.problems)
            if agreement is not None:
                model.agreements.append(agreement)
    _check_agreement_ids(model)
    for relpath in _files(root, NAMESPACES_DIR, model.problems):
        data = _mapping(root, relpath, limits, model.problems)
        if data is not None:
            ns = _namespace_file(relpath, data, model.problems)
            if ns is not None:
                model.namespaces[ns.path] = ns
    _check_parents(model)
    return model


def _files(root: Path, folder: str, problems: list[Problem]) -> list[str]:
    """The YAML files below ``folder`` (discovery's rules: no symlinks followed, regular files only), in path order."""
    path = root / folder
    if path.is_symlink():
        problems.append(Problem(folder, "symlinked folder is not followed", Severity.WARNING, rule="discovery"))
        return []
    if not path.is_dir():
        return []
    found = BundleFiles()
    files: list[str] = []
    _walk(root, folder + "/", found, files, lambda name: name.endswith((".yaml", ".yml")), skip_hidden=True)
    problems.extend(found.problems)
    if len(files) > MAX_MODEL_FILES:
        problems.append(
            Problem(
                folder,
                f"{len(files):,} files, over the limit of {MAX_MODEL_FILES:,}; files after "
                f"{sorted(files)[MAX_MODEL_FILES - 1]} are not read",
                rule="limit",
            )
        )
    return sorted(files)[:MAX_MODEL_FILES]


def _mapping(root: Path, relpath: str, limits: Limits, problems: list[Problem]) -> dict[str, Any] | None:
    text = read_text(root / relpath, relpath, problems, limits)
    return None if text is None else parse_yaml_mapping(text, relpath, problems, limits=limits)
