"""The trust-card sections of docs/trust-card.md, regenerated.

    python scripts/trust_card_docs.py [--out docs/trust-card.md]

Runs :func:`irstab.trust.card.calibrate_collection` (what ``irstab calibrate`` and the
report's trust card run) with its defaults on DL-2019 nDCG@10 (the 37 runs and qrels in
../shared/data/trec-dl-2019-passage, used in place) and on the TREC-3 ad hoc AP matrix
(data/trec3-adhoc, gt4ireval's adhoc3), draws their cards' figures into docs/figures/, and
compares the tests' type I errors with the pattern Urbano, Lima & Hanjalic (SIGIR 2019)
report, at several topic counts and measures. Writes the sections between
``<!-- card:begin -->`` and ``<!-- card:end -->`` (after the simulator's sections of
scripts/trust_card_simulator.py; the rest of the document is left as it is). Every number
is computed here; seeds are fixed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import pandas as pd

from irstab.metrics import parse_measure
from irstab.report.study import preset_set
from irstab.trust.card import calibrate_collection
from irstab.io import atomic_write_text
from irstab.io.scorematrix import read_score_matrix
from irstab.report.trust_figures import plot_trust_card

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
TREC3 = REPO / "data" / "trec3-adhoc" / "AP.csv"
BEGIN, END = "<!-- card:begin -->", "<!-- card:end -->"
COMMAND = "python scripts/trust_card_docs.py"
TESTS = ("t", "permutation", "bootstrap", "wilcoxon", "sign", "tukey")
NAMES = {"t": "t", "permutation": "permutation", "bootstrap": "bootstrap",
         "wilcoxon": "Wilcoxon", "sign": "sign", "tukey": "Tukey HSD"}


def rate(v: float, se: float) -> str:
    return "" if v != v else f"{v:.3f} ± {se:.3f}"


def dl_scores(measures):
    import irstab

    coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
    return irstab.score_matrices(coll, measures)


def card_section(name: str, card, figure: str, seconds: float) -> list[str]:
    m = card.model_dict()
    j = card.fit_judgement
    lines = [f"### {name}", "",
             f"`irstab calibrate` with its defaults ({card.n_replicates} collections of "
             f"{card.n_topics} topics in {card.n_replicates // card.block_size} blocks, "
             f"{m['planted_pairs_per_collection']} planted pairs each, B = "
             f"{card.n_resamples}; {seconds:.0f} s in this process). Model: margins "
             f"{', '.join(f'{k} {v}' for k, v in m['margins'].items())}; {m['copula']}. "
             f"Fit check: {card.fit.summary()}; held-out means outside the range: "
             f"{j.outside} of {j.compared}, a correct model about {j.expected:.0f} "
             f"(p = {j.p_value:.3f}): {'fails' if j.fails else 'passes'}.", "",
             "> " + " ".join(card.card()), "", *(f"Note: {n}." for n in card.notes), "",
             f"![{name}: trust card](figures/{figure})", ""]
    rows = []
    for r in card.tests:
        row = {"test": NAMES[r.test], "correction": r.correction,
               "type I": rate(r.type_i, r.type_i_se)}
        for k, (v, se) in r.power.items():
            row[f"power at delta {k}"] = rate(v, se)
        row["type III at delta 0.01"] = rate(*r.type_iii["0.01"])
        row["note"] = r.note()
        rows.append(row)
    lines += [md_table(pd.DataFrame(rows)), ""]
    v, t = card.verdict.to_dict(), card.topics_needed.to_dict()
    lines += [
        f"The verdict ({v['interval']} interval; {v['n_replicates']} collections from each of "
        f"the collection's real-score universes): against a twin of equal Phi, coverage "
        f"{v['coverage']:.3f} ± {v['coverage_se']:.3f}, wrong changes "
        f"{v['wrong_change']:.3f} ± {v['wrong_change_se']:.3f}, power at a planted Phi "
        f"difference of {v['planted_phi_difference']:+.4f} {v['power']:.3f} ± "
        f"{v['power_se']:.3f}"
        + (f"; {v['candidates_note']}. " if v["candidates_note"] else ". ") + 
        f"Topics needed for Phi = 0.95: true {t['true_topics_needed']:g}; estimated from "
        f"{t['n_topics']} topics, median {t['estimated_median']:g} (90 % between "
        f"{t['estimated_q05']:g} and {t['estimated_q95']:g}); the true Phi they reach is "
        f"{t['phi_reached_mean']:.4f} ± {t['phi_reached_mean_se']:.4f} on average, 5 % below "
        f"{t['phi_reached_q05']:.4f}, and at least 0.95 in {t['reaches_target']:.1%}.", ""]
    if v["candidates"]:
        lines += [f"Each candidate against {card.measure} in its own universe (the two "
                  "measures' scores resampled together; true difference of Phi at "
                  f"{card.n_topics} topics; {v['candidates'][0]['n_replicates']} collections "
                  "each):", "",
                  md_table(pd.DataFrame([{
                      "candidate": c["measure"], "true difference": f"{c['true_diff']:+.4f}",
                      "coverage": rate(c["coverage"], c["coverage_se"]),
                      "interval": "holds" if c["interval_held"] else "short",
                      "wrong changes": rate(c["wrong_change"], c["wrong_change_se"]),
                      "power": "-" if c["power"] is None else rate(c["power"], c["power_se"]),
                  } for c in v["candidates"]])), ""]
    return lines


def md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(str(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def pattern_section(settings: list[tuple[str, pd.DataFrame, int]]) -> list[str]:
    rows, verdicts, gaps = [], [], []
    for label, x, T in settings:
        card = calibrate_collection(x, n_topics=T, verdict_replicates=0,
                                    gtheory_replicates=200, fit_collections=0, seed=1)
        row = {"collection, measure": label, "topics": T}
        levels = {}
        for test in TESTS[:5]:
            r = card.row(test)
            row[NAMES[test]] = rate(r.type_i, r.type_i_se)
            levels.setdefault(r.level(), []).append(NAMES[test])
        gaps.append((card.row("bootstrap").type_i - card.row("t").type_i,
                     card.row("sign").type_i - card.row("t").type_i))
        verdicts.append(f"{label} at {T} topics: " + "; ".join(
            f"{k} {', '.join(v)}" for k, v in sorted(levels.items())))
        row["t power 0.02"] = rate(*card.row("t").power["0.02"])
        row["bootstrap power 0.02"] = rate(*card.row("bootstrap").power["0.02"])
        rows.append(row)
    frame = pd.DataFrame(rows)
    return [
        "## Against Urbano, Lima & Hanjalic's pattern", "",
        "Urbano, Lima & Hanjalic (SIGIR 2019) simulated TREC collections (AP, 50 topics, alpha "
        ".05) and found type I errors of .051 (t), .052 (permutation), .060 (bootstrap), .072 "
        "(Wilcoxon) and .078 (sign): t and permutation near nominal, the bootstrap liberal at "
        "small n, Wilcoxon and sign drifting with the measure. Here a null pair shares one "
        "margin, so its differences are symmetric about 0 and Wilcoxon's and the sign test's "
        "hypotheses hold as well as the t-test's; what can move them is ties (both systems at "
        "0, the levels of a lattice measure), which they drop. The type I error of each test alone at alpha .05 on collections "
        "simulated like these (each row its own fit; the default number of collections; "
        "± Monte-Carlo errors):", "",
        md_table(frame), "",
        "Within 2 Monte-Carlo errors of .05 (\"at its level\"), above (\"liberal\") or "
        "below (\"conservative\"):", "",
        *(f"- {v}" for v in verdicts), "",
        f"The bootstrap's type I error exceeds the t-test's in {sum(b > 0 for b, _ in gaps)} "
        f"of {len(gaps)} rows (by {min(b for b, _ in gaps):+.3f} to "
        f"{max(b for b, _ in gaps):+.3f}, the most for "
        f"{rows[max(range(len(gaps)), key=lambda k: gaps[k][0])]['collection, measure']} at "
        f"{rows[max(range(len(gaps)), key=lambda k: gaps[k][0])]['topics']} topics); the "
        "sign test's is below "
        f"the t-test's in {sum(g < 0 for _, g in gaps)} of {len(gaps)} (by "
        f"{min(g for _, g in gaps):+.3f} to {max(g for _, g in gaps):+.3f})"
        + (": on these collections the sign test errs on the safe side where Urbano et al. "
           "found it liberal." if all(g < 0 for _, g in gaps) else "."), "",
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "trust-card.md")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    figures = args.out.parent / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    dl = dl_scores(["nDCG@10", "AP", "P@10", "RR"])
    trec3 = read_score_matrix(TREC3)
    lines = [BEGIN, f"<!-- written by `{COMMAND}`; do not edit by hand -->", "",
             "## The trust card", "",
             "`irstab calibrate QRELS RUNS -m MEASURE` (or `--scores FILE`) and the section "
             "\"How far to trust the answers here\" of `irstab report` fit the simulator "
             "above to one measure and count, on the simulated collections, how often each "
             "answer is wrong (method: `irstab.trust.card`). Null pairs are systems given "
             "the same margin; a difference delta is a margin moved to the other's mean + "
             "delta; every pair of a collection is tested, so Holm, Benjamini-Hochberg and "
             "Tukey HSD act over the whole family. ± is one Monte-Carlo standard error "
             "(clustered over the blocks of collections that share a planting and "
             "resamples; binomial for the verdict, whose collections are independent). The "
             "verdict is checked without the simulator, in universes made of the "
             "collection's own scores: against a twin of the measure (its residuals "
             "permuted among systems: the same true Phi), against one made more stable, and "
             "against each candidate the measure is compared with (`-c`; by default the "
             "report's nDCG presets at its cutoff), each in its own universe with the "
             "interval it would get alone. The card's sentences come first; when the "
             "simulator fails its split-half fit check (below), the first of them says "
             "so.", ""]
    host = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores shared with "
            f"other work, {datetime.date.today().isoformat()}")
    presets = [m for m in dict.fromkeys(str(parse_measure(p)) for p in preset_set([10]))
               if m != "nDCG@10"]  # irstab calibrate's default candidates of nDCG@10
    dl_presets = dl_scores(presets)
    one = ("a score matrix holds one measure, so no candidate could be scored beside it")
    for name, x, fig, cands, note in (
            ("DL-2019 nDCG@10 (37 x 43)", dl["nDCG@10"], "trust-dl2019-ndcg10.png",
             dl_presets, ""),
            ("TREC-3 AP (40 x 50)", trec3, "trust-trec3-ap.png", None, one)):
        w = time.perf_counter()
        card = calibrate_collection(x, measure=name.split(" (")[0], candidates=cands,
                                    candidates_note=note, seed=0)
        seconds = time.perf_counter() - w
        plot_trust_card(card, figures / fig)
        lines += card_section(name, card, fig, seconds)
    lines += pattern_section([
        ("DL-2019 nDCG@10", dl["nDCG@10"], 20), ("DL-2019 nDCG@10", dl["nDCG@10"], 43),
        ("DL-2019 AP", dl["AP"], 43), ("DL-2019 P@10 (lattice)", dl["P@10"], 43),
        ("DL-2019 RR (lattice)", dl["RR"], 43),
        ("TREC-3 AP", trec3, 20), ("TREC-3 AP", trec3, 50),
    ])
    lines += [f"({host}; `python benchmarks/bench_calibrate.py` times the command.)", "", END]
    text = "\n".join(lines)
    old = args.out.read_text() if args.out.exists() else "# How far to trust each answer\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        new = head + text + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    atomic_write_text(args.out, new)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
