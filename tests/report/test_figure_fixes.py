"""Readability of the figures: labelled end points and targets, visible coinciding curves,
integer or log rank axes, titles that name the problem. Each test inspects the matplotlib
objects (texts, tick labels, scales) of a figure drawn from real library results."""

from __future__ import annotations

import numpy as np
import pytest

import irstab
from irstab.optimizer import Scenario, minimax, pareto, scenarios_by_cutoff
from irstab.report import optimizer_figures as figs
from irstab.report.crp_figures import plot_crp_curve
from irstab.report.figures import plot_dstudy
from irstab.stability import gstudy


@pytest.fixture(scope="module")
def coll():
    sim = irstab.simulate.simulate_collection(n_systems=6, n_topics=12, depth=200, seed=5)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=200)


@pytest.fixture(scope="module")
def small():
    """8 systems x 12 topics, depth 30 (the optimizer tests' collection)."""
    sim = irstab.simulate.simulate_collection(n_systems=8, n_topics=12, depth=30, seed=11)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=30)


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_pareto_end_points_are_labelled_and_ticks_do_not_overlap(small):
    front = pareto(Scenario(small, 5), Scenario(small, 20), points=5, starts=0)
    fig = figs.plot_pareto(front)
    texts = _texts(fig)
    assert any(t.startswith(f"best {front.first_name}") for t in texts)
    assert any(t.startswith(f"best {front.second_name}") for t in texts)
    fig.canvas.draw()
    ax = fig.axes[0]
    for axis in (ax.xaxis, ax.yaxis):
        labels = [t for t in axis.get_ticklabels() if t.get_text()]
        assert 2 <= len(labels) <= 7  # MaxNLocator(5): at most 6 inside, one may sit outside
        assert len({t.get_text() for t in labels}) == len(labels)  # distinct, no offset text
        assert axis.get_offset_text().get_text() == ""
    boxes = sorted((t.get_window_extent() for t in ax.xaxis.get_ticklabels() if t.get_text()),
                   key=lambda b: b.x0)
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:]))  # no overlapping x labels


def test_minimax_title_says_minimax(small):
    res = minimax(scenarios_by_cutoff(small, (5, 20)), starts=0)
    fig = figs.plot_result(res)
    assert fig._suptitle.get_text().startswith("minimax joint over")
    assert "optimal joint" not in fig._suptitle.get_text()
    # the objective is Phi at one topic: named as the tables and the Pareto axes name it
    assert f"(worst Phi1 = {res.value:.4f})" in fig._suptitle.get_text()


def test_dstudy_targets_labelled_and_coinciding_curves_visible(coll):
    x = irstab.score_matrix(coll, "nDCG@10")
    grid = np.arange(1, 60)
    a = gstudy(x, name="nDCG@10").dstudy(grid, targets=(0.9, 0.95))
    b = gstudy(x.copy(), name="twin").dstudy(grid, targets=(0.9, 0.95))  # the same curve
    fig = plot_dstudy([a, b], targets=(0.9, 0.95))
    assert {"Phi = 0.9", "Phi = 0.95"} <= set(_texts(fig))
    lines = [ln for ln in fig.axes[0].lines if ln.get_label().startswith(("nDCG@10", "twin"))]
    assert len(lines) == 2
    # different markers at different ranks: the first curve shows through the second
    assert lines[0].get_marker() != lines[1].get_marker()
    assert lines[0].get_markevery() != lines[1].get_markevery()


def test_crp_curve_axes(coll):
    run, topic = coll.systems[0], coll.topics[0]
    deep = irstab.metrics.crp_curve(coll, run, topic)
    assert deep.n == 200
    fig = plot_crp_curve(deep)
    assert fig.axes[1].get_xscale() == "log"  # ranks 1-20 are not squeezed at N = 200
    shallow = irstab.metrics.crp_curve(coll, run, topic, n=20)
    fig = plot_crp_curve(shallow)
    fig.canvas.draw()
    ticks = [float(t.get_text().replace("\u2212", "-")) for t in fig.axes[1].get_xticklabels()
             if t.get_text()]
    assert ticks and all(t == int(t) for t in ticks)  # integer ranks at depth 20
    # the worst case's minimum is inside the plot
    lo, _ = fig.axes[0].get_ylim()
    assert lo <= shallow.worst_crp.min()
