"""Fuzz the frontmatter parser: any text in, a memory or problems out, never an exception.

Run as a test (a short budget, part of the suite) or on its own for longer::

    python tests/fuzz_frontmatter.py --examples 100000

Inputs mix arbitrary text, YAML fragments (anchors, aliases, tags, flow
collections, tabs, odd scalars) and frontmatter delimiters, so most reach the
YAML parser and the checks behind it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mif_rdf.source.parse import parse_memory

_FRAGMENTS = st.sampled_from(
    [
        "id: x\n",
        "type: semantic\n",
        "created: 2026-01-15T10:30:00Z\n",
        "a: &a [1, 2]\n",
        "b: *a\n",
        "c: *missing\n",
        "d: !!binary aGVsbG8=\n",
        "e: !!python/object:os.system {}\n",
        "f: {g: [h, {i: j}]}\n",
        "\t",
        "  ",
        "- ",
        "? ",
        "'",
        '"',
        "{",
        "[",
        "]",
        "}",
        "---\n",
        "...\n",
        "%YAML 1.1\n",
        "k: .nan\n",
        "l: 0x1F\n",
        "m: 2026-13-45\n",
        "\ufeff",
        "n: ~\n",
        "o: |\n  text\n",
        "p: >\n  folded\n",
        "q: 1e999\n",
        "r: <<: *a\n",
        "\x00",
        "\r\n",
    ]
)
_TEXT = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=12)), max_size=24).map("".join)


def check(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "f.md").write_bytes(text.encode("utf-8", errors="surrogatepass"))
        memory, problems = parse_memory(Path(folder), "f.md")
        assert memory is not None or problems, "a file that is not a memory must say why"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(_TEXT, _TEXT.map(lambda t: "---\n" + t + "\n---\nbody\n")))
def test_frontmatter_parser_never_raises(text: str) -> None:
    check(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000)
    args = parser.parse_args(argv)
    fuzz = settings(max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck))(
        given(text=st.one_of(_TEXT, _TEXT.map(lambda t: "---\n" + t + "\n---\nbody\n")))(check)
    )
    fuzz()
    print(f"{args.examples} inputs: no exception")
    return 0


if __name__ == "__main__":
    sys.exit(main())
