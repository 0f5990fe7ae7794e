r"""The reference population: real-score universes of ten public collections.

The verdict's interval (:mod:`irstab.verdict.jackknife`) has constants that no single
sample can estimate: the deflation of the facets' degrees of freedom, its base and how it
grows with the sample's kurtosis (:data:`~irstab.verdict.jackknife.FACET_DF_DEFLATION`,
:data:`~irstab.verdict.jackknife.FACET_DF_KURTOSIS`, floored at
:data:`~irstab.verdict.jackknife.FACET_DF_FLOOR` degrees of freedom), and the noise a clipped
part keeps (:data:`~irstab.verdict.jackknife.CLIPPED_PART_NOISE`); they are calibrated on,
and checked against, the universes this module builds
(``benchmarks/bench_kurtosis_df.py``, ``benchmarks/bench_reference_calibration.py``,
``benchmarks/bench_calibration.py``, ``docs/calibration.md``). Each universe takes a real
collection's score matrices as its population
(:func:`~irstab.verdict.universes.resampled_universe`: systems and topics drawn with
replacement, the truth from the population's own components,
:func:`~irstab.verdict.universes.population_components`).

The ten collections
-------------------
* **DL-2019**: TREC 2019 Deep Learning passage ranking, 37 runs x 43 topics (scored by
  irstab from the official runs and qrels); baseline nDCG@10;
* **TREC-3**: ad hoc AP, 40 systems x 50 topics (``data/trec3-adhoc``, from gt4ireval);
* **TREC-5** to **TREC-8**: ad hoc AP, P@10 and RR, 61, 74, 103, 129 systems x 50 topics;
  baseline AP;
* **Web 2010** to **Web 2013**: TREC Web track nDCG@20 and ERR@20, 88 x 48, 62 x 50,
  48 x 50, 34 x 50; baseline nDCG@20.

The last eight are the matrices Urbano, Lima & Hanjalic (SIGIR 2019) published
(``data/sigir2019-statistical``, read by :func:`read_sigir2019`): real pairs of measures on
the same systems and topics.

The settings
------------
For every collection and size (default 12 x 20, 20 x 25, 30 x 40) the baseline against

* each other measure of the collection (DL-2019: nDCG@20, nDCG@100, the zipf discount and the
  exp gain at 10, AP and RR, :data:`DL2019_PAIRS`);
* its **null twin**: the baseline's system and topic effects with its rows of residuals
  moved to other systems (:func:`~irstab.verdict.universes.planted_scores`): the same
  components, true difference exactly 0, other draws;
* its **planted** twin: the baseline with its residual times 0.72 (the moderate plant's
  ratio), truly more stable;
* the family of its other measures at once (DL-2019: the four nDCG configurations of
  :data:`DL2019_FAMILY`; TREC 5-8: P@10 and RR; simultaneous coverage).

These are the **acceptance set**. Outside it, added on request:

* ``beyond=True``: DL-2019's other measures (the nDCG presets at 10, 20 and 100,
  DCG_UL(version=2)@10, whatever else ``dl2019`` holds) against nDCG@10: they were not used
  to choose the constants, and DCG_UL's estimate of the difference is biased
  (``docs/calibration.md``);
* ``heldout=``: the same settings of collections the constants were not chosen on (TREC
  2004 Robust and TREC 2006 Terabyte, nDCG against AP: :data:`HELDOUT_FILES`), to check
  that they transfer (``benchmarks/bench_heldout_collections.py``).

References
----------
Urbano, J., Lima, H., Hanjalic, A. (2019). Statistical significance testing in information
retrieval: an empirical analysis of type I, type II and type III errors. SIGIR 2019,
505-514 (the score matrices; CC BY-SA 4.0).
Urbano, J., Lima, H., Hanjalic, A. (2019). A new perspective on score standardization.
SIGIR 2019, 1061-1064 (the held-out matrices; CC BY-SA 4.0).
Harman, D. (1994). Overview of the Third Text REtrieval Conference (TREC-3).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import IRStabError
from .universes import PLANT_RESIDUAL, Universe, planted_scores, resampled_universe

__all__ = ["ReferenceSetting", "reference_universes", "read_sigir2019", "SIGIR2019_FILES",
           "HELDOUT_FILES",
           "DL2019_PAIRS", "DL2019_FAMILY", "REFERENCE_SIZES", "PLANT_RESIDUAL"]

#: The collections of Urbano, Lima & Hanjalic (SIGIR 2019): ``{collection: {measure: file
#: stem}}``, the baseline first (``data/sigir2019-statistical``).
SIGIR2019_FILES: dict[str, dict[str, str]] = {
    **{f"TREC-{k}": {"AP": f"adhoc{k}_ap", "P@10": f"adhoc{k}_p10", "RR": f"adhoc{k}_rr"}
       for k in (5, 6, 7, 8)},
    **{f"Web {y}": {"nDCG@20": f"web{y}_ndcg20", "ERR@20": f"web{y}_err20"}
       for y in (2010, 2011, 2012, 2013)},
}
#: Collections the constants were *not* calibrated on, to check that they transfer: the
#: matrices of Urbano, Lima & Hanjalic, "A New Perspective on Score Standardization" (SIGIR
#: 2019), ``data/sigir2019-standardization`` (read by ``read_sigir2019(directory,
#: HELDOUT_FILES)``), the baseline first.
HELDOUT_FILES: dict[str, dict[str, str]] = {
    "Robust 2004": {"nDCG": "robust2004_ndcg", "AP": "robust2004_ap"},
    "Terabyte 2006": {"nDCG": "terabyte2006_ndcg", "AP": "terabyte2006_ap"},
}
#: DL-2019's candidates against nDCG@10 in the acceptance set.
DL2019_PAIRS = ("nDCG@20", "nDCG@100", "nDCG(discount=zipf)@10", "nDCG(gain=exp)@10", "AP",
                "RR")
#: DL-2019's simultaneous family in the acceptance set.
DL2019_FAMILY = DL2019_PAIRS[:4]
REFERENCE_SIZES = ((12, 20), (20, 25), (30, 40))


@dataclass(frozen=True, eq=False)
class ReferenceSetting:
    """One setting of the reference population.

    Attributes
    ----------
    collection : str
        ``"DL-2019"``, ``"TREC-3"``, ``"TREC-5"`` ... ``"Web 2013"``.
    comparison : str
        What is compared, e.g. ``"AP vs P@10"``, ``"nDCG@20 vs its null twin"``.
    universe : Universe
        Named ``"{collection} {S} x {T}, {comparison}"``.
    in_acceptance_set : bool
        Whether the setting is one the constants were chosen on (module docstring).
    """

    collection: str
    comparison: str
    universe: Universe
    in_acceptance_set: bool

    @property
    def true_diff(self) -> np.ndarray:
        """The candidates' true differences to the baseline."""
        u = self.universe
        idx = [u.measures.index(m) for m in u.candidates]
        return u.true_diff()[idx]

    @property
    def is_null(self) -> bool:
        """Whether every candidate's true difference is 0 (within 1e-9)."""
        return bool(np.all(np.abs(self.true_diff) <= 1e-9))


