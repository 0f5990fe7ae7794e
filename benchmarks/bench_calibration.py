"""Calibration of the verdict's decision rule: coverage, width, wrong recommendations, power.

    python benchmarks/bench_calibration.py [--replicates 2000] [--compare-replicates 500]
        [--bootstrap 1000] [--only TEXT] [--write-docs docs/calibration.md]

Draws collections from universes with known components (irstab.compare.calibration:
12 x 30, 30 x 40 and TREC DL 2019's 37 x 43 with DL-2019's fitted components; null and
planted; equal and unequal topic variance; a family of candidates; the nDCG presets as
fitted) and runs the verdict's paired comparison and rule on each, as
``irstab.compare.verdict`` does. Three tables:

1. the shipped interval (parametric bootstrap of the multivariate G-study) on every
   universe, ``--replicates`` collections each;
2. the methods it was chosen against, ``--compare-replicates`` collections each, on the
   30 x 40 and DL-2019 pair universes: the joint systems+topics bootstrap the report used
   before, the topics-only bootstrap, the joint bootstrap with each resample's mean squares
   bias-corrected (Wiley 2000; Tong & Brennan 2007: the bootstrap expectation of every mean
   square made equal to the observed one), and a "divide and conquer" bootstrap (systems
   resampled for the system mean squares and the residual, topics for the topic mean
   squares, each corrected the same way; Li, PLOS ONE 2023);
3. outside the model: universes drawing DL-2019's own (non-normal) effects.

Without the DL-2019 data the DL-2019 universes are left out (said in the output).
``--write-docs`` writes the tables, the settings and the figure
(docs/figures/calibration-coverage.png) to the given Markdown file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from irstab.compare.calibration import (
    calibrate,
    robustness_universes,
    standard_universes,
)
from irstab.errors import IRStabWarning

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "trec-dl-2019-passage"
COMPARE = ("bootstrap", "topic-bootstrap")  # library methods; two more defined below


# ----------------------------------------------------------------- rejected candidates


def _mean_squares(x):
    """(MS_sys, MS_top, MS_res) over the last two axes of ``x[..., s, t]``."""
    from irstab.stability.designs.crossed import sums_of_squares

    S, T = x.shape[-2:]
    ss_s, ss_t, ss_e = sums_of_squares(x)
    return ss_s / (S - 1), ss_t / (T - 1), ss_e / ((S - 1) * (T - 1))


def wiley_corrected(cube, n_draws, rng):
    """Joint bootstrap of systems and topics, each resample's mean squares bias-corrected.

    Resampling S systems and T topics with replacement gives (derived for the crossed
    design, checked by Monte-Carlo) E*[MS*_res] = f MS_res, E*[MS*_sys] = (S-1)/S MS_sys
    + f MS_res, E*[MS*_top] = (T-1)/T MS_top + f MS_res with f = (S-1)(T-1)/(ST); inverting
    these per resample makes their bootstrap means the observed mean squares (the
    corrections of Wiley 2000 and Tong & Brennan 2007 for boot-p,i).
    """
    from irstab.stability.multivariate import phi_from_mean_squares

    M, S, T = cube.shape
    rows = rng.integers(0, S, size=(n_draws, S))
    cols = rng.integers(0, T, size=(n_draws, T))
    f = (S - 1) * (T - 1) / (S * T)
    out = np.empty((M, n_draws))
    block = max(1, 2_000_000 // (S * T))
    for k in range(M):
        for a in range(0, n_draws, block):
            r, c = rows[a:a + block], cols[a:a + block]
            ms_s, ms_t, ms_e = _mean_squares(cube[k][r[:, :, None], c[:, None, :]])
            out[k, a:a + block] = phi_from_mean_squares(
                S / (S - 1) * (ms_s - ms_e), T / (T - 1) * (ms_t - ms_e), ms_e / f, S, T)
    return out


def divide_and_conquer(cube, n_draws, rng):
    """Systems resampled for MS_sys and MS_res, topics (independently) for MS_top.

    Each single-facet bootstrap mean square is corrected to the observed one in
    expectation: S/(S-1) for the system resample's MS_sys and MS_res, T/(T-1) for the
    topic resample's MS_top. With n_i the times system i is drawn, MS*_sys =
    T/(S-1) (sum n_i a_i^2 - (sum n_i a_i)^2 / S) and SS*_res = sum n_i q_i - n'Gn / S
    (a: system effects, q: row sums of squared residuals, G: their Gram matrix); no
    resampled matrix is built.
    """
    from irstab.stability.multivariate import phi_from_mean_squares

    _, S, T = cube.shape
    grand = cube.mean(axis=(1, 2), keepdims=True)
    rows, cols = cube.mean(axis=2, keepdims=True), cube.mean(axis=1, keepdims=True)
    a = (rows - grand)[:, :, 0]  # (M, S)
    b = (cols - grand)[:, 0, :]  # (M, T)
    e = cube - rows - cols + grand
    ns = np.stack([np.bincount(r, minlength=S) for r in rng.integers(0, S, (n_draws, S))])
    nt = np.stack([np.bincount(r, minlength=T) for r in rng.integers(0, T, (n_draws, T))])
    ns, nt = ns.astype(float), nt.astype(float)
    ms_s = T / (S - 1) * (ns @ (a.T ** 2) - (ns @ a.T) ** 2 / S) * S / (S - 1)
    ms_t = S / (T - 1) * (nt @ (b.T ** 2) - (nt @ b.T) ** 2 / T) * T / (T - 1)
    q = (e ** 2).sum(axis=2)  # (M, S)
    gram = np.einsum("msl,mkl->msk", e, e)
    quad = np.einsum("bs,msk,bk->bm", ns, gram, ns)
    ms_e = (ns @ q.T - quad / S) / ((S - 1) * (T - 1)) * S / (S - 1)
    return phi_from_mean_squares(ms_s, ms_t, ms_e, S, T).T


def percentile_only(cube, n_draws, rng):
    """The parametric bootstrap percentile: Phi of the drawn mean squares, no pivot."""
    from irstab.stability.multivariate import (
        draw_mean_squares, mean_products, phi_from_mean_squares,
    )

    _, S, T = cube.shape
    return phi_from_mean_squares(*draw_mean_squares(mean_products(cube), n_draws, rng),
                                 S, T).T


def pivots_only(cube, n_draws, rng):
    """The shipped pivots without the expanded (Student's t) level."""
    from irstab.compare.paired import _parametric_draws

    return _parametric_draws(cube, n_draws, rng)


wiley_corrected.__name__ = "bootstrap, bias-corrected"
divide_and_conquer.__name__ = "divide and conquer"
percentile_only.__name__ = "parametric percentile"
pivots_only.__name__ = "pivots, normal level"


# ----------------------------------------------------------------- data


def dl2019_scores() -> dict | None:
    """nDCG@10, nDCG@20, the nDCG presets at 10, 20, 100, DCG_UL(version=2)@10, AP."""
    if not (DATA / "qrels.txt").is_file():
        return None
    from irstab.collection import Collection
    from irstab.evaluation import score_matrices
    from irstab.metrics import parse_measure
    from irstab.report.study import preset_set

    names = ["nDCG@10", "nDCG@20", *preset_set((10, 20, 100)), "DCG_UL(version=2)@10", "AP"]
    names = list(dict.fromkeys(str(parse_measure(m)) for m in names))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        coll = Collection.from_files(DATA / "qrels.txt", DATA / "runs", depth=100)
        scores = score_matrices(coll, names)
    out, seen = {}, []
    for m, frame in scores.items():  # one of each group of identical matrices
        x = frame.to_numpy()
        if not any(np.array_equal(x, y) for y in seen):
            out[m] = x
            seen.append(x)
    return out


# ----------------------------------------------------------------- running


def run(universes, method, replicates, bootstrap, seed, label=None):
    rows, cals = [], []
    for u in universes:
        t0 = time.perf_counter()
        c = calibrate(u, interval=method, n_replicates=replicates, n_bootstrap=bootstrap,
                      seed=seed)
        row = c.summary()
        row["seconds"] = time.perf_counter() - t0
        row["method"] = label or row["interval"]
        rows.append(row)
        cals.append(c)
        print(_line(row), flush=True)
    return rows, cals


def _pct(p: float, digits: int = 3) -> str:
    return "–" if p is None or not math.isfinite(p) else f"{p:.{digits}f}"


def _line(r: dict) -> str:
    return (f"{r['universe'][:62]:62s} {r['method'][:26]:26s} cov {_pct(r['coverage'])} "
            f"(+-{_pct(r['coverage_mc_error'])}) sd x{r['sd_ratio']:.2f} "
            f"width x{r['width_ratio']:.2f} wrong {_pct(r['wrong_recommendations'])} "
            f"power {_pct(r['power'])} {r['seconds']:.1f}s")


HEAD = ("| universe | true diff. | true sd | sd ratio | width ratio | coverage (± MC) | "
        "lower > 0 | wrong rec. | power (± MC) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")


def _row(r: dict, with_method: bool = False) -> str:
    cells = [r["universe"]] + ([r["method"]] if with_method else []) + [
        f"{r['true_diff']:+.4f}" if abs(r["true_diff"]) > 5e-5 else "0",
        f"{r['true_sd']:.4f}", f"{r['sd_ratio']:.2f}", f"{r['width_ratio']:.2f}",
        f"{_pct(r['coverage'])} ± {_pct(r['coverage_mc_error'])}",
        _pct(r["lower_above_zero"]), _pct(r["wrong_recommendations"]),
        "–" if not math.isfinite(r["power"]) else
        f"{_pct(r['power'])} ± {_pct(r['power_mc_error'])}",
    ]
    return "| " + " | ".join(cells) + " |"


def table(rows, with_method=False) -> str:
    head = HEAD
    if with_method:
        head = head.replace("| universe |", "| universe | method |").replace(
            "|---|", "|---|---|", 1)
    return "\n".join([head, *(_row(r, with_method) for r in rows)])


def figure(main, compared, path: Path):
    """Coverage of every setting and method, with the 0.93-0.97 band and MC error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["universe"] for r in main]
    y = {n: i for i, n in enumerate(names)}
    fig, ax = plt.subplots(figsize=(9.0, 0.36 * len(names) + 2.4), layout="constrained")
    ax.axvspan(0.93, 0.97, color="tab:green", alpha=0.12, label="acceptance 0.93-0.97")
    ax.axvline(0.95, color="tab:green", linewidth=0.8)
    styles = {"parametric": ("o", "black"), "pivots, normal level": ("o", "0.6"),
              "parametric percentile": ("P", "tab:green"), "bootstrap": ("s", "tab:red"),
              "topic-bootstrap": ("v", "tab:blue"),
              "bootstrap, bias-corrected": ("D", "tab:purple"),
              "divide and conquer": ("^", "tab:orange")}
    offset = {m: 0.11 * (k - 3) for k, m in enumerate(styles)}
    for rows in (main, compared):
        for r in rows:
            if r["universe"] not in y:
                continue
            marker, colour = styles[r["method"]]
            ax.errorbar(r["coverage"], y[r["universe"]] + offset[r["method"]],
                        xerr=1.96 * r["coverage_mc_error"], fmt=marker, color=colour,
                        markersize=4, elinewidth=0.8, capsize=0)
    for m, (marker, colour) in styles.items():
        ax.plot([], [], marker, color=colour, linestyle="none",
                label="parametric (shipped)" if m == "parametric" else m)
    ax.set_yticks(range(len(names)), names, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlim(min(0.80, min(r["coverage"] for r in main + compared) - 0.02), 1.005)
    ax.set_xlabel("coverage of the nominal 95 % interval (all candidates at once)\n"
                  "bars: 95 % Monte-Carlo error", fontsize=8.5)
    ax.set_title("Does 95 % mean 95 %? Collections drawn from universes with known Phi",
                 fontsize=10)
    fig.legend(fontsize=7.5, loc="outside lower center", ncols=4)
    ax.grid(True, axis="x", alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}")


def _find(rows, universe, method):
    return next((r for r in rows if r["universe"] == universe and r["method"] == method), None)


def _range(rows, key="coverage") -> str:
    vals = [r[key] for r in rows]
    d = 3 if key == "coverage" else 2
    return f"{min(vals):.{d}f}-{max(vals):.{d}f}" if vals else "–"


def docs(path: Path, main, compared, robust, args, seconds, have_dl, date, machine) -> str:
    fig = path.parent / "figures" / "calibration-coverage.png"
    figure(main, compared, fig)
    rel_fig = fig.relative_to(path.parent).as_posix()
    n_main = args.replicates
    cov_lo = min(r["coverage"] for r in main)
    cov_hi = max(r["coverage"] for r in main)
    nulls = [r for r in main if abs(r["true_diff"]) <= 5e-5]
    wrong_null = max(r["wrong_recommendations"] for r in nulls)
    wrong_all = max(r["wrong_recommendations"] for r in main)
    plant = "30 x 40, planted, equal topic variance"
    moderate = _find(main, plant, "parametric")
    old = _find(compared, plant, "bootstrap")
    by = {}
    for r in compared:
        by.setdefault(r["method"], []).append(r)
    fams = [r for r in main if r["candidates"] > 1]
    text = f"""# Calibration of the verdict: does its 95 % mean 95 %?

`irstab report` (and `irstab.compare.verdict`, `irstab compare --baseline`) recommends a
change of measure only when a candidate's 95 % interval of the difference in Phi to the
baseline lies above zero and the candidate saves a material number of topics. This page
checks by simulation what that rule claims: collections are drawn from universes whose
components, and so whose true Phi of every measure, are known; on each collection the
paired comparison and the rule run exactly as in the library
(`irstab.compare.calibration.calibrate`); the tables count how often the interval covers the
true difference, how wide it is, how often the rule recommends a change that is wrong, and
how often it finds a real one.

Written by `python benchmarks/bench_calibration.py --replicates {args.replicates}
--compare-replicates {args.compare_replicates} --bootstrap {args.bootstrap} --write-docs
docs/calibration.md` on {date} ({machine}; {seconds / 60:.0f} min in all). Every number
below is computed by that command; the suite runs a fast version of it
(`tests/compare/test_calibration.py`).

## The interval

The difference Delta = Phi_candidate(n) - Phi_baseline(n) at the observed n topics, for the
universe the G-study generalises to: new systems *and* new topics. The interval comes from
the multivariate G-study of all measures at once (`irstab.stability.multivariate`): their
mean-product matrices (the diagonals are each measure's mean squares, the off-diagonals how
the measures' system, topic and residual effects covary; Brennan, *Generalizability Theory*,
2001, ch. 9) are drawn B times from their normal-theory Wishart distribution at the fitted
values, which is what a fresh sample of systems and topics would give (Anderson 2003, ch. 7).
Each drawn mean square MS* becomes MS^2 / MS*, the generalized pivotal quantity of its
expectation (marginally exactly MS nu / chi2_nu; Weerahandi, *JASA* 88, 1993), every
measure's Phi is recomputed from the pivots, and the interval is the percentile interval of
the pivots' differences, at the level that Student's t with S - 1 degrees of freedom gives
the normal quantile (S systems: the spread of the estimated difference scales with the
system variance, itself estimated with S - 1 degrees of freedom; Hesterberg's expanded
percentile interval, *The American Statistician* 69, 2015): 0.9723 for 12 systems, 0.9592
for 30, 0.9574 for 37. Over several candidates the intervals hold simultaneously (Mandel &
Betensky, *CSDA* 52, 2008).

## What is simulated

A universe gives every measure a system, a topic and a residual (system x topic) variance
component, and every pair of measures the covariances of their effects. A collection is a
fresh sample of systems and topics: x[m, s, t] = a[s, m] + b[t, m] + e[s, t, m], the three
effect vectors normal and independent.

- **12 x 30, 30 x 40**: system sd 0.15, topic sd 0.20, residual sd 0.25 for the baseline;
  the two measures share their system and topic effects, their residuals are independent
  (at 30 x 40 the true sd of the estimated difference is 0.016).
  *Null*: the candidate equals the baseline in distribution. *Unequal topic variance*: the
  candidate's topic sd is 0.15 and its residual variance larger by as much, so its Phi is the
  baseline's (null) or the planted one. *Planted*: the candidate's residual sd is 0.18 (the
  moderate plant: true Delta = +0.028 at 30 x 40). *8 candidates*: the baseline and eight
  candidates sharing system and topic effects with independent residuals, all null or one
  planted.
- **DL-2019 37 x 43**: nDCG@10's components fitted on TREC DL 2019 (37 runs x 43 topics)
  for both measures, their effects correlated as nDCG@10's and nDCG@20's are on DL-2019;
  unequal topic variance: half the candidate's topic variance moved to its residual;
  planted: the candidate's residual variance x 0.5184 (0.72^2, the moderate plant's ratio),
  or half its topic variance and the residual that gives the same Delta. *As fitted*:
  nDCG@10 and the distinct nDCG presets at cutoffs 10, 20 and 100 with the multivariate
  components fitted on DL-2019 (made positive semi-definite), the presets the simultaneous
  family, each with its own true Delta.

