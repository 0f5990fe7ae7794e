"""The verdict's interval on collections its constants were not chosen on.

    python benchmarks/bench_heldout_collections.py [--replicates 1000] [--seed 0]
        [--write-docs docs/calibration.md]

The constants of the interval's degrees of freedom (``FACET_DF_DEFLATION``,
``FACET_DF_KURTOSIS``, ``CLIPPED_PART_NOISE``, ``irstab.verdict.jackknife``) were chosen on
the ten collections of the reference population (``bench_kurtosis_df.py``). This benchmark draws the same
kinds of settings from two collections that took no part in that choice, the score matrices
Urbano, Lima & Hanjalic published with "A New Perspective on Score Standardization" (SIGIR
2019; ``data/sigir2019-standardization``): TREC 2004 Robust (110 runs x 99 topics) and TREC
2006 Terabyte (61 x 149), nDCG against AP on the same systems and topics, each nDCG against
its null twin and its planted twin (``reference_universes(..., heldout=...)``), at 12 x 20,
20 x 25 and 30 x 40, systems and topics resampled with replacement, the truth from the whole
collection. Each setting is scored by the library's ``calibrate`` with the shipped rule and,
on the same seed, with three rules it replaced (the constant deflations (7, 4) with each
part counting c = 0.5 of the interaction it was cleared of, shipped before; the df read from
the clipped parts alone, (k_s, k_t) = (8, 4); and Satterthwaite over the whole facets,
(2, 2); ``bench_df_families.family_df``).

``--write-docs`` replaces the part of the Markdown file between ``<!-- heldout -->`` and
``<!-- /heldout -->`` (``bench_calibration.py`` keeps it when it rewrites the page).
About 30 seconds at 1000 collections a setting on 2 cores.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calibration import ROOT, SHIPPED  # noqa: E402
from _docs import write_or_print  # noqa: E402
from bench_df_families import family_df  # noqa: E402

import irstab.verdict.jackknife as jk  # noqa: E402
import irstab.verdict.jackknife_stack as jks  # noqa: E402
from irstab.verdict.calibration import calibrate  # noqa: E402
from irstab.verdict.reference import HELDOUT_FILES, read_sigir2019, reference_universes  # noqa: E402

HELDOUT = ROOT / "data" / "sigir2019-standardization"
MARKS = ("<!-- heldout -->", "<!-- /heldout -->")
#: the figures ``bench_calibration.py`` quotes in "The answer first"
SUMMARY = "<!-- heldout-summary "
#: (label, family of bench_df_families or None for the library's own, (k_s, k_t))
RULES = (("shipped", None, jk.FACET_DF_DEFLATION),
         ("constants (7, 4), c = 0.5: shipped before", "noise", (7.0, 4.0)),
         ("clipped parts, (8, 4)", "clipped", (8.0, 4.0)),
         ("whole facets, (2, 2)", "whole", (2.0, 2.0)))


def score(settings, rule, R: int, seed: int) -> list[dict]:
    """``calibrate``'s summary of every setting under ``rule`` (restored afterwards)."""
    _, family, k = rule
    saved = jk.facet_df, jks.facet_df, jk.FACET_DF_DEFLATION
    try:
        if family is not None:
            jk.facet_df = jks.facet_df = family_df(family, 0.5)
        jk.FACET_DF_DEFLATION = tuple(k)
        return [calibrate(s.universe, interval=SHIPPED, n_replicates=R, n_bootstrap=100,
                          seed=seed).summary() for s in settings]
    finally:
        jk.facet_df, jks.facet_df, jk.FACET_DF_DEFLATION = saved


