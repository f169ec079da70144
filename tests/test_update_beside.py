"""Work run beside the process in a forked child (issue 31 item 5): the second core for write-back's validations.

:func:`mif_rdf.output.update.beside.start_beside` forks only when a second core
is idle; the tests say it is (``spare_core`` patched) and check that the work
really ran in another process, that its result comes back unchanged, that a
child that fails or is stopped leaves the result to this process, and that
:func:`validation_refusals` gives the same refusals with the files as they
were validated in a child as in this process.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

import mif_rdf.load.pipeline
from mif_rdf.bundle import load_bundle
from mif_rdf.output.update import beside, plan_update, refusals, validation_refusals
from test_update_old_errors import BROKEN, CLEAN, _bundle

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux")


@pytest.fixture
def idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mif_rdf.load.pipeline, "spare_core", lambda: True)


def test_work_runs_in_a_child_and_its_result_comes_back(idle: None) -> None:
    here = os.getpid()
    work = beside.start_beside(lambda: (os.getpid(), {("a", None, "b")}, [1.5, "é"]))
    assert work.forked
    pid, errors, values = work.result()
    assert pid != here and errors == {("a", None, "b")} and values == [1.5, "é"]


def test_without_a_spare_core_or_when_not_worth_it_the_work_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    here = os.getpid()
    monkeypatch.setattr(mif_rdf.load.pipeline, "spare_core", lambda: False)
    work = beside.start_beside(os.getpid)
    assert not work.forked and work.result() == here
    monkeypatch.setattr(mif_rdf.load.pipeline, "spare_core", lambda: True)
    work = beside.start_beside(os.getpid, worth_it=False)
    assert not work.forked and work.result() == here


def test_a_child_that_fails_leaves_the_work_to_this_process(idle: None) -> None:
    here = os.getpid()

    def work() -> int:
        if os.getpid() != here:
            raise RuntimeError("only in the child")
        return os.getpid()

    started = beside.start_beside(work)
    assert started.forked and started.result() == here


def test_a_child_killed_midway_leaves_the_work_to_this_process(idle: None) -> None:
    here = os.getpid()

    def work() -> int:
        if os.getpid() != here:
            os.kill(os.getpid(), 9)
        return os.getpid()

    assert beside.start_beside(work).result() == here


def test_a_cancelled_child_is_stopped_at_once(idle: None) -> None:
    work = beside.start_beside(lambda: time.sleep(60))
    process = work._process
    assert work.forked and process.is_alive()
    start = time.monotonic()
    work.cancel()
    assert time.monotonic() - start < 10 and not process.is_alive() and not work.forked


def _refusals(root: Path, update: str, monkeypatch: pytest.MonkeyPatch, *, fork: bool) -> list[object]:
    monkeypatch.setattr(refusals, "VALIDATE_BESIDE", 1 if fork else 10**9)
    forked: list[bool] = []
    start = beside.start_beside

    def spied(*args: object, **kwargs: object) -> beside.Beside[object]:
        started = start(*args, **kwargs)  # type: ignore[arg-type]
        forked.append(started.forked)
        return started

    monkeypatch.setattr(refusals, "start_beside", spied)
    bundle = load_bundle(root)
    plan = plan_update(bundle, update)
    assert plan.refusals == [] and plan.changes
    found = validation_refusals(bundle, plan.changes)
    assert forked == [fork]
    return [(p.path, p.key, p.rule, p.message) for p in found]


@pytest.mark.parametrize(
    "update",
    [
        # an old error only: the files before are validated and take it away (no refusal)
        f'INSERT DATA {{ GRAPH <urn:mif:{BROKEN}> {{ <urn:mif:{BROKEN}> mif:tags "reviewed" }} }}',
        # a new error beside an old one: one refusal
        f'INSERT DATA {{ GRAPH <urn:mif:{BROKEN}> {{ <urn:mif:{BROKEN}> mif:tags "reviewed" }} }} ; '
        f"DELETE {{ GRAPH <urn:mif:{CLEAN}> {{ ?e mif:tier 1 }} }} "
        f"INSERT {{ GRAPH <urn:mif:{CLEAN}> {{ ?e mif:tier 3 }} }} "
        f"WHERE {{ GRAPH <urn:mif:{CLEAN}> {{ <urn:mif:{CLEAN}> mif:entity ?e . ?e mif:tier 1 }} }}",
        # no error after the change: the child is stopped
        f'INSERT DATA {{ GRAPH <urn:mif:{CLEAN}> {{ <urn:mif:{CLEAN}> mif:tags "reviewed" }} }}',
    ],
)
def test_validation_beside_gives_the_same_refusals(
    update: str, tmp_path: Path, idle: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _bundle(tmp_path / "bundle")
    here = _refusals(root, update, monkeypatch, fork=False)
    assert _refusals(root, update, monkeypatch, fork=True) == here
    assert len(here) == (1 if "tier 3" in update else 0)