Each collection runs the interval with B = {args.bootstrap} draws and the rule with a 10 %
minimum saving of topics for Phi = 0.95.

**Columns.** *true diff.*: the true Delta of the candidate with the largest one. *true sd*:
the sd of the estimated Delta over the collections (the sampling error the interval must
capture). *sd ratio*: the mean sd of the method's draws over the true sd. *width ratio*:
the mean interval width over 2 x 1.96 true sd's (1 for an exact normal interval of one
candidate; simultaneous intervals over several candidates are wider by design).
*coverage*: how often every candidate's interval contains its true Delta (simultaneous
coverage; with one candidate its coverage), ± its Monte-Carlo standard error
sqrt(p(1-p)/R). *lower > 0*: how often the interval of the candidate with the largest true
Delta lies above 0. *wrong rec.*: how often the rule recommends a candidate that is not
truly more stable (Delta <= 0). *power*: how often it recommends one that is (– when none
is).

## Results: the shipped interval

{n_main} collections per universe.

{table(main)}

Coverage lies between {cov_lo:.3f} and {cov_hi:.3f} in every universe (nominal 0.95, accepted
0.93-0.97; the Monte-Carlo error of one coverage is about
{math.sqrt(0.95 * 0.05 / n_main):.3f}), simultaneous families included. Where no candidate is
more stable the rule recommends a wrong change in at most {wrong_null:.1%} of the collections
(at most {wrong_all:.1%} in any universe).
"""
    if moderate is not None:
        text += (f"At the moderate plant (30 x 40, residual sd 0.18 against 0.25, true Delta "
                 f"+0.028) it recommends the better measure in {moderate['power']:.1%} of the "
                 "collections"
                 + (f", against {old['power']:.1%} with the joint bootstrap the report used "
                    "before" if old else "") + ". With 12 systems the same plant (true Delta +0.035 at 30 topics) is found "
                 "in under a fifth of the collections: the interval is honest about how little "
                 "12 systems tell.\n")
    text += f"""
