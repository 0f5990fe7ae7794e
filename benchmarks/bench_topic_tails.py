"""Where the verdict's interval still falls short: heavy-tailed *topics* (TREC Web 2010).

    python benchmarks/bench_topic_tails.py [--replicates 2000] [--seed 0]
        [--write-docs docs/calibration.md]

One pair of the reference population covers below 0.93 under every rule tried: nDCG@20 vs
ERR@20 on TREC Web 2010 (Urbano, Lima & Hanjalic, SIGIR 2019, ``data/sigir2019-statistical``),
while the same pair covers 0.97-0.99 on Web 2011-2013. This benchmark shows why and what each
remedy does, on the same collections (systems and topics resampled with replacement, the
truth from the population, ``irstab.verdict.universes.resampled_universe``):

1. the excess kurtosis of every reference collection's *topic* means, beside its system
   means' (Web 2010's nDCG@20: 6.8; no other collection's measure above 1.5);
2. for the pair on Web 2010-2013 at 12 x 20, 20 x 25 and 30 x 40: coverage, the misses on
   each side, and coverage by thirds of the sample's topic variance of nDCG@20 against the
   population's (the sample that did not draw the heavy topics underestimates the topic
   variance, overestimates nDCG's Phi, and its jackknife cannot see the tail it lacks);
3. the remedies, scored on the same draws: the shipped interval; the clipped parts' degrees
   of freedom deflated by the constants (16, 8); exact
   leave-one-topic-out pseudo-values for the topic part (the system switch's twin); the
   jackknife's bias correction of the centre; the generalized (Wishart) pivots of the mean
   squares, as shipped before the jackknife and with the topics' df divided by 4, 1,000
   pivot draws a collection.

``--write-docs`` replaces the part of the Markdown file between ``<!-- topic-tails -->`` and
``<!-- /topic-tails -->`` (``bench_calibration.py`` keeps it when it rewrites the page).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_calibration as bc  # noqa: E402
from _docs import write_or_print  # noqa: E402

from irstab._numeric import unit_spread  # noqa: E402
from irstab.stability import multivariate as mv  # noqa: E402
from irstab.verdict import jackknife as jk  # noqa: E402
from irstab.verdict.reference import read_sigir2019  # noqa: E402
from irstab.verdict.universes import resampled_universe  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MARKS = ("<!-- topic-tails -->", "<!-- /topic-tails -->")
SIZES = ((12, 20), (20, 25), (30, 40))
PAIR = ("nDCG@20", "ERR@20")
W = np.array([[-1.0, 1.0]])
PIVOTS = 1000  # pivot draws per collection


def kurtosis(a: np.ndarray) -> float:
    return float(stats.kurtosis(a))


def topic_exact(cube: np.ndarray, cv) -> jk.ContrastVariance:
    """``cv`` with the topic part from exact leave-one-topic-out contrasts."""
    _, S, T = cube.shape
    y, _ = unit_spread(cube)
    y = y - y.mean(axis=(1, 2), keepdims=True)
    _, _, by_t, _ = jk.leave_one_out_mean_squares(y)
    b = W @ jk.phi_gradient(by_t, S, T - 1, T)[0]
    b = b - b.mean(axis=1, keepdims=True)
    p = cv.parts
    parts = jk.TwoFacetVariance(system=p.system, topic=(T - 1) / T * (b @ b.T),
                                interaction=p.interaction, by_system=p.by_system,
                                n_systems=S, n_topics=T, kurt_system=p.kurt_system,
                                kurt_topic=p.kurt_topic)
    return parts


def deflated_df(parts, ks: float, kt: float) -> np.ndarray:
    S, T = parts.n_systems, parts.n_topics
    p_s, p_t, p_st = parts.parts()
    v = p_s + p_t + p_st
    den = p_s ** 2 * ks / (S - 1) + p_t ** 2 * kt / (T - 1) + p_st ** 2 / ((S - 1) * (T - 1))
    return np.where(den > 0, v * v / np.where(den > 0, den, 1.0), np.inf)


def bias(cube: np.ndarray) -> float:
    """The two-facet jackknife's estimate of the Phi difference's bias (exact leave-one-out)."""
    full, bs, bt, _ = bc._exact_pseudo(cube, bc._phi)
    S, T = cube.shape[1:]
    return float((W @ ((S - 1) * (bs.mean(axis=1) - full) + (T - 1) * (bt.mean(axis=1) - full)))[0])


def pivot_interval(cube: np.ndarray, k_t: float, n_draws: int, rng) -> tuple[float, float]:
    """Generalized pivots of the mean squares (Weerahandi 1993; ``stability.multivariate``)
    with the topics' Wishart df divided by ``k_t``: the 2.5 and 97.5 % points of the Phi
    difference over the pivots."""
    _, S, T = cube.shape
    mp = mv.mean_products(cube)
    df_s, df_t, df_e = mp.degrees_of_freedom
    obs = mp.mean_squares()
    drawn = (mv._wishart_diagonals(mp.systems, df_s, n_draws, rng),
             mv._wishart_diagonals(mp.topics, max(1, round(df_t / k_t)), n_draws, rng),
             mv._wishart_diagonals(mp.residual, df_e, n_draws, rng))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        piv = [np.where(d > 0, o * (o / np.where(d > 0, d, 1.0)), 0.0) for o, d in zip(obs, drawn)]
    phi = mv.phi_from_mean_squares(*piv, S, T)
    lo, hi = np.quantile(phi[:, 1] - phi[:, 0], [0.025, 0.975])
    return float(lo), float(hi)


def simulate(name: str, scores: dict, S: int, T: int, R: int, seed: int) -> dict:
    u = resampled_universe(name, scores, PAIR[0], S, T, candidates=[PAIR[1]])
    truth = float(u.true_diff()[1])
    pop_t = np.var(scores[PAIR[0]].mean(axis=0))
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(R):
        cube = u.draw(rng)
        cv = jk.phi_contrasts(cube, W)
        est, v, df = float(cv.estimate[0]), float(cv.variance[0]), float(cv.df[0])
        tex = topic_exact(cube, cv)
        v_t, df_t = float(tex.variance()[0]), float(tex.df()[0])
        rows.append((est, v, df, float(deflated_df(cv.parts, 16.0, 8.0)[0]), v_t, df_t,
                     bias(cube), np.var(cube[0].mean(axis=0)) / pop_t,
                     *pivot_interval(cube, 1.0, PIVOTS, rng),
                     *pivot_interval(cube, 4.0, PIVOTS, rng)))
    est, v, df, df168, v_t, df_t, b, ratio, lo1, hi1, lo4, hi4 = np.array(rows).T
    q = (lambda d: stats.t.isf(0.025, d))
    rules = {
        "shipped": (est, v, df),
        "clipped parts' df / (16, 8)": (est, v, df168),
        "exact leave-one-topic-out": (est, v_t, df_t),
        "bias-corrected centre": (est - b, v, df),
        "Wishart pivots": (lo1, hi1),
        "Wishart pivots, topics' df / 4": (lo4, hi4),
    }
    out = {"name": f"{name} {S} x {T}", "truth": truth, "R": R, "rules": {}}
    thirds = np.quantile(ratio, [1 / 3, 2 / 3])
    which = np.digitize(ratio, thirds)
    for label, rule in rules.items():
        if len(rule) == 3:
            c, var, d = rule
            lo, hi = c - q(d) * np.sqrt(var), c + q(d) * np.sqrt(var)
        else:
            lo, hi = rule
        low, high = truth < lo, truth > hi
        cov = ~(low | high)
        out["rules"][label] = {
            "coverage": float(cov.mean()), "truth_below": float(low.mean()),
            "truth_above": float(high.mean()),
            "by_third": [float(cov[which == k].mean()) for k in range(3)],
            "width": float(np.mean(hi - lo)),
        }
    out["thirds"] = [float(x) for x in thirds]
    return out


def page(sigir: dict, results: list[dict], R: int, seconds: float) -> str:
    lines = [
        f"Written by `python benchmarks/bench_topic_tails.py --replicates {R} --write-docs "
        f"docs/calibration.md` on {datetime.date.today().isoformat()} ({seconds:.0f} s).",
        "",
        "**The pair that binds: heavy-tailed topics.** On TREC Web 2010 the pair "
        "nDCG@20 vs ERR@20 is the setting the interval covers least, while the same pair "
        "covers 0.97-0.99 on Web 2011-2013. Web 2010's nDCG@20 has heavy-tailed *topic* "
        "means (a few topics far from the rest), no other collection's measure does:",
        "",
        "| collection | measure | excess kurtosis, system means | excess kurtosis, topic means |",
        "|---|---|---:|---:|",
    ]
    for coll, ms in sigir.items():
        for m, x in ms.items():
            lines.append(f"| {coll} | {m} | {kurtosis(x.mean(axis=1)):+.1f} | "
                         f"{kurtosis(x.mean(axis=0)):+.1f} |")
    lines += [
        "",
        "A collection that did not draw the heavy topics underestimates nDCG@20's topic "
        "variance, so it overestimates nDCG@20's Phi and underestimates the difference; its "
        "jackknife sees no tail, so its interval is not wider. The misses fall on one side "
        "(the truth above the interval) and in the third of collections whose topic "
        "variance of nDCG@20 is lowest against the population's. Coverage of each remedy, "
        f"{R} collections a setting, the same draws for every rule (Monte-Carlo error about "
        f"{np.sqrt(0.93 * 0.07 / R):.3f}):",
        "",
        "| setting | true diff. | rule | coverage | truth below / above | coverage by third of "
        "the sample's topic variance (low, middle, high) |",
        "|---|---:|---|---:|---:|---|",
    ]
    for r in results:
        for label, s in r["rules"].items():
            lines.append(
                f"| {r['name']} | {r['truth']:+.4f} | {label} | {s['coverage']:.3f} | "
                f"{s['truth_below']:.3f} / {s['truth_above']:.3f} | "
                + ", ".join(f"{c:.3f}" for c in s["by_third"]) + " |")
    web = [r for r in results if r["name"].startswith("Web 2010") and
           not r["name"].endswith("12 x 20")]
    best = {label: min(r["rules"][label]["coverage"] for r in web) for label in web[0]["rules"]}
    lines += [
        "",
        "On Web 2010 at 20 x 25 and 30 x 40 the lower of the two coverages is: "
        + "; ".join(f"{label} {c:.3f}" for label, c in best.items()) + ". "
        "Deflating the jackknife's facets' df further widens every interval of the reference "
        "population (the share of settings at most 0.975 falls below 80 %, section above) "
        "for a gain of about 0.01 here; exact topic pseudo-values and the bias correction "
        "gain as little or lose coverage elsewhere. Generalized pivots whose topic mean "
        "squares get fewer degrees of freedom skew the interval the way the misses fall, but "
        "not enough at every size, they are a Monte-Carlo interval, and with their system df "
        "intact they are the rule the jackknife replaced because it covered 0.63-0.93 where "
        "the system means are heavy-tailed (DL-2019). The shipped rule (its topic part's "
        "degrees of freedom shrink with the kurtosis of the sample's leave-one-topic-out "
        "contrasts, section \"The facets' deflation read from the sample's kurtosis\") "
        "covers this pair "
        + " and ".join(f"{r['rules']['shipped']['coverage']:.3f} ({r['name']})" for r in web)
        + f" in this run; 0.93 minus two Monte-Carlo errors is "
        f"{0.93 - 2 * np.sqrt(0.93 * 0.07 / R):.3f} at {R} collections.",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write-docs", type=Path, default=None)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    sigir = read_sigir2019(bc.SIGIR)
    results = []
    for coll in ("Web 2010", "Web 2011", "Web 2012", "Web 2013"):
        scores = {m: sigir[coll][m] for m in PAIR}
        for S, T in SIZES:
            r = simulate(coll, scores, S, T, args.replicates, args.seed + S)
            print(r["name"], {k: round(v["coverage"], 3) for k, v in r["rules"].items()},
                  flush=True)
            results.append(r)
    text = page(sigir, results, args.replicates, time.perf_counter() - t0)
    write_or_print(args.write_docs, MARKS, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
