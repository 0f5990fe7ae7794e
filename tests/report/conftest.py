"""Chromium for the report's interactive pages: Debian's /usr/bin/chromium driven by Playwright.

Playwright launches the executable given and downloads no browser of its own. The tests skip
cleanly where chromium or Playwright is absent, except where IRSTAB_REQUIRE_BROWSER=1 (set by
.ci/run, which installs both): there a missing browser fails them, as in test_html.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def _missing(why: str):
    if os.environ.get("IRSTAB_REQUIRE_BROWSER") == "1":
        pytest.fail(f"IRSTAB_REQUIRE_BROWSER=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def chromium():
    """A headless Chromium (Playwright's Browser), shared by the session."""
    if not CHROMIUM.exists():
        _missing("chromium is not installed (/usr/bin/chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield browser
        browser.close()


class OfflinePage:
    """A page in a fresh browser context whose network requests are all aborted.

    ``requests`` lists every URL the page asked for (the file itself included), ``errors``
    the script errors and console errors, ``dialogs`` any alert the page raised.
    """

    def __init__(self, context, width: int):
        self.context = context
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        context.route("**/*", lambda route: route.continue_()
                      if route.request.url.startswith("file:") else route.abort())
        self.page = context.new_page()
        self.page.set_viewport_size({"width": width, "height": 1000})
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def open(self, path: Path) -> OfflinePage:
        self.page.goto(path.as_uri())
        self.page.wait_for_function("window.irstabExplorer !== undefined")
        return self

    def set(self, spec: dict) -> dict:
        return self.page.evaluate("s => window.irstabExplorer.set(s)", spec)

    def state(self) -> dict:
        return self.page.evaluate("() => window.irstabExplorer.state()")


@pytest.fixture(scope="session")
def open_offline(chromium):
    """``open_offline(width=1400)``: a new :class:`OfflinePage`, closed at the session's end."""
    made = []

    def make(width: int = 1400) -> OfflinePage:
        ctx = chromium.new_context(offline=True)
        made.append(ctx)
        return OfflinePage(ctx, width)

    yield make
    for ctx in made:
        ctx.close()


@pytest.fixture
def offline(chromium):
    """``offline(width=1400)``: a new :class:`OfflinePage`, closed after the test."""
    made = []

    def make(width: int = 1400) -> OfflinePage:
        ctx = chromium.new_context(offline=True)
        made.append(ctx)
        return OfflinePage(ctx, width)

    yield make
    for ctx in made:
        ctx.close()
