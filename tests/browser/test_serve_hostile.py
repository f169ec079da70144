"""The page and the endpoint against hostile content and hostile pages, in headless Chromium (issue 33, items 3 and 4).

* Memories whose body, title, tags, frontmatter values, relationship targets
  and file names carry ``<script>``, ``<img onerror>``, ``<svg onload>``,
  ``javascript:``/``vbscript:``/``data:`` links: every view that shows them
  (overview, memory view, query results) is opened, and no payload runs (a
  ``window`` flag each would set stays unset) and every link on the page is
  ``http(s):``, ``mailto:`` or in the bundle (``#/memory/...``).
* A page served from another loopback port (the attacker's) that ``fetch``es
  the endpoint, the page's JSON and a form POST: it reads nothing, and the
  server did no work for it (403 in its log); with ``--cors`` naming that
  origin, it reads.
"""

from __future__ import annotations

import http.server
import json
import shutil
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from serve_process import ServeProcess

from .test_serve_browser import REPO, browser, shot  # noqa: F401  (browser: the fixture)

FLAG = "window.__pwned"
PAYLOADS = [
    f"<script>{FLAG}=1</script>",
    f'<img src=x onerror="{FLAG}=2">',
    f'"><svg onload={FLAG}=3>',
    '<iframe src="javascript:parent.__pwned=4"></iframe>',
    f"</textarea><img src=x onerror={FLAG}=5>",
    f"{{{{constructor.constructor('{FLAG}=6')()}}}}",
]
LINKS = [
    f"[a](javascript:{FLAG}=10)",
    f"[b](JaVaScRiPt:{FLAG}=11)",
    "[c](vbscript:msgbox)",
    "[d](data:text/html,<script>alert(1)</script>)",
    f"![e](javascript:{FLAG}=12)",
    f'<a href="javascript:{FLAG}=13">f</a>',
    "[g](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "[ok mail](mailto:someone@example.org)",
    "[ok web](https://example.org/page)",
    f"[h](java&#115;cript:{FLAG}=14)",
]


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


@pytest.fixture()
def hostile_bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "examples"
    shutil.copytree(REPO / "examples", folder)
    names = [f"hostile/{p.replace('/', '_')}.md" for p in PAYLOADS[:3]] + [
        "hostile/javascript:alert(1).md",
        "hostile/plain.md",
    ]
    for i, name in enumerate(names):
        payload = PAYLOADS[i % len(PAYLOADS)]
        frontmatter = (
            f"id: hostile-{i}\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\ntitle: {_yaml(payload + ' title')}\n"
            f"tags: [{', '.join(_yaml(p) for p in PAYLOADS)}]\nsummary: {_yaml(PAYLOADS[(i + 1) % len(PAYLOADS)])}\n"
            f"namespace: {_yaml('_semantic/' + payload)}\n"
            f"relationships:\n  - type: relates-to\n    target: {_yaml('javascript:' + FLAG + '=20')}\n"
            f"  - type: relates-to\n    target: {_yaml('data:text/html,' + PAYLOADS[0])}\n"
        )
        body = (
            f"# {payload}\n\n"
            + "\n".join(f"- {link} {p}" for link, p in zip(LINKS, PAYLOADS * 2))
            + "\n\n"
            + "\n".join(PAYLOADS)
            + "\n"
        )
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return folder


def _open_query_tab(driver: webdriver.Chrome, server: ServeProcess, wait: WebDriverWait) -> None:
    driver.get(server.url)
    wait.until(lambda d: "memories" in d.find_element(By.ID, "summary").text)
    driver.find_element(By.CSS_SELECTOR, 'nav a[data-tab="query"]').click()
    wait.until(lambda d: d.find_element(By.ID, "editor").is_displayed())


def _nothing_ran_and_links_are_safe(driver: webdriver.Chrome, where: str) -> None:
    assert driver.execute_script(f"return typeof {FLAG}") == "undefined", where
    hrefs = driver.execute_script(
        "return [...document.querySelectorAll('[href], [src], [action], [formaction]')]"
        ".map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action') || "
        "e.getAttribute('formaction'))"
    )
    for href in hrefs:
        assert href.startswith(("http://", "https://", "mailto:", "#/", "/static/", "static/")) or href in ("/", "#"), (
            where,
            href,
        )
    assert not driver.find_elements(
        By.CSS_SELECTOR, "main script, main iframe, main svg, main img[onerror], [onload], [onerror]"
    ), where


