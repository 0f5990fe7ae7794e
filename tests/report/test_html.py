"""The HTML report is self-contained and renders in headless Chromium without broken images.

The static checks run everywhere; the browser checks skip cleanly when /usr/bin/chromium
(Debian's chromium package) is absent.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import irstab
from irstab.report.render import write_report
from irstab.report.study import run_study

CHROMIUM = Path("/usr/bin/chromium")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]

# appended to a copy of the report: counts the images the browser decoded
PROBE = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-images', ok + '/' + imgs.length);
});
</script></body>"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=10, depth=20, seed=4)
    coll = irstab.Collection.build(sim.qrels, sim.runs, depth=20)
    study = run_study(coll, (5, 10), starts=0, n_bootstrap=50, seed=1, tol=1e-3)
    return write_report(study, tmp_path_factory.mktemp("html"))


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.srcs.append(a.get("src") or "")
        for key in ("href", "src"):
            if tag in ("link", "script", "a", "iframe") and a.get(key):
                self.links.append(a[key])


def _parse(path: Path) -> _Images:
    p = _Images()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_image_is_an_embedded_png(files):
    p = _parse(files.html)
    assert len(p.srcs) == len(files.figures) >= 3
    for src in p.srcs:
        head, _, data = src.partition(",")
        assert head == "data:image/png;base64"
        assert base64.b64decode(data, validate=True).startswith(PNG_MAGIC)
    assert p.links == []  # nothing to fetch: self-contained
    assert "http://" not in files.html.read_text() and "https://" not in files.html.read_text()


def test_markdown_links_the_written_figures(files):
    md = files.markdown.read_text()
    for f in files.figures:
        assert f"(figures/{f.name})" in md
        assert f.read_bytes().startswith(PNG_MAGIC)
    assert "## Recommendation" in md


def test_no_temporary_files_left(files):
    leftovers = [p.name for p in files.directory.rglob(".*")]
    assert leftovers == []


def _chromium(tmp_path: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        pytest.skip("chromium not installed (/usr/bin/chromium)")
    profile = tmp_path / "profile"
    return subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=False, timeout=timeout, check=False,
    )


def test_chromium_loads_every_image(files, tmp_path):
    page = tmp_path / "probe.html"
    page.write_text(files.html.read_text().replace("</body>", PROBE, 1), encoding="utf-8")
    proc = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri())
    dom = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    m = re.search(r'data-images="(\d+)/(\d+)"', dom)
    assert m, dom[:500]
    ok, total = int(m.group(1)), int(m.group(2))
    assert total == len(files.figures) and ok == total
    assert "Recommendation" in dom


def test_chromium_screenshot(files, tmp_path):
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2000",
                     files.html.as_uri())
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    assert shot.read_bytes().startswith(PNG_MAGIC)
