"""Public names imported on first use (PEP 562), for a package whose stages need not all load.

A package lists its public names and the module that defines each; this
gives it the module-level ``__getattr__`` and ``__dir__`` that import the
defining module the first time a name is used, and keep the value.  The
package also imports the names under ``TYPE_CHECKING`` (``X as X``), so a
type checker sees them as exported.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_names(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose names ``homes`` maps to their defining modules."""
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> object:  # object, not Any: a misspelt name stays an error for type checkers
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *homes])

    return __getattr__, __dir__
