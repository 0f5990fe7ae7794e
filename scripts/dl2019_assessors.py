"""Who judged matters how much? The assessor facet on TREC DL 2019: docs/dl2019-assessors.md.

    python scripts/dl2019_assessors.py [--out docs/dl2019-assessors.md] [--resamples 1000]

Regenerates the document and its figures (docs/figures/dl2019-assessors-*.png) from the
DL-2019 runs and qrels in ../shared/data/trec-dl-2019-passage and the re-annotation in
../shared/data/trec-dl-2019-reannotation: the three-facet G-study s x (a:t) (NIST and a pair
of re-annotators per topic) for nDCG@10, AP, P@10 and graded measures; topics with one
assessor against two; the gain vector that maximises Phi of that design against the linear
and exponential gains; Kendall's tau between the system rankings under each assessor's
qrels (main round and the fully crossed calibration round, with its crossed G-study).
Every number in the document is computed here.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from irstab.collection.assessors import assessor_collection
from irstab.compare import rank_correlation
from irstab.errors import IRStabWarning
from irstab.io import atomic_write_text
from irstab.metrics import parse_measure
from irstab.optimizer import optimize_assessors
from irstab.report.assessor_figures import plot_phi_contours, plot_variance_shares
from irstab.stability.facets import facet_gstudy
from irstab.stability.objective import FacetObjective

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DL = SHARED / "trec-dl-2019-passage"
RE = SHARED / "trec-dl-2019-reannotation"
MEASURES = ["nDCG@10", "nDCG(gain=exp)@10", "nDCG@100", "AP", "P@10", "GAP", "xGAP", "eGAP"]
FIG = "figures"


def md_table(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    def cell(v) -> str:
        if isinstance(v, (float, np.floating)):
            return "inf" if np.isinf(v) else format(float(v), floatfmt)
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "|".join(
        "---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame.columns
    ) + "|"
    rows = ["| " + " | ".join(cell(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join([head, sep, *rows])


def fmt_gain(g) -> str:
    g = np.asarray(g, dtype=float)
    g = g / g[1:].max()
    return "(" + ", ".join(f"{v:.3f}" for v in g) + ")"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "dl2019-assessors.md")
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    out_dir = args.out.parent
    (out_dir / FIG).mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore", IRStabWarning)
    t_start = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - t_start:6.1f} s] {msg}", flush=True)

    # ------------------------------------------------------------ data
    log("building the (topic, assessor) collection of the main round")
    ac = assessor_collection(DL / "qrels.txt", DL / "runs", RE / "main")
    long = ac.scores(MEASURES)
    cells = ac.cells
    per_topic = cells.groupby("topic")["assessor"].nunique()
    studies = []
    for m in MEASURES:
        f = long[long["measure"] == m].drop(columns="measure")
        studies.append(facet_gstudy(f, "nested", name=m))
    log("G-studies done")
    boot = {g.name: g.bootstrap(args.resamples, seed=0) for g in studies}
    log("bootstrap done")

    # ------------------------------------------------------------ 1. shares
    rows = []
    for g in studies:
        pct = dict(zip(g.sources, g.percent))
        iv = boot[g.name]
        rows.append(
            {
                "measure": g.name,
                "s %": pct["s"],
                "t %": pct["t"],
                "a:t %": pct["a:t"],
                "st %": pct["st"],
                "sa:t %": pct["sa:t"],
                "Phi (43 x 3)": g.phi(g.n_topics, 3),
                "95% CI": f"[{iv.phi[0]:.3f}, {iv.phi[1]:.3f}]",
                "Phi (43 x 1)": g.phi(g.n_topics, 1),
                "Erho2 (43 x 1)": g.erho2(g.n_topics, 1),
            }
        )
    shares = pd.DataFrame(rows)
    plot_variance_shares(
        studies, out_dir / FIG / "dl2019-assessors-shares.png",
        title="DL-2019, s x (a:t): NIST + a pair of re-annotators per topic",
    )
    plot_phi_contours(
        [g for g in studies if g.name in ("nDCG@10", "AP", "P@10")],
        out_dir / FIG / "dl2019-assessors-contours.png",
    )
    log("shares and contours done")

    # ------------------------------------------------------------ 2. one vs two
    sizes = (25, 43, 50, 100)
    eq_rows = []
    for g in studies:
        r = {"measure": g.name}
        for n in sizes:
            r[f"{n} x 2 = ? x 1"] = g.topics_needed(g.phi(n, 2), 1) if g.phi(n, 2) < 1 else np.inf
        r["topics Phi>=0.95, 1a"] = g.topics_needed(0.95, 1)
        r["2a"] = g.topics_needed(0.95, 2)
        r["3a"] = g.topics_needed(0.95, 3)
        nd = g.needed(0.95, cost_ratio=1.0, max_assessors=5)
        r["cheapest, cost ratio 1"] = f"{int(nd.n_topics)} x {nd.n_assessors}"
        nd5 = g.needed(0.95, cost_ratio=5.0, max_assessors=5)
        r["cost ratio 5"] = f"{int(nd5.n_topics)} x {nd5.n_assessors}"
        eq_rows.append(r)
    equiv = pd.DataFrame(eq_rows)
    for c in equiv.columns[1:-2]:
        equiv[c] = [("inf" if not np.isfinite(v) else str(int(v))) for v in equiv[c]]
    _plot_one_vs_two(studies[0], out_dir / FIG / "dl2019-assessors-one-vs-two.png")
    log("one vs two done")

    # ------------------------------------------------------------ 3. robust gain
    opt = optimize_assessors(ac, 10, vary="gain", discount="log2")
    obj = FacetObjective.from_cells(cells, "nested")
    obj_43 = FacetObjective.from_cells(cells, "nested", n_topics=43, n_assessors=1)
    gain_rows = []
    candidates = [
        ("assessor-robust (optimised)", str(opt)),
        ("linear", "nDCG@10"),
        ("exponential", "nDCG(gain=exp)@10"),
    ]
    two_facet = {}
    nist = ac.cells["assessor"].to_numpy() == "qrels"
    gain_studies = []
    for label, text in candidates:
        m = parse_measure(text)
        x = m.compute(ac.collection)
        f = pd.DataFrame(
            {
                "system": np.repeat(np.array(ac.collection.systems, dtype=object), len(cells)),
                "topic": np.tile(cells["topic"].to_numpy(), len(ac.collection.systems)),
                "assessor": np.tile(cells["assessor"].to_numpy(), len(ac.collection.systems)),
                "score": x.ravel(),
            }
        )
        g = facet_gstudy(f, "nested", name=label)
        gain_studies.append(g)
        from irstab.stability import gstudy

        two_facet[label] = gstudy(x[:, nist]).phi(1)
        pct = dict(zip(g.sources, g.percent))
        gain_rows.append(
            {
                "gain": label,
                "gain vector (max = 1)": fmt_gain(m.gain.vector(3)),
                "Phi(1 x 1)": float(obj.values(x)),
                "Phi(43 x 1)": float(obj_43.values(x)),
                "sa:t %": pct["sa:t"],
                "a:t %": pct["a:t"],
                "two-facet Phi(1), NIST only": two_facet[label],
            }
        )
    gains = pd.DataFrame(gain_rows)
    log("robust gain done")

    # ------------------------------------------------------------ 4. Kendall's tau
    x10 = parse_measure("nDCG@10").compute(ac.collection)
    tau_rows = []
    for a_name in ac.assessors:
        if a_name == "qrels":
            continue
        mine = cells["assessor"].to_numpy() == a_name
        topics = set(cells.loc[mine, "topic"])
        base_cols = nist & cells["topic"].isin(topics).to_numpy()
        order = cells.loc[mine, "topic"].to_numpy()
        base_order = cells.loc[base_cols, "topic"].to_numpy()
        assert sorted(order) == sorted(base_order)
        means = pd.DataFrame(
            {"NIST": x10[:, base_cols].mean(axis=1), a_name: x10[:, mine].mean(axis=1)},
            index=ac.collection.systems,
        )
        rc = rank_correlation(means)
        tau_rows.append(
            {"assessor": a_name, "topics": len(topics),
             "tau vs NIST (nDCG@10, same topics)": float(rc.kendall_tau[0, 1]),
             "tau_AP": float(rc.tau_ap[0, 1])}
        )
    taus = pd.DataFrame(tau_rows)
    log("main-round taus done")
    cal = assessor_collection(DL / "qrels.txt", DL / "runs", RE / "agreement-round")
    cal_long = cal.scores("nDCG@10").drop(columns="measure")
    cal_means = cal_long.groupby(["system", "assessor"])["score"].mean().unstack()
    cal_means = cal_means[list(cal.assessors)].rename(columns={"qrels": "NIST"})
    cal_rc = rank_correlation(cal_means)
    _plot_tau(cal_rc, out_dir / FIG / "dl2019-assessors-tau.png")
    cal_crossed = facet_gstudy(cal_long, "crossed", name="nDCG@10 (calibration round)")
    cal_tab = cal_crossed.to_frame()[["source", "df", "variance", "percent"]]
    off = cal_rc.kendall_tau[np.triu_indices(len(cal_means.columns), 1)]
    log("calibration round done")

    # ------------------------------------------------------------ document
    g10 = studies[0]
    lines = [
        "# Who judged? The assessor facet on TREC DL 2019",
        "",
        f"Generated by `scripts/dl2019_assessors.py` on {datetime.date.today().isoformat()} "
        f"(Python {platform.python_version()}, numpy {np.__version__}; "
        f"{time.perf_counter() - t_start:.0f} s). Every number below is computed by that "
        "script; rerun it to regenerate.",
        "",
        "## Data and design",
        "",
        f"37 official runs of TREC 2019 Deep Learning (passages), {g10.n_topics} judged topics. "
        "Eight researchers re-judged about 40% of the NIST pool of each topic in pairs "
        "(both members of a pair judged the same documents); with NIST's judgments every topic "
        f"has {int(per_topic.min())}-{int(per_topic.max())} judgments of the same documents "
        f"({(per_topic == per_topic.mode()[0]).sum()} topics with {int(per_topic.mode()[0])}; "
        f"topic 168216 was judged by all eight). Each system is scored on each topic under "
        "each assessor's qrels; documents an assessor did not judge keep their NIST grade "
        "(`--missing base`, the default: a score differs from NIST's only where the assessor "
        f"judged differently). {len(cells)} (topic, assessor) cells in all; a cell where an "
        "assessor found nothing relevant is left out.",
        "",
        "Assessors are nested in topics (a pair judged only its own topics), so the design is "
        "s x (a:t) (Brennan, *Generalizability Theory*, 2001, ch. 7) with five components: "
        "systems `s`, topics `t`, assessors within topics `a:t`, the system x topic "
        "interaction `st` and the system x assessor-within-topic interaction plus error "
        "`sa:t`. The last is the one that reorders systems depending on who judged. The "
        "design is unbalanced (the number of assessors varies by topic), so the components "
        "come from Henderson's method 1, the analogous ANOVA of urGENOVA (validated against "
        "GeneralizIT and Brennan's Synthetic Data Set No. 4 in the test suite). Intervals: "
        f"{args.resamples} percentile-bootstrap resamples over topics and assessors.",
        "",
        "## 1. Variance shares",
        "",
        "Shares of each component in the total (components truncated at 0). Phi (43 x 3) is "
        "the D-study at 43 topics with 3 assessors per topic (the observed design is 43 x "
        f"{g10.n_assessors:.2f}, the harmonic mean), Phi (43 x 1) with one assessor per topic.",
        "",
        md_table(shares, ".3f"),
        "",
        "![Variance shares](figures/dl2019-assessors-shares.png)",
        "",
        "![Phi contours](figures/dl2019-assessors-contours.png)",
        "",
        _shares_prose(shares),
        "",
        "## 2. Topics with one assessor against topics with two",
        "",
        "`n x 2 = ? x 1`: how many topics judged once give the Phi of n topics judged twice. "
        "Then the topics needed for Phi >= 0.95 with 1, 2 and 3 assessors per topic, and the "
        "cheapest design when a topic costs 1 (or 5) times one assessor's judging of one topic "
        "(cost = topics x (ratio + assessors)).",
        "",
        md_table(equiv),
        "",
        "![One against two assessors](figures/dl2019-assessors-one-vs-two.png)",
        "",
        _equiv_prose(studies[0]),
        "",
        "## 3. The assessor-robust gain",
        "",
        "The gain vector of nDCG@10 (log2 discount) that maximises Phi of the s x (a:t) design "
        "at one topic and one assessor (the system share of one score, the three-facet analogue "
        "of Kanoulas & Aslam's Phi(1), CIKM 2009), against the linear and exponential gains. "
        "The last column is the two-facet Phi(1) on the NIST judgments alone.",
        "",
        md_table(gains, ".4f"),
        "",
        f"Optimum: `{opt}` ({opt.method}, {len(opt.starts)} starts, {opt.seconds:.1f} s).",
        "",
        _gain_prose(gains),
        "",
        "## 4. Kendall's tau between the system rankings",
        "",
        "Main round: systems ranked by mean nDCG@10 over the topics an assessor judged, under "
        "the assessor's qrels and under NIST's on the same topics.",
        "",
        md_table(taus, ".3f"),
        "",
        f"Median tau {taus.iloc[:, 2].median():.3f} (range {taus.iloc[:, 2].min():.3f}-"
        f"{taus.iloc[:, 2].max():.3f}); tau_AP, which weighs swaps near the top more, is lower "
        f"for {(taus['tau_AP'] < taus.iloc[:, 2]).sum()} of {len(taus)} assessors "
        f"({taus['tau_AP'].median():.3f} median).",
        "",
        "Calibration round: all eight and NIST on the same 188 documents of 3 topics (fully "
        f"crossed). Kendall's tau between the rankings by mean nDCG@10 ranges from "
        f"{off.min():.3f} to {off.max():.3f} (median {np.median(off):.3f}); its crossed "
        "s x t x a G-study:",
        "",
        md_table(cal_tab, ".5f"),
        "",
        f"Phi (3 topics x 9 assessors) = {cal_crossed.phi():.3f}; with 1 assessor "
        f"{cal_crossed.phi(3, 1):.3f}.",
        "",
        "![Kendall's tau, calibration round](figures/dl2019-assessors-tau.png)",
        "",
    ]
    atomic_write_text(args.out, "\n".join(lines))
    log(f"wrote {args.out}")


def _shares_prose(shares: pd.DataFrame) -> str:
    lo = shares.loc[shares["sa:t %"].idxmin()]
    hi = shares.loc[shares["sa:t %"].idxmax()]
    best = shares.loc[shares["Phi (43 x 3)"].idxmax()]
    return (
        f"The system x assessor component ranges from {lo['sa:t %']:.1f}% ({lo['measure']}) to "
        f"{hi['sa:t %']:.1f}% ({hi['measure']}); the assessors' main effect within topics "
        f"(`a:t`, a stricter or more lenient judge lifts or lowers every system alike) from "
        f"{shares['a:t %'].min():.1f}% to {shares['a:t %'].max():.1f}%. "
        f"Highest Phi (43 x 3): {best['measure']} ({best['Phi (43 x 3)']:.3f})."
    )


def _equiv_prose(g) -> str:
    one = g.topics_needed(g.phi(50, 2), 1)
    return (
        f"For {g.name}, 50 topics judged by two assessors are worth {int(one)} topics judged by "
        f"one: a second judgment of every topic buys {one / 50 - 1:.0%} more topics' worth of "
        "dependability, because the system x assessor component is small next to the system x "
        "topic one. When a topic costs no more than one assessor's judging of it, new topics "
        "are cheaper than second opinions; a second assessor pays only when building a topic "
        "is several times dearer."
    )


def _gain_prose(gains: pd.DataFrame) -> str:
    opt, lin, exp = (gains.iloc[i] for i in range(3))
    return (
        f"The gain that maximises the three-facet Phi, {opt['gain vector (max = 1)']}, is "
        f"{'flatter' if opt_flatter(opt) else 'steeper'} than linear at the low grades, so a "
        "grade an assessor gives differently moves the score less. It changes the system x "
        f"assessor share from {lin['sa:t %']:.2f}% "
        f"(linear) and {exp['sa:t %']:.2f}% (exponential) to {opt['sa:t %']:.2f}% and lifts "
        f"Phi(1 x 1) from {lin['Phi(1 x 1)']:.4f} (linear) and {exp['Phi(1 x 1)']:.4f} "
        f"(exponential) to {opt['Phi(1 x 1)']:.4f}; of the three, "
        f"{gains.loc[gains['Phi(1 x 1)'].idxmin(), 'gain']} is the least robust to who judged."
    )


def opt_flatter(row) -> bool:
    """Whether the optimised gain of grade 1 (max = 1) is above the linear 1/3."""
    return float(row["gain vector (max = 1)"].strip("()").split(",")[1]) > 1 / 3


def _plot_one_vs_two(g, path: Path) -> None:
    from matplotlib.ticker import NullLocator

    from irstab.report.assessor_figures import _log_ticks
    from irstab.report.figures import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    n = np.arange(1, 201)
    for n_a, style in ((1, "-"), (2, "--"), (3, ":")):
        ax.plot(n, g.phi(n, n_a), style, label=f"{n_a} assessor{'s' if n_a > 1 else ''} per topic")
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle="-.")
    ax.axvline(g.n_topics, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlim(1, 200)
    ax.set_xticks(_log_ticks(200), [f"{v:g}" for v in _log_ticks(200)])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(0, 1)
    ax.text(1.1, 0.95, r"$\Phi$ = 0.95", va="bottom", fontsize=8, color="grey")
    ax.set_xlabel("topics")
    ax.set_ylabel(r"dependability $\Phi$")
    ax.set_title(f"{g.name}, s x (a:t) D-study (vertical: observed {g.n_topics} topics)",
                 fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.savefig(path, dpi=150)
    plt.close(fig)


def _plot_tau(rc, path: Path) -> None:
    from irstab.report.figures import pyplot

    plt = pyplot()
    names = list(rc.measures)
    m = np.asarray(rc.kendall_tau)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), layout="constrained")
    im = ax.imshow(m, vmin=min(0.0, m.min()), vmax=1.0, cmap="viridis")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for i in range(len(names)):
        for j in range(len(names)):
            ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if m[i, j] < 0.6 else "black")
    fig.colorbar(im, ax=ax, label="Kendall's tau")
    ax.set_title("Calibration round: Kendall's tau of system rankings by mean nDCG@10",
                 fontsize=9)
    fig.savefig(path, dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    main()