![Coverage per universe and method]({rel_fig})

*Coverage of the nominal 95 % interval in every universe (black: the shipped interval; the
others where they were simulated), with 95 % Monte-Carlo error bars; green: 0.93-0.97.*

## Why this interval: the methods it was chosen against

{table(compared, with_method=True)}

The first two variants ran {args.replicates} collections per universe, the others
{args.compare_replicates} (on the pair universes at 30 x 40 and 37 x 43).

- **pivots, normal level**: the shipped pivots at the nominal level. Pairs cover
  {_range([r for r in by.get("pivots, normal level", []) if r["candidates"] == 1])}, but
  several candidates at once only
  {_range([r for r in by.get("pivots, normal level", []) if r["candidates"] > 1])}: the level
  of Student's t is what brings the families into range.
- **parametric percentile**: the plain parametric bootstrap, Phi of the drawn mean squares
  (no pivot). Where the two measures' Phi differ in a sample, its draws lean away from zero
  (the lower Phi has the longer tail), and it covers
  {_range(by.get("parametric percentile", []))}.
- **bootstrap** (what the report used before): systems and topics resampled together count
  the system x topic interaction twice, once through each facet (Brennan 2001, §6.2; Wiley,
  PhD thesis, Stanford, 2000; Tong & Brennan, *Educational and Psychological Measurement*
  67, 2007; McCullagh, *Bernoulli* 6, 2000, shows no resampling of a crossed array gets its
  variance right). Too wide ({_range(by.get("bootstrap", []), "width_ratio")} times the true
  width), it covers {_range(by.get("bootstrap", []))} and rarely recommends a change.
