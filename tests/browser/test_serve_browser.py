"""The page of ``mif-rdf serve`` in a real browser (issue 18, item 3): headless Chromium
driven by selenium through Debian's chromedriver, against the console script.

Runs a query and checks the table against the endpoint's own JSON answer,
opens a memory and checks its rendered markdown, triples, typed links and
findings against the JSON views, watches the page follow a file edit, and
keeps screenshots in out/browser/ (the README's picture is one of them).
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from serve_process import ServeProcess

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "out" / "browser"
POLICY = "semantic/idempotency-policy.md"
QUERY = """SELECT ?memory ?title WHERE {
  ?memory mif:path ?path ; dc:title ?title .
  FILTER(?path = "semantic/idempotency-policy.md")
}"""


def api(server: ServeProcess, name: str, **params: str) -> dict:
    with urllib.request.urlopen(server.url + f"api/{name}?" + urllib.parse.urlencode(params), timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "examples"
    shutil.copytree(REPO / "examples", folder)
    return folder


@pytest.fixture()
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def shot(driver: webdriver.Chrome, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    return path


def test_query_memory_view_and_live_update(bundle: Path, browser: webdriver.Chrome) -> None:
    wait = WebDriverWait(browser, 30)
    with ServeProcess(bundle) as server:
        browser.get(server.url)
        wait.until(lambda d: "memories" in d.find_element(By.ID, "summary").text)
        overview = api(server, "overview")
        rows = browser.find_elements(By.CSS_SELECTOR, "#by-type tr")
        assert {
            r.find_elements(By.TAG_NAME, "td")[0].text: int(r.find_elements(By.TAG_NAME, "td")[1].text) for r in rows
        } == overview["by_type"]
        assert len(browser.find_elements(By.CSS_SELECTOR, "#memories tbody tr")) == overview["memories"]
        assert len(browser.find_elements(By.CSS_SELECTOR, "#problems li")) == len(overview["problems"])
        shot(browser, "overview")

        # an example from the README, run from the editor: the table equals the endpoint's JSON answer
        browser.find_element(By.CSS_SELECTOR, 'nav a[data-tab="query"]').click()
        Select(browser.find_element(By.ID, "examples")).select_by_index(1)  # 1. What kinds of memory are there?
        browser.find_element(By.ID, "run").click()
        table = wait.until(ec.presence_of_element_located((By.ID, "result-table")))
        shown = [
            [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        example = api(server, "examples")[0]["query"]
        request = urllib.request.Request(
            server.query_url,
            data=example.encode(),
            headers={"Content-Type": "application/sparql-query", "Accept": "application/sparql-results+json"},
        )
        answer = json.loads(urllib.request.urlopen(request, timeout=60).read())
        expected = [
            [row["type"]["value"].replace("https://mif-spec.dev/ns/", "mif:"), row["memories"]["value"]]
            for row in answer["results"]["bindings"]
        ]
        assert shown == expected and len(shown) == 3
        shot(browser, "query")

        # a query of one's own, then its memory link opens the memory view
        editor = browser.find_element(By.ID, "editor")
        editor.clear()
        editor.send_keys(QUERY)
        browser.find_element(By.ID, "run").click()
        link = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#result-table a.memory-link")))
        link.click()
        title = wait.until(ec.visibility_of_element_located((By.ID, "memory-title")))
        memory = api(server, "memory", path=POLICY)
        assert title.text == memory["title"] == "Idempotency Key Policy"
        body = browser.find_element(By.ID, "memory-body")
        assert body.find_elements(By.TAG_NAME, "li") and "<" not in body.text[:1]  # rendered, not raw markdown
        rendered_links = body.find_elements(By.CSS_SELECTOR, "a.memory-link")
        assert rendered_links, "relationship lines link to their memories"
        assert len(browser.find_elements(By.CSS_SELECTOR, ".triples tr")) == len(memory["triples"])
        outgoing = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "ul.outgoing li a")]
        assert outgoing == [item["title"] or item["iri"] for item in memory["outgoing"]] and outgoing
        incoming = browser.find_elements(By.CSS_SELECTOR, "ul.incoming li")
        assert len(incoming) == len(memory["incoming"])
        shot(browser, "memory")

        # the page follows the files: an edit shows without reloading the page
        path = bundle / POLICY
        path.write_text(
            path.read_text(encoding="utf-8").replace(
                "title: Idempotency Key Policy", "title: Idempotency Key Policy (edited)"
            ),
            encoding="utf-8",
        )
        wait.until(lambda d: d.find_element(By.ID, "memory-title").text == "Idempotency Key Policy (edited)")
        # and a file that breaks keeps its last good version, marked, with its problem listed
        path.write_text(path.read_text(encoding="utf-8").replace("type: semantic", "type: [semantic"), encoding="utf-8")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".badge.kept"))
        findings = browser.find_element(By.CSS_SELECTOR, ".memory-grid").text
        assert "YAML syntax error" in findings and "serve-kept" in findings
        shot(browser, "memory-kept")


def test_markup_in_a_memory_stays_text(bundle: Path, browser: webdriver.Chrome) -> None:
    """A memory's title, body and link targets are shown as text: nothing in a file
    becomes markup or script on the page."""
    hostile = "<img src=x onerror=document.title=1>"
    (bundle / "hostile.md").write_text(
        f"---\nid: hostile\ntype: semantic\ncreated: 2026-01-15T10:30:00Z\ntitle: '{hostile}'\n---\n"
        f"# {hostile}\n\nA [link](javascript:alert(1)) and <script>document.title='owned'</script> and **bold**.\n",
        encoding="utf-8",
    )
    wait = WebDriverWait(browser, 30)
    with ServeProcess(bundle, "--no-watch") as server:
        browser.get(server.url + "#/memory/hostile")
        title = wait.until(ec.visibility_of_element_located((By.ID, "memory-title")))
        assert title.text == hostile
        body = browser.find_element(By.ID, "memory-body")
        assert not browser.find_elements(By.CSS_SELECTOR, "#memory-view img, #memory-view script")
        assert not body.find_elements(By.CSS_SELECTOR, "a[href^='javascript']")
        assert "<script>" in body.text and body.find_elements(By.TAG_NAME, "strong")
        time.sleep(0.5)
        assert browser.title == "mif-rdf serve"