def read_sigir2019(directory: str | os.PathLike,
                   files: Mapping[str, Mapping[str, str]] = SIGIR2019_FILES,
                   ) -> dict[str, dict[str, np.ndarray]]:
    """The score matrices of Urbano, Lima & Hanjalic (SIGIR 2019) in ``directory``.

    Parameters
    ----------
    directory : path-like
        Holds the files of ``files`` (``{stem}.csv``, irstab's wide layout, one line per
        system): the twenty of :data:`SIGIR2019_FILES`, as ``data/sigir2019-statistical`` of
        the repository, or the four of :data:`HELDOUT_FILES`
        (``data/sigir2019-standardization``).
    files : mapping
        ``{collection: {measure: file stem}}``, the baseline first.

    Returns
    -------
    dict
        ``{collection: {measure: systems x topics}}`` (float arrays), the baseline first.

    Raises
    ------
    IRStabError
        A file is missing (named), or the measures of one collection differ in their systems
        or topics (named); a file that does not parse raises
        :class:`~irstab.errors.InputFormatError` naming it and the line.
    """
    from ..io.scorematrix import read_score_matrix

    root = Path(directory)
    out: dict[str, dict[str, np.ndarray]] = {}
    for coll, stems in files.items():
        frames = {}
        for measure, stem in stems.items():
            path = root / f"{stem}.csv"
            if not path.is_file():
                raise IRStabError(f"{path}: not found (the {coll} {measure} matrix of "
                                  "Urbano, Lima & Hanjalic, SIGIR 2019)")
            frames[measure] = read_score_matrix(path, systems="rows")
        first_name, first = next(iter(frames.items()))
        for measure, f in frames.items():
            if list(f.index) != list(first.index) or list(f.columns) != list(first.columns):
                raise IRStabError(
                    f"{root / (stems[measure] + '.csv')}: its systems or topics differ from "
                    f"those of {root / (stems[first_name] + '.csv')} ({coll})")
        out[coll] = {m: f.to_numpy(dtype=float) for m, f in frames.items()}
    return out


