"""Variants of the verdict's jackknife interval over every calibration universe, side by side.

    python benchmarks/bench_interval_variants.py [--replicates 1000] [--seed 0]
        [--write-docs docs/calibration.md]

``bench_calibration.py`` runs each method through the whole verdict, one method at a time,
and compares the other methods on ten universes only. This benchmark draws the
collections of *every* universe of that study once (the 35 real-score and 15 normal ones,
``--replicates`` each), keeps per collection what every jackknife variant is made of (the
three parts V_s, V_t, V_st of the linearised and of the exact leave-one-out Phi
differences, their third moments, the topics needed), and then scores each variant on the
same collections: coverage of all candidates at once, wrong changes and power of the
verdict's rule (``irstab.verdict.decision.choose``, 10 % minimum saving). Universes
without replacement are left out (their truth is the finite population's; every variant
over-covers them).

The variants (the parts as in ``irstab.verdict.jackknife``):

- **shipped**: V = V_st + (V_s - V_st)+ + (V_t - V_st)+, the system part from the exact
  leave-one-system-out contrasts where either measure's system means have excess kurtosis
  1 or more (else linearised), Student's t with Satterthwaite's df from the three parts,
  the facets' df deflated by ``FACET_DF_DEFLATION`` + ``FACET_DF_KURTOSIS`` x the facet's
  excess kurtosis (``irstab.verdict.jackknife``); **shipped before**: the same with the
  constant deflations (7, 4) and c = 0.5; **earlier rules**: the same variance with t at
  min(S, T) - 1 df, and linearised with Satterthwaite's df undeflated;
- **t(S-1)**: the same variance, Student's t with S - 1 df;
- **unclipped, floor c**: the Arvesen-Schmitz total V_s + V_t - V_st (unbiased, can be
  negative) floored at c V_st, Satterthwaite's df; **exact** variants use the exact
  leave-one-out Phi instead of the linearisation;
- **joint clip**: V_st + (V_s + V_t - 2 V_st)+ (the total floored at V_st);
- **Cornish-Fisher**: the endpoints moved by the skewness the jackknife's third moments
  estimate, Delta-hat - sd (q +- gamma (q^2 - 1) / 6).

``--write-docs`` replaces the part of the given Markdown file between
``<!-- variants -->`` and ``<!-- /variants -->``.
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
from _docs import write_section  # noqa: E402

from irstab.verdict.calibration import real_universes, standard_universes  # noqa: E402
from irstab.verdict.decision import choose, topics_needed  # noqa: E402
from irstab.errors import IRStabWarning  # noqa: E402
from irstab._numeric import unit_spread  # noqa: E402
from irstab.verdict.jackknife import (  # noqa: E402
    CLIPPED_PART_NOISE, FACET_DF_DEFLATION, FACET_DF_FLOOR, FACET_DF_KURTOSIS, facet_df, leave_one_out_mean_squares,
    phi_contrasts, phi_gradient, two_facet_variance,
)

KEYS = ("est", "vs", "vt", "vst", "s_vs", "x_vs", "x_vt", "x_vst", "x_k3", "needed", "kurtosis",
        "pair_kurtosis", "kurt_s", "kurt_t")


def collect(universe, replicates: int, seed: int) -> dict:
    """Per collection: the estimate, both kinds of parts, the exact third moment, topics needed."""
    rng = np.random.default_rng(seed)
    M = len(universe.measures)
    cand = np.array([m in universe.candidates for m in universe.measures])
    cand[0] = False
    idx = np.flatnonzero(cand)
    w = (np.eye(M) - np.eye(M)[0])[idx]  # each candidate minus the baseline
    out = {k: [] for k in KEYS}
    for _ in range(replicates):  # a collection at a time: each is a fresh draw
        cube = universe.draw(rng)
        _, S, T = cube.shape
        cv = phi_contrasts(cube, w)  # the estimate; its parts may hold exact system leave-outs
        y, _ = unit_spread(cube)
        y = y - y.mean(axis=(1, 2), keepdims=True)  # as phi_contrasts does
        ms_full, ms_s, ms_t, ms_c = leave_one_out_mean_squares(y)
        grad = phi_gradient(ms_full, S, T, T)[1]
        lin = (lambda ms: w @ np.einsum("fm,fm...->m...", grad, ms))
        linear = two_facet_variance(lin(ms_full), lin(ms_s), lin(ms_t),
                                    np.einsum("km,mst->kst", w,
                                              np.einsum("fm,fm...->m...", grad, ms_c)))
        # the library's exact system leave-outs (phi_gradient's Phi) and its switch
        sys_exact = two_facet_variance(lin(ms_full), lin(ms_s), lin(ms_t),
                                       np.zeros((len(w), S, T)),
                                       w @ phi_gradient(ms_s, S - 1, T, T)[0])
        out["s_vs"].append(np.diag(sys_exact.system).copy())
        check = np.where(cv.heavy_tailed, np.diag(sys_exact.system), np.diag(linear.system))
        v_st = np.diag(linear.interaction)
        shipped = (np.maximum(check - v_st, 0) + np.maximum(np.diag(linear.topic) - v_st, 0)
                   + v_st)
        if not np.allclose(shipped, cv.variance, rtol=1e-8, atol=1e-300):
            raise AssertionError(f"{universe.name}: the shipped variance is not the library's")
        # the facets' kurtosis the shipped df read (of the exact leave-one-out contrasts)
        out["kurt_s"].append(cv.parts.kurt_system.copy())
        out["kurt_t"].append(cv.parts.kurt_topic.copy())
        if not np.allclose(facet_df(check, np.diag(linear.topic), v_st, S, T,
                                    cv.parts.kurt_system, cv.parts.kurt_topic), cv.df,
                           rtol=1e-8):
            raise AssertionError(f"{universe.name}: the shipped df are not the library's")
        full, bs, bt, bcell = bc._exact_pseudo(cube, bc._phi)
        exact = two_facet_variance(w @ full, w @ bs, w @ bt, np.einsum("km,mst->kst", w, bcell))
        b = w @ bt
        b = b - b.mean(axis=1, keepdims=True)
        out["est"].append(cv.estimate)
        for pre, v in (("", linear), ("x_", exact)):
            for k, c in (("vs", v.system), ("vt", v.topic), ("vst", v.interaction)):
                out[pre + k].append(np.diag(c).copy())
        # third cumulant of the estimate from the influence values -(n-1) (pseudo - mean)
        out["x_k3"].append(-((S - 1) / S) ** 3 * (exact.by_system ** 3).sum(axis=1)
                           - ((T - 1) / T) ** 3 * (b ** 3).sum(axis=1))
        out["needed"].append(topics_needed(cube, 0.95))
        kurt = stats.kurtosis(cube.mean(axis=2), axis=1)  # of every measure's system means
        out["kurtosis"].append(kurt[0])  # the baseline's
        out["pair_kurtosis"].append(np.maximum(kurt[0], kurt[idx]))  # either of a pair's
    res = {k: np.array(v) for k, v in out.items()}
    res.update(name=universe.name, kind=universe.kind, S=S, T=T, idx=idx,
               true=universe.true_diff()[idx])
    return res


def _satterthwaite(parts, S, T, deflate=(1.0, 1.0)):
    p_s, p_t, p_st = parts
    k_s, k_t = deflate
    den = (p_s ** 2 * k_s / (S - 1) + p_t ** 2 * k_t / (T - 1)
           + p_st ** 2 / ((S - 1) * (T - 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (p_s + p_t + p_st) ** 2 / np.where(den > 0, den, 1.0), np.inf)


def interval(r: dict, exact: bool, combine: str, df: str, floor: float = 0.5,
             skew: bool = False, system: str = ""):
    """Lower and upper ends (R, K) of one variant on the stored collections of a universe."""
    S, T = r["S"], r["T"]
    pre = "x_" if exact else ""
    vs, vt, vst = r[pre + "vs"], r[pre + "vt"], r[pre + "vst"]
    if system == "exact":  # exact system leave-outs beside the linearised interaction
        vs = r["s_vs"]
    elif system.startswith("kurtosis"):  # exact only where the sample shows heavy tails
        vs = np.where((r["kurtosis"] >= float(system.split()[1]))[:, None], r["s_vs"], vs)
    elif system.startswith("pair kurtosis"):  # the same, read from either measure of a pair
        vs = np.where(np.nan_to_num(r["pair_kurtosis"]) >= float(system.split()[2]),
                      r["s_vs"], vs)
    if combine == "clip":
        parts = (np.maximum(vs - vst, 0), np.maximum(vt - vst, 0), vst)
    elif combine == "pretest":  # a part only where it exceeds its normal-theory standard error
        ds, dt = vs - vst, vt - vst
        parts = (np.where(ds > np.sqrt(2 / (S - 1)) * vs, ds, 0.0),
                 np.where(dt > np.sqrt(2 / (T - 1)) * vt, dt, 0.0), vst)
    elif combine == "topic unclipped":  # ((V_s - V_st)+ + (V_t - V_st))+, S - 1 df
        parts = (np.maximum(np.maximum(vs - vst, 0) + (vt - vst), 0), np.zeros_like(vst), vst)
    elif combine == "joint":
        parts = (np.maximum(vs + vt - 2 * vst, 0), np.zeros_like(vst), vst)
    else:  # unclipped total, floored at floor * V_st
        tot = np.maximum(vs + vt - vst, floor * vst)
        parts = (np.maximum(tot - vst, 0), np.zeros_like(vst), np.minimum(tot, vst))
    var = sum(parts)
    if df == "S-1":
        nu = np.full_like(var, min(S, T) - 1)
    elif df == "deflated" and combine == "clip":  # as shipped: facet_df of the three V's
        nu = facet_df(vs, vt, vst, S, T, r["kurt_s"], r["kurt_t"])
    elif df == "constants" and combine == "clip":  # shipped before: (7, 4), c = 0.5
        u_s = parts[0] + 0.5 * np.minimum(vs, vst)
        u_t = parts[1] + 0.5 * np.minimum(vt, vst)
        den = u_s ** 2 * 7.0 / (S - 1) + u_t ** 2 * 4.0 / (T - 1) + vst ** 2 / ((S - 1) * (T - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = np.where((var > 0) & (den > 0), var * var / np.where(den > 0, den, 1.0), np.inf)
    elif df == "deflated":  # the other combinations' parts, deflated as shipped
        (a_s, a_t), (b_s, b_t) = FACET_DF_DEFLATION, FACET_DF_KURTOSIS
        nu = _satterthwaite(parts, S, T, (
            np.minimum(a_s + b_s * np.maximum(r["kurt_s"], 0), max(a_s, (S - 1) / FACET_DF_FLOOR)),
            np.minimum(a_t + b_t * np.maximum(r["kurt_t"], 0), max(a_t, (T - 1) / FACET_DF_FLOOR))))
    else:
        nu = _satterthwaite(parts, S, T)
    K = r["est"].shape[1]
    q = stats.t.isf(0.025 / K, nu)  # Bonferroni over the candidates, as shipped
    sd, est = np.sqrt(var), r["est"]
    shift = 0.0
    if skew:
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(var > 0, r["x_k3"] / np.where(var > 0, var, 1.0) ** 1.5, 0.0)
        shift = np.clip(g, -2, 2) / 6 * (q ** 2 - 1)
    return np.maximum(est - sd * (q + shift), -1), np.minimum(est + sd * (q - shift), 1)


SHIPPED = ("shipped: exact system part where either measure's kurtosis >= 1, Satterthwaite, "
           f"facets deflated {bc.deflation_words()}, clipped parts' noise "
           f"{CLIPPED_PART_NOISE:g}")
VARIANTS = {
    SHIPPED: dict(exact=False, combine="clip", df="deflated", system="pair kurtosis 1"),
    "shipped before: the same, facets deflated (7, 4), clipped parts' noise 0.5":
        dict(exact=False, combine="clip", df="constants", system="pair kurtosis 1"),
    "an earlier rule: exact system part where either measure's kurtosis >= 1, t(min(S, T) - 1)":
        dict(exact=False, combine="clip", df="S-1", system="pair kurtosis 1"),
    "linearised, parts clipped, Satterthwaite (an earlier rule)": dict(
        exact=False, combine="clip", df="satt"),
    "linearised, parts clipped, t(S-1)": dict(exact=False, combine="clip", df="S-1"),
    "linearised, unclipped floor 1/2, Satterthwaite": dict(exact=False, combine="unclipped",
                                                           df="satt"),
    "linearised, unclipped floor 1/2, t(S-1)": dict(exact=False, combine="unclipped",
                                                    df="S-1"),
    "exact, parts clipped, t(S-1)": dict(exact=True, combine="clip", df="S-1"),
    "exact, joint clip, t(S-1)": dict(exact=True, combine="joint", df="S-1"),
    "exact, unclipped floor 0, t(S-1)": dict(exact=True, combine="unclipped", df="S-1",
                                             floor=0.0),
    "exact, unclipped floor 1/4, t(S-1)": dict(exact=True, combine="unclipped", df="S-1",
                                               floor=0.25),
    "exact, unclipped floor 1/2, t(S-1)": dict(exact=True, combine="unclipped", df="S-1"),
    "exact, unclipped floor 3/4, t(S-1)": dict(exact=True, combine="unclipped", df="S-1",
                                               floor=0.75),
    "exact, unclipped floor 1/2, t(S-1), Cornish-Fisher": dict(
        exact=True, combine="unclipped", df="S-1", skew=True),
    "exact system part, parts clipped, Satterthwaite": dict(exact=False, combine="clip",
                                                            df="satt", system="exact"),
    "exact system part, parts clipped, t(S-1)": dict(exact=False, combine="clip", df="S-1",
                                                     system="exact"),
    "exact system part, topic part unclipped, Satterthwaite": dict(
        exact=False, combine="topic unclipped", df="satt", system="exact"),
    "exact system part where kurtosis >= 2, else linearised, Satterthwaite": dict(
        exact=False, combine="clip", df="satt", system="kurtosis 2"),
    "exact system part where kurtosis >= 1, else linearised, Satterthwaite": dict(
        exact=False, combine="clip", df="satt", system="kurtosis 1"),
    "exact system part where kurtosis >= 1, t(S-1)": dict(
        exact=False, combine="clip", df="S-1", system="kurtosis 1"),
    "linearised, parts after a pretest, Satterthwaite": dict(exact=False, combine="pretest",
                                                             df="satt"),
    "exact system part, parts after a pretest, Satterthwaite": dict(
        exact=False, combine="pretest", df="satt", system="exact"),
}
PLANT = "30 x 40, planted, equal topic variance"


def score(r: dict, spec: dict) -> tuple[float, float, float]:
    """Coverage of all candidates at once, wrong changes, power of the rule."""
    lo, hi = interval(r, **spec)
    tr = r["true"]
    cover = float(((lo <= tr) & (tr <= hi)).all(axis=1).mean())
    idx = [int(i) for i in r["idx"]]
    diff, lower = np.zeros((len(lo), idx[-1] + 1)), np.zeros((len(lo), idx[-1] + 1))
    diff[:, idx], lower[:, idx] = r["est"], lo
    wrong = power = 0
    for k in range(len(lo)):
        pick = choose(diff[k], lower[k], r["needed"][k], 0, idx, 0.10)
        if pick is not None:
            better = tr[idx.index(pick)] > 1e-12
            power, wrong = power + better, wrong + (not better)
    return cover, wrong / len(lo), power / len(lo)


def _band(c) -> str:
    c = np.asarray(c)
    return (f"{int(((c >= 0.93) & (c <= 0.97)).sum())} of {len(c)} "
            f"({c.min():.3f}-{c.max():.3f}; {int((c < 0.93).sum())} below)")


def docs_text(rows, args, seconds, R) -> str:
    names = list(VARIANTS)
    real = [u for u in rows if u["kind"] == "real scores"]
    normal = [u for u in rows if u["kind"] != "real scores"]
    lines = [
        f"Written by `python benchmarks/bench_interval_variants.py --replicates {R} "
        f"--write-docs docs/calibration.md` on {datetime.date.today().isoformat()} "
        f"({seconds / 60:.0f} min): the same {R} collections of each of "
        f"{len(real)} real-score universes (DL-2019's and TREC-3's, those without replacement "
        f"left out) and the {len(normal)} normal ones above, scored by every variant.",
        "",
        "| variant | real scores: in 0.93-0.97 | normal: in 0.93-0.97 | wrong changes, at most "
        "| power at the moderate normal plant |",
        "|---|---|---|---:|---:|",
    ]
    for n in names:
        rc = [u["scores"][n][0] for u in real]
        nc = [u["scores"][n][0] for u in normal]
        wrong = max(u["scores"][n][1] for u in rows)
        plant = next((u["scores"][n][2] for u in normal if u["name"] == PLANT), float("nan"))
        lines.append(f"| {n} | {_band(rc)} | {_band(nc)} | {wrong:.1%} | {plant:.1%} |")
    keep = [names[0], names[1], names[2], "exact system part, parts clipped, t(S-1)"]
    lines += ["", "Coverage per universe (all candidates at once):", "",
              "| universe | " + " | ".join(keep) + " |",
              "|---|" + "---:|" * len(keep)]
    for u in rows:
        lines.append(f"| {u['name']} | " + " | ".join(f"{u['scores'][n][0]:.3f}" for n in keep)
                     + " |")
    lines += ["", "Why no variant holds in both kinds: the samples look alike, their truths do "
              "not. The linearised jackknife's sd against the true sd of the estimate (first "
              "candidate), and the excess kurtosis of the baseline's system means in each "
              "sample (DL-2019's 37 runs: 5.7); the shipped rule reads the exact system part "
              "in the samples at 1 or more:", "",
              "| universe | true sd / mean linearised sd | sample kurtosis: median | "
              "share of samples >= 1 |", "|---|---:|---:|---:|"]
    for u in rows:
        if not any(k in u["name"] for k in SHOWN):
            continue
        v = interval_sd(u)
        k = u["kurtosis"]
        lines.append(f"| {u['name']} | {u['est'][:, 0].std() / v:.2f} | "
                     f"{np.median(k):+.1f} | {np.mean(k >= 1):.0%} |")
    return "\n".join(lines)


SHOWN = ("20 x 25, nDCG@10 vs its planted", "20 x 25, nDCG@10 vs nDCG(gain=exp)",
         "30 x 40, nDCG@10 vs its planted", "30 x 40, planted, equal topic variance",
         "30 x 40, null, equal topic variance", "12 x 30, planted, equal topic variance")


def interval_sd(r: dict) -> float:
    """The linearised jackknife's sd of the first candidate, averaged over the collections."""
    vs, vt, vst = r["vs"][:, 0], r["vt"][:, 0], r["vst"][:, 0]
    return float(np.sqrt(np.maximum(vs - vst, 0) + np.maximum(vt - vst, 0) + vst).mean())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write-docs", type=Path, default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    dl = bc.dl2019_scores()
    if dl is None:
        print("DL-2019 not found (../shared/data/trec-dl-2019-passage): nothing to compare")
        return 1
    universes = [u for u in real_universes(dl, bc.trec3_scores()) + standard_universes(dl)
                 if "without replacement" not in u.name]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        for k, u in enumerate(universes):
            r = collect(u, args.replicates, args.seed + k)
            r["scores"] = {n: score(r, spec) for n, spec in VARIANTS.items()}
            rows.append(r)
            print(f"{u.name[:60]:60s} " + " ".join(f"{s[0]:.3f}" for s in r["scores"].values()),
                  flush=True)
    seconds = time.perf_counter() - t0
    text = docs_text(rows, args, seconds, args.replicates)
    print("\n" + text)
    if args.write_docs is not None:
        write_section(args.write_docs, ("<!-- variants -->", "<!-- /variants -->"), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
