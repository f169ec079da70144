"""Issue 37.7: an empty or wrong folder on ``load``/``export`` exits 1 and writes nothing, unless ``--allow-empty``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_file
from mif_rdf.cli.main import main


@pytest.mark.parametrize(
    "argv",
    [["load"], ["load", "-o", "{out}.trig"], ["export", "-o", "{out}.nq"], ["export", "-o", "{out}.ttl"]],
    ids=["load", "load-output", "export-streamed", "export-loaded"],
)
def test_an_empty_folder_exits_1_and_leaves_the_previous_output(tmp_path: Path, capsys, argv: list[str]) -> None:
    write_file(tmp_path / "bundle", "notes.txt", "not a memory")
    argv = [a.format(out=tmp_path / "dump") for a in argv]
    output = next((Path(a) for a in argv if a.startswith(str(tmp_path))), None)
    if output is not None:
        output.write_text("an earlier export\n", encoding="utf-8")
    assert main([argv[0], str(tmp_path / "bundle"), *argv[1:]]) == 1
    err = capsys.readouterr().err
    assert "no memory files in" in err and "--allow-empty" in err and "Traceback" not in err
    if output is not None:
        assert output.read_text(encoding="utf-8") == "an earlier export\n"
    assert main([argv[0], str(tmp_path / "bundle"), *argv[1:], "--allow-empty"]) == 0
    if output is not None:
        assert output.read_text(encoding="utf-8") != "an earlier export\n"


def test_a_missing_folder_is_still_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["export", str(tmp_path / "nowhere"), "--allow-empty"]) == 2
    assert "does not exist" in capsys.readouterr().err
