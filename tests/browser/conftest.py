"""The browser suite (``make browser``): the page of ``mif-rdf serve`` in headless Chromium.

It needs Debian's ``chromium`` and ``chromium-driver`` and runs only with
``--browser`` (``pytest tests/browser --browser``): the main suite must pass
on a machine without a browser, and a missing browser here is an error,
never a skip.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--browser",
        action="store_true",
        default=False,
        help="run the browser suite (tests/browser): needs chromium and chromedriver",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name.startswith("test_") and not config.getoption("browser", False):
        return True
    return None


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("browser", False):
        missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
        if missing:
            raise pytest.UsageError(
                f"the browser suite needs {' and '.join(missing)}: apt-get install -y chromium chromium-driver"
            )
