"""Calibration of the verdict's decision rule: coverage, width, wrong recommendations, power.

    python benchmarks/bench_calibration.py [--replicates 2000] [--real-replicates 500]
        [--compare-replicates 500] [--expensive-replicates 200] [--bootstrap 1000]
        [--skip-compare] [--only TEXT]
        [--write-docs docs/calibration.md] [--save rows.json | --from-json rows.json]

Draws collections from universes whose true Phi is known and runs the verdict's paired
comparison and rule on each, as ``irstab.verdict.verdict`` does
(irstab.verdict.calibration). Universes (irstab.verdict.universes):

1. **real scores**: the acceptance set of the reference population
   (``irstab.verdict.reference.reference_universes``): the systems and topics of ten real
   collections resampled with replacement, the truth from the population: TREC DL 2019
   (nDCG@10 against nDCG@20, @100, the zipf discount, the exp gain, AP, RR, a null twin, a
   planted one and the four nDCG configurations at once), TREC-3 ad hoc AP (its twins),
   TREC 5-8 ad hoc (AP against P@10, RR, its twins, both at once) and Web 2010-2013 (nDCG@20
   against ERR@20, its twins), at 12 x 20, 20 x 25 and 30 x 40; and DL-2019 without
   replacement (``real_universes``); ``--real-replicates`` collections each;
2. **normal** (``standard_universes``): components fitted to DL-2019 and two smaller
   designs, null and planted, families; ``--replicates`` collections each;
3. **empirical effects** (``robustness_universes``): DL-2019's own effects rescaled to its
   fitted components.

Each is run with the shipped interval (the two-facet jackknife) and the one it replaced
(the Wishart pivots of the normal model). A fourth table compares the other methods that
were tried (``--compare-replicates`` collections, on a subset of both kinds; bootstrap-t and
the joint bootstrap ``--expensive-replicates`` collections and draws), unless
``--skip-compare``.

The page keeps sections other benchmarks write into it: ``<!-- reference -->``
(``bench_reference_calibration.py``: every rule tried for the interval's degrees of freedom
on the ten collections, the choice of its constants, leave-one-collection-out; its summary is
quoted in "The answer first"), ``<!-- variants -->`` (``bench_interval_variants.py``),
``<!-- topic-tails -->`` (``bench_topic_tails.py``), ``<!-- df-families -->`` (by hand, from
``bench_df_families.py``), ``<!-- kurtosis-df -->`` (``bench_kurtosis_df.py``: a family of
degrees of freedom not shipped, chosen and checked on separate draws) and ``<!-- heldout -->``
(``bench_heldout_collections.py``: two collections the constants were not chosen on).

Without the DL-2019 data its universes are left out (said in the output).
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

from irstab.verdict.calibration import (
    calibrate,
    real_universes,
    robustness_universes,
    standard_universes,
)
from irstab.verdict.draws import PhiDifferences
from irstab.verdict.jackknife import (
    CLIPPED_PART_NOISE, FACET_DF_DEFLATION, FACET_DF_FLOOR, FACET_DF_KURTOSIS,
)
from irstab.verdict.reference import read_sigir2019, reference_universes
from irstab.errors import IRStabWarning

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "trec-dl-2019-passage"
TREC3 = ROOT / "data" / "trec3-adhoc" / "AP.csv"
SIGIR = ROOT / "data" / "sigir2019-statistical"
SHIPPED, REPLACED = "jackknife", "parametric"


# ----------------------------------------------------------------- the methods tried
#
# Each takes a collection (baseline first, every other measure a candidate) and returns
# PhiDifferences; families get Bonferroni's t, as the shipped one does.


def _phi(ms, n_s, n_t, n):
    """Phi at n topics from mean squares (3, ...) of an n_s x n_t design (the G-study's clip)."""
    from irstab.stability.coefficients import Coefficient, coef_from_psi, psi_of
    from irstab.stability.designs.crossed import components_from_mean_squares

    return coef_from_psi(psi_of(components_from_mean_squares(*ms, n_s, n_t), Coefficient.phi), n)


def _log_snr(ms, n_s, n_t, n):
    """log(n sigma2_s / (sigma2_t + sigma2_e)): logit Phi(n), the variance-ratio scale."""
    phi = np.clip(_phi(ms, n_s, n_t, n), 1e-12, 1 - 1e-12)
    return np.log(phi / (1 - phi))


def _exact_pseudo(cube, stat):
    """The statistic of every measure on the whole cube and left-one-out (exact, not linear)."""
    from irstab.verdict.jackknife import leave_one_out_mean_squares

    _, S, T = cube.shape
    full, bs, bt, bc = leave_one_out_mean_squares(cube)
    return (stat(full, S, T, T), stat(bs, S - 1, T, T), stat(bt, S, T - 1, T),
            stat(bc, S - 1, T - 1, T))


def _t_interval(cube, diff, var, df, confidence=0.95):
    from scipy import stats

    M, S, _ = cube.shape
    L = max(M - 1, 1)
    q = stats.t.ppf(1 - (1 - confidence) / (2 * L), df)
    sd = np.sqrt(np.maximum(var, 0.0))
    lo, hi = np.maximum(diff - q * sd, -1.0), np.minimum(diff + q * sd, 1.0)
    lo[0] = hi[0] = 0.0
    return PhiDifferences(phi=diff, diff=diff, lower=lo, upper=hi, sd=sd, level=np.nan,
                          topic_draws=None)


def _jackknife_variant(cube, stat, correct=True):
    from irstab.verdict.jackknife import two_facet_variance

    full, bs, bt, bc = _exact_pseudo(cube, stat)
    w = np.eye(len(full)) - np.eye(len(full))[0]  # measure m minus the baseline
    v = two_facet_variance(w @ full, w @ bs, w @ bt, np.einsum("km,mst->kst", w, bc))
    var = v.variance() if correct else np.diag(v.system + v.topic)
    return w @ full, var


def jackknife_plain(cube, n_draws, rng):
    """Phi left one out over systems and topics, V_s + V_t (the interaction twice), t(S-1)."""
    d, var = _jackknife_variant(cube, _phi, correct=False)
    return _t_interval(cube, d, var, cube.shape[1] - 1)


def jackknife_phi(cube, n_draws, rng):
    """Phi left one out, the interaction counted once and the parts clipped, t(S-1)."""
    d, var = _jackknife_variant(cube, _phi)
    return _t_interval(cube, d, var, cube.shape[1] - 1)


def jackknife_logit(cube, n_draws, rng):
    """logit Phi left one out (corrected, clipped), t(S-1), mapped back at the baseline's Phi."""
    from scipy import stats

    M, S, T = cube.shape
    d, var = _jackknife_variant(cube, _log_snr)
    q = stats.t.ppf(1 - 0.05 / (2 * max(M - 1, 1)), S - 1)
    phi = _exact_pseudo(cube, _phi)[0]
    b = float(np.clip(phi[0], 1e-12, 1 - 1e-12))
    to_phi = (lambda z: 1 / (1 + np.exp(-np.clip(np.log(b / (1 - b)) + z, -700, 700))) - b)
    sd = np.sqrt(var)
    lo, hi = to_phi(d - q * sd), to_phi(d + q * sd)
    lo[0] = hi[0] = 0.0
    return PhiDifferences(phi=phi, diff=phi - phi[0], lower=lo, upper=hi, sd=sd, level=np.nan,
                          topic_draws=None)


def _shipped_parts(cube):
    from irstab.verdict.jackknife import phi_contrasts

    w = (np.eye(cube.shape[0]) - np.eye(cube.shape[0])[0])[1:]
    return w, phi_contrasts(cube, w)


def delta_bias_corrected(cube, n_draws, rng):
    """The shipped interval centred on the jackknife's bias-corrected estimate."""
    w, cv = _shipped_parts(cube)
    full, bs, bt, _ = _exact_pseudo(cube, _phi)
    S, T = cube.shape[1:]
    bias = w @ ((S - 1) * (bs.mean(axis=1) - full) + (T - 1) * (bt.mean(axis=1) - full))
    z = np.zeros(1)
    return _t_interval(cube, np.r_[z, cv.estimate - bias], np.r_[z, cv.variance],
                       np.r_[np.inf, cv.df])


def nonparametric_pivots(cube, n_draws, rng):
    """Generalized pivots whose mean squares are resampled instead of drawn from Wishart laws.

    Systems (with their rows of residuals) resampled for MS_sys and MS_res, topics for
    MS_top; each MS* becomes MS^2 / MS*, Phi differences at the t-expanded percentile level.
    """
    from irstab.verdict.draws import expanded_confidence, simultaneous_percentile
    from irstab.stability.multivariate import mean_products, phi_from_mean_squares

    M, S, T = cube.shape
    mp = mean_products(cube)
    g = cube.mean(axis=(1, 2), keepdims=True)
    r, c = cube.mean(axis=2, keepdims=True), cube.mean(axis=1, keepdims=True)
    a, b = (r - g)[:, :, 0], (c - g)[:, 0, :]
    rss = ((cube - r - c + g) ** 2).sum(axis=2)
    rows, cols = rng.integers(0, S, (n_draws, S)), rng.integers(0, T, (n_draws, T))
    ea, eb = a[:, rows], b[:, cols]
    ea, eb = ea - ea.mean(-1, keepdims=True), eb - eb.mean(-1, keepdims=True)
    drawn = ((T / (S - 1) * (ea * ea).sum(-1)).T, (S / (T - 1) * (eb * eb).sum(-1)).T,
             (rss[:, rows].sum(-1) / ((S - 1) * (T - 1))).T)
    piv = [np.where(dr > 0, o * o / np.where(dr > 0, dr, 1.0), 0.0)
           for o, dr in zip(mp.mean_squares(), drawn)]
    phi_star = phi_from_mean_squares(*piv, S, T).T
    phi = _exact_pseudo(cube, _phi)[0]
    d, d_star = phi - phi[0], phi_star - phi_star[0]
    lo, hi = d.copy(), d.copy()
    lo[1:], hi[1:], level = simultaneous_percentile(d_star[1:], expanded_confidence(0.95, S))
    return PhiDifferences(phi=phi, diff=d, lower=lo, upper=hi, sd=d_star.std(axis=1),
                          level=level, topic_draws=None)


def bootstrap_t(cube, n_draws, rng):
    """Systems and topics resampled; t* studentised by the shipped jackknife's sd; max |t*|."""
    w, cv = _shipped_parts(cube)
    S, T = cube.shape[1:]
    t_star = np.empty((n_draws, len(w)))
    for k in range(n_draws):  # a jackknife per resample: the cost that ruled it out
        x = cube[:, rng.integers(0, S, S)][:, :, rng.integers(0, T, T)]
        _, cv_k = _shipped_parts(x)
        t_star[k] = (cv_k.estimate - cv.estimate) / np.maximum(cv_k.sd, 1e-12)
    sd = cv.sd
    diff = np.r_[0.0, cv.estimate]
    if len(w) == 1:
        q_lo, q_hi = np.quantile(t_star[:, 0], [0.025, 0.975])
        lo, hi = cv.estimate - q_hi * sd, cv.estimate - q_lo * sd
    else:
        q = np.quantile(np.abs(t_star).max(axis=1), 0.95)
        lo, hi = cv.estimate - q * sd, cv.estimate + q * sd
    return PhiDifferences(phi=diff, diff=diff, lower=np.r_[0.0, np.maximum(lo, -1)],
                          upper=np.r_[0.0, np.minimum(hi, 1)], sd=np.r_[0.0, sd],
                          level=np.nan, topic_draws=None)


def jackknife_max_t(cube, n_draws, rng):
    """The shipped variance, the family's level by max-t from the jackknife's correlation."""
    from scipy import stats

    _, cv = _shipped_parts(cube)
    R = cv.correlation
    w, v = np.linalg.eigh((R + R.T) / 2)
    z = rng.standard_normal((50_000, len(R))) @ (v * np.sqrt(np.clip(w, 0, None))).T
    level = float(stats.norm.sf(np.quantile(np.abs(z).max(axis=1), 0.95)))
    q = stats.t.isf(level, cv.df)
    diff, sd = np.r_[0.0, cv.estimate], np.r_[0.0, cv.sd]
    lo = np.r_[0.0, np.maximum(cv.estimate - q * cv.sd, -1)]
    hi = np.r_[0.0, np.minimum(cv.estimate + q * cv.sd, 1)]
    return PhiDifferences(phi=diff, diff=diff, lower=lo, upper=hi, sd=sd, level=level,
                          topic_draws=None)


def parametric_percentile(cube, n_draws, rng):
    """The plain parametric bootstrap percentile: Phi of Wishart-drawn mean squares, no pivot."""
    from irstab.stability.multivariate import draw_mean_squares, mean_products, \
        phi_from_mean_squares

    _, S, T = cube.shape
    return phi_from_mean_squares(*draw_mean_squares(mean_products(cube), n_draws, rng),
                                 S, T).T


TRIED = {
    "jackknife, plain (interaction twice)": jackknife_plain,
    "jackknife of Phi, corrected": jackknife_phi,
    "jackknife of logit Phi": jackknife_logit,
    "jackknife, bias-corrected": delta_bias_corrected,
    "jackknife, max-t family": jackknife_max_t,
    "non-parametric pivots": nonparametric_pivots,
    "bootstrap-t": bootstrap_t,
    "parametric percentile": parametric_percentile,
    "bootstrap": "bootstrap",
    "topic-bootstrap": "topic-bootstrap",
}
EXPENSIVE = ("bootstrap-t", "bootstrap")  # --expensive-replicates collections and draws
for _name, _f in TRIED.items():
    if callable(_f):
        _f.__name__ = _name


# ----------------------------------------------------------------- data


def dl2019_scores() -> dict | None:
    """nDCG@10, @20, @100, the nDCG presets at 10, 20, 100, DCG_UL(version=2)@10, AP, RR."""
    if not (DATA / "qrels.txt").is_file():
        return None
    from irstab.collection import Collection
    from irstab.evaluation import score_matrices
    from irstab.metrics import parse_measure
    from irstab.report.study import preset_set

    names = ["nDCG@10", "nDCG@20", "nDCG@100", *preset_set((10, 20, 100)),
             "DCG_UL(version=2)@10", "AP", "RR"]
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


def trec3_scores() -> dict:
    """The TREC-3 ad hoc AP matrix shipped in data/trec3-adhoc (40 systems x 50 topics)."""
    import pandas as pd

    return {"AP": pd.read_csv(TREC3, index_col=0).to_numpy(dtype=float)}


# ----------------------------------------------------------------- running


def run(universes, method, replicates, bootstrap, seed, label=None, collections=None):
    rows = []
    for u in universes:
        t0 = time.perf_counter()
        c = calibrate(u, interval=method, n_replicates=replicates, n_bootstrap=bootstrap,
                      seed=seed)
        row = c.summary()
        row["seconds"] = time.perf_counter() - t0
        row["method"] = label or row["interval"]
        row["kind"] = u.kind
        row["null"] = bool(np.all(np.abs(c.true_diff) <= 1e-9))  # every candidate's truth 0
        row["collection"] = (collections or {}).get(u.name, "")
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _pct(p: float, digits: int = 3) -> str:
    return "–" if p is None or not math.isfinite(p) else f"{p:.{digits}f}"


def _line(r: dict) -> str:
    return (f"{r['universe'][:62]:62s} {r['method'][:26]:26s} cov {_pct(r['coverage'])} "
            f"(+-{_pct(r['coverage_mc_error'])}) sd x{r['sd_ratio']:.2f} "
            f"width x{r['width_ratio']:.2f} wrong {_pct(r['wrong_recommendations'])} "
            f"power {_pct(r['power'])} {r['seconds']:.1f}s")


HEAD = ("| universe | true diff. | true sd | width ratio | coverage (± MC) | "
        "lower > 0 | wrong rec. | power (± MC) |\n|---|---:|---:|---:|---:|---:|---:|---:|")


def _cells(r: dict) -> list[str]:
    return [
        f"{r['true_diff']:+.4f}" if abs(r["true_diff"]) > 5e-5 else "0",
        f"{r['true_sd']:.4f}", f"{r['width_ratio']:.2f}",
        f"{_pct(r['coverage'])} ± {_pct(r['coverage_mc_error'])}",
        _pct(r["lower_above_zero"]), _pct(r["wrong_recommendations"]),
        "–" if not math.isfinite(r["power"]) else
        f"{_pct(r['power'])} ± {_pct(r['power_mc_error'])}",
    ]


def table(rows, with_method=False) -> str:
    head = HEAD
    if with_method:
        head = head.replace("| universe |", "| universe | method |").replace(
            "|---|", "|---|---|", 1)
    return "\n".join([head, *("| " + " | ".join(
        [r["universe"]] + ([r["method"]] if with_method else []) + _cells(r)) + " |"
        for r in rows)])


def side_by_side(rows, methods=(SHIPPED, REPLACED)) -> str:
    """One row per universe: the shipped interval's figures, then the replaced one's."""
    by = {(r["universe"], r["method"]): r for r in rows}
    names = list(dict.fromkeys(r["universe"] for r in rows))
    head = ("| universe | true diff. | true sd | coverage, jackknife | coverage, Wishart pivots "
            "| width ratio (jk / pivots) | wrong rec. (jk / pivots) | power (jk / pivots) |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|")
    out = [head]
    for n in names:
        a, b = by.get((n, methods[0])), by.get((n, methods[1]))
        if a is None or b is None:
            continue
        pw = ("–" if not math.isfinite(a["power"]) else
              f"{_pct(a['power'])} / {_pct(b['power'])}")
        out.append("| " + " | ".join([
            n, f"{a['true_diff']:+.4f}" if abs(a["true_diff"]) > 5e-5 else "0",
            f"{a['true_sd']:.4f}", f"{_pct(a['coverage'])} ± {_pct(a['coverage_mc_error'])}",
            f"{_pct(b['coverage'])} ± {_pct(b['coverage_mc_error'])}",
            f"{a['width_ratio']:.2f} / {b['width_ratio']:.2f}",
            f"{_pct(a['wrong_recommendations'])} / {_pct(b['wrong_recommendations'])}", pw,
        ]) + " |")
    return "\n".join(out)


def figure(real, normal, path: Path):
    """Coverage per universe, jackknife against the Wishart pivots, real and normal panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(t, rows) for t, rows in (("universes made of real scores", real),
                                        ("normal universes", normal)) if rows]
    heights = [len({r["universe"] for r in rows}) for _, rows in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9.0, 0.14 * sum(heights) + 2.6),
                             layout="constrained", height_ratios=heights, squeeze=False)
    styles = {SHIPPED: ("o", "black", "two-facet jackknife (shipped)"),
              REPLACED: ("s", "tab:red", "Wishart pivots (replaced)")}
    for ax, (title, rows) in zip(axes[:, 0], panels):
        names = list(dict.fromkeys(r["universe"] for r in rows))
        y = {n: i for i, n in enumerate(names)}
        ax.axvspan(0.93, 0.97, color="tab:green", alpha=0.12)
        ax.axvline(0.95, color="tab:green", linewidth=0.8)
        for r in rows:
            if r["method"] not in styles:
                continue
            marker, colour, _ = styles[r["method"]]
            dy = -0.17 if r["method"] == SHIPPED else 0.17
            ax.errorbar(r["coverage"], y[r["universe"]] + dy,
                        xerr=1.96 * r["coverage_mc_error"], fmt=marker, color=colour,
                        markersize=3.5, elinewidth=0.8, capsize=0)
        ax.set_yticks(range(len(names)), names, fontsize=6)
        ax.invert_yaxis()
        lo = min(r["coverage"] for r in rows)
        ax.set_xlim(max(0.4, min(0.85, lo - 0.03)), 1.005)
        ax.set_title(title, fontsize=9.5, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("coverage of the nominal 95 % interval (all candidates at once)\n"
                           "bars: 95 % Monte-Carlo error; green: 0.93-0.97", fontsize=8)
    for marker, colour, label in styles.values():
        axes[0, 0].plot([], [], marker, color=colour, linestyle="none", label=label)
    fig.legend(fontsize=8, loc="outside lower center", ncols=2)
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


def _range(rows, key="coverage") -> str:
    vals = [r[key] for r in rows if r[key] is not None and math.isfinite(r[key])]
    d = 3 if key == "coverage" else 2
    return f"{min(vals):.{d}f}-{max(vals):.{d}f}" if vals else "–"


def _of(rows, method, pred=lambda r: True):
    return [r for r in rows if r["method"] == method and pred(r)]


COMPARED_REAL = ("DL-2019 20 x 25, nDCG@10 vs nDCG@100", "DL-2019 20 x 25, nDCG@10 vs RR",
                 "DL-2019 20 x 25, nDCG@10 vs 4 nDCG configurations",
                 "DL-2019 30 x 40, nDCG@10 vs its planted", "DL-2019 12 x 20, nDCG@10 vs AP",
                 "Web 2010 30 x 40, nDCG@20 vs ERR@20")
COMPARED_NORMAL = ("12 x 30, null, equal topic variance", "30 x 40, null, equal topic variance",
                   "30 x 40, planted, equal topic variance", "30 x 40, 8 candidates, all null",
                   "DL-2019 37 x 43, nDCG@10 and 21 nDCG presets as fitted")


VARIANTS = ("<!-- variants -->", "<!-- /variants -->",
            "(Written by `python benchmarks/bench_interval_variants.py --write-docs "
            "docs/calibration.md`.)")
REFERENCE = ("<!-- reference -->", "<!-- /reference -->",
             "(Written by `python benchmarks/bench_reference_calibration.py --write-docs "
             "docs/calibration.md`.)")
TOPIC_TAILS = ("<!-- topic-tails -->", "<!-- /topic-tails -->",
               "(Written by `python benchmarks/bench_topic_tails.py --write-docs "
               "docs/calibration.md`.)")
VARIANTS_MARK, REFERENCE_MARK = "<!-- variants-kept -->", "<!-- reference-kept -->"
TOPIC_TAILS_MARK = "<!-- topic-tails-kept -->"
DF_FAMILIES = ("<!-- df-families -->", "<!-- /df-families -->",
               "(Written by hand from `python benchmarks/bench_df_families.py`.)")
DF_FAMILIES_MARK = "<!-- df-families-kept -->"
HELDOUT = ("<!-- heldout -->", "<!-- /heldout -->",
           "(Written by `python benchmarks/bench_heldout_collections.py --write-docs "
           "docs/calibration.md`.)")
HELDOUT_MARK = "<!-- heldout-kept -->"
KURTOSIS_DF = ("<!-- kurtosis-df -->", "<!-- /kurtosis-df -->",
               "(Written by `python benchmarks/bench_kurtosis_df.py --write-docs "
               "docs/calibration.md`.)")
KURTOSIS_DF_MARK = "<!-- kurtosis-df-kept -->"
SUMMARY = "<!-- reference-summary "
PLANT = "30 x 40, planted, equal topic variance"


def _kept(path: Path, marks) -> str:
    """The section another benchmark wrote into ``path`` between ``marks`` (kept when
    rewriting the page), or a placeholder saying which command writes it."""
    a, b, placeholder = marks
    old = path.read_text() if path.is_file() else ""
    if a in old and b in old:
        return a + old.split(a, 1)[1].split(b, 1)[0] + b
    return a + "\n" + placeholder + "\n" + b


def _summary(path: Path, marks, mark: str) -> dict | None:
    """The JSON summary (after ``mark``) another benchmark left in its section of ``path``."""
    kept = _kept(path, marks)
    if mark not in kept:
        return None
    return json.loads(kept.split(mark, 1)[1].split(" -->", 1)[0])


def _reference_summary(path: Path) -> dict | None:
    """The summary bench_reference_calibration.py left in its section of ``path``."""
    return _summary(path, REFERENCE, SUMMARY)


def _heldout_summary(path: Path) -> dict | None:
    """The summary bench_heldout_collections.py left in its section of ``path``."""
    return _summary(path, HELDOUT, "<!-- heldout-summary ")


def _kurtosis_summary(path: Path) -> dict | None:
    """The summary bench_kurtosis_df.py left in its section of ``path``."""
    return _summary(path, KURTOSIS_DF, "<!-- kurtosis-df-summary ")


def deflation_words() -> str:
    """The shipped facets' deflations in the pages' words, from the library's constants
    (``FACET_DF_DEFLATION``, ``FACET_DF_KURTOSIS``, ``FACET_DF_FLOOR``)."""
    (a_s, a_t), (b_s, b_t) = FACET_DF_DEFLATION, FACET_DF_KURTOSIS
    k = (lambda a, b, f: f"{a:g}" + (f" + {b:g} kappa_{f}" if b else ""))
    return (f"{k(a_s, b_s, 's')} (systems) and {k(a_t, b_t, 't')} (topics; the kurtosis "
            f"takes a facet no lower than {FACET_DF_FLOOR:g} df)")


def _rule_words(chosen) -> str:
    """A kurtosis family's rule, (a_s, b_s, a_t, b_t, c), in the page's words."""
    a_s, b_s, a_t, b_t, cc = chosen
    k = (lambda a, b, f: f"{a:g}" + (f" + {b:g} kappa_{f}" if b else ""))
    return f"k_s = {k(a_s, b_s, 's')}, k_t = {k(a_t, b_t, 't')}, c = {cc:g}"


def kurtosis_paragraph(k: dict) -> str:
    """"The answer first"'s words on the kurtosis families bench_kurtosis_df.py scored: the
    floored one shipped, the two without a floor not."""
    s = k["before"]  # the constants shipped before, on the same draws
    lin, sw, cap = k, k.get("switch"), k.get("capped")
    text = "\n**How the shipped rule reads the tails.** "
    if cap:
        c, lo, h = cap["check"], cap["loco"], cap["held"]
        text += (f"Chosen {_rule_words(cap['chosen'])}, the kurtosis floored at 3 degrees of "
                 "freedom, on two sets of draws (section \"The facets' deflation read from the "
                 "sample's kurtosis\" below). On a third set, which took no part in the choice, "
                 f"it covers {c['min']:.3f}-{c['max']:.3f} where the truth is not 0, "
                 f"{c['share']:.0%} of the settings at most 0.975 (the constants shipped before, "
                 f"on the same draws: {s['min']:.3f}-{s['max']:.3f}, {s['share']:.0%}); left "
                 f"out of the choice in turn, every collection is covered at {lo['min']:.3f} or "
                 f"more ({lo['below']} below the floor; the constants failed Web 2010); the two "
                 f"collections no choice used at {h['min']:.3f} or more ({h['below']} of "
                 f"{h['n']} below); {c['df_below2']:.0%} of its intervals have fewer than 2 "
                 f"degrees of freedom (the constants {s.get('df_below2', 0):.0%}); the lower "
                 f"bound is above 0 at the moderate normal plant in {c['plant']:.1%} of "
                 f"collections (the constants {s['plant']:.1%}).")
        il = cap.get("issue_line")
        if il:
            text += (f" Demanded only as issue 45 words it (0.93 within two Monte-Carlo errors; "
                     "DL-2019's other presets not demanded), the same family reaches "
                     f"{il['share']:.0%} at most 0.975 on the third set ({_rule_words(il['rule'])}: "
                     f"lowest {il['min']:.3f}, the plant {il['plant']:.1%}), but that rule does "
                     f"not transfer: the unseen collections at {il['unseen_min']:.3f} or more "
                     f"({il['unseen_below']} of {il['n_unseen']} below the floor), each "
                     f"collection left out at {il['loco_min']:.3f} or more ({il['loco_below']} "
                     f"below), DL-2019's other presets at {il['beyond_min']:.3f}.")
    lc = lin["check"]
    text += (f" Without the floor, two families over-cover fewer settings, the system part "
             f"linearised ({_rule_words(lin['chosen'])}: {lc['share']:.0%} at most 0.975 on "
             f"the third set) or read as shipped"
             + (f" ({_rule_words(sw['chosen'])}: {sw['check']['share']:.0%})" if sw else "")
             + f", but a kurtosis read from 20-40 values is noisy: {lc['df_below2']:.0%}"
             + (f" and {sw['check']['df_below2']:.0%}" if sw else "")
             + " of their intervals have fewer than 2 degrees of freedom, their quantile at "
             f"the 99th percentile is {lc['q99']:.0f}"
             + (f" and {sw['check']['q99']:.0f}" if sw else "")
             + " times the old rule's"
             + (f", and the linearised one falls below the floor in {lin['held']['below']} "
                "settings of the unseen collections" if lin.get("held", {}).get("below") else "")
             + ". Not shipped. No rule found reaches 80 % at most 0.975 while every setting "
             "keeps 0.93.\n")
    return text


def mc_floor(R: int) -> float:
    """0.93 minus two Monte-Carlo errors of a coverage of 0.93 at R collections."""
    return 0.93 - 2 * math.sqrt(0.93 * 0.07 / R)


def _acceptance(real_jk, norm_jk, plant, R) -> list[tuple[str, str, str]]:
    """(target, measured, holds) of issue 45's acceptance, from this run's rows."""
    floor = mc_floor(R)
    with_rep = [r for r in real_jk if r["collection"] and not r["null"]]
    cov = [r["coverage"] for r in with_rep]
    below = [r for r in with_rep if r["coverage"] < floor]
    share = sum(c <= 0.975 for c in cov) / max(len(cov), 1)
    nulls = [r for r in real_jk + norm_jk if r["null"]]
    null_low = min(nulls, key=lambda r: r["coverage"]) if nulls else None
    out = [
        (f"coverage >= 0.93 within two Monte-Carlo errors (>= {floor:.3f} at {R}) in every "
         "real setting whose truth is not 0",
         f"{len(with_rep) - len(below)} of {len(with_rep)} (lowest {min(cov):.3f})"
         + ("; below: " + "; ".join(f"{r['universe']} {r['coverage']:.3f}" for r in below)
            if below else ""), "yes" if not below else "no"),
        ("... and <= 0.975 in at least 80 % of them", f"{share:.0%}",
         "yes" if share >= 0.80 else "no"),
    ]
    if null_low is not None:
        out.append(("null universes (real twins and normal nulls) >= 0.93",
                    f"lowest {null_low['coverage']:.3f} ({null_low['universe']})",
                    "yes" if null_low["coverage"] >= 0.93 else "no"))
    # Issue 45's decision: a null universe's own target is wrong changes <= 5 %; where the
    # truth is not 0 the line is 2 %.
    for null, line in ((False, 0.02), (True, 0.05)):
        kind = [r for r in real_jk + norm_jk if r["null"] == null]
        if not kind:
            continue
        worst = max(kind, key=lambda r: r["wrong_recommendations"])
        wrong = worst["wrong_recommendations"]
        se = math.sqrt(wrong * (1 - wrong) / worst["replicates"])
        out.append((f"wrong changes <= {line:.0%} in every "
                    + ("null universe (its own target)" if null else "universe whose truth is not 0"),
                    f"at most {wrong:.1%} ± {se:.1%} ({worst['universe']})"
                    + (f"; above {line:.0%}: {sum(r['wrong_recommendations'] > line for r in kind)}"
                       if wrong > line else ""),
                    "yes" if wrong <= line else "no"))
    if plant is not None:
        out.append(("power at the moderate normal plant >= 45 %", f"{plant['power']:.1%} ± "
                    f"{plant['power_mc_error']:.1%}", "yes" if plant["power"] >= 0.45 else "no"))
    return out


def docs(path: Path, real, normal, robust, compared, args, seconds, have_dl, date,
         machine) -> str:
    fig = path.parent / "figures" / "calibration-coverage.png"
    figure(real, normal, fig)
    rel_fig = fig.relative_to(path.parent).as_posix()
    ref = _reference_summary(path)
    real_jk, real_pv = _of(real, SHIPPED), _of(real, REPLACED)
    res = (lambda r: bool(r["collection"]))  # the reference population, with replacement
    truth = (lambda r: res(r) and not r["null"])
    twins = (lambda r: res(r) and r["null"])
    floor = mc_floor(args.real_replicates)
    short = [r for r in real_jk if truth(r) and r["coverage"] < 0.93]
    norm_jk, norm_pv = _of(normal, SHIPPED), _of(normal, REPLACED)
    plant = next((r for r in norm_jk if r["universe"] == PLANT), None)
    plant_pv = next((r for r in norm_pv if r["universe"] == PLANT), None)
    real_plants = [r for r in real_jk if "its planted" in r["universe"]]
    compared = [r for r in compared if r["method"] in TRIED]
    by = {}
    for r in compared:
        by.setdefault(r["method"], []).append(r)
    wrong_real = max((r["wrong_recommendations"] for r in real_jk), default=math.nan)
    wrong_norm = max((r["wrong_recommendations"] for r in norm_jk), default=math.nan)
    colls = list(dict.fromkeys(r["collection"] for r in real_jk if r["collection"]))
    (a_s, a_t), (b_s, b_t) = FACET_DF_DEFLATION, FACET_DF_KURTOSIS
    k_words = (f"k_s = {a_s:g}" + (f" + {b_s:g} kappa_s" if b_s else "")
               + f" and k_t = {a_t:g}" + (f" + {b_t:g} kappa_t" if b_t else ""))
    n_truth = len(_of(real, SHIPPED, truth))
    cmd = (f"python benchmarks/bench_calibration.py --replicates {args.replicates} "
           f"--real-replicates {args.real_replicates} "
           + ("--skip-compare " if args.skip_compare else
              f"--compare-replicates {args.compare_replicates} --expensive-replicates "
              f"{args.expensive_replicates} ")
           + f"--bootstrap {args.bootstrap} --write-docs docs/calibration.md")
    text = f"""# Calibration of the verdict: does its 95 % mean 95 %?

`irstab report` (and `irstab.verdict.verdict`, `irstab compare --baseline`) recommends a
change of measure only when a candidate's 95 % interval of the difference in Phi to the
baseline lies above zero and the candidate saves a material number of topics. This page
checks by simulation what that rule claims, in two kinds of universe whose true Phi of every
measure is known:

- **universes made of real scores**: a real score matrix is the population; a collection
  resamples its systems and topics, and the truth is the population's own variance
  components. Nothing about the scores' distribution is assumed. Ten public collections
  ({", ".join(colls)}): the reference population of `irstab.verdict.reference`.
- **normal universes**: collections drawn from the normal random-effects model the G-study
  assumes, with components fitted to TREC DL 2019 and two smaller designs.

On each collection the paired comparison and the rule run exactly as in the library
(`irstab.verdict.calibration.calibrate`); the tables count how often the interval covers the
true difference, how wide it is, how often the rule recommends a wrong change, and how often
it finds a real one. Where the two kinds disagree, the real scores decide.

Written by `{cmd}` on {date} ({machine}; {seconds / 60:.0f} min in all; the machine's two
cores shared with other work, so the replicate counts are those that fit it). Every number
below is computed by that command, except the sections marked as written by
`bench_reference_calibration.py` and `bench_interval_variants.py`, which this command keeps;
the suite runs a fast version of it (`tests/verdict/test_calibration.py`,
`tests/verdict/test_reference.py`).

## The answer first

The interval is the two-facet jackknife of the G-study with Student's t at Satterthwaite's
degrees of freedom from its three parts. The system and topic parts' degrees of freedom
are divided by {k_words} (their variances are read from few, heavy-tailed values;
kappa_t is the sample excess kurtosis of the leave-one-topic-out contrasts, and it may take a
facet down to {FACET_DF_FLOOR:g} degrees of freedom, no further), and each part counts
{CLIPPED_PART_NOISE:g} of the interaction variance it was cleared of (a part clipped to 0 is
not known to be 0). The constants are calibrated on the ten collections, coverage first;
Bonferroni over the candidates.

| universes | shipped: jackknife, Satterthwaite's df, facets deflated | replaced: Wishart pivots |
|---|---:|---:|
| real scores, true difference not 0 ({n_truth} settings, {len(colls)} collections) | {_range(_of(real, SHIPPED, truth))} | {_range(_of(real, REPLACED, truth))} |
| ... of them below 0.93 - 2 Monte-Carlo errors ({floor:.3f}) / at most 0.975 | {sum(r["coverage"] < floor for r in _of(real, SHIPPED, truth))} / {sum(r["coverage"] <= 0.975 for r in _of(real, SHIPPED, truth)) / max(n_truth, 1):.0%} | {sum(r["coverage"] < floor for r in _of(real, REPLACED, truth))} / {sum(r["coverage"] <= 0.975 for r in _of(real, REPLACED, truth)) / max(n_truth, 1):.0%} |
| real scores, null twins ({len(_of(real, SHIPPED, twins))} settings) | {_range(_of(real, SHIPPED, twins))} | {_range(_of(real, REPLACED, twins))} |
| real scores, DL-2019 without replacement ({len(_of(real, SHIPPED, lambda r: not res(r)))} settings) | {_range(_of(real, SHIPPED, lambda r: not res(r)))} | {_range(_of(real, REPLACED, lambda r: not res(r)))} |
| normal ({len(norm_jk)} settings) | {_range(norm_jk)} | {_range(norm_pv)} |
| wrong changes, any universe | at most {wrong_real:.1%} (real), {wrong_norm:.1%} (normal) | at most {max((r["wrong_recommendations"] for r in real_pv), default=math.nan):.1%} (real) |
"""
    if plant is not None and plant_pv is not None:
        other = (f"; {ref['lower_pos']:.1%} on the reference benchmark's own draws of it"
                 if ref is not None and "lower_pos" in ref else "")
        text += (f"| power at the moderate normal plant (30 x 40, residual sd .18 vs .25) | "
                 f"{plant['power']:.1%} ± {plant['power_mc_error']:.1%}{other} | "
                 f"{plant_pv['power']:.1%} |\n")
    text += f"""
Coverage is of all candidates at once (the simultaneous family's, where there are several);
the nominal level is 0.95, and one coverage's Monte-Carlo error is about
{math.sqrt(0.95 * 0.05 / args.real_replicates):.3f} at {args.real_replicates} collections.

The acceptance of issue 45 ("a 95 % that holds for heavy-tailed candidates"), measured by
this run:

| target | measured | holds |
|---|---|---|
""" + "".join(f"| {t} | {m} | {h} |\n" for t, m, h in _acceptance(
        _of(real, SHIPPED), norm_jk, plant, args.real_replicates))
    if ref is not None:
        web = ref.get("web2010")
        dcg = ref.get("dcg_ul") or []
        kurt = _kurtosis_summary(path)
        cap = (kurt or {}).get("capped")
        if cap:
            lo = cap["loco"]
            text += f"""
**Does the calibration transfer?** The shipped constants were chosen on these ten
collections (section "The facets' deflation read from the sample's kurtosis" below, two sets
of draws). Chosen again with each collection left out and scored on the one left out, the
held-out settings are covered at {lo["min"]:.3f} or more, {lo["below"]} of {lo["n"]} below
0.93 minus two Monte-Carlo errors, TREC Web 2010 and its heavy-tailed topics included"""
        else:
            text += "\n**Does the calibration transfer?** Section \"How the degrees of freedom were chosen\" below"
        text += (f". Constant deflations, the family shipped before, did not transfer: chosen "
                 f"again without each collection ({ref['replicates']} collections a setting), "
                 f"the held-out settings were covered at {ref['loco_min']:.3f} or more, "
                 f"{ref['loco_below']} of {ref['loco_n']} below the floor")
        if web and (web["ks"], web["kt"]) != tuple(ref["chosen"]):
            text += (f": without Web 2010 their grid picks ({web['ks']}, {web['kt']}), and Web "
                     f"2010's worst setting, {web['worst']}, then covers {web['min']:.3f}")
        else:
            text += f" ({ref['loco_worst']})"
        text += ".\n"
        held = _heldout_summary(path)
        if held:
            text += (f"\nOn two collections that took no part in the choice (TREC 2004 Robust "
                     f"and TREC 2006 Terabyte, nDCG against AP and its twins; section "
                     f"\"Collections the rule never saw\", {held['replicates']} collections a "
                     f"setting) the shipped rule covers {held['min']:.3f}-{held['max']:.3f} in "
                     f"the {held['n']} settings whose truth is not 0 ({held['below']} below "
                     f"{held['floor']:.3f}, {held['share']:.0%} at most 0.975) and at least "
                     f"{held['null_min']:.3f} in the null twins.\n")
        fresh = ref.get("fresh") or []
        if fresh:
            low = fresh[0]
            text += (f"\nA setting may look safe on the draws it was measured on by luck. Drawn "
                     f"again ({ref['check_replicates']} fresh collections each; section \"How "
                     f"the degrees of freedom were chosen\"), the {len(fresh)} settings the "
                     f"shipped rule covers least there cover "
                     f"{min(x['shipped'] for x in fresh):.3f}-{max(x['shipped'] for x in fresh):.3f}"
                     f"; the lowest, {low['name']}, {low['shipped']:.3f} (on the first draws "
                     f"{low['stored']:.3f}; t with min(S, T) - 1 df {low['old']:.3f}).\n")
        if kurt:
            text += kurtosis_paragraph(kurt)
        if dcg:
            text += (
                "\n**A known failure: DCG_UL(version=2)@10 on DL-2019.** Its estimate of the "
                "difference is biased (the misses fall on one side: "
                + "; ".join(f"{x['name'].split(',')[0]} {x['miss_lo']:.1%} below, "
                            f"{x['miss_hi']:.1%} above" for x in dcg)
                + "), so the shipped interval covers it "
                + ", ".join(f"{x['cov']:.3f}" for x in dcg)
                + " at 12 x 20, 20 x 25 and 30 x 40, and the rules tried "
                + ", ".join(f"{x['low']:.3f}-{x['best']:.3f}" for x in dcg)
                + " (the widest best): 95 % of these collections need t with min(S, T) - 1 "
                  "degrees of freedom widened "
                + f"{min(x['widen'] for x in dcg):.2f}-{max(x['widen'] for x in dcg):.2f} "
                  "times, which would cost the power above. It is outside the acceptance set "
                  "(a context measure of the report, not a default candidate); the section "
                  "below has the figures.\n")
    text += f"""
## The interval

The difference Delta = Phi_candidate(n) - Phi_baseline(n) at the observed n topics, for the
universe the G-study generalises to: new systems *and* new topics
(`irstab.verdict.jackknife`).

1. Every measure's three mean squares (systems, topics, residual) are recomputed with one
   system left out, one topic left out, and one system *and* one topic left out, all in
   closed form from row, column and grand sums.
2. Each difference of Phi is linearised at the estimate (delta method), so every
   left-one-out value is a smooth function of quadratic statistics; except that where the
   system means of either measure have excess kurtosis 1 or more (a few runs far from the
   rest), the values with one system left out are the exact differences of Phi: one such run
   moves the system variance, and Phi, which is concave in it, far beyond the tangent.
3. The variance has three parts: V_s from leaving systems out, V_t from leaving topics out,
   V_st from the double-centred leave-both-out values. Leaving a system out also removes its
   interaction cells, so V_s and V_t each hold the interaction once more (the reason the joint
   bootstrap is too wide; Brennan, *Generalizability Theory*, 2001, §6.2); V_st holds it
   alone. The variance is V = V_st + max(V_s - V_st, 0) + max(V_t - V_st, 0), each part
   clipped at zero as G-theory clips negative components (Arvesen & Schmitz, *Biometrics* 26,
   1970, for the jackknife of variance components). For a grand mean it is exactly the
   unbiased (MS_s + MS_t - MS_e)/(S T) (tested).
4. The interval is Delta-hat ± t sqrt(V), Student's t with Satterthwaite's (1946) degrees of
   freedom from the three clipped parts p_s, p_t, p_st:
   nu = V^2 / (u_s^2 / nu_s + u_t^2 / nu_t + p_st^2 / nu_st), with u_f = p_f +
   c min(V_f, V_st), nu_s = (S - 1) / k_s, nu_t = (T - 1) / k_t, nu_st = (S - 1)(T - 1),
   k_f = min(a_f + b_f max(kappa_f, 0), max(a_f, (n_f - 1) / {FACET_DF_FLOOR:g})) with
   (a_s, a_t) = ({a_s:g}, {a_t:g}) (`FACET_DF_DEFLATION`), (b_s, b_t) = ({b_s:g}, {b_t:g})
   (`FACET_DF_KURTOSIS`), kappa_f the sample excess kurtosis of the facet's exact
   leave-one-out contrasts of Phi, and c = {CLIPPED_PART_NOISE:g} (`CLIPPED_PART_NOISE`).
   A part p_f = (V_f - V_st)+ is the difference of two estimates: Satterthwaite's rule for
   the unclipped V_s + V_t - V_st counts the whole V_f (c = 1); counting p_f alone (c = 0)
   treats a part clipped to 0 as known, which is where TREC Web 2010's misses lie (section
   "Heavy-tailed topics"). A variance read from n values of excess kurtosis kappa is as sure
   as (n - 1) / (1 + kappa / 2) normal degrees of freedom (O'Neill, *The American
   Statistician* 68, 2014): the facets' parts, read from S and T heavy-tailed values, are
   the unsure ones. A sample's own kurtosis runs low in heavy tails, so a_f carries what the
   sample cannot show and b_f what it does; a kurtosis read from 20-40 values is noisy, so it
   may take a facet down to {FACET_DF_FLOOR:g} degrees of freedom, no further. The constants
   are calibrated once on the ten collections (below) and checked by leaving each out and on
   two collections no choice used. Where the interaction part dominates (the normal plant) the interval
   keeps many degrees of freedom and is narrower than with min(S, T) - 1, the rule shipped
   first; where a facet dominates (heavy-tailed candidates on real scores) it is wider.
   Over the L candidates Bonferroni's level holds for all of them: each candidate's own t at
   1 - 0.05 / (2L). (The max-t level from their estimated correlation, Hothorn, Bretz &
   Westfall, *Biometrical Journal* 50, 2008, is narrower but under-covered a family of 21
   highly correlated presets: see the methods tried.)

Why it holds where the Wishart pivots do not: real system effects are heavy-tailed (on
DL-2019 a few weak runs; excess kurtosis 6 for nDCG@10, 18 for RR) and residual variance
differs from run to run. Then mean squares vary far more than their degrees of freedom say,
which the normal-theory (Wishart) law cannot see and the jackknife reads from the data.

## Universes made of real scores

Ten collections, resampled with replacement unless the name says otherwise; truth from the
population's components (divisor N with replacement; the whole collection's G-study
without):

