"""Issue 39 item 5: secrets are never printed.

Every output stream of real ``push`` and ``query`` processes (standard
output, standard error, with ``-v`` and ``--dry-run``, against a store that
answers, one that refuses the connection and one that is down) is grepped
for the secret.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES
from mif_rdf.core.errors import MifRdfError
from mif_rdf.core.redaction import redact_text, redacted
from mif_rdf.remote.gsp import check_endpoint
from mif_rdf.serve.protocol import HttpError, check_safety
from oxigraph_server import OxigraphServer, free_port, oxigraph  # noqa: F401  (oxigraph: fixture)

SECRET = "s3cret-Zq81"
MIF_RDF = str(Path(sys.executable).parent / "mif-rdf")


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MIF_RDF_PASSWORD"}
    return subprocess.run([MIF_RDF, *argv], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize(
    "url",
    [
        f"http://alice:{SECRET}@127.0.0.1:9/store",
        f"https://{SECRET}@example.invalid/store",
        f"http://alice:{SECRET}@[::1]:7878/store?x=1",
    ],
)
@pytest.mark.parametrize("option", ["--endpoint", "--update-endpoint"])
def test_userinfo_in_an_endpoint_is_refused_with_a_hint_and_never_echoed(url: str, option: str) -> None:
    endpoints = (
        ["--endpoint", url] if option == "--endpoint" else ["--endpoint", "http://127.0.0.1:9/store", option, url]
    )
    done = run("push", str(EXAMPLES), *endpoints, "--dry-run", "-v")
    assert done.returncode == 2
    assert SECRET not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "--user" in lines[0] and "MIF_RDF_PASSWORD" in lines[0]


def test_a_token_in_the_query_string_never_leaves_a_push(oxigraph: OxigraphServer) -> None:  # noqa: F811
    down = f"http://127.0.0.1:{free_port()}/store"
    for endpoint in (oxigraph.store_url, down):
        for extra in (["--dry-run", "-v"], ["-v"], []):
            done = run("push", str(EXAMPLES), "--endpoint", f"{endpoint}?token={SECRET}&b=2", "--retries", "0", *extra)
            assert SECRET not in done.stdout + done.stderr, (endpoint, extra)
            assert "token=***" in done.stdout + done.stderr
            assert "Traceback" not in done.stderr


def test_a_token_in_a_service_iri_is_not_printed_by_query_or_serve() -> None:
    query = f"SELECT * WHERE {{ SERVICE <https://h.example/sparql?key={SECRET}> {{ ?s ?p ?o }} }}"
    done = run("query", str(EXAMPLES), query, "-v")
    assert done.returncode == 2 and SECRET not in done.stdout + done.stderr and "key=***" in done.stderr
    with pytest.raises(HttpError) as refused:
        check_safety(query, False)
    assert SECRET not in refused.value.message


def test_redaction_keeps_what_a_person_needs() -> None:
    assert (
        redacted(f"https://u:{SECRET}@h.example:8443/a/b?token={SECRET}&x=&y#f")
        == "https://***@h.example:8443/a/b?token=***&x=***&y#f"
    )
    assert redacted("http://[::1]:7878/store") == "http://[::1]:7878/store"
    assert (
        redact_text(f"cannot reach http://h/x?token={SECRET}: refused.")
        == "cannot reach http://h/x?token=***: refused."
    )
    with pytest.raises(MifRdfError) as refused:
        check_endpoint(f"http://h:{SECRET}/store")  # a password where the port goes (a missing user name)
    assert SECRET not in str(refused.value)
