"""Issue 37.7: a misspelled option, command or format name gets a "did you mean" (exit 2, no traceback)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from mif_rdf.cli.main import main


@pytest.mark.parametrize(
    "argv, meant",
    [
        (["validate", str(EXAMPLES), "--fromat", "json"], "did you mean --format?"),
        (["validate", str(EXAMPLES), "--format", "jsn"], "did you mean json?"),
        (["export", str(EXAMPLES), "--format", "trutle"], "did you mean turtle?"),
        (["exprot", str(EXAMPLES)], "did you mean export?"),
        (["query", str(EXAMPLES), "--stroe=oxigraph", "ASK {}"], "did you mean --store?"),
        (["load", str(EXAMPLES), "--no-cahce"], "did you mean --no-cache?"),
    ],
)
def test_a_misspelling_gets_the_closest_spelling(capsys, argv: list[str], meant: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.rstrip().endswith(meant) and "Traceback" not in err


def test_nothing_close_means_no_guess(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["load", str(EXAMPLES), "--zzz"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzz" in err and "did you mean" not in err
