"""Progress bars on a terminal for long work (loads, exports, validation stages)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")
#: Above this many files a progress bar is shown (on a terminal only).
PROGRESS_THRESHOLD = 200


def progress_bar(items: Iterable[T], total: int, enabled: bool | None, label: str) -> Iterable[T]:
    if enabled is None:
        enabled = total >= PROGRESS_THRESHOLD and sys.stderr.isatty()
    if not enabled:
        return items
    try:
        from tqdm import tqdm
    except ImportError:  # progress is a nicety, never a requirement
        return items
    return tqdm(items, total=total, desc=label, unit="file", file=sys.stderr, leave=False)
