"""Write-back (issue 31) on the upstream MIF example bundles: the main suite's minimal-edit
check on data nobody here wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from upstream import UPSTREAM_BUNDLES

from test_update import check_write_back_is_minimal


@pytest.mark.parametrize("name", list(UPSTREAM_BUNDLES))
def test_write_back_is_minimal_on_upstream_bundles(name: str, tmp_path: Path) -> None:
    check_write_back_is_minimal(UPSTREAM_BUNDLES[name], tmp_path)