- **DL-2019** (TREC 2019 Deep Learning passages, 37 runs x 43 topics): nDCG@10 against
  nDCG@20, nDCG@100, the zipf discount and the exp gain at 10 (effects correlated .96-.99),
  against AP and RR (lower correlation), and against the four nDCG configurations at once (a
  simultaneous family); also without replacement;
- **TREC-3** ad hoc (AP, 40 systems x 50 topics; gt4ireval's matrix);
- **TREC-5 to TREC-8** ad hoc (61, 74, 103, 129 systems x 50 topics): AP against P@10 and RR,
  and both at once;
- **Web 2010 to 2013** (88 x 48, 62 x 50, 48 x 50, 34 x 50): nDCG@20 against ERR@20;
- in every collection a **null twin**: the baseline's system and topic effects with its rows
  of residuals moved to other systems: exactly the baseline's components (true Delta 0), but
  other draws; and a **planted** one: the baseline's effects with its residual times 0.72
  (the moderate plant's ratio): truly more stable.

TREC 5-8 and Web 2010-2013 are the score matrices Urbano, Lima & Hanjalic published with
their SIGIR 2019 study of significance tests (`data/sigir2019-statistical`). TREC DL 2020
and CLEF eHealth 2016 are kept for independent checks and were not used.

{args.real_replicates} collections per universe, both intervals on the same collections
(rule: 10 % minimum saving of topics for Phi = 0.95).

{side_by_side(real)}

"""
    if short:
        far = [r for r in short if r["coverage"] < floor]
        text += (f"**Where it falls short.** {len(short)} of {n_truth} settings whose truth is "
                 "not 0 cover less than 0.93: " + "; ".join(
                     f"{r['universe']} ({r['coverage']:.3f})" for r in short)
                 + (f"; all but {len(far)} within two Monte-Carlo errors of it (>= {floor:.3f})"
                    if far else f", each within two Monte-Carlo errors of it (>= {floor:.3f})")
                 + ". The rule stays safe there anyway: wrong changes at most "
                   f"{max(r['wrong_recommendations'] for r in short):.1%} in them"
                 + (" (the report says so when a collection has fewer than 20 systems, "
                    "`irstab.verdict.decision`)" if any(" 12 x 20" in r["universe"]
                                                          for r in short) else "")
                 + (". Why Web 2010's pair falls short, and every remedy tried on it: section "
                    "\"Heavy-tailed topics\" below" if any("Web 2010" in r["universe"]
                                                           for r in far) else "")
                 + ".\n\n")
    high = [r for r in real_jk if r["coverage"] > 0.975]
    high_truth = [r for r in high if truth(r)]
    text += (f"Above 0.975: {sum(twins(r) for r in high)} of the {len(_of(real, SHIPPED, twins))} "
             f"null twins, {sum(not res(r) for r in high)} of the settings drawn without "
             "replacement (their truth is the finite collection's, which an interval made for "
             f"new systems and topics does not know), and {len(high_truth)} of the {n_truth} "
             "whose truth is not 0 ("
             + "; ".join(f"{r['universe']} {r['coverage']:.3f}" for r in high_truth)
             + "): the clipped parts lean upwards where a part of the variance is truly 0 or "
               "small.\n\n")
    if real_plants:
        text += "At the real-score plants (each baseline against itself with 0.72 of its " \
                "residual) the rule finds the better measure in "
        parts = []
        for size in ("12 x 20", "20 x 25", "30 x 40"):
            ps = [r["power"] for r in real_plants if f" {size}," in r["universe"]]
            if ps:
                parts.append(f"{min(ps):.1%}-{max(ps):.1%} of collections at {size}")
        text += "; ".join(parts) + " (across the ten collections).\n\n"
    text += f"""![Coverage per universe, jackknife and Wishart pivots]({rel_fig})

*Coverage of the nominal 95 % interval in every universe (black: the shipped jackknife; red:
the Wishart pivots it replaced), with 95 % Monte-Carlo error bars; green: 0.93-0.97.*

## How the degrees of freedom were chosen: every rule tried on the ten collections

The rule shipped first (t with min(S, T) - 1 degrees of freedom) covered the heavy-tailed
candidates of DL-2019 and the Web collections too rarely; wider rules cost power where the
interaction dominates. The collections of every real setting above (and DL-2019's other
presets), drawn once, scored by every rule that was tried, the choice of constant
deflations (the family shipped before the present one) and their check with each
collection left out. The shipped rule reads the topics' deflation from the sample's
kurtosis; how it was chosen is the section "The facets' deflation read from the sample's
kurtosis" below:

{REFERENCE_MARK}

## Heavy-tailed topics: the pair that chose the rule

{TOPIC_TAILS_MARK}

{DF_FAMILIES_MARK}

## The facets' deflation read from the sample's kurtosis

{KURTOSIS_DF_MARK}

## Collections the rule never saw

{HELDOUT_MARK}

## Normal universes

A universe gives every measure a system, a topic and a residual variance component, and
every pair of measures the covariances of their effects; a collection is a fresh normal
sample of systems and topics.

- **12 x 30, 30 x 40**: system sd 0.15, topic sd 0.20, residual sd 0.25 for the baseline;
  the two measures share their system and topic effects, their residuals are independent.
  *Null*: the candidate equals the baseline in distribution. *Unequal topic variance*: the
  candidate's topic sd is 0.15 and its residual variance larger by as much, so its Phi is the
  baseline's (null) or the planted one. *Planted*: the candidate's residual sd is 0.18 (the
  moderate plant). *8 candidates*: all null or one planted.
- **DL-2019 37 x 43**: nDCG@10's components fitted on DL-2019, effects correlated as
  nDCG@10's and nDCG@20's; unequal topic variance, planted (residual variance x 0.5184), and
  nDCG@10 with the distinct nDCG presets at 10, 20 and 100 as fitted (a simultaneous family).

{args.replicates} collections per universe.

{side_by_side(normal)}

The jackknife gives up some power to the normal model's own intervals where the model is
exactly true, and over-covers the null universes whose two measures differ only in
independent residuals (their Phi differences have no first-order system part, which the
clipped parts then overstate); it is the one that holds on real scores.

## DL-2019's own effects, rescaled (empirical universes)

Effects drawn with replacement from DL-2019's estimated system, topic and residual effects,
rescaled to the fitted components (Carpenter, Goldstein & Rasbash, *JRSS C* 52, 2003):
DL-2019's skewness and tails, but additive and homoscedastic. {args.compare_replicates}
collections per universe.

{side_by_side(robust)}

## The methods tried

"""
    if compared:
        text += f"""On a subset of both kinds, {args.compare_replicates} collections each (bootstrap-t and
the joint bootstrap: {args.expensive_replicates} collections, {args.expensive_replicates} draws;
families get Bonferroni's t unless said; the jackknife's own variants take the shipped
degrees of freedom where they use the shipped variance).

{table(compared, with_method=True)}

- **jackknife, plain**: systems and topics left out, V_s + V_t: the interaction counted twice.
  Covers {_range(by.get("jackknife, plain (interaction twice)", []))}; too wide on the normal
  universes (width {_range(by.get("jackknife, plain (interaction twice)", []), "width_ratio")}).
- **jackknife of Phi, corrected**: the same with the interaction once and clipped parts, on the
  left-one-out Phi values themselves (not linearised): covers
  {_range(by.get("jackknife of Phi, corrected", []))}; at 12 systems a left-out run can zero a
  system variance and its pseudo-value explodes.
- **jackknife of logit Phi**: on the variance-ratio scale, mapped back at the baseline's
  Phi: {_range(by.get("jackknife of logit Phi", []))}; the map back misses where Phi is
  estimated with error.
- **jackknife, max-t family**: the shipped variance, the family's level from the largest of
  the candidates' correlated t statistics instead of Bonferroni's:
  {_range(by.get("jackknife, max-t family", []))}; narrower, and short of 0.93 on the 21
  DL-2019 presets, whose correlations 37 systems estimate too high.
- **jackknife, bias-corrected**: centred on the jackknife's bias-corrected estimate:
  {_range(by.get("jackknife, bias-corrected", []))}; on real scores the correction adds
  more variance than it removes bias.
- **non-parametric pivots**: the pivots with mean squares resampled (systems, their rows of
  residuals, topics) instead of Wishart-drawn: {_range(by.get("non-parametric pivots", []))};
  the pivot transformation itself is what fails on real scores.
- **bootstrap-t**: systems and topics resampled, studentised by the jackknife:
  {_range(by.get("bootstrap-t", []))}, and a jackknife per resample (hundreds of times the
  cost).
- **parametric percentile**, **bootstrap** (systems and topics resampled together; the
  interaction twice), **topic-bootstrap** (systems as observed): the methods the Wishart pivots
  were chosen against in earlier versions, {_range(by.get("parametric percentile", []))},
  {_range(by.get("bootstrap", []))} and {_range(by.get("topic-bootstrap", []))}.
"""
    else:
        text += ("(Not run this time: `--skip-compare`. The rules tried for the interval's "
                 "degrees of freedom are in the section above.)\n")
    text += f"""
## Variants of the jackknife, on every universe

The jackknife's ingredients can be combined in other ways: the exact left-one-out Phi
instead of the linearisation (for the systems only, or for every facet), the unbiased total
V_s + V_t - V_st (Arvesen & Schmitz 1970) instead of clipped parts (it can be negative, so
it needs a floor), parts kept only where they pass a test, Satterthwaite's degrees of
freedom (deflated or not) or the smaller facet's, a skewness correction of the endpoints
(Cornish-Fisher, from the jackknife's third moments), and a switch on the sample's kurtosis.
Each fixes one kind of universe at the cost of another: the universes made of real scores
want more width where the system effects are heavy-tailed (the exact system leave-outs and
the deflated degrees of freedom give it), the normal nulls want less (the unclipped total
gives it, and the real universes lose it). These are DL-2019's and TREC-3's settings only
(the universes of the page before the reference population).

{VARIANTS_MARK}

## What the calibration does not cover

- **Optimised candidates.** The report's optimal and minimax configurations are chosen to
  maximise Phi on the same topics they are compared on; their in-sample differences lean
  optimistic. The report and `compare` therefore give each optimised row a cross-fitted
  difference (optimised on the other topic folds, scored on the held-out one) and the verdict
  recommends an optimised configuration only on that; benchmarks/bench_crossfit.py checks it
  against held-out halves of DL-2019.
- **Other collections.** The real-score universes are ten public collections, and the
  interval's two constants were chosen on them (leaving each out shows how far the choice
  transfers); TREC DL 2020 and CLEF eHealth 2016 are kept for independent checks.
  `irstab calibrate` simulates the user's own collection.
- **Biased estimates.** The interval is centred on the G-study's estimate; where that is
  biased against the truth (DCG_UL(version=2)@10 on DL-2019) it misses on one side.
"""
    if not have_dl:
        text += "\n(The DL-2019 data were not found: its universes are missing above.)\n"
    text = (text.replace(VARIANTS_MARK, _kept(path, VARIANTS))
            .replace(REFERENCE_MARK, _kept(path, REFERENCE))
            .replace(TOPIC_TAILS_MARK, _kept(path, TOPIC_TAILS))
            .replace(DF_FAMILIES_MARK, _kept(path, DF_FAMILIES))
            .replace(HELDOUT_MARK, _kept(path, HELDOUT))
            .replace(KURTOSIS_DF_MARK, _kept(path, KURTOSIS_DF)))
    path.write_text(text)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--real-replicates", type=int, default=500)
    ap.add_argument("--compare-replicates", type=int, default=500)
    ap.add_argument("--expensive-replicates", type=int, default=200,
                    help="collections, and draws each, of bootstrap-t and the joint bootstrap")
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
    keys = ("real", "normal", "robust", "compared")
    if args.from_json is not None:
        saved = json.loads(args.from_json.read_text())
        for k in ("replicates", "real_replicates", "compare_replicates", "bootstrap",
                  "expensive_replicates", "skip_compare"):
            setattr(args, k, saved["args"].get(k, getattr(args, k)))
        docs(args.write_docs, *(saved[k] for k in keys), args, saved["seconds"],
             saved["have_dl"], saved["date"], saved["machine"])
        print(f"wrote {args.write_docs}")
        return 0
    t0, c0 = time.perf_counter(), time.process_time()
    dl = dl2019_scores()
    print(f"DL-2019: {'found' if dl is not None else 'not found; its universes are left out'}")
    pick = (lambda us: [u for u in us if args.only is None or args.only in u.name])
    trec3, sigir = trec3_scores(), read_sigir2019(SIGIR)
    settings = reference_universes(dl, trec3, sigir)  # the acceptance set
    collections = {s.universe.name: s.collection for s in settings}
    real_u = pick([s.universe for s in settings] + (
        [u for u in real_universes(dl, trec3) if "without replacement" in u.name]
        if dl is not None else []))
    normal_u = pick(standard_universes(dl))
    robust_u = pick(robustness_universes(dl)) if dl is not None else []
    rows = {k: [] for k in keys}
    for key, us, R in (("real", real_u, args.real_replicates), ("normal", normal_u,
                                                                 args.replicates),
                       ("robust", robust_u, args.compare_replicates)):
        for method in (SHIPPED, REPLACED):
            print(f"\n# {key}: {method}, {R} collections per universe")
            rows[key] += run(us, method, R, args.bootstrap, args.seed,
                             collections=collections)
    if not args.skip_compare:
        chosen = [u for u in real_u + normal_u if u.name in COMPARED_REAL + COMPARED_NORMAL]
        for label, method in TRIED.items():
            R = args.expensive_replicates if label in EXPENSIVE else args.compare_replicates
            B = args.expensive_replicates if label in EXPENSIVE else args.bootstrap
            print(f"\n# tried: {label}, {R} collections per universe")
            rows["compared"] += run(chosen, method, R, B, args.seed, label)
    seconds = time.perf_counter() - t0
    print(f"\n{seconds:.0f} s wall, {time.process_time() - c0:.0f} s CPU in all")
    date, machine = datetime.date.today().isoformat(), _machine()
    if args.save is not None:
        args.save.write_text(json.dumps({
            "args": vars(args) | {"save": None, "write_docs": None, "from_json": None},
            **rows, "seconds": seconds, "have_dl": dl is not None, "date": date,
            "machine": machine}, indent=1))
    if args.write_docs is not None:
        docs(args.write_docs, *(rows[k] for k in keys), args, seconds, dl is not None, date,
             machine)
        print(f"wrote {args.write_docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
