"""A write-back killed midway leaves every file old or new, never half-written (issue 31).

Slow (a 1,000-memory bundle, loaded three times), so it lives in this suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from mif_rdf.bundle import load_bundle
from mif_rdf.output.update import plan_update
from synthetic import generate_bundle

RETAG = (
    'INSERT { GRAPH ?m { ?m mif:tags "killed-midway" } } WHERE { GRAPH ?m { ?m a mif:Concept ; mif:namespace '
    '?ns FILTER(!CONTAINS(?ns, "_local")) } }'
)


def test_killed_update_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    generate_bundle(root, 1000, seed=7)
    old = {p: p.read_bytes() for p in root.rglob("*.md")}
    plan = plan_update(load_bundle(root, workers=0), RETAG)
    assert not plan.refusals and len(plan.changes) > 900
    new = {root / c.relpath: c.after.encode() for c in plan.changes}
    first = min(new, key=str)
    process = subprocess.Popen(
        [sys.executable, "-m", "mif_rdf.cli", "update", str(root), RETAG, "--force", "--no-progress", "--workers", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while (
        time.monotonic() < deadline
        and process.poll() is None
        and not any(p.read_bytes() == new[p] for p in list(new)[:50] if p.exists())
    ):
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    states = []
    for path, before in old.items():
        now = path.read_bytes()
        assert now in (before, new.get(path, before)), path  # never half-written
        states.append(now != before)
    assert 0 < sum(states) < len(new), (
        f"the kill came before or after every write ({sum(states)} of {len(new)}): nothing was tested"
    )
    assert first.exists()
