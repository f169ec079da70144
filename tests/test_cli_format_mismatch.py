"""Issue 37.7: ``--format`` and the extension of ``-o`` disagreeing is an error before anything is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES
from mif_rdf.cli.main import main


@pytest.mark.parametrize(
    "command, fmt, name",
    [
        ("export", "nt", "x.ttl"),
        ("export", "nquads", "x.trig"),
        ("load", "turtle", "x.jsonld"),
        ("export", "json-ld", "x.rdf"),
    ],
)
def test_a_format_the_extension_contradicts_is_refused(
    tmp_path: Path, capsys, command: str, fmt: str, name: str
) -> None:
    target = tmp_path / name
    target.write_text("before\n", encoding="utf-8")
    assert main([command, str(EXAMPLES), "--format", fmt, "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"--format {fmt}" in err and "extension" in err and "Traceback" not in err
    assert target.read_text(encoding="utf-8") == "before\n"


@pytest.mark.parametrize("fmt, name", [("ttl", "x.ttl"), ("xml", "x.owl"), ("nquads", "x.data"), ("turtle", "x.n3")])
def test_an_agreeing_or_unknown_extension_is_fine(tmp_path: Path, capsys, fmt: str, name: str) -> None:
    assert main(["export", str(EXAMPLES), "--format", fmt, "-o", str(tmp_path / name), "-q"]) == 0
    assert (tmp_path / name).stat().st_size > 1000


@pytest.mark.parametrize("command", ["export", "load", "validate"])
def test_an_output_under_a_file_is_refused_before_loading(tmp_path: Path, capsys, command: str) -> None:
    """Issue 37.7: ``-o README.md/x.ttl`` used to fail only after the whole load, with "File exists"."""
    (tmp_path / "notes.md").write_text("a file\n", encoding="utf-8")
    target = tmp_path / "notes.md" / "sub" / "x.ttl"
    assert (
        main([command, str(tmp_path / "no-bundle-here"), "-o", str(target)]) == 2
    )  # refused before the bundle is read
    err = capsys.readouterr().err
    assert "notes.md is a file, not a folder" in err and "does not exist" not in err
