"""Issue 37.7: each command's ``--help`` lists its own options before the shared load options and ends
with one example, which runs as written."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from mif_rdf.cli.main import EXAMPLES, _leaf_commands, build_parser

PARSERS = {command.prog.removeprefix("mif-rdf "): command for command in _leaf_commands(build_parser())}
#: Examples that need a server (push: a store) or run until stopped (serve).
NEEDS_A_SERVER = {"push", "serve"}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_help_ends_with_the_commands_example(name: str) -> None:
    text = PARSERS[name].format_help()
    assert text.rstrip().endswith(EXAMPLES[name]) and "\n  " + EXAMPLES[name] + "\n" in text  # one line, never wrapped


@pytest.mark.parametrize("name", sorted(n for n in PARSERS if "load options" in PARSERS[n].format_help()))
def test_a_commands_own_options_come_before_the_shared_load_options(name: str) -> None:
    text = PARSERS[name].format_help().partition("\noptions:\n")[2]  # past the usage line
    own, _, shared = text.partition("load options (every command that loads a bundle takes them):")
    assert "--base IRI" in shared and "--base IRI" not in own and "--max-memories" in shared
    assert "-h, --help" in own and "-q, --quiet" in own


def test_serve_does_not_offer_a_store_it_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    """serve keeps the bundle in Oxigraph: --store is not in its help; --store memory gets a one-line usage error."""
    from mif_rdf.cli.main import main

    assert "--store" not in PARSERS["serve"].format_help() and "--store" in PARSERS["query"].format_help()
    with pytest.raises(SystemExit) as exited:
        main(["serve", str(REPO / "examples"), "--store", "memory"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--store: invalid choice: 'memory' (choose from 'oxigraph')" in err and "Traceback" not in err


def test_every_command_has_an_example() -> None:
    assert set(PARSERS) == set(EXAMPLES)


def test_the_examples_run_as_written(tmp_path: Path) -> None:
    for folder in ("examples", "ontologies"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the bundle"]):  # diff compares with a revision
        subprocess.run([*git, *step], cwd=tmp_path, check=True)
    script = Path(sys.executable).parent / "mif-rdf"
    for name, example in EXAMPLES.items():  # in order: convert to-markdown reads what to-jsonld wrote
        if name in NEEDS_A_SERVER:
            continue
        words = shlex.split(example)
        done = subprocess.run([str(script), *words[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (example, done.stderr[-2000:])
