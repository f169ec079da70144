"""What a user's type checker sees: a script using the public API passes ``mypy --strict``; a wrong one does not.

mif_rdf ships ``py.typed`` (PEP 561), so mypy reads the installed package's
annotations; the package ``__init__`` re-exports its names explicitly
(``X as X`` and a literal ``__all__``), so ``from mif_rdf import X`` is no
implicit re-export under ``--strict``.  Without either, the user's script
fails (an untyped installed package, or a name not exported), so a typing
regression of the public API fails this file.

One mypy run checks three scripts: the user's, a wrong one (it must fail,
which proves the check can) and one that reveals the type of every name of
``mif_rdf.__all__``.  Its cache lives in the repository's
``.mypy_cache/user-script``, apart from ``make lint``'s: a warm run takes a
second or two.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from mypy import api

import mif_rdf
from conftest import EXAMPLES, REPO

#: The documented uses: load, query, validate, two query helpers, export; every result annotated.
GOOD = f"""
from __future__ import annotations

from pathlib import Path

from rdflib.query import Result

import mif_rdf
from mif_rdf import Bundle, MifRdfError, Problem, load_bundle
from mif_rdf.queries import Table, memories_with_tag, neighbours
from mif_rdf.validation import ValidationReport, validate


def run(out: Path) -> list[str]:
    bundle: Bundle = load_bundle({str(EXAMPLES)!r}, base_iri="https://example.org/")
    result: Result = bundle.query("SELECT ?m WHERE {{ ?m a mif:Memory }}")
    iris = [str(row[0]) for row in result if not isinstance(row, bool)]
    report: ValidationReport = validate(bundle, level=2)
    errors: list[Problem] = report.errors
    conforms: bool = report.conforms
    tagged = memories_with_tag(bundle, "incident")
    assert isinstance(tagged, Table)
    paths: list[str] = [str(path) for path in tagged.column("path")]
    near = neighbours(bundle, "8b8080e5-d237-47de-8ba5-66af64a00dcf", depth=2)
    assert isinstance(near, Table)
    rows: int = len(near)
    policy = mif_rdf.export(bundle, out / "bundle.trig")
    withheld: list[str] = sorted(policy.withheld)
    try:
        load_bundle(out / "missing")
    except MifRdfError as error:
        iris.append(str(error))
    return [*iris, *paths, *withheld, str(rows), str(conforms), *(e.message for e in errors)]
"""

#: Each line marked ``# error`` must be reported, and nothing else.
BAD = """
from __future__ import annotations

from mif_rdf import load_bundel, load_bundle
from mif_rdf.queries import memories_with_tag
from mif_rdf.validation import validate

bundle = load_bundle(42)  # error
report: str = validate(bundle)  # error
memories_with_tag(bundle, tag=["incident"])  # error
level: str = validate(bundle).level  # error
load_bundel("examples")  # error (a misspelt name is an object, never Any)
"""

#: What the type checker makes of each name of ``mif_rdf.__all__`` (``builtins.object`` if
#: only ``__getattr__`` knows it).
REVEAL = "import mif_rdf\n" + "".join(f"reveal_type(mif_rdf.{name})\n" for name in mif_rdf.__all__)


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    folder = tmp_path_factory.mktemp("typing")
    good, bad, names = folder / "user_script.py", folder / "wrong_script.py", folder / "public_names.py"
    good.write_text(textwrap.dedent(GOOD), encoding="utf-8")
    bad.write_text(BAD, encoding="utf-8")
    names.write_text(REVEAL, encoding="utf-8")
    config = folder / "mypy.ini"  # the user's own settings: none but --strict, never the repository's
    config.write_text("[mypy]\n", encoding="utf-8")
    cache = REPO / ".mypy_cache" / "user-script"
    stdout, stderr, _status = api.run(
        [
            "--strict",
            "--config-file",
            str(config),
            "--cache-dir",
            str(cache),
            "--no-error-summary",
            str(good),
            str(bad),
            str(names),
        ]
    )
    return stdout + stderr, good, bad


def test_a_users_script_passes_mypy_strict(mypy_report: tuple[str, Path, Path]) -> None:
    output, good, _bad = mypy_report
    assert good.name not in output, output
    # mypy read the package itself (PEP 561), not an untyped stand-in: the wrong script's errors name its types
    assert "missing library stubs or py.typed marker" not in output, output


def test_a_wrong_use_of_the_api_is_reported(mypy_report: tuple[str, Path, Path]) -> None:
    output, _good, bad = mypy_report
    expected = {i for i, line in enumerate(BAD.splitlines(), 1) if "# error" in line}
    reported = {int(n) for n in re.findall(rf"{re.escape(bad.name)}:(\d+): error:", output)}
    assert reported == expected, output
    assert '"ValidationReport", variable has type "str"' in output, output
    assert 'Argument 1 to "load_bundle" has incompatible type "int"' in output, output


def test_every_public_name_reaches_the_type_checker_with_its_type(mypy_report: tuple[str, Path, Path]) -> None:
    output, _good, _bad = mypy_report
    assert set(mif_rdf.__all__) == set(mif_rdf._HOMES)  # the literal list is the lazy imports' list
    revealed = re.findall(r'public_names\.py:\d+: note: Revealed type is "(.*)"', output)
    assert len(revealed) == len(mif_rdf.__all__), output
    assert not [t for t in revealed if t in ("object", "builtins.object", "Any")], output  # each has its own type
