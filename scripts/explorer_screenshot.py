"""The README's picture of the explorer: DL-2019's page at 1400 px, one configuration set.

    python scripts/explorer_screenshot.py [docs/figures/explorer-dl2019.png]

Builds the page as ``irstab explore qrels.txt runs/`` does (the optimal configurations
included), opens it in Debian's chromium (Playwright, network blocked), applies the exp gain
with the Zipf discount at cutoff 20 and writes a screenshot of the first 1400 x 1040 pixels.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def main(argv: list[str]) -> int:
    import irstab
    from irstab.report.explorer import explorer_page, write_explorer
    from playwright.sync_api import sync_playwright

    out = Path(argv[0]) if argv else REPO / "docs" / "figures" / "explorer-dl2019.png"
    coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=100)
    page = explorer_page(coll, cutoff=100, title="trec-dl-2019-passage")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = write_explorer(page, Path(tmp) / "explore.html")
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        ctx = browser.new_context(offline=True, viewport={"width": 1400, "height": 1040})
        ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        tab = ctx.new_page()
        tab.goto(path.as_uri())
        tab.wait_for_function("window.irstabExplorer !== undefined")
        tab.evaluate("() => window.irstabExplorer.set({gain: 'exp', discount: 'zipf', cutoff: 20})")
        tab.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
