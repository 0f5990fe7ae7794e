"""The verdict's degrees of freedom: the families tried, on the whole acceptance set.

    python benchmarks/bench_df_families.py [--replicates 500] [--seed 0]
        [--family shipped|clipped|whole|interaction|interaction-topic|noise|switch-topic|offset]
        [--c C] [--noise CS,CT] [--only TEXT] [KS,KT ...]

Each run replaces ``facet_df`` (``irstab.verdict.jackknife``, and the stacked path of
``calibrate``) by one family and sets ``FACET_DF_DEFLATION`` to each ``KS,KT`` in turn, then
runs the library's ``calibrate`` on every setting of the reference population
(``reference_universes``: DL-2019, TREC-3, TREC 5-8, Web 2010-2013 at 12 x 20, 20 x 25,
30 x 40; the acceptance set of [verdict-4]) and on the moderate normal plant (2,000
collections, the power figure). The families, with ``p_f`` the clipped parts and
``V_s, V_t, V_st`` the jackknife's three variances (``docs/calibration.md``, "Heavy-tailed
topics"), each ``V^2 / (u_s^2 k_s/(S-1) + u_t^2 k_t/(T-1) + V_st^2/((S-1)(T-1)))`` with:

- ``shipped``: the library's own ``facet_df``, unchanged;
- ``noise``: ``u_f = p_f + c min(V_f, V_st)`` (shipped with c = 1/2);
- ``clipped`` (shipped before): ``u_f = p_f`` (``noise`` with c = 0);
- ``whole``: Satterthwaite for ``V_s + V_t - V_st``: ``u_f = V_f`` (``noise`` with c = 1);
- ``interaction``: ``u_f^2 = p_f^2 + min(V_f, V_st)^2`` for both facets;
  ``interaction-topic``: for the topic facet only;
- ``switch-topic``: ``u_t^2 = (c / k_t) V_t^2`` where the topic part is clipped, else ``p_t^2``;
- ``offset``: ``noise`` (its c per facet from ``--noise``, 0.5 each by default) with each
  facet's degrees of freedom ``(n_f - 1) / k_f + m``, ``m = --c``: a deflation that bites less
  in small samples, where the constant one over-covers (12 x 20: 1.6 df for 12 systems at
  k_s = 7).

Printed per pair: the lowest coverage of the settings whose truth is not 0, how many fall
below 0.93 minus two Monte-Carlo errors (and which), the share at most 0.975, the nulls'
lowest coverage, the largest wrong-change rates, and power at the plant. About 10-15
seconds a pair on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calibration import PLANT, SHIPPED, SIGIR, dl2019_scores, trec3_scores

import irstab.verdict.jackknife as jk
import irstab.verdict.jackknife_stack as jks
from irstab.verdict.calibration import calibrate
from irstab.verdict.reference import read_sigir2019, reference_universes
from irstab.verdict.universes import standard_universes


NOISE = [0.5, 0.5]


def family_df(kind: str, c: float):
    """A replacement for ``irstab.verdict.jackknife.facet_df`` (same arguments; the facets'
    kurtosis, which the shipped rule reads, is ignored: these families' deflations are
    constants)."""
    def df(vs, vt, vst, S, T, *_kurtosis):
        p_s, p_t, p_st = np.maximum(vs - vst, 0.0), np.maximum(vt - vst, 0.0), vst
        k_s, k_t = jk.FACET_DF_DEFLATION
        ts, tt = p_s ** 2, p_t ** 2
        if kind == "whole":
            ts, tt = vs ** 2, vt ** 2
        elif kind == "interaction":
            ts, tt = ts + np.minimum(vs, vst) ** 2, tt + np.minimum(vt, vst) ** 2
        elif kind == "interaction-topic":
            tt = tt + np.minimum(vt, vst) ** 2
        elif kind == "noise":
            ts = (p_s + c * np.minimum(vs, vst)) ** 2
            tt = (p_t + c * np.minimum(vt, vst)) ** 2
        elif kind == "switch-topic":
            tt = np.where(vt <= vst, c / k_t * vt ** 2, tt)
        v = p_s + p_t + p_st
        nu_s, nu_t = (S - 1) / k_s, (T - 1) / k_t
        if kind == "offset":
            ts = (p_s + NOISE[0] * np.minimum(vs, vst)) ** 2
            tt = (p_t + NOISE[1] * np.minimum(vt, vst)) ** 2
            nu_s, nu_t = nu_s + c, nu_t + c
        den = ts / nu_s + tt / nu_t + p_st ** 2 / ((S - 1) * (T - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((v > 0) & (den > 0), v * v / np.where(den > 0, den, 1.0), np.inf)
    return df


def frontier_figure(source: Path, out: Path) -> None:
    """Lowest coverage against power at the plant, one point a rule, the share of settings
    at most 0.975 as the colour: the frontier of docs/calibration.md."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    fig, ax = plt.subplots(figsize=(7.2, 4.6), dpi=150)
    names = {"shipped": "shipped", "clipped": "clipped parts", "whole": "whole facets",
             "interaction": "+ interaction, both", "interaction-topic": "+ interaction, topic",
             "noise": "clipped part + c min(V_f, V_st)", "switch-topic": "topic whole once clipped",
             "offset": "(n_f - 1) / k_f + m df, c = 0.5"}
    marks = {"shipped": "*", "clipped": "s", "whole": "D", "interaction": "v",
             "interaction-topic": "^", "noise": "o", "switch-topic": "P", "offset": "X"}
    sc = None
    for fam in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == fam]
        sc = ax.scatter([100 * r["power"] for r in rs], [r["lowest"] for r in rs],
                        c=[100 * r["share"] for r in rs], cmap="viridis", vmin=40, vmax=90,
                        marker=marks.get(fam, "o"), s=170 if fam == "shipped" else 55,
                        edgecolors="black", linewidths=0.6, label=names.get(fam, fam),
                        zorder=4 if fam == "shipped" else 2)
    for r in rows:
        if r["family"] in ("shipped", "clipped") and r["k"] in ([8.0, 4.0], [7.0, 4.0]):
            ax.annotate("shipped" if r["family"] == "shipped" else "shipped before",
                        (100 * r["power"], r["lowest"]), textcoords="offset points",
                        xytext=(-30, 14), ha="right", fontsize=9,
                        arrowprops=dict(arrowstyle="-", color="black", lw=0.7))
    floor = rows[0]["floor"]
    ax.axhline(floor, color="firebrick", lw=1, ls="--")
    ax.text(ax.get_xlim()[0], floor, f" floor {floor:.3f} (0.93 - 2 MC errors)",
            color="firebrick", va="bottom", fontsize=9)
    ax.axvline(45, color="grey", lw=1, ls=":")
    ax.text(45, ax.get_ylim()[1], " power 45 %", color="grey", va="top", fontsize=9)
    ax.set_xlabel("power at the moderate normal plant (%)")
    ax.set_ylabel("lowest coverage, settings whose truth is not 0")
    ax.set_title("The verdict's degrees of freedom: every rule tried "
                 f"({rows[0]['replicates']} collections a setting)", fontsize=10)
    cb = fig.colorbar(sc, ax=ax)
    cb.set_label("settings covering at most 0.975 (%)")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="*", default=[",".join(f"{k:g}" for k in jk.FACET_DF_DEFLATION)])
    ap.add_argument("--replicates", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", default="shipped",
                    choices=["shipped", "clipped", "whole", "interaction", "interaction-topic",
                             "noise", "switch-topic", "offset"])
    ap.add_argument("--c", type=float, default=0.5,
                    help="the noise family's c; switch-topic's deflation of a clipped V_t")
    ap.add_argument("--noise", default="0.5,0.5",
                    help="the offset family's clipped parts' noise, system,topic")
    ap.add_argument("--only", default=None,
                    help="only the settings whose name contains this text (no plant)")
    ap.add_argument("--json", type=Path, default=None,
                    help="append each pair's figures to this file, one JSON object a line")
    ap.add_argument("--figure", type=Path, default=None,
                    help="draw the frontier of the --json file's rows here (PNG) and stop")
    args = ap.parse_args()
    NOISE[:] = [float(x) for x in args.noise.split(",")]
    if args.figure is not None:
        frontier_figure(args.json, args.figure)
        return
    if args.family != "shipped":
        jk.facet_df = jks.facet_df = family_df(args.family, args.c)
    dl = dl2019_scores()
    settings = reference_universes(dl, trec3_scores(), read_sigir2019(SIGIR))
    if args.only:
        settings = [s for s in settings if args.only in s.universe.name]
    plant = next(u for u in standard_universes(dl) if u.name == PLANT)
    R = args.replicates
    floor = 0.93 - 2 * math.sqrt(0.93 * 0.07 / R)
    for pair in args.pairs:
        jk.FACET_DF_DEFLATION = tuple(float(k) for k in pair.split(","))
        t0 = time.perf_counter()
        rows = []
        for s in settings:
            c = calibrate(s.universe, interval=SHIPPED, n_replicates=R, n_bootstrap=100,
                          seed=args.seed).summary()
            c["null"] = bool(abs(c["true_diff"]) <= 1e-9 and "null" in c["universe"])
            rows.append(c)
        if args.only:
            for r in rows:
                print(f"{args.family} c={args.c:g} {jk.FACET_DF_DEFLATION}: {r['universe']} "
                      f"{r['coverage']:.3f}", flush=True)
            continue
        p = calibrate(plant, interval=SHIPPED, n_replicates=2000, n_bootstrap=100,
                      seed=args.seed).summary()
        nz = [r for r in rows if not r["null"]]
        nl = [r for r in rows if r["null"]]
        cov = np.array([r["coverage"] for r in nz])
        below = [f'{r["universe"]} {r["coverage"]:.3f}' for r in nz if r["coverage"] < floor]
        label = args.family + (f" c={args.c:g}" if args.family in ("noise", "switch-topic", "offset") else "")
        print(f"{label} {jk.FACET_DF_DEFLATION}: {len(nz)} settings, lowest {cov.min():.3f}, "
              f"below {floor:.3f}: {len(below)}, at most 0.975: {np.mean(cov <= 0.975):.1%}, "
              f"nulls' lowest {min(r['coverage'] for r in nl):.3f}, wrong changes "
              f"{max(r['wrong_recommendations'] for r in nz):.1%} / nulls "
              f"{max(r['wrong_recommendations'] for r in nl):.1%}, power {p['power']:.1%} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
        for b in below:
            print("    ", b)
        if args.json is not None:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(dict(
                    family=args.family, c=args.c if args.family in ("noise", "switch-topic", "offset")
                    else None, k=list(jk.FACET_DF_DEFLATION), replicates=R,
                    lowest=float(cov.min()), below=len(below), floor=floor,
                    share=float(np.mean(cov <= 0.975)), power=float(p["power"]),
                    wrong=float(max(r["wrong_recommendations"] for r in nz)))) + "\n")


if __name__ == "__main__":
    main()
