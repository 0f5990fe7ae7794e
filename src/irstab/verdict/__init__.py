"""Keep or change the measure: the verdict, its interval, and how often both are right.

The question a reader brings here: *is any candidate measure reliably, and materially, more
stable than the one in use, and how sure is that?* Bottom up (each module imports only the ones
below it in this list):

:mod:`.draws`        the interval's type (:class:`PhiInterval`) and the draws of differences
                     of Phi with their simultaneous levels
:mod:`.jackknife`    the two-facet jackknife of contrasts of Phi (the variance from the data,
                     systems left out exactly where their means are heavy-tailed) and the
                     verdict's default interval built on it
:mod:`.paired`       :func:`paired_comparison`: every measure's Phi and its difference from
                     the baseline, with the interval (jackknife, bootstrap, pivots)
:mod:`.decision`     :func:`decide` and :func:`verdict`: the rule (keep, change, too close)
                     and the topics each measure needs
:mod:`.universes`    universes to check the rule in: normal ones fitted to a collection and
                     real ones (systems and topics of a real collection resampled)
:mod:`.calibration`  :func:`~.calibration.calibrate`: coverage, wrong changes and power of
                     the interval and the rule, simulated in those universes
:mod:`.reference`    the reference population: real-score universes of ten public
                     collections, on which the interval's constants were calibrated

``docs/calibration.md`` has the figures. The trust card (:mod:`irstab.trust`) runs the same
calibration on the user's own collection.

May import: :mod:`irstab.stability` and the floors below it; never :mod:`irstab.compare`,
:mod:`irstab.systems`, :mod:`irstab.trust` or anything above.

Examples
--------
>>> import numpy as np
>>> from irstab.verdict import verdict
>>> rng = np.random.default_rng(3)
>>> base = rng.normal(0.5, 0.1, (12, 1)) + rng.normal(0, 0.1, (12, 30))
>>> v = verdict({"nDCG@10": base, "twin": base * 2 + 1}, baseline="nDCG@10", seed=1)
>>> v.recommended is None  # an affine twin is exactly as stable: keep nDCG@10
True
"""

from .decision import Verdict, decide, verdict
from .paired import PairedComparison, PhiInterval, paired_comparison

__all__ = ["verdict", "Verdict", "decide", "paired_comparison", "PairedComparison",
           "PhiInterval"]
