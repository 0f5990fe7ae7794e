"""Score matrices the simulator's tests fit: DL-2019 (from the real runs, used in place) and
the TREC-3 AP matrix of data/trec3-adhoc."""

from __future__ import annotations

from pathlib import Path

import pytest

TREC3 = Path(__file__).resolve().parents[2] / "data" / "trec3-adhoc" / "AP.csv"


@pytest.fixture(scope="session")
def dl_scores(dl2019):
    """DL-2019 score matrices (37 runs x 43 topics) of nDCG@10, P@10, RR and AP."""
    import irstab

    return irstab.score_matrices(dl2019, ["nDCG@10", "P@10", "RR", "AP"])


@pytest.fixture(scope="session")
def trec3():
    """TREC-3 ad hoc AP, 40 systems x 50 topics (gt4ireval's adhoc3)."""
    from irstab.io.scorematrix import read_score_matrix

    return read_score_matrix(TREC3)
