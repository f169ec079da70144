"""``mif-rdf export --store oxigraph`` as a whole process: what it imports and what its exit costs (issue 34 item 3).

Each case runs the command in a fresh interpreter, as a user's shell does,
and reads what that interpreter holds; the export itself must still be
complete and equal to the in-process one (tests/test_export_native.py
compares the formats).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES
from mif_rdf.cli.main import main

#: Runs the command line's ``main`` on the arguments given, then prints what the tests read, as JSON.  The
#: ``atexit`` handler is registered before ``main`` runs, so it runs after every handler the command registers.
SCRIPT = """
import atexit, gc, json, sys
from mif_rdf.cli.main import main
seen = {}
atexit.register(lambda: print(json.dumps({**seen, "frozen_at_exit": gc.get_freeze_count()})))
seen["code"] = main(sys.argv[1:])
seen["modules"] = sorted(sys.modules)
"""


def exported(tmp_path: Path, *options: str) -> tuple[dict[str, object], Path]:
    target = tmp_path / "out.nq"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "export", str(EXAMPLES), "-o", str(target), "-q", "--no-cache", *options],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), target


def test_an_oxigraph_export_loads_no_stage_it_does_not_use(tmp_path: Path) -> None:
    """Loading and exporting needs neither write-back, nor the notebook view, nor the validators' engines, nor pyld: the
    public ``Bundle`` imports each of those only when one of its methods asks (the query stage it imports:
    that import registers the SPARQL functions ``bundle.dataset.query`` uses, the next test)."""
    seen, target = exported(tmp_path, "--store", "oxigraph")
    assert seen["code"] == 0 and target.stat().st_size > 0
    modules = set(seen["modules"])  # type: ignore[call-overload]
    unused = {"mif_rdf.output.update", "mif_rdf.notebook", "mif_rdf.output.export_api", "pyshacl", "owlrl", "pyld"}
    assert not modules & unused, sorted(modules & unused)
    assert {"mif_rdf.output.oxigraph_export", "pyoxigraph"} <= modules  # the export did run, natively


def test_a_loaded_bundle_s_own_dataset_knows_the_project_s_sparql_functions() -> None:
    """``bundle.dataset.query`` (rdflib's own, README) has ``mif:validAt`` and the time-bounded REGEX as soon
    as a bundle is loaded, in a fresh interpreter that imported nothing else."""
    script = (
        "import sys; from mif_rdf import load_bundle\n"
        "bundle = load_bundle(sys.argv[1], progress=False)\n"
        "rows = bundle.dataset.query('SELECT ?m WHERE { ?m mif:path ?p FILTER(mif:validAt(?m, \"2026-03-01\")) }')\n"
        "from rdflib.plugins.sparql import operators\n"
        "print(len(list(rows)), operators.Builtin_REGEX.__module__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(EXAMPLES)], capture_output=True, text=True, timeout=120, check=True
    )
    count, regex_module = done.stdout.split()
    assert int(count) > 0 and regex_module == "mif_rdf.core.sparql_regex", done.stdout + done.stderr


def test_the_exit_skips_the_collection_of_what_the_command_made(tmp_path: Path) -> None:
    """Everything alive when the command ends is frozen before the interpreter's last collection, which would
    walk it all only to free memory the exit returns anyway; handlers registered before still run after it."""
    seen, target = exported(tmp_path, "--store", "oxigraph")
    assert seen["code"] == 0 and target.read_text(encoding="utf-8").endswith(" .\n")
    assert seen["frozen_at_exit"] > 10_000  # type: ignore[operator]  # the bundle's objects, not a handful


def test_a_quiet_export_does_not_count_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The counts (the store's COUNT queries) are for the summary line alone: ``-q`` shows none, so asks for none;
    without it the line counts exactly the quads written."""
    from mif_rdf.output.policy import ExportPolicy

    counted = []
    sizes = ExportPolicy.sizes
    monkeypatch.setattr(ExportPolicy, "sizes", lambda self, dataset: counted.append(1) or sizes(self, dataset))
    quiet, said = tmp_path / "quiet.nq", tmp_path / "said.nq"
    assert main(["export", str(EXAMPLES), "--store", "oxigraph", "--no-cache", "-q", "-o", str(quiet)]) == 0
    assert counted == [] and capsys.readouterr().err == ""
    assert main(["export", str(EXAMPLES), "--store", "oxigraph", "--no-cache", "-o", str(said)]) == 0
    lines = said.read_text(encoding="utf-8").splitlines()
    assert counted == [1] and f"wrote {len(lines)} quads in " in capsys.readouterr().err
    assert len(quiet.read_text(encoding="utf-8").splitlines()) == len(lines)
