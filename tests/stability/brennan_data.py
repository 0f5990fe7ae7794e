"""Published G-theory data sets (Brennan 2001), transcribed for the oracle tests.

Sources of the raw tables: Brennan, R. L. (2001). *Generalizability Theory*.
Springer. The matrices below are the book's tables as transcribed in the test
fixtures of GeneralizIT (github.com/tylerjsmith111/GeneralizIT,
tests/fixtures/design1_fixtures.py and design4_fixtures.py); the book itself
was not available to us, so the transcription is checked by reproducing the
printed results (see test_gstudy_oracles.py).
"""

import numpy as np

# Brennan (2001) Table 2.2, Synthetic Data Set No. 1: p x i, 10 persons x 12 items (0/1).
SYNTHETIC_1 = np.array(
    [
        [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    ],
    dtype=float,
)

# Brennan (2001) Table 3.2, Synthetic Data Set No. 4: 10 persons x 12 ratings
# (3 tasks x 4 raters), read as a p x i design as Brennan does on p. 182.
SYNTHETIC_4 = np.array(
    [
        [5, 6, 5, 5, 5, 3, 4, 5, 6, 7, 3, 3],
        [9, 3, 7, 7, 7, 5, 5, 5, 7, 7, 5, 2],
        [3, 4, 3, 3, 5, 3, 3, 5, 6, 5, 1, 6],
        [7, 5, 5, 3, 3, 1, 4, 3, 5, 3, 3, 5],
        [9, 2, 9, 7, 7, 7, 3, 7, 2, 7, 5, 3],
        [3, 4, 3, 5, 3, 3, 6, 3, 4, 5, 1, 2],
        [7, 3, 7, 7, 7, 5, 5, 7, 5, 5, 5, 4],
        [5, 8, 5, 7, 7, 5, 5, 4, 3, 2, 1, 1],
        [9, 9, 8, 8, 6, 6, 6, 5, 5, 8, 1, 1],
        [4, 4, 4, 3, 3, 5, 6, 5, 5, 7, 1, 1],
    ],
    dtype=float,
)
