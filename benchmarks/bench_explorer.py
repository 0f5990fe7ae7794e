"""The explorer page: how long one update takes in the browser, and the page's size.

Builds the page of TREC DL 2019 (37 runs x 43 topics) at cutoff 100, opens it in Debian's
chromium (Playwright, network blocked) and applies random configurations (gain per grade,
discount family or free points, cutoff 1..100, some topics and systems left out), reading the
page's own ``performance.now()`` figure of each update (``state().update_ms``: the nDCG of
every cell from the counts, both G-studies, Kendall's tau, the two-facet jackknife interval of
the difference in Phi and redrawing every read-out), and the parts of one update timed alone in
the page (averaged over repeated calls). Side by side, in the same process, the peer: the library computing
the same figures for the same configuration (``score_matrix`` + ``gstudy`` + ``kendall_tau`` +
``paired_comparison``), which is what a round trip to a Python server would cost at the least.
Also the time of real mouse drags on a gain slider (input events to read-outs, every event).

    python benchmarks/bench_explorer.py [--updates 200] [--cutoff 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


#: The parts of one update, each timed alone in the page on DL-2019 (exp gain, Zipf, @100).
PARTS = """(n) => {
  const C = window.IrstabCore, I = window.IrstabInterval, X = window.irstabExplorer;
  X.set({gain: "exp", discount: "zipf", cutoff: 100, topics_out: [], systems_out: []});
  const x = Float64Array.from(X.scores().flat()), S = X.systems.length, T = X.topics.length;
  const data = JSON.parse(document.getElementById("irstab-data").textContent);
  const counts = C.loadCounts(data), base = C.decode(data.baseline.scores, Float64Array);
  const gv = C.gainVector({kind: "exp"}, counts.G), dv = C.discountVector({family: "zipf", param: 1}, 100);
  const g = C.gstudy(x, S, T), gb = C.gstudy(base, S, T);
  const time = f => { f(); const t0 = performance.now(); for (let i = 0; i < n; i++) f();
                      return (performance.now() - t0) / n; };
  return {
    "nDCG of every cell @100": time(() => C.ndcg(counts, gv, dv, 100)),
    "one G-study": time(() => C.gstudy(x, S, T)),
    "Kendall's tau": time(() => C.kendall(g.means, gb.means)),
    "jackknife interval": time(() => I.phiDifference({candidate: x, baseline: base, nSystems: S,
      nTopics: T, estimate: g.phi - gb.phi, confidence: 0.95})),
    "whole update (set)": time(() => X.set({cutoff: 100})),
  };
}"""


def _config(rnd: random.Random, coll, cutoff: int) -> dict:
    d = rnd.choice(["log2", "zipf", "linear", "flat", "geometric", "points"])
    spec = {"gain": [0.0] + [round(rnd.uniform(0, 7), 2) for _ in range(coll.max_grade)]}
    k = rnd.randint(1, cutoff)
    if d == "geometric":
        spec["discount"] = {"family": "geometric", "param": round(rnd.uniform(0.5, 0.95), 2)}
    elif d == "points":
        spec["discount"] = sorted((round(rnd.random(), 3) for _ in range(k)), reverse=True)
    else:
        spec["discount"] = d
    if d != "points":
        spec["cutoff"] = k
    spec["topics_out"] = rnd.sample(list(coll.topics), rnd.randint(0, 5))
    spec["systems_out"] = rnd.sample(list(coll.systems), rnd.randint(0, 5))
    return spec


def _library(coll, base, state) -> float:
    """Seconds the library takes for the figures of one state."""
    from irstab.verdict import paired_comparison
    from irstab.compare.correlation import kendall_tau
    from irstab.evaluation import score_matrix
    from irstab.stability import gstudy

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = score_matrix(coll, state["measure"])
        rows = [s for s in coll.systems if s in set(state["ranking"])]
        cols = [t for t in coll.topics if t not in set(state["_topics_out"])]
        x, b = x.loc[rows, cols], base.loc[rows, cols]
        g = gstudy(x)
        g.topics_needed(0.90), g.topics_needed(0.95)
        kendall_tau(x.mean(axis=1).to_numpy(), b.mean(axis=1).to_numpy())
        if state["measure"] != "nDCG@10":
            paired_comparison({state["measure"]: x, "nDCG@10": b}, "nDCG@10",
                              candidates=[state["measure"]])
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=200)
    ap.add_argument("--cutoff", type=int, default=100)
    args = ap.parse_args()
    import irstab
    from irstab.evaluation import score_matrix
    from irstab.report.explorer import explorer_page, write_explorer
    from playwright.sync_api import sync_playwright

    coll = irstab.Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=args.cutoff)
    t0 = time.perf_counter()
    page = explorer_page(coll, cutoff=args.cutoff, optimize_at=())
    build = time.perf_counter() - t0
    base = score_matrix(coll, "nDCG@10")
    rnd = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = write_explorer(page, Path(tmp) / "explore.html")
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        ctx = browser.new_context(offline=True)
        ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        tab = ctx.new_page()
        tab.set_viewport_size({"width": 1400, "height": 1000})
        tab.goto(path.as_uri())
        tab.wait_for_function("window.irstabExplorer !== undefined")
        first = tab.evaluate("() => window.irstabExplorer.state().update_ms")
        page_ms, lib_ms = [], []
        for _ in range(args.updates):
            spec = _config(rnd, coll, args.cutoff)
            state = tab.evaluate("s => window.irstabExplorer.set(s)", spec)
            state["_topics_out"] = spec["topics_out"]
            page_ms.append(state["update_ms"])
            lib_ms.append(1000 * _library(coll, base, state))
        # real input events: drag grade 3's slider across its track, one update per event
        tab.evaluate("() => { window.__t = []; }")
        box = tab.locator("#gain-3").bounding_box()
        tab.evaluate("""() => document.getElementById('gain-3').addEventListener('input',
            () => window.__t.push(window.irstabExplorer.state().update_ms))""")
        y = box["y"] + box["height"] / 2
        tab.mouse.move(box["x"] + 4, y)
        tab.mouse.down()
        for f in np.linspace(0.02, 0.98, 60):
            tab.mouse.move(box["x"] + box["width"] * f, y)
        tab.mouse.up()
        drag = tab.evaluate("() => window.__t")
        parts = tab.evaluate(PARTS, 200)
        browser.close()

    def summary(v):
        v = sorted(v)
        return (f"median {statistics.median(v):6.1f} ms, p95 {v[int(0.95 * (len(v) - 1))]:6.1f} ms, "
                f"max {v[-1]:6.1f} ms")

    print(f"page: {page.nbytes / 1e6:.2f} MB, {page.data['counts']['n_entries']} entries, "
          f"built in {build:.2f} s; first update (cold) {first:.1f} ms")
    print(f"page update ({len(page_ms)} random configurations): {summary(page_ms)}")
    print(f"library, same figures (peer):           {summary(lib_ms)}")
    print(f"library / page (medians): {statistics.median(lib_ms) / statistics.median(page_ms):.1f}x")
    print(f"mouse drag on a gain slider ({len(drag)} input events): {summary(drag)}")
    print("parts of one update, alone (ms, mean of 200 warm calls): "
          + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()))


if __name__ == "__main__":
    main()
