"""The notebook as a reader sees it (issue 37, item 6): rendered to a web page by the README's
``nbconvert`` command and opened in headless Chromium.

Every figure loads, keeps its alternative text and is shown at a size that can be
read; every table (DataFrames and the bundle's own summaries) reads from the left (as the browser computes it, with
JupyterLab's own styles that right-align table cells); a screenshot of each figure
is kept in out/browser/ for a person to look at.
"""

from __future__ import annotations

import subprocess
import sys

from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from .test_serve_browser import ARTIFACTS, REPO, browser  # noqa: F401 (the one Chromium fixture of the suite)

NOTEBOOK = REPO / "notebooks" / "explore.ipynb"
FIGURES = 5  # by type and namespace, validity timeline, trust and confidence, freshness, relationship graph


def test_the_rendered_notebook_shows_every_figure_with_its_alt_text(browser) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "nbconvert", "--execute", "--to", "html", "--output-dir", str(ARTIFACTS), str(NOTEBOOK)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    page = ARTIFACTS / "explore.html"
    browser.set_window_size(1400, 2400)
    browser.get(page.as_uri())
    # a fresh Chromium under load can hand the page back before its body is parsed (seen once in CI): wait for it
    WebDriverWait(browser, 60).until(
        lambda b: (
            b.execute_script("return document.readyState") == "complete"
            and b.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output img")
        )
    )
    images = browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output img")
    assert len(images) == FIGURES
    for number, image in enumerate(images, 1):
        browser.execute_script("arguments[0].scrollIntoView();", image)
        loaded = browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", image)
        assert loaded and loaded > 600, number
        alt = image.get_attribute("alt")
        assert alt and len(alt) > 80 and "No description" not in alt, number
        assert image.size["width"] >= min(loaded, 1000) * 0.9, number  # not squeezed into a thumbnail
        shot = ARTIFACTS / f"notebook-figure-{number}.png"
        image.screenshot(str(shot))
        with Image.open(shot) as picture:
            assert (
                picture.width >= image.size["width"] * 0.9 and len(picture.convert("RGB").getcolors(1 << 20) or ()) > 20
            ), shot
    cells = browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output td, .jp-OutputArea-output th")
    assert len(cells) > 200 and browser.find_elements(
        By.CSS_SELECTOR, "table[id^='T_'] td"
    )  # DataFrames (pandas' Styler) among them
    alignments = set(browser.execute_script("return arguments[0].map(c => getComputedStyle(c).textAlign);", cells))
    assert alignments == {"left"}
