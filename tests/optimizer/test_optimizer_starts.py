"""Random starts that cover the feasible set, and the agreement of the starts.

On TREC DL 2019 at k = 1000 (linear gains) Phi(1) of the optimal monotone discount
has two local optima: 0.262818 (an almost flat discount: increments at ranks 2, 4
and 1000) and 0.230292 (top-heavy, zero below rank 12). Both values were confirmed
by an independent multi-start solver with 200 starts per problem, to 3e-16; a
scan of 15,400 mixtures of two flat-top discounts found nothing better.
"""

from __future__ import annotations

import numpy as np
import pytest
from optimizer_data import small_collection

from irstab.errors import IRStabError
from irstab.optimizer import Problem, Scenario, optimize
from irstab.optimizer.parametrisation import RANDOM_KINDS

BETTER_OPTIMUM = 0.26282  # Phi(1) of the almost flat discount at k = 1000 (module docstring)


@pytest.mark.parametrize("kind", RANDOM_KINDS)
def test_random_starts_are_feasible_and_spread_over_the_ranks(kind):
    par = Problem.build([Scenario(small_collection(depth=30), 30)], vary="joint").param
    rng = np.random.default_rng(1)
    ys = np.stack([par.random(rng, kind) for _ in range(300)])
    assert np.all(ys >= 0)
    for b in par.blocks:
        np.testing.assert_allclose(ys[:, b].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    disc = ys[:, par.blocks[-1]]
    # the mean position of the increments' mass is uniform over ranks 1..30 in
    # expectation (15.5 = (1 + 30) / 2 for every kind); 300 draws: standard error < 1
    centre = (disc * np.arange(1, 31)).sum(axis=1).mean()
    assert 13.0 < centre < 18.0
    if kind == "flat-top":
        assert np.all((disc > 0).sum(axis=1) <= 3)


def test_long_dirichlet_blocks_are_thinned():
    par = Problem.build([Scenario(small_collection(depth=30), 30)], vary="discount").param
    y = par.random(np.random.default_rng(2), "dirichlet-1", support=8)
    assert np.count_nonzero(y) == 8 and y.sum() == pytest.approx(1.0)


def test_unknown_kind_is_named():
    par = Problem.build([Scenario(small_collection(depth=30), 10)], vary="discount").param
    with pytest.raises(IRStabError, match="kind: expected one of"):
        par.random(np.random.default_rng(0), "gaussian")


def test_random_only_needs_a_random_start(small):
    with pytest.raises(IRStabError, match="starts: without the preset starts"):
        optimize(small, 5, starts=0, preset_starts=False)


def test_agreement_is_reported(small):
    res = optimize(small, 10, starts=3, preset_starts=False, seed=4)
    assert [s.start.split(" ")[0] for s in res.starts] == ["random-1", "random-2", "random-3"]
    finals = [s.final for s in res.starts]
    assert res.reached_best == sum(f >= max(finals) - 1e-6 for f in finals)
    assert res.starts_disagree == (res.reached_best < 3)
    d = res.to_dict()
    assert d["reached_best"] == res.reached_best and d["starts_disagree"] == res.starts_disagree
    assert str(res.reached_best) in res.agreement()


def test_random_starts_reach_the_better_optimum_on_dl2019(dl2019):
    res = optimize(dl2019, 1000, starts=20, seed=0, preset_starts=False, strict=False)
    assert len(res.starts) == 20
    assert res.value == pytest.approx(BETTER_OPTIMUM, abs=1e-5)
    reached = sum(s.final >= BETTER_OPTIMUM - 1e-5 for s in res.starts)
    assert reached >= 10, [round(s.final, 6) for s in res.starts]
    assert res.reached_best == reached
    if reached < 20:
        assert res.starts_disagree and "starts disagree" in res.agreement()


def test_parallel_starts_give_the_same_result(small):
    one = optimize(small, 10, starts=3, workers=1)
    two = optimize(small, 10, starts=3, workers=2)
    assert [s.start for s in one.starts] == [s.start for s in two.starts]
    assert [s.final for s in one.starts] == [s.final for s in two.starts]
    assert one.discount == two.discount


def test_workers_is_validated(small):
    with pytest.raises(IRStabError, match="workers: must be a positive integer"):
        optimize(small, 5, workers=0)


def test_time_limit_returns_the_best_point_with_its_status(small):
    from irstab.errors import IRStabWarning
    from irstab.optimizer import Status

    with pytest.warns(IRStabWarning, match="time limit of 1e-09 s reached"):
        res = optimize(small, 30, starts=4, time_limit=1e-9, workers=1)
    # the first start always runs (and stops at once); the others are skipped
    assert len(res.starts) == 1
    assert res.status in (Status.time_limit, Status.optimal)
    assert res.starts[0].final >= res.starts[0].initial - 1e-12
    full = optimize(small, 30, starts=4, workers=1)
    assert full.value >= res.value - 1e-12
    with pytest.raises(IRStabError, match="time_limit: must be a positive number"):
        optimize(small, 5, time_limit=0)


def test_starts_run_in_processes_when_the_forms_are_large(monkeypatch):
    # auto_workers' rule (its docstring): 100 discount coordinates stay in one process
    # unless the linear forms hold at least LARGE_ENTRIES entries; a free core is needed
    import irstab.optimizer.starts as starts
    from irstab.optimizer.task import Task

    coll = small_collection(depth=30)
    task = Task(Problem.build([Scenario(coll, 30)], vary="discount"))
    entries = task.problem.scenarios[0].n_entries
    assert entries == int((np.clip(coll.grades[:, :, :30], 0, None) > 0).sum())
    monkeypatch.setattr(starts.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(starts, "idle_cores", lambda **_: None)  # where /proc/stat is missing
    monkeypatch.setattr(starts.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert starts.auto_workers(task, 5) == 1
    monkeypatch.setattr(starts, "LARGE_ENTRIES", entries)
    assert starts.auto_workers(task, 5) == 2
    assert starts.auto_workers(task, 1) == 1
    monkeypatch.setattr(starts.os, "getloadavg", lambda: (1.0, 0.0, 0.0))  # this process alone
    assert starts.auto_workers(task, 5) == 2
    monkeypatch.setattr(starts.os, "getloadavg", lambda: (1.5, 0.0, 0.0))  # no core free
    assert starts.auto_workers(task, 5) == 1
    # the idle time sampled now decides where it can be read, whatever the load average
    for idle, want in ((2.0, 2), (1.6, 2), (1.4, 1), (0.1, 1)):
        monkeypatch.setattr(starts, "idle_cores", lambda idle=idle, **_: idle)
        assert starts.auto_workers(task, 5) == want, idle
    assert starts.auto_workers(task, 1) == 1


def test_idle_cores_are_between_none_and_all():
    # the sample's bounds: idle and I/O-wait ticks are part of all ticks (Linux; elsewhere None)
    import irstab.optimizer.starts as starts

    idle = starts.idle_cores(0.05)
    if idle is not None:
        assert 0.0 <= idle <= starts.os.cpu_count()
        assert 0.0 <= starts.idle_cores(0.05, windows=3) <= starts.os.cpu_count()


def test_idle_cores_take_the_most_idle_window(monkeypatch):
    # /proc/stat's first line written here, 2 cores, 200 ticks a window: idle ticks 10 (0.1
    # cores idle); then 110, 20, 130 (1.1, 0.2, 1.3: the most idle of three is 1.3); then 200
    # (every core idle: the sampling stops there, its next line left unread)
    import io

    import irstab.optimizer.starts as starts

    lines = iter(["cpu 0 0 0 0 0 0 0 0", "cpu 190 0 0 10 0 0 0 0",
                  "cpu 190 0 0 10 0 0 0 0", "cpu 280 0 0 120 0 0 0 0",
                  "cpu 460 0 0 140 0 0 0 0", "cpu 530 0 0 270 0 0 0 0",
                  "cpu 530 0 0 270 0 0 0 0", "cpu 530 0 0 470 0 0 0 0", "unread"])
    real_open = open
    monkeypatch.setattr(starts.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(starts.time, "sleep", lambda s: None)
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: io.StringIO(next(lines) + "\n")
                        if path == "/proc/stat" else real_open(path, *a, **k))
    assert starts.idle_cores(windows=1) == pytest.approx(0.1)
    assert starts.idle_cores(windows=3) == pytest.approx(1.3)
    assert starts.idle_cores(windows=3) == pytest.approx(2.0)
    assert next(lines) == "unread"
