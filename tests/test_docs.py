"""The README, docs/ and --help must stay true to the code."""

from __future__ import annotations

import argparse
import re

from conftest import REPO
from mif_rdf.cli.main import build_parser
from mif_rdf.core.formats import RDF_FORMATS


def _all_parsers(parser: argparse.ArgumentParser, name: str = "mif-rdf"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from _all_parsers(subparser, f"{name} {sub}")


def test_every_cli_option_is_documented() -> None:
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for name, parser in _all_parsers(build_parser()):
        assert name.split(" ", 1)[-1] in text or name == "mif-rdf", name
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help", "--version"):
                    assert option in text, f"{name}: {option} is not in docs/cli.md"
    for fmt in RDF_FORMATS:
        assert fmt in text


def test_readme_commands_exist() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    demo = re.search(r"^demo:.*\n\t(.+)$", makefile, re.M)
    assert demo and "mif-rdf load examples" in demo.group(1)
    commands = {name.split(" ", 1)[-1] for name, _ in _all_parsers(build_parser())}
    for line in re.findall(r"^mif-rdf (\S+(?: to-\S+| roundtrip)?)", readme, re.M):
        assert line in commands, line