- **topic-bootstrap**: the systems as observed; it ignores the sampling of systems, too
  narrow ({_range(by.get("topic-bootstrap", []), "width_ratio")}), covering
  {_range(by.get("topic-bootstrap", []))}.
- **bootstrap, bias-corrected**: each joint resample's mean squares corrected so that their
  bootstrap means are the observed ones (the corrections of Wiley 2000 and Tong & Brennan 2007
  for boot-p,i, derived for this design in the benchmark). It fixes the mean, not the
  spread: {_range(by.get("bootstrap, bias-corrected", []), "width_ratio")} times too wide.
- **divide and conquer**: systems resampled for the system mean squares, topics for the topic
  mean squares, each corrected (Li, *PLOS ONE* 18, 2023): covers
  {_range(by.get("divide and conquer", []))} here, less on DL-2019's own effects (below).

The shipped interval is also the cheapest: O(B M^2 r) per comparison for M measures, no
resampled score matrix (benchmarks/README.md, "The whole study").

## Outside the model: DL-2019's own effects

The universes above are normal. Here the effects are drawn with replacement from DL-2019's
own estimated system, topic and residual effects, rescaled so that their covariances equal
the fitted components (Carpenter, Goldstein & Rasbash, *JRSS C* 52, 2003): the same
components, DL-2019's skewness and tails. {args.compare_replicates} collections per
universe.

