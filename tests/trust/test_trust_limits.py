"""The trust card's limits: degenerate collections, memory of each stage, and what it says.

Issue 41 items 5, 6 and 9. Oracles: the memory bound is checked against tracemalloc's peak of
the very blocks the card runs (numpy reports its buffers to tracemalloc); the refusals are
the documented rules (2 systems for a pair, 3 for the verdict's jackknife); every format of
the command is run.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import irstab._numeric as _numeric
import irstab.cli
from irstab.errors import DegenerateDataError, IRStabError
from irstab.simulate import fit_collection
from irstab.trust import calibrate_collection
from irstab.trust.paired_tests import _block, _levels, block_bytes


def _scores(S: int, T: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(0.5, 0.08, (S, 1)) + rng.normal(0, 0.15, (S, T)), 0, 1)


@pytest.mark.parametrize("S,T,R", [(40, 10, 3), (80, 8, 2), (30, 40, 2), (120, 10, 1),
                                   (200, 10, 2)])
def test_a_block_stays_below_its_memory_bound(S, T, R):
    # the bound the card checks before any work (block_bytes) holds for every test's peak:
    # Wilcoxon's ranks (86 bytes a collection, pair and topic) were 2.7 times the old count
    model = fit_collection(_scores(S, T), seed=1)
    _block(model, _levels((0.01,)), 0, 1, T, [0.05], 20, 7)  # imports done: not the block's
    tracemalloc.start()
    try:
        _block(model, _levels((0.01, 0.02, 0.05)), 0, R, T, [0.05], 200, 7)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    bound = block_bytes(S, T, R, 200)
    assert peak <= bound, (peak, bound)
    assert peak >= 0.25 * bound, (peak, bound)  # and it is not a bound of no use


def _limit(monkeypatch, nbytes: float) -> None:
    monkeypatch.setattr(_numeric, "_memory_bytes", lambda: int(nbytes))


def test_just_under_the_memory_threshold_runs_and_just_over_is_refused(monkeypatch):
    # 1,000 systems x 10 topics passed the old check and ran out of memory in the Wilcoxon
    # stage after 296 s; now the block's bound decides before anything is simulated
    S, T, bs = 60, 10, 10
    need = block_bytes(S, T, bs, 50)
    x = _scores(S, T)
    _limit(monkeypatch, 2 * need * 0.999)  # half of it is what may be used
    with pytest.raises(IRStabError, match=r"scores: 60 systems make 1770 pairs; a block of 10"):
        calibrate_collection(x, n_replicates=10, n_resamples=50, verdict_replicates=0,
                             fit_collections=0, gtheory_replicates=10)
    _limit(monkeypatch, 2 * need * 1.001)
    calibrate_collection(x[:4, :], n_replicates=10, n_resamples=50, verdict_replicates=0,
                         fit_collections=0, gtheory_replicates=10)  # imports, not the card's
    tracemalloc.start()
    try:
        card = calibrate_collection(x, n_replicates=10, n_resamples=50, verdict_replicates=0,
                                    fit_collections=0, gtheory_replicates=10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert card.n_replicates == 10 and peak <= need


def _csv(path, x):
    pd.DataFrame(x, index=[f"s{i}" for i in range(x.shape[0])],
                 columns=[f"t{j}" for j in range(x.shape[1])]).rename_axis("system").to_csv(path)
    return path


def _cli(capsys, *argv):
    code = irstab.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


DEGENERATE = {
    # one system: an IndexError before
    "one": (lambda: _scores(1, 12), "1 system; the card tests pairs of systems"),
    # identical systems: the table crashed on true_topics_needed = None
    "identical": (lambda: np.tile(_scores(1, 12), (5, 1)),
                  "all 5 systems have the same score on every topic"),
    # two systems: refused without saying how to measure the tests alone
    "two": (lambda: _scores(2, 12), "--verdict-replicates 0"),
    # constant up to rounding
    "noise": (lambda: np.where(np.arange(72).reshape(6, 12) % 3, 0.3, 0.1 + 0.2),
              "equal within rounding noise"),
}


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "tsv"])
@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_a_degenerate_collection_gets_a_located_message_in_every_format(tmp_path, capsys,
                                                                        case, fmt):
    make, says = DEGENERATE[case]
    path = _csv(tmp_path / f"{case}.csv", make())
    out_file = tmp_path / "card.out"
    code, out, err = _cli(capsys, "calibrate", "-s", path, "-f", fmt, "-o", out_file,
                          "-R", "10", "-B", "50")
    assert code == 1 and out == ""
    assert err.startswith(f"irstab: error: {path}: ") and says in err, err
    assert len(err.strip().splitlines()) == 1 and not out_file.exists()


def test_the_library_names_its_argument_and_the_way_out():
    with pytest.raises(DegenerateDataError, match=r"^scores: 2 systems; .*verdict_replicates=0"):
        calibrate_collection(_scores(2, 12))
    card = calibrate_collection(_scores(2, 12), n_replicates=10, n_resamples=50,
                                verdict_replicates=0, fit_collections=0, gtheory_replicates=10)
    assert card.verdict is None and len(card.systems) == 2


def test_identical_systems_print_never_where_no_topic_count_exists():
    # the table formatted None with :g before; a count that cannot exist prints "never"
    from irstab.cli.calibrate import _count

    assert _count(None) == "never" and _count(68.0) == "68"


def test_a_delta_no_margin_reaches_says_why_not_n_a(tmp_path, capsys):
    path = _csv(tmp_path / "s.csv", _scores(6, 12))
    code, out, err = _cli(capsys, "calibrate", "-s", path, "--delta", "2", "-R", "20", "-B",
                          "100", "--verdict-replicates", "0")
    assert code == 0, err
    assert "Power at a difference of 2 is n/a: no pair of systems could be planted 2 apart" in out
    assert "found in n/a" not in out and "With Benjamini-Hochberg: n/a" not in out


def test_out_of_range_scores_name_the_file_and_the_option(tmp_path, capsys):
    x = _scores(5, 12) * 2
    path = _csv(tmp_path / "dcg.csv", x)
    code, _, err = _cli(capsys, "calibrate", "-s", path)
    assert code == 1 and err.startswith(f"irstab: error: {path}: score of system ")
    assert "--bounds LO HI" in err
    code, out, err = _cli(capsys, "calibrate", "-s", path, "--bounds", "0", "2", "-R", "20",
                          "-B", "100", "--verdict-replicates", "0")
    assert code == 0, err


def test_scheduler_with_scores_is_said_to_be_unused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("IRSTAB_SCHEDULER", raising=False)
    path = _csv(tmp_path / "s.csv", _scores(6, 12))
    code, out, err = _cli(capsys, "stability", "-s", path, "--scheduler", "tcp://127.0.0.1:1")
    assert code == 0 and "--scheduler: not used with --scores" in err
    monkeypatch.setenv("IRSTAB_SCHEDULER", "tcp://127.0.0.1:1")  # set for every command
    code, out, err = _cli(capsys, "stability", "-s", path)
    assert code == 0 and "--scheduler" not in err


def test_a_name_given_with_another_type_is_named_so():
    from irstab.systems import compare_systems
    from irstab.verdict import verdict

    x = _scores(5, 12)
    with pytest.raises(IRStabError, match=r"1 \(of type int\) is not among .* give '1'"):
        verdict({"1": x, "2": x ** 2}, baseline=1)
    with pytest.raises(IRStabError, match=r"0 is of type int; the names are strings: give '0'"):
        compare_systems(x, baseline=0)


def test_the_card_runs_blas_on_one_thread(monkeypatch):
    # every product of the card is small: OpenBLAS's second thread spun for each of them
    # (DL-2019's blocks: 6.0-6.3 s of CPU on two threads, 3.1-4.8 s on one); the blocks, the
    # verdict's checks and the fit check run with BLAS limited to one thread, and the limit
    # is lifted afterwards. The numbers are the same (tests/trust/test_trust.py's oracles)
    from threadpoolctl import threadpool_info

    import irstab.trust.card as card

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    seen = []
    real = card._block
    monkeypatch.setattr(card, "_block", lambda **job: seen.append(blas_threads()) or real(**job))
    before = blas_threads()
    rng = np.random.default_rng(0)
    x = np.clip(rng.normal(0.5, 0.08, (6, 1)) + rng.normal(0, 0.15, (6, 30)), 0, 1)
    calibrate_collection(x, n_replicates=20, n_resamples=50, verdict_replicates=0,
                         gtheory_replicates=50, fit_collections=0, seed=1)
    assert seen and all(threads and max(threads) == 1 for threads in seen)
    assert blas_threads() == before
