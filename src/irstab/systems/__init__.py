"""System against system: is A better than B on this measure, and by how much?

What ``irstab systems`` answers. Bottom up:

:mod:`.significance`  the paired tests (t, permutation, bootstrap, Wilcoxon, sign, randomised
                      Tukey HSD), vectorised over pairs and resamples; Holm and
                      Benjamini-Hochberg; effect sizes with their intervals
:mod:`.table`         :func:`compare_systems`: every system's mean, every pair's difference,
                      effect, p-value and adjusted p-value, and ranx-style marks

How often each test is wrong on collections like the user's is :mod:`irstab.trust`'s question.

May import: :mod:`irstab.stability` and the floors below it; never :mod:`irstab.compare`,
:mod:`irstab.verdict`, :mod:`irstab.trust` or anything above.

Examples
--------
>>> import numpy as np
>>> from irstab.systems import compare_systems
>>> import pandas as pd
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(0.5, 0.1, (3, 25)) + np.array([[0.0], [0.1], [0.0]])
>>> table = compare_systems(pd.DataFrame(x, index=["bm25", "dense", "rm3"]), baseline="bm25")
>>> table.to_frame()[["a", "b", "significant"]].values.tolist()
[['dense', 'bm25', True], ['rm3', 'bm25', False]]
"""

from .significance import Adjustment, SignificanceTest, run_test
from .table import SystemComparison, compare_systems

__all__ = ["compare_systems", "SystemComparison", "SignificanceTest", "Adjustment", "run_test"]