{table(robust, with_method=True)}

DL-2019's system effects are heavy-tailed (a few runs far below the rest; kurtosis about 6
for nDCG@10 and 10 for DCG_UL(version=2)@10). Heavy tails bias every estimate of Phi
downwards, more so for the measure with the heavier tail, and no interval centred on the
estimate undoes a bias it does not see. Between nDCG@10 and nDCG@20, whose system effects
are nearly the same, the shipped interval covers
{_range([r for r in robust if "nDCG@20" in r["universe"] and r["method"] == "parametric"])};
against AP {_range([r for r in robust if "and AP" in r["universe"] and r["method"] == "parametric"])};
against DCG_UL(version=2)@10, whose tail is the heaviest, only
{_range([r for r in robust if "DCG_UL" in r["universe"] and r["method"] == "parametric"])}.
The verdict therefore lets only the nDCG configurations be recommended; the other metrics'
intervals are marginal and shown for context (on DL-2019 the report says that
DCG_UL(version=2)@10's marginal interval lies above zero: this table is why it is context,
not a recommendation).

## What the calibration does not cover

- **Optimised candidates.** The report's optimal and minimax configurations are chosen to
  maximise Phi on the same topics they are then compared on, so their estimated differences
  lean optimistic; the simulation compares fixed measures and the intervals do not account
  for that search.