def page(held: dict, settings, results: dict, R: int, seconds: float) -> str:
    floor = 0.93 - 2 * math.sqrt(0.93 * 0.07 / R)
    shipped = results[RULES[0][0]]
    truth = [abs(r["true_diff"]) > 1e-9 for r in shipped]
    when = datetime.date.today().isoformat()
    text = (f"Written by `python benchmarks/bench_heldout_collections.py --replicates {R} "
            f"--write-docs docs/calibration.md` on {when} ({platform.machine()}, "
            f"Python {platform.python_version()}; {seconds:.0f} s). {R} collections a setting; "
            f"the floor, 0.93 minus two Monte-Carlo errors, is {floor:.3f}.\n\n")
    cov = np.array([r["coverage"] for r, t in zip(shipped, truth) if t])
    nulls = [r["coverage"] for r, t in zip(shipped, truth) if not t]
    wrong = max(r["wrong_recommendations"] for r in shipped)
    text += (f"**Collections the rule never saw.** On TREC 2004 Robust and TREC 2006 Terabyte "
             f"(not used to choose the constants; but the shipped rule's floor of 3 degrees of "
             "freedom was set after a floor of 2 fell below 0.914 on them: section \"The "
             "facets' deflation read from the sample's kurtosis\") the shipped interval covers "
             f"{cov.min():.3f}-{cov.max():.3f} in the {len(cov)} settings whose truth is not 0 "
             f"({int((cov < floor).sum())} below {floor:.3f}; {np.mean(cov <= 0.975):.0%} at "
             f"most 0.975), at least {min(nulls):.3f} in the null twins, with wrong changes "
             f"at most {wrong:.1%}.\n\n")
    text += ("| collection | systems x topics | excess kurtosis of the system means "
             "(nDCG / AP) | of the topic means (nDCG / AP) |\n|---|---|---:|---:|\n")
    for coll, scores in held.items():
        n, a = scores["nDCG"], scores["AP"]
        text += (f"| {coll} | {n.shape[0]} x {n.shape[1]} | "
                 f"{stats.kurtosis(n.mean(1)):+.1f} / {stats.kurtosis(a.mean(1)):+.1f} | "
                 f"{stats.kurtosis(n.mean(0)):+.1f} / {stats.kurtosis(a.mean(0)):+.1f} |\n")
    labels = [r[0] for r in RULES]
    text += ("\n| setting | true diff. | " + " | ".join(
        f"{'**' + lab + '**' if i == 0 else lab}" for i, lab in enumerate(labels))
        + " | wrong changes, shipped | power, shipped |\n|---|---:|"
        + "---:|" * (len(labels) + 2) + "\n")
    for i, s in enumerate(settings):
        r0 = shipped[i]
        power = r0.get("power")
        text += (f"| {s.universe.name} | {r0['true_diff']:+.4f} | "
                 + " | ".join(f"{results[lab][i]['coverage']:.3f}" for lab in labels)
                 + f" | {r0['wrong_recommendations']:.1%} | "
                 + (f"{power:.1%}" if power is not None and np.isfinite(power) else "–")
                 + " |\n")
    text += "\n| rule | truth not 0: lowest | below the floor | at most 0.975 | null twins, lowest |\n"
    text += "|---|---:|---:|---:|---:|\n"
    for lab in labels:
        c = np.array([r["coverage"] for r, t in zip(results[lab], truth) if t])
        n = [r["coverage"] for r, t in zip(results[lab], truth) if not t]
        text += (f"| {lab} | {c.min():.3f} | {int((c < floor).sum())} of {len(c)} | "
                 f"{np.mean(c <= 0.975):.0%} | {min(n):.3f} |\n")
    summary = dict(min=float(cov.min()), max=float(cov.max()), n=len(cov),
                   below=int((cov < floor).sum()), share=float(np.mean(cov <= 0.975)),
                   null_min=float(min(nulls)), wrong=float(wrong), floor=floor, replicates=R)
    return text + f"\n{SUMMARY}{json.dumps(summary)} -->\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write-docs", type=Path, default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    held = read_sigir2019(HELDOUT, HELDOUT_FILES)
    settings = reference_universes(None, None, None, heldout=held)
    results = {}
    for rule in RULES:
        results[rule[0]] = score(settings, rule, args.replicates, args.seed)
        print(rule[0], [round(r["coverage"], 3) for r in results[rule[0]]], flush=True)
    text = page(held, settings, results, args.replicates, time.perf_counter() - t0)
    write_or_print(args.write_docs, MARKS, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
