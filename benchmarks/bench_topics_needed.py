"""Topics needed for Phi = 0.95: does the trust card's spread hold on real collections?

    python benchmarks/bench_topics_needed.py [--splits 2000] [--replicates 2000] [--users 100]
        [--ho-collections 40] [--only NAME ...] [--write-docs docs/topics-needed.md]
        [--save rows.json | --from-json rows.json]

The trust card (``irstab calibrate``, :func:`irstab.trust.checks._topics_needed_check`) says
how far the topics a G-study asks for fall short of Phi = 0.95: the 5 % point of the true
Phi that an estimated count reaches (``topics_needed.phi_reached_q05``). This benchmark
measures that point on real score matrices three ways and sets the card's figure beside
them, before (systems fixed) and after (systems resampled too; ``fit_gtheory(...,
resample_systems=True)``):

1. **held-out topic halves** (:func:`irstab.trust.checks._heldout_halves`): the topics
   split at random into A (floor(T/2)) and B (the rest), the count estimated on A, the Phi
   it reaches computed from B's G-study; ``--splits`` random splits. It uses half the
   topics, so the card's figure is set beside it at floor(T/2) topics too; and it is
   compared with the simulator run through the very same split (two independent halves
   drawn from the simulator with its systems fixed, the count from one, Phi from the
   other's G-study): the like-for-like test of the simulator's topics;
2. **real-score resampling** (:func:`irstab.trust.checks._resampled_reached`): the
   collection is the population; collections of its size (and of half its topics) draw
   systems and topics with replacement; the truth is the population's components;
3. **a larger population** (sub-collections): collections of half the systems and half the
   topics drawn with replacement from the collection; the card computed on each of
   ``--users`` such collections (its median, and the spread of the card's figure between
   them), against the 5 % point of the true Phi over ``--replicates`` of them. Here the card
   never sees the population it is judged against.

Collections: TREC DL 2019 passage nDCG@10 (37 x 43, from ../shared/data, evaluated by
irstab; left out when absent), TREC-3 ad hoc AP (data/trec3-adhoc, 40 x 50) and the 20
matrices of Urbano, Lima & Hanjalic (SIGIR 2019; data/sigir2019-statistical): TREC 5-8 ad
hoc AP, P@10, RR and TREC Web 2010-2013 nDCG@20, ERR@20.

Every 5 % point is an inverted-CDF quantile, as the card's; ``+-`` is its Monte-Carlo
error (:func:`irstab.trust.result.quantile_se`). ``--write-docs`` replaces the part of the
page between ``<!-- topics-needed:begin -->`` and ``<!-- topics-needed:end -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DL = REPO.parent / "shared" / "data" / "trec-dl-2019-passage"
TARGET = 0.95
TOLERANCE = 0.01  # the acceptance point: within 0.01 of the held-out halves
BEGIN, END = "<!-- topics-needed:begin -->", "<!-- topics-needed:end -->"


def collections(only=None) -> list[tuple[str, np.ndarray]]:
    """``(name, systems x topics)`` of every collection (DL-2019 when its runs are there)."""
    import irstab

    out = []
    if DL.joinpath("qrels.txt").is_file() and (not only or "DL-2019 nDCG@10" in only):
        coll = irstab.Collection.from_files(DL / "qrels.txt", DL / "runs")
        out.append(("DL-2019 nDCG@10", irstab.score_matrix(coll, "nDCG@10").to_numpy()))
    names = {"AP.csv": "TREC-3 AP"}
    files = [REPO / "data" / "trec3-adhoc" / "AP.csv",
             *sorted((REPO / "data" / "sigir2019-statistical").glob("*.csv"))]
    label = {"ap": "AP", "p10": "P@10", "rr": "RR", "ndcg20": "nDCG@20", "err20": "ERR@20"}
    for f in files:
        if f.name in names:
            name = names[f.name]
        else:
            coll, measure = f.stem.split("_")
            coll = coll.replace("adhoc", "TREC-").replace("web", "Web ")
            name = f"{coll} {label[measure]}"
        if not only or name in only:
            out.append((name, irstab.read_score_matrix(f).to_numpy()))
    return out


def q05(a) -> tuple[float, float]:
    from irstab.trust.result import quantile_se

    a = np.asarray(a, dtype=float)
    a = a[np.isfinite(a)]
    return float(np.quantile(a, 0.05, method="inverted_cdf")), quantile_se(a, 0.05)


def simulated_halves(x: np.ndarray, R: int, rng) -> np.ndarray:
    """The held-out procedure on the simulator (systems fixed): A and B two independent sets
    of floor(T/2) and T - floor(T/2) drawn topics, the count from A, Phi from B's G-study."""
    from irstab.simulate import fit_gtheory
    from irstab.stability.coefficients import Coefficient, coef_from_psi, psi_of
    from irstab.trust.checks import _components, _gstudy_needed

    S, T = x.shape
    h = T // 2
    model = fit_gtheory(x)
    out = []
    chunk = max(1, 2_000_000 // (S * T))
    for start in range(0, R, chunk):
        d = model.draw(min(chunk, R - start), T, rng)
        n = _gstudy_needed(d[:, :, :h], TARGET)
        ok = np.isfinite(n)
        phi = coef_from_psi(psi_of(_components(d[:, :, h:]), Coefficient.phi),
                            np.where(ok, n, 1.0))
        out.append(np.where(ok, phi, np.nan))
    return np.concatenate(out)


def heldout_sd(x: np.ndarray, n_collections: int, splits: int, rng) -> float:
    """How much the held-out figure itself moves between collections like this one: its sd
    over ``n_collections`` collections of the same size drawn from the simulator (systems
    fixed), ``splits`` splits each."""
    from irstab.simulate import fit_gtheory
    from irstab.trust.checks import _heldout_halves

    if n_collections < 2:
        return float("nan")
    model = fit_gtheory(x)
    S, T = x.shape
    vals = []
    for d in model.draw(n_collections, T, rng):
        vals.append(q05(_heldout_halves(d, splits, TARGET, rng)[1])[0])
    return float(np.std(vals, ddof=1))


def one(name: str, x: np.ndarray, args, rng) -> dict:
    from irstab.simulate import fit_gtheory
    from irstab.trust.checks import _heldout_halves, _resampled_reached, _topics_needed_check

    S, T = x.shape
    h = T // 2
    R = args.replicates
    row = {"name": name, "S": S, "T": T, "h": h,
           "true_needed": fit_gtheory(x).components.topics_needed(TARGET)}
    row["heldout"] = q05(_heldout_halves(x, args.splits, TARGET, rng)[1])
    row["heldout_sd"] = heldout_sd(x, args.ho_collections, 400, rng)
    row["sim_halves"] = q05(simulated_halves(x, R, rng))
    for n, tag in ((h, "h"), (T, "T")):
        for fixed in (True, False):
            c = _topics_needed_check(x, R, n, TARGET, rng, resample_systems=not fixed)
            row[f"{'before' if fixed else 'after'}_{tag}"] = q05(c.phi_reached)
        row[f"real_{tag}"] = q05(_resampled_reached(x, R, n, TARGET, rng)[1])
    # a larger population: the card on sub-collections of half the systems and topics
    Su = max(4, S // 2)
    row["Su"] = Su
    row["sub_real"] = q05(_resampled_reached(x, R, h, TARGET, rng, n_systems=Su)[1])
    cards = {"before": [], "after": []}
    for _ in range(args.users):
        xu = x[rng.integers(0, S, (Su, 1)), rng.integers(0, T, (1, h))]
        if np.ptp(xu.mean(axis=0)) == 0 or np.ptp(xu.mean(axis=1)) == 0:
            continue  # no topic or no system effect to simulate: not a collection to card
        for key, fixed in (("before", True), ("after", False)):
            c = _topics_needed_check(xu, args.user_replicates, h, TARGET, rng,
                                     resample_systems=not fixed)
            cards[key].append(q05(c.phi_reached)[0])
    for key, v in cards.items():
        v = np.asarray(v)
        row[f"sub_{key}"] = (float(np.median(v)), float(np.quantile(v, 0.1)),
                             float(np.quantile(v, 0.9)), len(v))
    return row


def _pm(v) -> str:
    return f"{v[0]:.3f} ± {v[1]:.3f}"


def _gaps(rows, key, ref) -> list[tuple[str, float]]:
    """``(collection, figure - reference)`` for the figure ``key`` (a median or a 5 % point)."""
    return [(r["name"], r[key][0] - r[ref][0]) for r in rows]


def _within(gaps) -> int:
    return sum(abs(d) <= TOLERANCE for _, d in gaps)


def _outside(gaps) -> str:
    """Where a figure is more than the tolerance away: higher ones (a spread too narrow),
    then lower ones (too wide)."""
    hi = [f"{n} ({d:+.4f})" for n, d in gaps if d > TOLERANCE]
    lo = [f"{n} ({d:+.4f})" for n, d in gaps if d < -TOLERANCE]
    parts = ([f"higher (narrower) on {', '.join(hi)}"] if hi else []) + \
        ([f"lower (wider) on {', '.join(lo)}"] if lo else [])
    return "; ".join(parts) or "nowhere"


def tables(rows, args) -> str:
    n = len(rows)
    ho_after, ho_before = _gaps(rows, "after_h", "heldout"), _gaps(rows, "before_h", "heldout")
    ho_sim = _gaps(rows, "sim_halves", "heldout")
    real_after, real_before = _gaps(rows, "after_T", "real_T"), _gaps(rows, "before_T", "real_T")
    sub_after, sub_before = _gaps(rows, "sub_after", "sub_real"), _gaps(rows, "sub_before",
                                                                           "sub_real")
    sd = {r["name"]: r["heldout_sd"] for r in rows}
    sim_off = [name for name, d in ho_sim if abs(d) > TOLERANCE]
    span = lambda g: f"{min(d for _, d in g):+.3f} to {max(d for _, d in g):+.3f}"  # noqa: E731
    out = [
        "## The answer first", "",
        f"On {n} real collections (5 % points of the true Phi reached by the topics a G-study "
        f"asks for, Phi = {TARGET}; a figure above the reference means a spread too narrow):",
        "",
        f"- **The card at half the topics against the held-out halves** (the acceptance "
        f"point): within {TOLERANCE} on **{_within(ho_after)} of {n}** collections after the "
        f"correction, {_within(ho_before)} of {n} before. After, the card's figure is "
        f"{_outside(ho_after)}.",
        f"- **The simulator run through the same split** (systems fixed, the count from one "
        f"simulated half, Phi from the other's G-study) is within {TOLERANCE} of the real "
        f"held-out halves on {_within(ho_sim)} of {n}: held-out halves measure Phi with B's "
        "error as well as A's, and the simulator reproduces them when it does the same"
        + (f"; not on {', '.join(sim_off)}, where the held-out figure itself varies by "
           f"{min(sd[k] for k in sim_off):.3f}-{max(sd[k] for k in sim_off):.3f} (sd) "
           "between collections like these." if sim_off else "."),
        f"- **Against real-score resampling at the collection's own size**: the card's 5 % "
        f"point lay {span(real_before)} from it with its systems fixed (within {TOLERANCE} on "
        f"{_within(real_before)} of {n}), **{span(real_after)}** with the systems resampled "
        f"(within {TOLERANCE} on {_within(real_after)} of {n}).",
        f"- **From a smaller collection drawn out of a larger one** (half the systems and "
        f"topics; the card never sees the population it is judged against): the card's median "
        f"5 % point is within {TOLERANCE} of the population's on **{_within(sub_after)} of "
        f"{n}** after ({span(sub_after)}), {_within(sub_before)} of {n} before "
        f"({span(sub_before)}). After, it is {_outside(sub_after)}.", "",
        "## Held-out halves and the card at half the topics", "",
        "Every figure is a 5 % point of Phi reached, at floor(T/2) topics: the held-out halves "
        "(the count from A, Phi from B), the spread of that figure between collections like "
        "this one (sd; the simulator's collections of the same size, 400 splits each), "
        "the simulator run through the same split, the card before (systems fixed) and after "
        "(systems resampled), and real-score resampling at floor(T/2) topics. ± is the "
        "Monte-Carlo error.", "",
        "| collection | systems x topics | true topics needed | held-out halves | its sd between "
        "collections | simulator, same split | card before | card after | real resampling |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(f"| {r['name']} | {r['S']} x {r['T']} (halves of {r['h']}) | "
                   f"{r['true_needed']:.0f} | {_pm(r['heldout'])} | {r['heldout_sd']:.3f} | "
                   f"{_pm(r['sim_halves'])} | {_pm(r['before_h'])} | **{_pm(r['after_h'])}** | "
                   f"{_pm(r['real_h'])} |")
    out += [
        "", "## The card at the collection's own size", "",
        "At all T topics: the card before and after, and real-score resampling (systems and "
        "topics of the collection drawn with replacement, the truth its components with "
        "divisor N).", "",
        "| collection | systems x topics | card before | card after | real resampling | "
        "before - real | after - real |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(f"| {r['name']} | {r['S']} x {r['T']} | {_pm(r['before_T'])} | "
                   f"**{_pm(r['after_T'])}** | {_pm(r['real_T'])} | "
                   f"{r['before_T'][0] - r['real_T'][0]:+.3f} | "
                   f"{r['after_T'][0] - r['real_T'][0]:+.3f} |")
    out += [
        "", "## From a smaller collection drawn out of a larger one", "",
        f"Each collection is the population; a user's collection is half its systems and half "
        f"its topics, drawn with replacement. The 5 % point of the true Phi reached over "
        f"{args.replicates} such collections, against the card computed on each of "
        f"{args.users} of them ({args.user_replicates} simulated collections a card): the "
        "median of the card's figure, and its 10 %-90 % range between users.", "",
        "| collection | user's collection | population's 5 % point | card before: median "
        "(10 %-90 %) | card after: median (10 %-90 %) |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        b, a = r["sub_before"], r["sub_after"]
        out.append(f"| {r['name']} | {r['Su']} x {r['h']} | {_pm(r['sub_real'])} | "
                   f"{b[0]:.3f} ({b[1]:.3f}-{b[2]:.3f}) | **{a[0]:.3f}** "
                   f"({a[1]:.3f}-{a[2]:.3f}) |")
    return "\n".join(out)


def write_docs(path: Path, body: str, args, seconds: float) -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    run = (f"Written by `python benchmarks/bench_topics_needed.py --splits {args.splits} "
           f"--replicates {args.replicates} --users {args.users} --user-replicates "
           f"{args.user_replicates} --ho-collections {args.ho_collections} --seed {args.seed} "
           f"--write-docs {path.relative_to(REPO) if path.is_relative_to(REPO) else path}` on "
           f"{time.strftime('%Y-%m-%d')} ({machine}, numpy {np.__version__}; "
           f"{seconds / 60:.0f} min); every number between the markers is computed by it.")
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        sys.exit(f"{path}: no {BEGIN} ... {END} section to replace")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n<!-- written by benchmarks/bench_topics_needed.py; do not "
                    f"edit by hand -->\n\n{run}\n\n{body}\n\n{END}{tail}", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=2000)
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--user-replicates", type=int, default=1000)
    ap.add_argument("--ho-collections", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--write-docs", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="write the rows as JSON")
    ap.add_argument("--from-json", type=Path, default=None,
                    help="render saved rows (and their arguments) instead of computing")
    args = ap.parse_args()
    if args.from_json is not None:
        saved = json.loads(args.from_json.read_text(encoding="utf-8"))
        for k, v in saved["args"].items():
            setattr(args, k, v)
        body = tables(saved["rows"], args)
        print(body)
        if args.write_docs is not None:
            write_docs(args.write_docs, body, args, saved["seconds"])
            print(f"wrote {args.write_docs}")
        return
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows = []
    print(f"{'collection':<18} {'S x T':>8} {'HO':>6} {'sd':>6} {'simHO':>6} {'bef/2':>6} "
          f"{'aft/2':>6} {'real/2':>6} | {'bef':>6} {'aft':>6} {'real':>6} | {'sub':>6} "
          f"{'subB':>6} {'subA':>6}", flush=True)
    for name, x in collections(args.only):
        r = one(name, x, args, rng)
        rows.append(r)
        print(f"{name:<18} {r['S']:>3} x {r['T']:<3} {r['heldout'][0]:6.3f} "
              f"{r['heldout_sd']:6.3f} {r['sim_halves'][0]:6.3f} {r['before_h'][0]:6.3f} "
              f"{r['after_h'][0]:6.3f} {r['real_h'][0]:6.3f} | {r['before_T'][0]:6.3f} "
              f"{r['after_T'][0]:6.3f} {r['real_T'][0]:6.3f} | {r['sub_real'][0]:6.3f} "
              f"{r['sub_before'][0]:6.3f} {r['sub_after'][0]:6.3f}", flush=True)
    seconds = time.perf_counter() - start
    if args.save is not None:
        keep = {k: v for k, v in vars(args).items()
                if k not in ("write_docs", "save", "from_json", "only")}
        args.save.write_text(json.dumps({"args": keep, "rows": rows, "seconds": seconds},
                                        indent=1), encoding="utf-8")
    body = tables(rows, args)
    print("\n" + body.split("## Held-out")[0])
    print(f"# {seconds:.0f} s")
    if args.write_docs is not None:
        write_docs(args.write_docs, body, args, seconds)
        print(f"wrote {args.write_docs}")


if __name__ == "__main__":
    main()