- **Non-normal, heteroscedastic scores.** Beyond the effects drawn above (skewness and tails,
  independent of each other), real per-topic variances differ; the G-study's model, and so
  the interval's, assumes they do not.
"""
    if not have_dl:
        text += "\n(The DL-2019 data were not found: its universes are missing above.)\n"
    path.write_text(text)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--compare-replicates", type=int, default=500)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="universes whose name contains this text")
    ap.add_argument("--skip-compare", action="store_true")
    ap.add_argument("--write-docs", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None,
                    help="also write every row as JSON here (reload with --from-json)")
    ap.add_argument("--from-json", type=Path, default=None,
                    help="rewrite the docs from a --save file instead of simulating again")
    args = ap.parse_args(argv)
    if args.from_json is not None:
        saved = json.loads(args.from_json.read_text())
        for k in ("replicates", "compare_replicates", "bootstrap"):
            setattr(args, k, saved["args"][k])
        docs(args.write_docs, saved["main"], saved["compared"], saved["robust"], args,
             saved["seconds"], saved["have_dl"], saved["date"], saved["machine"])
        print(f"wrote {args.write_docs}")
        return 0
    t0 = time.perf_counter()
    dl = dl2019_scores()
    print(f"DL-2019: {'found' if dl is not None else 'not found; its universes are left out'}")
    universes = standard_universes(dl)
    if args.only:
        universes = [u for u in universes if args.only in u.name]
    print(f"\n# parametric, {args.replicates} collections per universe")
    main_rows, _ = run(universes, "parametric", args.replicates, args.bootstrap, args.seed)
    compared = []
    if not args.skip_compare:
        for method in (percentile_only, pivots_only):  # fast: every universe, as many collections
            print(f"\n# {method.__name__}, {args.replicates} collections per universe")
            compared += run(universes, method, args.replicates, args.bootstrap, args.seed,
                            method.__name__)[0]
        chosen = [u for u in universes if (u.name.startswith("30 x 40") or u.name.startswith(
            "DL-2019")) and len(u.measures) == 2]
        for method in (*COMPARE, wiley_corrected, divide_and_conquer):
            label = method if isinstance(method, str) else method.__name__
            print(f"\n# {label}, {args.compare_replicates} collections per universe")
            compared += run(chosen, method, args.compare_replicates, args.bootstrap, args.seed,
                            label)[0]
    robust = []
    if dl is not None and not args.skip_compare:
        for method in ("parametric", divide_and_conquer):
            label = method if isinstance(method, str) else method.__name__
            print(f"\n# outside the model, {label}, {args.compare_replicates} collections")
            robust += run(robustness_universes(dl), method, args.compare_replicates,
                          args.bootstrap, args.seed, label)[0]
    seconds = time.perf_counter() - t0
    print(f"\n{seconds:.0f} s in all")
    print("\n" + table(main_rows))
    date, machine = datetime.date.today().isoformat(), _machine()
    if args.save is not None:
        args.save.write_text(json.dumps({
            "args": vars(args) | {"save": None, "write_docs": None, "from_json": None},
            "main": main_rows, "compared": compared, "robust": robust, "seconds": seconds,
            "have_dl": dl is not None, "date": date, "machine": machine}, indent=1))
    if args.write_docs is not None:
        docs(args.write_docs, main_rows, compared, robust, args, seconds, dl is not None, date,
             machine)
        print(f"wrote {args.write_docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
