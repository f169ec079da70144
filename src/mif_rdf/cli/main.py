"""The ``mif-rdf`` command: a thin shell over the Python API.

Each subcommand lives in :mod:`mif_rdf.cli.commands`.  Exit codes: 0 success,
1 the input has errors (or a round trip lost data), 2 the tool could not run
(bad arguments, unreadable input).  User input never produces a traceback;
set ``MIF_RDF_DEBUG=1`` to see one for internal errors.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from mif_rdf import __version__
from mif_rdf.cli.commands import command_modules
from mif_rdf.cli.commands._common import EXIT_CANNOT_RUN, interrupted, set_verbosity, verbosity_options
from mif_rdf.core.collector import skip_collection_at_exit
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.spelling import closest


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors end with a "did you mean" for a misspelled option, command or value.

    Subcommand parsers are made of the same class (``add_subparsers`` uses
    the parent's), so every command's errors get it.
    """

    def error(self, message: str) -> NoReturn:
        super().error(message + _did_you_mean(message, list(self._option_string_actions)))


_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")
_FORMAT = re.compile(r"unknown RDF format '([^']*)'; use one of ([^(]*)\(or ([^)]*)\)")


def _did_you_mean(message: str, options: list[str]) -> str:
    """``; did you mean --format?`` for the closest known spelling of what the message says is wrong, else nothing."""
    if message.startswith("unrecognized arguments:"):
        wrong, known = [w.split("=", 1)[0] for w in message.split(":", 1)[1].split() if w.startswith("--")], options
    elif found := _CHOICE.search(message):
        wrong, known = [found.group(1)], re.findall(r"'([^']*)'", found.group(2))
    elif found := _FORMAT.search(message):
        wrong, known = [found.group(1)], re.split(r",\s*", f"{found.group(2)},{found.group(3)}".replace(" ,", ","))
    else:
        return ""
    candidates = [k.strip() for k in known if k.strip()]
    close = [match for word in wrong if (match := closest(word, candidates)) is not None]
    return f"; did you mean {' '.join(close)}?" if close else ""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mif-rdf",
        description="MIF knowledge bundles as RDF: load through the MIF JSON-LD context, export, convert.",
        epilog=(
            "Exit codes: 0 ok; 1 the input has errors or a check failed (a round trip lost data, validation found "
            "violations); 2 could not run."
        ),
    )
    parser.add_argument("--version", action="version", version=f"mif-rdf {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in command_modules():
        module.register(commands)
    for command in _leaf_commands(parser):
        verbosity_options(command)
        name = command.prog.removeprefix("mif-rdf ")
        if name in EXAMPLES:  # after the command's own epilog (push: its exit codes)
            command.epilog = "\n\n".join(
                filter(None, (command.epilog, f"example (more in docs/cli.md):\n  {EXAMPLES[name]}"))
            )
            command.formatter_class = _ExampleFormatter
    return parser


class _ExampleFormatter(argparse.HelpFormatter):
    """argparse's help, but the example epilog keeps its lines: a wrapped command cannot be copied."""

    def _format_text(self, text: str) -> str:
        before, marker, example = text.partition("example (more in docs/cli.md):")
        if not marker:
            return super()._format_text(text)
        return (super()._format_text(before.strip()) if before.strip() else "") + marker + example + "\n\n"


#: One example per command, shown at the end of its ``--help``; each runs as written from the repository root
#: (tests/test_cli_help.py runs them).
EXAMPLES = {
    "load": "mif-rdf load examples -o out/examples.trig",
    "validate": "mif-rdf validate examples --format json -o out/report.json",
    "suggest": "mif-rdf suggest examples --format json",
    "export": "mif-rdf export examples -o out/examples.nq",
    "import": "mif-rdf import examples out/examples.nq --dry-run",
    "update": (
        'mif-rdf update examples --dry-run \'DELETE { GRAPH ?m { ?m mif:tags "kafka" } } INSERT { GRAPH ?m { '
        '?m mif:tags "streaming" } } WHERE { GRAPH ?m { ?m mif:tags "kafka" } }\''
    ),
    "diff": "mif-rdf diff examples HEAD --format markdown",
    "push": "mif-rdf push examples --endpoint http://localhost:7878/store --dry-run",
    "convert to-jsonld": "mif-rdf convert to-jsonld examples -o out/jsonld",
    "convert to-markdown": "mif-rdf convert to-markdown out/jsonld -o out/markdown",
    "convert roundtrip": "mif-rdf convert roundtrip examples",
    "query": "mif-rdf query examples 'SELECT ?t WHERE { ?m dc:title ?t }' --format csv",
    "serve": "mif-rdf serve examples --port 7879",
    "ontology compile": "mif-rdf ontology compile ontologies/mif-base.ontology.yaml -o out/mif-base.ttl",
    "reason": "mif-rdf reason examples --profile fast -o out/inferred.ttl",
}


def _leaf_commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parsers of every command that runs (``convert to-jsonld``, not ``convert``)."""
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not commands:
        yield parser
    for action in commands:
        for command in action.choices.values():
            yield from _leaf_commands(command)


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse with options anywhere, as users expect: ``query BUNDLE --format csv 'SELECT ...'``.

    Plain ``parse_args`` takes the positionals of a command in one run, so an
    optional positional after an option is left over as "unrecognized".
    ``parse_intermixed_args`` does not have that flaw but refuses parsers with
    subcommands, so it runs on the innermost command's own parser, found by
    walking the command names; the names are recorded as ``parse_args`` would.
    """
    words, found = list(argv), argparse.Namespace()
    while True:
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if commands is None:
            return parser.parse_intermixed_args(words, found)
        if not words or words[0].startswith("-") or words[0] not in commands.choices:
            return parser.parse_args(
                words, found
            )  # help, version, a missing or unknown command: argparse's own message
        if commands.dest is not argparse.SUPPRESS:
            setattr(found, commands.dest, words[0])
        for key, value in parser._defaults.items():  # set_defaults of the outer command (its func, say)
            setattr(found, key, value)
        parser, words = commands.choices[words[0]], words[1:]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(build_parser(), sys.argv[1:] if argv is None else argv)
    _quiet_rdflib()
    set_verbosity(args)
    _terminate_like_interrupt()
    skip_collection_at_exit()
    try:
        return int(args.func(args))
    except MifRdfError as exc:
        return _fail(str(exc))
    except BrokenPipeError:  # `mif-rdf export ... | head`: the reader has had enough, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second complaint at exit
        return 141
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    except KeyboardInterrupt as exc:
        print(f"mif-rdf: {interrupted()}", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except Exception as exc:  # a bug, not bad input: say so without a traceback
        if os.environ.get("MIF_RDF_DEBUG"):
            raise
        return _fail(f"internal error ({type(exc).__name__}: {exc}); rerun with MIF_RDF_DEBUG=1 and report it")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so it unwinds as after Ctrl-C:
    outputs left unchanged, temporary files removed."""


def _terminate_like_interrupt() -> None:
    def terminate(signum: int, frame: object) -> None:
        raise Terminated()

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # a host program's own handler stays
        signal.signal(signal.SIGTERM, terminate)


def _quiet_rdflib() -> None:
    """rdflib logs a traceback for every ill-typed literal it builds (an entity field ``strength: weak``
    under the context's ``xsd:decimal`` term): no traceback on user input, unless MIF_RDF_DEBUG is set."""
    logger = logging.getLogger("rdflib.term")
    if not os.environ.get("MIF_RDF_DEBUG") and not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _fail(message: str) -> int:
    from mif_rdf.core.redaction import (
        redact_text,  # a token in a URL's query string never reaches the terminal or a CI log
    )

    print(f"mif-rdf: error: {redact_text(message)}", file=sys.stderr)
    return EXIT_CANNOT_RUN
