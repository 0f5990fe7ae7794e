r"""Should a study change its measure? The decision rule, and :func:`verdict` on any scores.

The question a researcher asks of a stability study is not "which measure has
the largest Phi" (with 40-odd topics several are within sampling noise of each
other) but "is any candidate *reliably* more stable than the measure I use, by
enough to matter?". :func:`decide` applies the rule to a
:class:`~irstab.verdict.paired.PairedComparison`: recommend a change to
candidate :math:`c` only if

* its interval of :math:`\Delta_c = \Phi_c(n) - \Phi_{\mathrm{base}}(n)` lies above 0
  (reliably more stable; the candidates' intervals hold simultaneously, see
  :mod:`irstab.verdict.paired`), and
* the saving is material: the topics needed for Phi = ``target`` (G-study
  point estimates) drop by at least ``min_saving`` of the baseline's and by
  at least one topic.

Among the candidates that pass, the one with the largest :math:`\hat\Delta_c`
is recommended (ties: the first in the given order). Otherwise the baseline
is kept, and the candidates with the largest :math:`\hat\Delta_c` are named as
the closest. Stability and discriminative power *disagree* for a candidate
when its Phi difference and its significant-pair difference have opposite
signs; the verdict says so for the recommended and the closest candidates,
and flags any candidate that finds reliably more significant pairs (interval
above 0) without being reliably more stable.

:func:`verdict` is the whole question on score matrices from any tool:
the paired comparison, the G-studies' topics needed, and the rule.

Calibration: with the default parametric intervals the rule recommends a
change in at most 5 % of simulated collections where no candidate is more
stable, and in 65 % of 30 x 40 collections with a moderate real difference
(residual sd 0.18 against 0.25); ``docs/calibration.md`` has every setting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._repr import short_repr
from ..errors import IRStabError
from ..io.scores import as_scores
from .paired import PairedComparison, PhiInterval, paired_comparison

__all__ = ["Verdict", "decide", "verdict", "choose", "topics_needed", "material_saving",
           "few_systems_text", "FEW_SYSTEMS"]


def _int_or_none(v: float) -> int | None:
    return int(v) if math.isfinite(v) else None


@short_repr
@dataclass(frozen=True, eq=False)
class Verdict:
    """The decision of :func:`decide` (and :func:`verdict`), with the comparison behind it.

    Attributes
    ----------
    recommended : str or None
        The measure to use instead of the baseline; None keeps the baseline.
    baseline : str
    pool : tuple of str
        The measures the rule could recommend.
    closest : tuple of str
        Candidates with the largest Phi difference (besides the recommended one).
    topics_needed : dict
        ``{measure: topics for Phi = target}`` (``inf``: never) of every measure
        of the comparison given to :func:`decide`.
    target : float
    min_saving : float
    disagreements : tuple of str
        Candidates (among recommended and closest) whose Phi and
        significant-pair differences have opposite signs.
    reliably_more_significant : tuple of str
        Candidates whose significant-pair interval lies above 0 while their
        Phi interval does not.
    comparison : PairedComparison
        Every measure's difference and interval.
    in_sample : dict
        ``{measure: (difference, lower, upper)}`` of the measures judged on held-out
        (cross-fitted) scores: their in-sample difference with a marginal interval.
    """

    recommended: str | None
    baseline: str
    pool: tuple[str, ...]
    closest: tuple[str, ...]
    topics_needed: dict
    target: float
    min_saving: float
    disagreements: tuple[str, ...]
    reliably_more_significant: tuple[str, ...]
    comparison: PairedComparison
    in_sample: dict = field(default_factory=dict)

    @property
    def change(self) -> bool:
        """True: use :attr:`recommended` instead of the baseline."""
        return self.recommended is not None

    @property
    def use(self) -> str:
        """The measure to use: the recommended one, or the baseline."""
        return self.baseline if self.recommended is None else self.recommended

    @property
    def interval(self) -> str:
        """How the Phi intervals were made (:class:`~irstab.verdict.paired.PhiInterval`)."""
        return self.comparison.interval

    @property
    def simultaneous(self) -> bool:
        """Whether the pool's intervals hold simultaneously (the pool is the candidates)."""
        return set(self.pool) <= set(self.comparison.candidates)

    def _summary(self) -> str:
        c = self.comparison
        what = (f"use {self.recommended} instead of {self.baseline}" if self.change
                else f"keep {self.baseline}")
        k = c.index(self.use if self.change else (self.closest or (self.baseline,))[0])
        near = "" if self.change or not self.closest else f"; closest {self.closest[0]}"
        return (f"{what}{near}: Phi {c.phi_diff[k]:+.3f} [{c.phi_diff_lower[k]:+.3f}, "
                f"{c.phi_diff_upper[k]:+.3f}] ({c.interval}, {len(self.pool)} candidates)")

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: role, difference and interval, topics needed, decision.

        ``role`` is ``baseline``, ``candidate`` (in the pool) or ``context``;
        ``interval_kind`` says whether the interval is one of the simultaneous
        family's or marginal; ``reliably_more_stable`` is ``lower > 0``;
        ``material`` whether the saving in topics is material.
        """
        frame = self.comparison.to_frame()
        pool = set(self.pool)
        base_n = self.topics_needed.get(self.baseline, math.nan)
        role = ["baseline" if m == self.baseline else "candidate" if m in pool else "context"
                for m in frame["measure"]]
        needed = [self.topics_needed.get(m, math.nan) for m in frame["measure"]]
        frame.insert(1, "role", role)
        frame.insert(frame.columns.get_loc("phi_diff_sd") + 1, "topics_needed", needed)
        frame["reliably_more_stable"] = (frame["phi_diff_lower"] > 0) & (frame["role"] != "baseline")
        frame["material"] = [
            r != "baseline" and not math.isnan(n) and material_saving(base_n, n, self.min_saving)
            for r, n in zip(role, needed)
        ]
        frame["recommended"] = frame["measure"] == self.recommended
        frame["cross_fitted"] = frame["measure"].isin(list(self.in_sample))
        nan3 = (math.nan, math.nan, math.nan)
        for k, col in enumerate(("phi_diff_in_sample", "phi_diff_in_sample_lower",
                                 "phi_diff_in_sample_upper")):
            frame[col] = [self.in_sample.get(m, nan3)[k] for m in frame["measure"]]
        return frame

    def to_dict(self, measures: bool = True) -> dict:
        """JSON-ready; ``measures=False`` leaves out the per-measure table."""
        out = {
            "change": self.change,
            "recommended": self.recommended,
            "use": self.use,
            "baseline": self.baseline,
            "interval": self.interval,
            "simultaneous": self.simultaneous,
            "pool": list(self.pool),
            "closest": list(self.closest),
            "topics_needed": {m: _int_or_none(v) for m, v in self.topics_needed.items()},
            "target": self.target,
            "min_saving": self.min_saving,
            "confidence": self.comparison.confidence,
            "disagreements": list(self.disagreements),
            "reliably_more_significant": list(self.reliably_more_significant),
        }
        if measures:
            frame = self.to_frame()
            out["measures"] = [
                {k: (None if isinstance(v, float) and not math.isfinite(v) else
                     v.item() if isinstance(v, np.generic) else v)
                 for k, v in row.items()}
                for row in frame.to_dict(orient="records")
            ]
        return out


#: Below this many systems the verdict's interval covered less than its 95 % on real scores.
FEW_SYSTEMS = 20


def few_systems_text(n_systems: int) -> str:
    """The caveat of a collection with few systems (empty from :data:`FEW_SYSTEMS` on)."""
    if n_systems >= FEW_SYSTEMS:
        return ""
    return (f"With {n_systems} systems, read the intervals as less sure than 95 %: in universes "
            "made of real scores with 12 systems some covered the true difference less often "
            "(a few runs far from the rest decide every variance, and a sample can miss them; "
            "docs/calibration.md).")


def material_saving(n_base: float, n_cand: float, min_saving: float) -> bool:
    """Whether needing ``n_cand`` topics instead of ``n_base`` is a material saving.

    At least one topic and at least ``min_saving`` of the baseline's; a
    candidate that reaches the target when the baseline never does always
    saves materially, one that never reaches it never does.
    """
    if not math.isfinite(n_cand):
        return False
    if not math.isfinite(n_base):
        return True
    saving = n_base - n_cand
    return saving >= 1 and saving >= min_saving * n_base


def choose(diff, lower, needed, baseline: int, pool: Sequence[int],
           min_saving: float) -> int | None:
    """The rule on arrays over the measures: the index to recommend, or None.

    Candidates in ``pool`` (indices, in order of preference) pass when
    ``lower > 0`` and :func:`material_saving` holds; the largest ``diff`` wins,
    the first of ties.
    """
    passing = [k for k in pool
               if lower[k] > 0 and material_saving(needed[baseline], needed[k], min_saving)]
    return max(passing, key=lambda k: diff[k]) if passing else None  # max keeps the first tie


def decide(
    comparison: PairedComparison,
    topics_needed: Mapping[str, float],
    *,
    pool: Sequence[str] | None = None,
    target: float = 0.95,
    min_saving: float = 0.10,
    n_closest: int = 3,
) -> Verdict:
    """Keep the baseline or change, by the rule of the module docstring.

    Parameters
    ----------
    comparison : PairedComparison
    topics_needed : mapping
        ``{measure: topics for Phi = target}`` (``inf``: never), from the
        G-studies of the original sample; must cover the pool and the baseline.
    pool : sequence of str, optional
        Measures that may be recommended (default: the comparison's
        candidates, whose intervals are simultaneous), in order of preference
        for ties. Another pool is decided on the intervals it has (marginal
        for the context measures).
    target : float
        The Phi target the topics are counted for (reported only).
    min_saving : float
        Smallest material saving, as a fraction of the baseline's topics.
    n_closest : int
        How many closest candidates to name.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> effect = rng.normal(0, 1, (10, 1))
    >>> x = {m: effect + rng.normal(0, 2, (10, 40)) for m in ("a", "b", "c")}
    >>> r = paired_comparison(x, "a", n_bootstrap=300)
    >>> decide(r, {"a": 50, "b": 48, "c": 52}).recommended is None
    True
    """
    if not 0.0 <= min_saving < 1.0:
        raise IRStabError(f"min_saving: expected a fraction in [0, 1), got {min_saving!r}")
    base = comparison.baseline
    pool = [m for m in (comparison.candidates if pool is None else pool) if m != base]
    missing = [m for m in [base, *pool] if m not in topics_needed]
    if missing:
        raise IRStabError(f"topics_needed: no value for {missing}")
    ix = {m: comparison.index(m) for m in pool}
    d = comparison.phi_diff
    needed_all = [float(topics_needed.get(m, math.nan)) for m in comparison.measures]
    pick = choose(d, comparison.phi_diff_lower, needed_all, comparison.index(base),
                  [ix[m] for m in pool], min_saving)
    rec = None if pick is None else comparison.measures[pick]
    ranked = sorted((m for m in pool if m != rec and math.isfinite(d[ix[m]])),
                    key=lambda m: -d[ix[m]])
    closest = tuple(ranked[:n_closest])

    def disagree(m: str) -> bool:
        k = comparison.index(m)
        return bool(d[k] * comparison.sig_diff[k] < 0)

    shown = ([rec] if rec is not None else []) + list(closest)
    more_sig = tuple(
        m for m in pool
        if comparison.sig_diff_lower[ix[m]] > 0 and not comparison.phi_diff_lower[ix[m]] > 0
    )
    needed = {m: float(topics_needed[m]) for m in comparison.measures if m in topics_needed}
    return Verdict(
        recommended=rec, baseline=base, pool=tuple(pool), closest=closest,
        topics_needed=needed, target=float(target), min_saving=float(min_saving),
        disagreements=tuple(m for m in shown if disagree(m)),
        reliably_more_significant=more_sig, comparison=comparison,
    )


def topics_needed(cube: np.ndarray, target: float) -> np.ndarray:
    """Topics for Phi = ``target`` of every matrix ``cube[m]`` (G-study point estimates).

    Equal to ``gstudy(cube[m]).topics_needed(target, "phi").n``; ``inf`` when
    a measure has no system variance, or is constant up to rounding (the
    G-study's rule, :func:`irstab.stability.dstudy.crossed_psi`; at any
    scale of the scores).
    """
    from ..stability.coefficients import needed_from_psi
    from ..stability.dstudy import crossed_psi

    return needed_from_psi(crossed_psi(cube, "phi"), target)


def verdict(
    scores: Mapping,
    baseline: str,
    *,
    candidates: Sequence[str] | None = None,
    interval: PhiInterval | str = PhiInterval.jackknife,
    target: float = 0.95,
    min_saving: float = 0.10,
    n_bootstrap: int | None = None,
    confidence: float = 0.95,
    alpha: float = 0.05,
    n_closest: int = 3,
    seed=0,
    progress=None,
    held_out: Mapping | None = None,
    max_work: float | None = None,
) -> Verdict:
    r"""Is any candidate reliably, and materially, more stable than ``baseline``?

    Compares every measure with the baseline (:func:`~irstab.verdict.paired.paired_comparison`:
    the difference in Phi at the observed topics with a calibrated interval,
    simultaneous over the candidates, marginal for the other measures), counts
    the topics each needs for Phi = ``target`` (G-study point estimates) and
    applies the rule of :func:`decide`.

    Parameters
    ----------
    scores : mapping
        ``{measure: systems x topics}`` matrices (DataFrames or arrays) with
        the same systems and topics, from irstab or any other tool.
    baseline : str
        The measure in use.
    candidates : sequence of str, optional
        The measures that could be recommended (the simultaneous family), in
        order of preference for ties. Default: all but the baseline. The
        others are compared for context only.
    interval : {"jackknife", "parametric", "bootstrap", "topic-bootstrap"}
        How the intervals are made (:mod:`irstab.verdict.paired`): ``"jackknife"`` holds
        in universes of real scores and normal ones; ``"parametric"`` in normal ones only.
    target : float
        Phi target of the topics needed (in (0, 1)).
    min_saving : float
        Smallest saving of topics, as a fraction of the baseline's, that makes
        a change worth it.
    n_bootstrap, confidence, alpha, seed, progress
        As in :func:`~irstab.verdict.paired.paired_comparison`.
    n_closest : int
        Closest candidates named when the baseline is kept.
    max_work : float, optional
        The largest comparison taken on, in paired t-tests (measures x topic resamples x
        pairs of systems, :func:`~irstab.verdict.draws.comparison_work`; default
        :data:`~irstab.verdict.draws.MAX_WORK`, some 10 s): a larger one is refused before
        any of its work, naming how many measures and draws fit. ``math.inf``: no limit.
    held_out : mapping, optional
        ``{measure: systems x topics}``: held-out (cross-fitted) scores of measures that
        were chosen by searching these same topics (optimised configurations;
        :func:`irstab.optimizer.cross_fit`). The rule judges those measures on them: their
        difference, interval and topics needed come from held-out scores only, and their
        in-sample difference is kept beside (``in_sample``, ``to_frame()``'s
        ``phi_diff_in_sample``).

    Returns
    -------
    Verdict
        ``recommended`` (or None), and per measure the difference and its
        interval (``to_frame()``).

    Examples
    --------
    >>> import numpy as np
    >>> from irstab.compare import verdict
    >>> rng = np.random.default_rng(4)
    >>> effect = rng.normal(0, 0.15, (30, 1)) + rng.normal(0, 0.2, (1, 40))
    >>> x = {"ndcg": effect + rng.normal(0, 0.25, (30, 40)),
    ...      "sharp": effect + rng.normal(0, 0.10, (30, 40))}
    >>> v = verdict(x, "ndcg")
    >>> v.recommended, v.interval
    ('sharp', 'jackknife')
    >>> v.to_frame()[["measure", "role", "reliably_more_stable"]].to_dict("list")
    {'measure': ['ndcg', 'sharp'], 'role': ['baseline', 'candidate'], 'reliably_more_stable': [False, True]}
    """
    from ..stability.coefficients import check_target

    target = check_target(target)
    if not 0.0 <= min_saving < 1.0:
        raise IRStabError(f"min_saving: expected a fraction in [0, 1), got {min_saving!r}")
    if isinstance(n_closest, bool) or not isinstance(n_closest, (int, np.integer)) or n_closest < 0:
        raise IRStabError(f"n_closest: expected an integer >= 0, got {n_closest!r}")
    held = dict(held_out or {})
    unknown = [m for m in held if m not in scores]
    if unknown:
        raise IRStabError(f"held_out: {unknown} are not among the measures {list(scores)}")
    data = as_scores({m: held.get(m, x) for m, x in scores.items()}, scale_free=True)
    comparison = paired_comparison(
        data, baseline, candidates=candidates, interval=interval, n_bootstrap=n_bootstrap,
        confidence=confidence, alpha=alpha, seed=seed, progress=progress, max_work=max_work,
    )
    needed = dict(zip(data.measures, topics_needed(data.cube, target).tolist()))
    out = decide(comparison, needed, target=target, min_saving=min_saving,
                 n_closest=int(n_closest))
    if not held:
        return out
    from .paired import phi_differences

    names = [baseline, *held]
    flat = as_scores({m: scores[m] for m in names}, scale_free=True)
    cube = flat.cube[[flat.measures.index(m) for m in names]]
    d = phi_differences(cube, 0, np.zeros(len(names), dtype=bool), interval=interval,
                        rng=np.random.default_rng(0))
    return replace(out, in_sample={m: (float(d.diff[k]), float(d.lower[k]), float(d.upper[k]))
                                   for k, m in enumerate(names) if k})
