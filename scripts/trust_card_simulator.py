"""The simulator's sections of docs/trust-card.md, regenerated.

    python scripts/trust_card_simulator.py [--out docs/trust-card.md]

Fits the simulator of a collection (irstab.simulate) to DL-2019 nDCG@10 (the 37 runs and
qrels in ../shared/data/trec-dl-2019-passage, used in place) and to the TREC-3 ad hoc AP
matrix (data/trec3-adhoc, gt4ireval's adhoc3), with the Gaussian and the vine copula, and
writes two sections, "The simulator" and "Does it look like the collection?", between the
markers ``<!-- simulator:begin -->`` and ``<!-- simulator:end -->`` of the document (the
rest of the document is left as it is; a new document gets a title), with the fit-check
figures in docs/figures/. Every number in them is computed here; seeds are fixed.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import re
import time
import warnings
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd

from irstab.io import atomic_write_text
from irstab.io.scorematrix import read_score_matrix
from irstab.report.fitcheck_figures import plot_fit_check
from irstab.simulate import fit_check, fit_collection, fit_gtheory
from irstab.stability import gstudy

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
TREC3 = REPO / "data" / "trec3-adhoc" / "AP.csv"
FIG = "figures"
BEGIN, END = "<!-- simulator:begin -->", "<!-- simulator:end -->"
COMMAND = "python scripts/trust_card_simulator.py"
R = 1000
N_REFERENCE = 20


def md_table(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, (float, np.floating)):
            if v != v:
                return ""
            return f"{v:.0f}" if float(v).is_integer() and abs(v) >= 1 else f"{v:.3f}"
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(cell(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def timed(fn):
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c, time.perf_counter() - w


def collections() -> dict[str, pd.DataFrame]:
    import irstab

    coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
    return {"DL-2019 nDCG@10": irstab.score_matrix(coll, "nDCG@10"),
            "TREC-3 AP": read_score_matrix(TREC3)}


def model_rows(name: str, x: pd.DataFrame) -> tuple[dict, dict]:
    out, timing = {}, {}
    for copula in ("gaussian", "vine"):
        model, c, w = timed(lambda: fit_collection(x, copula=copula))
        draws, dc, dw = timed(lambda: model.draw(R, x.shape[1], rng=1))
        out[copula] = model
        timing[copula] = (c, w, dc, dw)
    return out, timing


def simulator_section(data: dict[str, pd.DataFrame]) -> tuple[list[str], dict]:
    lines = ["## The simulator", ""]
    lines += [
        "`irstab.simulate.fit_collection(scores)` fits, to a systems x topics score matrix of one",
        "measure, the model of Urbano & Nagler (\"Stochastic Simulation of Test Collections:",
        "Evaluation Scores\", SIGIR 2018): each system's scores over topics follow a *margin* on the",
        "measure's range, chosen by BIC among a beta, a truncated normal and Chen's beta-kernel",
        "estimate (continuous measures), or a beta-binomial and a discrete kernel (lattices such as",
        "P@10 and RR, detected from the scores), each with point masses at 0 and 1 where scores pile",
        "up there; the systems are joined by a *copula* fitted on the ranks of their scores over",
        "topics (a Gaussian copula, or a vine copula from pyvinecopulib). A new topic is one draw of",
        "the copula mapped through every margin; `model.draw(R, T, rng)` returns `R` collections of",
        "`T` new topics at once, an array `(R, S, T)`. The margins are stored as the piecewise-linear",
        "quantile functions that are drawn from, so each system's expected score (`model.means`) is",
        "exact, and `model.plant(j, like=i, delta=d)` gives system `j` the margin of system `i`",
        "moved to mean `mu_i + d` (to 1e-9) by a Beta-CDF transform, keeping the copula: \"no",
        "difference\" and \"a difference of d\" become known truths.",
        "",
        "`irstab.simulate.fit_gtheory(scores)` is the G-theory-faithful variant (after Urbano,",
        "Information Retrieval Journal 19, 2016): the systems' means fixed, each new topic's effect",
        "and residuals drawn together from a kernel estimate of the collection's topics (so their",
        "dependence is kept), scaled so that the universe's variance components are exactly the",
        "collection's G-study estimates; `model.components` returns them, hence the true Phi and",
        "topics needed at any size.",
        "",
    ]
    rows, speed, models = [], [], {}
    for name, x in data.items():
        fitted, timing = model_rows(name, x)
        models[name] = fitted
        g = fitted["gaussian"]
        fams = Counter(m.family for m in g.margins)
        vals = x.to_numpy()
        rows.append({
            "collection": name,
            "systems x topics": f"{vals.shape[0]} x {vals.shape[1]}",
            "support": "continuous" if g.lattice is None else str(g.lattice),
            "margins (BIC)": ", ".join(f"{f} {c}" for f, c in fams.most_common()),
            "scores at 0: data / model": f"{(vals == 0).mean():.3f} / {g.p_lo.mean():.3f}",
            "scores at 1: data / model": f"{(vals == 1).mean():.3f} / "
                                         f"{np.mean([m.p_hi for m in g.margins]):.3f}",
            "Gaussian copula": f"rank {g.copula.factor.shape[1]}, taus moved <= "
                               f"{g.copula.projection:.3f}",
            "vine copula": fitted["vine"].copula.describe().removeprefix("vine copula (")
                                                             .removesuffix(")"),
        })
        for copula, (c, w, dc, dw) in timing.items():
            speed.append({"collection": name, "copula": copula, "fit CPU s": c, "fit wall s": w,
                          f"draw {R} collections CPU s": dc, f"draw {R} collections wall s": dw})
    lines += ["The models fitted to the two collections:", "", md_table(pd.DataFrame(rows)), ""]
    gt_rows = []
    for name, x in data.items():
        gs = gstudy(x)
        gt = fit_gtheory(x)
        c = gt.components
        draws = gt.draw(R, x.shape[1], rng=2)
        gt_rows.append({
            "collection": name, "sigma2 system": c.system, "sigma2 topic": c.topic,
            "sigma2 residual": c.residual, "G-study of the data": f"{gs.var_system:.5f}, "
            f"{gs.var_topic:.5f}, {gs.var_residual:.5f}",
            "true Phi at its topics": c.phi(x.shape[1]), "topics for Phi = 0.95":
                c.topics_needed(0.95),
            "draws outside [0, 1]": f"{((draws < 0) | (draws > 1)).mean():.1%}",
        })
    lines += [
        "The G-theory model's truth on the same collections (the components are those of the",
        "collection's G-study by construction; its draws are not clipped to the measure's range,",
        "since clipping would change them):", "",
        md_table(pd.DataFrame(gt_rows).round(5)), "",
        f"Speed ({platform.processor() or platform.machine()}, 2 cores shared with other work, "
        f"{datetime.date.today().isoformat()}; CPU seconds of the process and wall seconds; "
        f"`python benchmarks/bench_simulator.py` times the same and a scipy peer):", "",
        md_table(pd.DataFrame(speed)), "",
    ]
    return lines, models


def check_section(data: dict[str, pd.DataFrame], figures: Path) -> list[str]:
    lines = ["## Does it look like the collection?", ""]
    lines += [
        "`irstab.simulate.fit_check(scores)` fits the simulator on a random half of the topics,",
        f"draws {R} collections with as many topics as the other half, and asks of each system's",
        "mean, variance and zero fraction (share of scores at 0), and of Kendall's tau between",
        "every two systems' score vectors, whether the held-out half's value lies in the central",
        "95 % of the simulated values. A correct model scores less than 95 %: it is fitted on half",
        "the topics, so its centre carries that half's sampling error (for a mean, about",
        "2 Phi(1.96 / sqrt 2) - 1 = 83 % for equal halves). The check therefore runs the same",
        f"split, refit, simulation and comparison on {N_REFERENCE} collections drawn from the fitted",
        "model itself: the *reference* column is the share inside that a model which is right",
        "scores. The systems' statistics are not independent (a half with harder topics moves every",
        "system's mean together), so the counts vary from split to split more than binomially.",
        "",
    ]
    summary_rows = []
    for name, x in data.items():
        for copula in ("gaussian", "vine"):
            chk = fit_check(x, copula=copula, n_collections=R, n_reference=N_REFERENCE, seed=0)
            s = chk.summary_frame()
            for r in s.itertuples():
                summary_rows.append({
                    "collection": name, "copula": copula, "statistic": r.statistic,
                    "inside": f"{r.inside}/{r.compared}", "share inside": r.share_inside,
                    "reference (correct model)": r.reference_share,
                    "mean abs error": r.mean_abs_error, "mean 95 % range width": r.mean_range_width,
                })
            if copula == "gaussian":
                slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
                path = figures / f"fitcheck-{slug}.png"
                plot_fit_check(chk, path, title=f"{name}: {chk.summary()}")
                lines += [f"![{name}: held-out half against the simulated collections]"
                          f"({FIG}/{path.name})", "", f"*{name}, Gaussian copula: {chk.summary()}*",
                          ""]
    table = pd.DataFrame(summary_rows)
    lines += ["All four checks (seed 0; one split per collection, the same split for both",
              "copulas):", "", md_table(table), ""]
    gap = table["share inside"] - table["reference (correct model)"]
    worst = table.loc[gap.idxmin()]
    lines += [
        f"Where the simulator falls furthest below a correct model: {worst['collection']}, "
        f"{worst['copula']} copula, {worst['statistic']} ({worst['share inside']:.0%} inside "
        f"against {worst['reference (correct model)']:.0%}).", ""]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "trust-card.md")
    args = ap.parse_args()
    figures = args.out.parent / FIG
    figures.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore", category=RuntimeWarning)
    data = collections()
    sim_lines, _ = simulator_section(data)
    block = [BEGIN, f"<!-- written by `{COMMAND}`; do not edit by hand -->", "", *sim_lines,
             *check_section(data, figures), END]
    text = "\n".join(block)
    if args.out.exists():
        old = args.out.read_text()
        if BEGIN in old and END in old:
            head, rest = old.split(BEGIN, 1)
            new = head + text + rest.split(END, 1)[1]
        else:
            new = old.rstrip("\n") + "\n\n" + text + "\n"
    else:
        new = ("# How far to trust each answer on this collection\n\n"
               "Every statistical answer irstab gives rests on assumptions that real score "
               "matrices break in ways of their own. The simulator of a collection draws new "
               "collections that look like the user's, with truths planted, so that those "
               "answers can be checked on collections like this one.\n\n" + text + "\n")
    atomic_write_text(args.out, new)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
