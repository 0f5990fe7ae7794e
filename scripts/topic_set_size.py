"""How many topics, how deep, how many assessors? docs/topic-set-size.md, regenerated.

    python scripts/topic_set_size.py [--out docs/topic-set-size.md]

Computes every number and figure of the document from the DL-2019 runs and qrels in
../shared/data/trec-dl-2019-passage (and its re-annotation in
../shared/data/trec-dl-2019-reannotation) and the TREC-3 ad hoc AP matrix of
data/trec3-adhoc (gt4ireval's adhoc3): the D-study's topics for a Phi target, the topic set
sizes by power (Sakai, Information Retrieval Journal 2016: paired t-test, one-way ANOVA,
confidence interval; exact and with Sakai's approximations), what the collections' own
topics detect, and the best split of DL-2019's judgments over topics, pool depth and
assessors (depth study).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from irstab.design import budget_plan, depth_study, power_study
from irstab.evaluation import score_runs
from irstab.io import atomic_write_text
from irstab.io.scorematrix import read_score_matrix
from irstab.report.design_figures import plot_budget_frontier, plot_topics_needed
from irstab.stability import gstudy

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation" / "main"
TREC3 = REPO / "data" / "trec3-adhoc" / "AP.csv"
MEASURES = ["nDCG@10", "AP", "P@10", "RR"]
FIG = "figures"
TARGET = 0.95
MIN_DIFF = 0.05
MIN_RANGE = 0.10


def md_table(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, (float, np.floating)):
            if np.isinf(v):
                return "never"
            return f"{v:.0f}" if float(v).is_integer() else f"{v:.4f}"
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(cell(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def three_answers(name: str, matrices: dict) -> pd.DataFrame:
    exact = power_study(matrices, min_diff=MIN_DIFF, min_range=MIN_RANGE)
    sakai = power_study(matrices, min_diff=MIN_DIFF, min_range=MIN_RANGE, method="sakai")
    wide = power_study(matrices, min_diff=MIN_RANGE)  # the t-test at the ANOVA's margin
    rows = []
    for (measure, x), p, s, w in zip(matrices.items(), exact.plans, sakai.plans, wide.plans):
        g = gstudy(x, name=measure)
        rows.append({
            "collection": name, "measure": measure, "systems x topics":
                f"{g.n_systems} x {g.n_topics}",
            "sd of systems": float(np.sqrt(max(g.var_system, 0))),
            "sigma2 (V_E)": p.variance.variance,
            "Phi now": g.phi(),
            f"topics Phi={TARGET:g}": g.topics_needed(TARGET).n,
            f"t-test D={MIN_DIFF:g}": p.topics_ttest,
            "(Sakai approx.)": s.topics_ttest,
            f"t-test D={MIN_RANGE:g}": w.topics_ttest,
            f"ANOVA all systems, range {MIN_RANGE:g}": p.topics_anova,
            f"CI +-{p.half_width:g}": p.topics_ci,
            "detectable D now": p.mdd_ttest,
        })
    return pd.DataFrame(rows)


SIM_R = 10_000


def simulate(x: np.ndarray, n: int, diff: float, rng) -> float:
    """Rejection rate of the paired t-test (alpha 0.05): random pairs of runs, n topics drawn
    with replacement, differences diff + c (e_it - e_jt) from the ANOVA residuals e."""
    from scipy import stats

    s, t = x.shape
    e = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    c = np.sqrt(t / (t - 1))
    i = rng.integers(0, s, SIM_R)
    j = (i + rng.integers(1, s, SIM_R)) % s
    tops = rng.integers(0, t, (SIM_R, n))
    rows = np.arange(SIM_R)[:, None]
    d = diff + c * (e[i][rows, tops] - e[j][rows, tops])
    tt = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    return float((2 * stats.t.sf(np.abs(tt), n - 1) < 0.05).mean())


def _calibration_table(replicates: int = 4000) -> str:
    """The calibration table of benchmarks/bench_design.py (--calibration), as it prints it."""
    import contextlib
    import importlib.util
    import io

    spec = importlib.util.spec_from_file_location("bench_design",
                                                  REPO / "benchmarks" / "bench_design.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench.calibration(replicates)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "topic-set-size.md")
    args = ap.parse_args()
    out_dir = args.out.parent
    (out_dir / FIG).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    warnings.simplefilter("ignore")

    dl = score_runs(DL / "qrels.txt", DL / "runs", MEASURES).matrices()
    trec3 = {"AP": read_score_matrix(TREC3)}
    tab_dl = three_answers("DL-2019", dl)
    tab_t3 = three_answers("TREC-3", trec3)
    p_dl = power_study(dl, min_diff=MIN_DIFF)
    p_t3 = power_study(trec3, min_diff=MIN_DIFF)
    sim_n = int(p_dl.plan("nDCG@10").topics_ttest)
    rng = np.random.default_rng(2025)
    x = dl["nDCG@10"].to_numpy()
    sim_power, sim_level = simulate(x, sim_n, MIN_DIFF, rng), simulate(x, sim_n, 0.0, rng)
    f = plot_topics_needed(p_dl, out_dir / FIG / "topic-set-size-dl2019.png")
    plt.close(f)
    both = power_study({"DL-2019 AP": dl["AP"], "TREC-3 AP": trec3["AP"],
                        "DL-2019 nDCG@10": dl["nDCG@10"]}, min_diff=MIN_DIFF)
    f = plot_topics_needed(both, out_dir / FIG / "topic-set-size-trec3-vs-dl2019.png")
    plt.close(f)

    ds = depth_study(DL / "qrels.txt", DL / "runs", ["nDCG@10", "AP"], (5, 10, 20, 50, 100))
    depth_tab = ds.to_frame()[["measure", "depth", "judgments_per_topic", "coverage",
                               "n_topics", "var_system", "var_topic", "var_residual", "phi",
                               "tau_full"]]
    plans = {(m, c, mt): budget_plan(ds, m, cost_per_topic=c, min_tau=mt)
             for m in ("nDCG@10", "AP") for c in (0.0, 100.0) for mt in (None, 0.95)
             if not (m == "AP" and mt is not None)}
    f = plot_budget_frontier(plans[("nDCG@10", 0.0, None)],
                             out_dir / FIG / "topic-set-size-dl2019-budget.png", study=ds)
    plt.close(f)
    budget_rows = []
    for (m, c, mt), b in plans.items():
        ch = b.chosen
        budget_rows.append({"measure": m, "cost per topic": c,
                            "min tau": "-" if mt is None else mt,
                            "topics": ch["n_topics"], "pool depth": ch["depth"],
                            "cost": ch["cost"], "Phi": ch["phi"],
                            "detectable D": ch["mdd"], "tau vs full": ch["tau_full"]})
    budget_tab = pd.DataFrame(budget_rows)

    judges = None
    if RE.is_dir():
        ds3 = depth_study(DL / "qrels.txt", DL / "runs", ["nDCG@10"], (5, 10),
                          assessor_qrels=RE)
        judges = []
        for c in (0.0, 200.0, 1000.0, 4000.0):
            b = budget_plan(ds3, "nDCG@10", cost_per_topic=c, max_assessors=3)
            row = b.designs
            judges.append({"cost per topic": c, "topics": b.chosen["n_topics"],
                           "pool depth": b.chosen["depth"],
                           "assessors": b.chosen["n_assessors"], "Phi": b.chosen["phi"],
                           "best with 1 assessor":
                               row[row["n_assessors"] == 1]["phi"].max(),
                           "best with 2": row[row["n_assessors"] == 2]["phi"].max()})
        judges = pd.DataFrame(judges)
        f = plot_budget_frontier(budget_plan(ds3, "nDCG@10", cost_per_topic=1000.0,
                                             max_assessors=3),
                                 out_dir / FIG / "topic-set-size-dl2019-assessors.png",
                                 study=ds3)
        plt.close(f)
    calib = _calibration_table()
    from scipy import stats

    anova_df_gap = 0.0
    for name in ("nDCG@10", "AP"):
        pl = p_dl.plan(name)
        m, na = pl.m, int(pl.topics_anova)
        lam = na * pl.min_range**2 / (2 * pl.variance.variance)
        one, two = (stats.ncf.sf(stats.f.isf(0.05, m - 1, pe), m - 1, pe, lam)
                    for pe in (m * (na - 1), (m - 1) * (na - 1)))
        anova_df_gap = max(anova_df_gap, abs(one - two))
    seconds = time.perf_counter() - t0

    nd, ap_dl = tab_dl.iloc[0], tab_dl.iloc[1]
    t3 = tab_t3.iloc[0]
    pn = p_dl.plan("nDCG@10")
    b0 = plans[("nDCG@10", 0.0, None)].chosen
    b95 = plans[("nDCG@10", 0.0, 0.95)].chosen
    lines = [
        "# Planning the next collection: topics by Phi, by power and by budget",
        "",
        "*Generated by `python scripts/topic_set_size.py` on "
        f"{datetime.date.today().isoformat()} ({platform.machine()}, {seconds:.0f} s); every "
        "number below is computed by that script.*",
        "",
        "\"How many topics do I need?\" has three answers in irstab, because it is three "
        "questions:",
        "",
        f"1. **Phi target** (`irstab topics`, the D-study; Brennan 2001, Kanoulas & Aslam, CIKM "
        f"2009): topics for the dependability coefficient Phi to reach {TARGET:g}, i.e. for "
        "every system's mean score to be a dependable measurement. Phi counts the topic "
        "variance: hard and easy topics move every system's score.",
        "2. **Power** (`irstab design power`; Sakai, \"Topic set size design\", Information "
        "Retrieval Journal 19, 2016; Webber, Moffat & Zobel, CIKM 2008): topics for a paired "
        f"t-test to detect a difference D = {MIN_DIFF:g} between two systems with 80 % power "
        f"at alpha = 0.05, for a one-way ANOVA over all systems to detect a range of "
        f"{MIN_RANGE:g}, and for a 95 % interval of a difference no wider than +-"
        f"{MIN_DIFF / 2:g}. The variance they use is the residual variance V_E of the "
        "systems x topics ANOVA without replication (Sakai's estimate): in a paired "
        "difference the topic effect cancels, leaving 2 V_E.",
        "3. **Budget** (`irstab design budget`): for a number of judgments, the split over "
        "topics, pool depth and assessors per document that maximises Phi (or minimises the "
        "detectable difference), with the runs re-evaluated on the qrels of each pool depth.",
        "",
        "## The three answers side by side",
        "",
        "DL-2019 passage (37 runs x 43 topics) and TREC-3 ad hoc AP (40 systems x 50 topics, "
        "the matrix of gt4ireval; `data/trec3-adhoc/`):",
        "",
        md_table(pd.concat([tab_dl, tab_t3], ignore_index=True)),
        "",
        "(\"sd of systems\": the square root of the G-study's system variance component; "
        "\"Sakai approx.\": the t-test count with the normal approximations of Sakai's Excel "
        "tools instead of the exact noncentral t; \"now\": at the collection's own topics.)",
        "",
        "![Topics needed against the detectable difference, DL-2019]"
        f"({FIG}/topic-set-size-dl2019.png)",
        "",
        "AP on TREC-3 needs fewer topics than AP on DL-2019 for the same difference, because "
        f"its residual variance is smaller ({t3['sigma2 (V_E)']:.4f} against "
        f"{ap_dl['sigma2 (V_E)']:.4f}):",
        "",
        "![Topics needed: TREC-3 AP against DL-2019]"
        f"({FIG}/topic-set-size-trec3-vs-dl2019.png)",
        "",
        "### When they disagree, and why",
        "",
        f"* **Phi against the t-test.** On DL-2019 nDCG@10 the Phi target asks "
        f"{nd[f'topics Phi={TARGET:g}']:.0f} topics and the t-test "
        f"{nd[f't-test D={MIN_DIFF:g}']:.0f}; on TREC-3 AP the Phi target asks "
        f"{t3[f'topics Phi={TARGET:g}']:.0f} and the t-test {t3[f't-test D={MIN_DIFF:g}']:.0f}. "
        "Phi compares the spread of the systems (their standard deviation: "
        f"{nd['sd of systems']:.3f} for nDCG@10 on DL-2019, {t3['sd of systems']:.3f} for AP "
        "on TREC-3) with the topic and residual noise; the t-test compares the margin D "
        "with the residual noise alone, since topic difficulty cancels in a pair. When D is "
        "small against the spread of the systems (DL-2019: 0.05 against "
        f"{nd['sd of systems']:.3f}) telling two close systems apart needs more topics than "
        "ranking the field dependably; when the systems are close together and the topics "
        "very different (TREC-3, all 40 systems) the Phi target asks more. The two also "
        "react differently to a change of measure: Phi to the topic share, the t-test only "
        "to V_E.",
        f"* **t-test against ANOVA.** The ANOVA over all {nd['systems x topics'].split(' x ')[0]} "
        f"DL-2019 systems needs {nd[f'ANOVA all systems, range {MIN_RANGE:g}']:.0f} topics to "
        f"detect a range of {MIN_RANGE:g} between the best and the worst, where a t-test "
        f"between two systems {MIN_RANGE:g} apart needs {nd[f't-test D={MIN_RANGE:g}']:.0f}: "
        "with many systems the F-test spreads its power over every contrast (the least "
        "favourable configuration puts the others in the middle).",
        f"* **The interval.** A 95 % interval of +-{MIN_DIFF / 2:g} (DL-2019 nDCG@10: "
        f"{nd[f'CI +-{MIN_DIFF / 2:g}']:.0f} topics) asks about twice the topics of detecting "
        f"{MIN_DIFF:g} with 80 % power ({nd[f't-test D={MIN_DIFF:g}']:.0f}): the interval needs "
        "z sd / sqrt(n) <= D / 2, the test (z_alpha/2 + z_beta) sd / sqrt(n) <= D, and "
        "(2 x 1.96 / 2.80)^2 = 1.96.",
        f"* **Measures.** A measure with a smaller V_E needs fewer topics for the same D (AP "
        f"{ap_dl['sigma2 (V_E)']:.4f} against nDCG@10 {nd['sigma2 (V_E)']:.4f} on DL-2019), "
        f"but the same D is not the same difference on two scales: the mean AP here is "
        f"{dl['AP'].to_numpy().mean():.3f} and the mean nDCG@10 "
        f"{dl['nDCG@10'].to_numpy().mean():.3f}. Compare measures by effect size (D over "
        "the standard deviation of a paired difference) when their scales differ.",
        f"* **What the present collection detects.** With its 43 topics DL-2019 detects "
        f"D = {pn.mdd_ttest:.3f} in nDCG@10 with 80 % power (power at D = {MIN_DIFF:g}: "
        f"{pn.power_ttest:.2f}); TREC-3's 50 topics detect {p_t3.plans[0].mdd_ttest:.3f} in AP.",
        "",
        "A simulation checks the power answer on DL-2019 itself (as "
        "`tests/design/test_power_simulation.py` does): planting D = 0.05 in random pairs of "
        f"runs and drawing the recommended {sim_n} topics with replacement from the residuals "
        f"of the systems x topics ANOVA, the t-test rejects in {sim_power:.4f} of {SIM_R:,} "
        f"experiments (Monte-Carlo standard error {np.sqrt(0.16 / SIM_R):.4f}); with no "
        f"difference planted, in {sim_level:.4f} (the level, 0.05).",
        "",
        "The same answers on collections drawn from the fitted model (normal topic effects "
        "and residuals with DL-2019's components), tested as a user would test them "
        "(`python benchmarks/bench_design.py --calibration`). The ANOVA line runs the "
        "two-way test without replication, whose residual degrees of freedom (m-1)(n-1) "
        "are fewer than the m(n-1) of the one-way design formula; at these sizes that "
        f"changes its exact power by less than {anova_df_gap:.1e}, so its simulated rates "
        "(400 collections each, standard error 0.02) scatter around 0.80 by chance:",
        "",
        "```text",
        calib.rstrip(),
        "```",
        "",
        "## Depth study: what a shallower pool measures",
        "",
        "Each pool depth d judges, per topic, the documents some run puts in its top d; the "
        "runs are re-evaluated with the qrels restricted to that pool (unjudged counts as "
        "non-relevant). Coverage is the share of the pool the official qrels judge: NIST "
        "judged DL-2019 to about depth 10, so deeper pools are partly unjudged and their "
        "scores are a lower bound (their cost is the full pool's).",
        "",
        md_table(depth_tab),
        "",
        "## Budget: the same judgments, spent differently",
        "",
        f"DL-2019's qrels hold {ds.judgments:,} judgments on 43 topics (about "
        f"{ds.judgments / 43:.0f} per topic). Spent on a pool of depth {b0['depth']} "
        f"({b0['judgments_per_topic']:.0f} judgments per topic) they buy {b0['n_topics']} "
        f"topics and Phi {b0['phi']:.3f} (detectable D {b0['mdd']:.3f}) instead of 43 topics "
        f"and Phi {plans[('nDCG@10', 0.0, None)].current['phi']:.3f}, the conclusion of "
        "Webber, Moffat & Zobel (CIKM 2008): shallow judging of many topics beats deep "
        "judging of few. The price is fidelity: at depth "
        f"{b0['depth']} the system ranking has Kendall tau {b0['tau_full']:.3f} with the "
        f"full qrels'. Requiring tau >= 0.95 (`--min-tau 0.95`) moves the choice to depth "
        f"{b95['depth']} and {b95['n_topics']} topics (Phi {b95['phi']:.3f}). A cost per "
        "topic (writing it, running the systems) makes topics dearer and the pool's share of "
        "the cost smaller, so fewer topics at the same depth; AP, which reads the whole "
        "ranking, agrees much less with its full-qrels ranking at shallow depths (tau "
        f"{plans[('AP', 0.0, None)].chosen['tau_full']:.3f} at depth 5):",
        "",
        md_table(budget_tab),
        "",
        "![Budget frontier, DL-2019 nDCG@10](" + FIG + "/topic-set-size-dl2019-budget.png)",
        "",
    ]
    if judges is not None:
        lines += [
            "### With assessors",
            "",
            "With the re-annotation of DL-2019 (NIST and a pair of re-annotators per topic; "
            "three-facet nested G-study s x (a:t) at each pool depth), a second assessor per "
            "document is a design too. It pays only when topics are expensive: a new topic "
            "removes topic *and* system x topic noise, a second judgment only the system x "
            "assessor part.",
            "",
            md_table(judges),
            "",
            "![Budget frontier with assessors, topics costing 1000 judgments]("
            + FIG + "/topic-set-size-dl2019-assessors.png)",
            "",
        ]
    lines += [
        "## Reproduce",
        "",
        "```console",
        "$ irstab design power qrels.txt runs/ -m nDCG@10 -m AP -m P@10 -m RR --figure t.png",
        "$ irstab design power --scores data/trec3-adhoc/AP.csv --min-range 0.1",
        "$ irstab design budget qrels.txt runs/ -m nDCG@10 -m AP --figure budget.png",
        "$ irstab design budget qrels.txt runs/ -a trec-dl-2019-reannotation/main "
        "--depths 5,10 --cost-per-topic 1000",
        "$ python scripts/topic_set_size.py",
        "```",
        "",
    ]
    atomic_write_text(args.out, "\n".join(lines))
    print(f"wrote {args.out} ({seconds:.0f} s)")


if __name__ == "__main__":
    main()