def test_hostile_content_never_runs_on_any_view(hostile_bundle: Path, browser: webdriver.Chrome) -> None:  # noqa: F811
    wait = WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))
    with ServeProcess(hostile_bundle, "--no-watch") as server:
        browser.get(server.url)
        wait.until(lambda d: "memories" in d.find_element(By.ID, "summary").text)
        _nothing_ran_and_links_are_safe(browser, "overview")
        overview = json.loads(urllib.request.urlopen(server.url + "api/overview", timeout=30).read())
        hostile = [m for m in overview["list"] if m["path"].startswith("hostile/")]
        assert len(hostile) == 5
        for item in hostile:
            browser.get(server.url + "#/memory/" + urllib.parse.quote(item["id"], safe=""))
            wait.until(lambda d: d.find_element(By.ID, "memory-title").text == item["title"])  # shown as text
            _nothing_ran_and_links_are_safe(browser, item["path"])
        shot(browser, "hostile-memory")
        _open_query_tab(browser, server, wait)
        editor = browser.find_element(By.ID, "editor")
        editor.clear()
        editor.send_keys(
            "SELECT ?m ?title ?tag ?path WHERE { ?m dc:title ?title ; mif:path ?path . OPTIONAL { ?m mif:tags ?tag } "
            "FILTER(STRSTARTS(?path, 'hostile/')) }"
        )
        browser.find_element(By.ID, "run").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#result-table tbody tr"))
        _nothing_ran_and_links_are_safe(browser, "query results")
        assert any("<script>" in td.text for td in browser.find_elements(By.CSS_SELECTOR, "#result-table td"))
        browser.refresh()
        wait.until(lambda d: "memories" in d.find_element(By.ID, "summary").text)
        _nothing_ran_and_links_are_safe(browser, "overview after reload")


ATTACKER = """<!doctype html><title>attacker</title><script>
(async () => {
  const base = new URLSearchParams(location.search).get("base"), query = encodeURIComponent("SELECT * WHERE { ?s ?p ?o } LIMIT 5");
  const tries = {
    get: [base + "query?query=" + query, {}],
    post_form: [base + "query", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "query=" + query}],
    post_sparql: [base + "query", {method: "POST", headers: {"Content-Type": "application/sparql-query"}, body: "ASK {}"}],
    overview: [base + "api/overview", {}],
    store: [base + "store", {}],
  };
  const out = {};
  for (const [name, [url, options]] of Object.entries(tries)) {
    try { const r = await fetch(url, options); out[name] = r.status + ":" + (await r.text()).length; }
    catch (e) { out[name] = "blocked"; }
  }
  document.body.dataset.result = JSON.stringify(out);
  document.title = "done";
})();
</script><body></body>"""  # noqa: E501


def _attacker_site() -> tuple[http.server.ThreadingHTTPServer, str]:
    """A page on another loopback port that fetches from the server named by its ``?base=``."""
    page = ATTACKER.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site, f"http://127.0.0.1:{site.server_address[1]}"


def _attack(browser: webdriver.Chrome, origin: str, target: str) -> dict[str, str]:  # noqa: F811
    browser.get(origin + "/?" + urllib.parse.urlencode({"base": target}))
    WebDriverWait(browser, 30).until(lambda d: d.title == "done")
    return json.loads(browser.find_element(By.TAG_NAME, "body").get_attribute("data-result"))


def test_a_page_from_another_origin_reads_nothing(browser: webdriver.Chrome) -> None:  # noqa: F811
    site, origin = _attacker_site()
    try:
        with ServeProcess(REPO / "examples", "--no-watch", "--log") as server:
            result = _attack(browser, origin, server.url)
            log = "".join(server.stderr)
    finally:
        site.shutdown()
        site.server_close()
    assert result == {name: "blocked" for name in ("get", "post_form", "post_sparql", "overview", "store")}, result
    assert (
        '"POST /query" 403' in log and '"POST /query" 200' not in log
    )  # the simple form POST reached it and was refused


def test_cors_lets_the_named_origin_read(browser: webdriver.Chrome) -> None:  # noqa: F811
    site, origin = _attacker_site()
    try:
        with ServeProcess(REPO / "examples", "--no-watch", "--cors", origin) as server:
            result = _attack(browser, origin, server.url)
    finally:
        site.shutdown()
        site.server_close()
    assert all(value.startswith("200:") and int(value[4:]) > 10 for value in result.values()), result


def test_the_page_shows_at_most_a_thousand_rows(browser: webdriver.Chrome) -> None:  # noqa: F811
    """The page's result limit (the endpoint's is --max-result-mb):
    a larger answer is counted, its first 1,000 rows shown."""
    wait = WebDriverWait(browser, 60, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))
    with ServeProcess(REPO / "examples", "--no-watch") as server:
        _open_query_tab(browser, server, wait)
        editor = browser.find_element(By.ID, "editor")
        editor.clear()
        editor.send_keys("SELECT * WHERE { ?s ?p ?o }")
        browser.find_element(By.ID, "run").click()
        wait.until(lambda d: "rows in" in d.find_element(By.ID, "query-status").text)
        total = int(browser.find_element(By.ID, "query-status").text.split()[0])
        assert total > 1000 and "first 1000 shown" in browser.find_element(By.ID, "query-status").text
        assert len(browser.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")) == 1000
