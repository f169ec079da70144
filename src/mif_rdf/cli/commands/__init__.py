"""The ``mif-rdf`` subcommands, one module each.

Every module here that defines ``register(subparsers)`` adds its subcommand(s);
``register`` sets ``func`` (``args -> exit code``) as the parser default.
``ORDER`` (default 100) places a module's commands in ``--help``.  Adding a
command is adding a module: nothing else to edit.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def command_modules() -> list[ModuleType]:
    modules = [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    ]
    modules = [m for m in modules if hasattr(m, "register")]
    return sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__))