def _collection(name: str, baseline: str, scores: Mapping[str, np.ndarray],
                sizes, family: Sequence[str] | None, family_label: str,
                accepted: set[str], twins_accepted: bool = True) -> list[ReferenceSetting]:
    """The settings of one collection: pairs, twins, the family (module docstring)."""
    base = np.asarray(scores[baseline], dtype=float)
    twins = {"its null twin": planted_scores(base, 1.0, np.roll(np.arange(base.shape[0]), 1)),
             "its planted": planted_scores(base, PLANT_RESIDUAL)}
    others = [m for m in scores if m != baseline]
    out = []
    for S, T in sizes:
        def add(comparison, pop, acc):
            u = resampled_universe(f"{name} {S} x {T}, {comparison}", pop, baseline, S, T)
            out.append(ReferenceSetting(name, comparison, u, acc))

        for m in others:
            add(f"{baseline} vs {m}", {baseline: base, m: scores[m]}, m in accepted)
        for label, x in twins.items():
            add(f"{baseline} vs {label}", {baseline: base, label.split(" ", 1)[1]: x},
                twins_accepted)
        if family is not None and len(family) > 1:
            add(f"{baseline} vs {family_label}",
                {baseline: base, **{m: scores[m] for m in family}}, twins_accepted)
    return out


def reference_universes(
    dl2019: Mapping | None,
    trec3: Mapping | None,
    sigir2019: Mapping[str, Mapping] | None,
    sizes: Sequence[tuple[int, int]] = REFERENCE_SIZES,
    *,
    beyond: bool = False,
    heldout: Mapping[str, Mapping] | None = None,
) -> list[ReferenceSetting]:
    """The settings of the reference population (module docstring), collection by collection.

    Parameters
    ----------
    dl2019 : mapping or None
        ``{measure: 37 x 43}`` with ``nDCG@10`` (the baseline) and any of
        :data:`DL2019_PAIRS`; measures missing are left out. ``None``: no DL-2019 settings.
    trec3 : mapping or None
        ``{"AP": 40 x 50}``.
    sigir2019 : mapping or None
        :func:`read_sigir2019`'s ``{collection: {measure: matrix}}``, the baseline first.
    sizes : sequence of (systems, topics)
    beyond : bool
        Also DL-2019's other measures against nDCG@10, outside the acceptance set.
    heldout : mapping or None
        ``{collection: {measure: matrix}}`` (the baseline first) of collections the
        constants were not chosen on (:data:`HELDOUT_FILES`): the same settings, outside
        the acceptance set, after the others.

    Returns
    -------
    list of ReferenceSetting
        In the order DL-2019, TREC-3, then ``sigir2019``'s; within a collection by size, then
        pairs, the null twin, the planted twin, the family.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ap = rng.random((40, 1)) + rng.random((40, 50))
    >>> s = reference_universes(None, {"AP": ap}, None, sizes=[(20, 25)])
    >>> [x.universe.name for x in s]
    ['TREC-3 20 x 25, AP vs its null twin', 'TREC-3 20 x 25, AP vs its planted']
    >>> s[0].is_null, s[1].is_null
    (True, False)
    """
    sizes = [(int(S), int(T)) for S, T in sizes]
    for S, T in sizes:
        if S < 3 or T < 3:
            raise IRStabError(f"sizes: the jackknife needs at least 3 x 3, got {S} x {T}")
    out: list[ReferenceSetting] = []
    if dl2019 is not None:
        if "nDCG@10" not in dl2019:
            raise IRStabError(f"dl2019: expected nDCG@10 (the baseline) among {list(dl2019)}")
        pairs = [m for m in DL2019_PAIRS if m in dl2019]
        if beyond:
            pairs += [m for m in dl2019 if m != "nDCG@10" and m not in DL2019_PAIRS]
        fam = [m for m in DL2019_FAMILY if m in dl2019]
        out += _collection("DL-2019", "nDCG@10", {"nDCG@10": dl2019["nDCG@10"],
                                                  **{m: dl2019[m] for m in pairs}},
                           sizes, fam, f"{len(fam)} nDCG configurations", set(DL2019_PAIRS))
    if trec3 is not None:
        if "AP" not in trec3:
            raise IRStabError(f"trec3: expected AP among {list(trec3)}")
        out += _collection("TREC-3", "AP", {"AP": trec3["AP"]}, sizes, None, "", set())
    for coll, scores in (sigir2019 or {}).items():
        baseline, *others = list(scores)
        out += _collection(coll, baseline, scores, sizes, others if len(others) > 1 else None,
                           " and ".join(others), set(others))
    for coll, scores in (heldout or {}).items():
        baseline, *others = list(scores)
        out += _collection(coll, baseline, scores, sizes, others if len(others) > 1 else None,
                           " and ".join(others), set(), twins_accepted=False)
    return out
