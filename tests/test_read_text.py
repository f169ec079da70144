"""Reading a memory file: the size the file has is read, however large the limit; a file that grows while it is
read is read whole up to the limit, and past it is refused (the fast read asks for the file's own size)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from mif_rdf.core.errors import Problem
from mif_rdf.core.limits import Limits
from mif_rdf.source.parse import read_text

LIMITS = Limits(max_file_bytes=1_000)


def read(path: Path) -> tuple[str | None, list[Problem]]:
    problems: list[Problem] = []
    return read_text(path, path.name, problems, LIMITS), problems


@pytest.mark.parametrize("size", [0, 1, 999, 1_000])
def test_a_file_within_the_limit_is_read_whole(tmp_path: Path, size: int) -> None:
    path = tmp_path / "m.md"
    path.write_text("é" * (size // 2) + "x" * (size % 2), encoding="utf-8")
    assert read(path) == (path.read_text(encoding="utf-8"), [])


def test_a_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "m.md"
    path.write_bytes(b"x" * 1_001)
    text, problems = read(path)
    assert text is None and [p.rule for p in problems] == ["limit"] and "1,001 bytes" in problems[0].message


def shrunk_fstat(by: int) -> Callable[[int], os.stat_result]:
    """os.fstat that reports a file ``by`` bytes smaller than it is: the file grew after it was measured."""
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        info = real(fd)
        fields = list(info)
        fields[6] = max(0, info.st_size - by)  # st_size
        return os.stat_result(fields)

    return fstat


@pytest.mark.parametrize("grown", [1, 10, 500])
def test_a_file_that_grew_while_read_is_read_whole_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grown: int
) -> None:
    path = tmp_path / "m.md"
    path.write_bytes(b"y" * 900)
    monkeypatch.setattr(os, "fstat", shrunk_fstat(grown))
    assert read(path) == ("y" * 900, [])


def test_a_file_that_grew_past_the_limit_while_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.md"
    path.write_bytes(b"z" * 1_500)
    monkeypatch.setattr(os, "fstat", shrunk_fstat(1_000))
    text, problems = read(path)
    assert text is None and [p.rule for p in problems] == ["limit"] and "grew over the limit" in problems[0].message


def test_short_reads_are_read_on_until_the_size_or_the_end() -> None:
    """read_text reads the descriptor itself: a read that returns less than asked (a pipe here; a network file
    system may do it) is followed by more reads, as a buffered file does, up to the size asked or the end."""
    import threading
    import time

    from mif_rdf.source.parse import _read_up_to

    for size, expected in ((6, b"abcdef"), (100, b"abcdefgh")):
        read_end, write_end = os.pipe()
        os.write(write_end, b"abc")

        def later(write_end: int = write_end) -> None:
            time.sleep(0.05)
            os.write(write_end, b"defgh")
            os.close(write_end)

        writer = threading.Thread(target=later)
        writer.start()
        try:
            assert _read_up_to(read_end, size) == expected
        finally:
            writer.join()
            os.close(read_end)
