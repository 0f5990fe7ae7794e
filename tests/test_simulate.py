"""Tests of irstab.simulate: determinism, shapes, run invariants, file round trip."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from irstab.errors import IRStabError
from irstab.io import read_qrels, read_runs
from irstab.simulate import DL_GRADE_PROBS, EXAMPLE_PARAMS, SimulatedCollection, simulate_collection


@pytest.fixture(scope="module")
def small() -> SimulatedCollection:
    return simulate_collection(n_systems=5, n_topics=8, depth=40, seed=11)


def assert_same(a: SimulatedCollection, b: SimulatedCollection) -> None:
    pd.testing.assert_frame_equal(a.qrels.frame, b.qrels.frame)
    assert [r.name for r in a.runs] == [r.name for r in b.runs]
    for ra, rb in zip(a.runs, b.runs):
        pd.testing.assert_frame_equal(ra.frame, rb.frame)
    np.testing.assert_array_equal(a.quality, b.quality)
    np.testing.assert_array_equal(a.signal, b.signal)


def precision_at_10(c: SimulatedCollection) -> np.ndarray:
    """Mean P@10 per run (grade >= 1 relevant), written here with pandas on purpose."""
    means = []
    for run in c.runs:
        top = run.frame[run.frame["rank"] <= 10].merge(
            c.qrels.frame, on=["topic", "docid"], how="left"
        )
        per_topic = (top["grade"].fillna(0) >= 1).groupby(top["topic"]).sum() / 10
        means.append(per_topic.reindex(list(c.topics), fill_value=0).mean())
    return np.array(means)


# ---------------------------------------------------------------- determinism


def test_same_seed_gives_identical_collection():
    assert_same(simulate_collection(4, 6, 30, seed=3), simulate_collection(4, 6, 30, seed=3))


def test_generator_seed_equals_int_seed():
    assert_same(
        simulate_collection(4, 6, 30, seed=np.random.default_rng(3)),
        simulate_collection(4, 6, 30, seed=3),
    )


def test_different_seed_gives_different_collection():
    a = simulate_collection(4, 6, 30, seed=3)
    b = simulate_collection(4, 6, 30, seed=4)
    assert not a.qrels.frame.equals(b.qrels.frame)
    assert not any(ra.frame.equals(rb.frame) for ra, rb in zip(a.runs, b.runs))


def test_global_numpy_state_is_untouched():
    before = np.random.get_state()
    simulate_collection(3, 4, 20, seed=0)
    after = np.random.get_state()
    assert before[0] == after[0]
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2:] == after[2:]


# ---------------------------------------------------------------- shapes and sizes


@pytest.mark.parametrize(
    "n_systems, n_topics, depth, n_grades",
    [(1, 1, 1, 2), (3, 7, 25, 2), (12, 30, 100, 4), (4, 5, 60, 6)],
)
def test_sizes_as_requested(n_systems, n_topics, depth, n_grades):
    c = simulate_collection(n_systems, n_topics, depth, n_grades, seed=5)
    q = c.qrels.frame
    assert len(c.runs) == n_systems
    assert len(c.topics) == n_topics
    assert c.qrels.topics == sorted(c.topics)
    assert c.quality.shape == (n_systems,)
    assert c.topic_difficulty.shape == (n_topics,)
    assert c.interaction.shape == c.signal.shape == (n_systems, n_topics)
    assert list(q.columns) == ["topic", "docid", "grade"]
    assert q["grade"].dtype == np.int64
    assert q["grade"].between(0, n_grades - 1).all()
    sizes = q.groupby("topic").size()
    assert sizes.between(50, 400).all()
    for run in c.runs:
        f = run.frame
        assert list(f.columns) == ["topic", "docid", "rank", "score"]
        assert (f["rank"].dtype, f["score"].dtype) == (np.int64, np.float64)  # as read_run gives
        assert (f.groupby("topic", sort=False).size() == depth).all()
        assert f["topic"].drop_duplicates().tolist() == list(c.topics)  # grouped, in order
        assert run.path == c.qrels.path == "<simulated>"
        assert run.tag == run.name


def test_names_and_ids_are_padded_so_text_order_is_numeric_order():
    c = simulate_collection(n_systems=12, n_topics=30, depth=10, seed=1)
    assert c.system_names == [f"sim{i:02d}" for i in range(1, 13)]
    assert list(c.topics) == [f"{i:02d}" for i in range(1, 31)]
    lengths = c.qrels.frame["docid"].str.len()
    assert lengths.nunique() == 1


def test_pool_sizes_and_grade_shares_are_realistic():
    # Seeded run of the generative model; shares pooled over 300 topics.
    c = simulate_collection(n_systems=1, n_topics=300, depth=10, seed=8)
    q = c.qrels.frame
    sizes = q.groupby("topic").size()
    assert 100 <= sizes.median() <= 200
    assert sizes.min() >= 50 and sizes.max() <= 400
    shares = q["grade"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(shares, DL_GRADE_PROBS, atol=0.04)
    # Topics differ in how many relevant documents they have, as real topics do.
    relevant_share = (q["grade"] > 0).groupby(q["topic"]).mean()
    assert relevant_share.std() > 0.1


def test_every_topic_has_a_relevant_document():
    # Almost no relevant grades and tiny pools: most topics need the fix-up.
    c = simulate_collection(
        n_systems=2, n_topics=40, depth=10, n_grades=2, seed=2,
        grade_probs=(0.999, 0.001), grade_concentration=1000.0, pool_range=(5, 5),
    )
    relevant = (c.qrels.frame["grade"] > 0).groupby(c.qrels.frame["topic"]).sum()
    assert len(relevant) == 40
    assert (relevant >= 1).all()
    assert (relevant == 1).sum() > 30


def test_default_seeded_collection_has_relevant_docs_in_every_topic(small):
    assert (small.qrels.frame.groupby("topic")["grade"].max() > 0).all()


# ---------------------------------------------------------------- run invariants


def test_docids_unique_within_topic(small):
    assert not small.qrels.frame.duplicated(["topic", "docid"]).any()
    for run in small.runs:
        assert not run.frame.duplicated(["topic", "docid"]).any()


def test_scores_strictly_decreasing_and_ranks_consecutive(small):
    for run in small.runs:
        f = run.frame
        same_topic = f["topic"].to_numpy()[1:] == f["topic"].to_numpy()[:-1]
        drops = np.diff(f["score"].to_numpy())[same_topic]
        assert (drops < 0).all()
        assert np.isfinite(f["score"]).all()
        expected = f.groupby("topic", sort=False).cumcount().to_numpy() + 1.0
        np.testing.assert_array_equal(f["rank"].to_numpy(), expected)


def test_rounded_scores_tie_break_by_docid_descending():
    c = simulate_collection(n_systems=6, n_topics=10, depth=100, seed=4, score_decimals=1)
    ties = 0
    for run in c.runs:
        f = run.frame
        same_topic = f["topic"].to_numpy()[1:] == f["topic"].to_numpy()[:-1]
        s = f["score"].to_numpy()
        d = f["docid"].to_numpy()
        assert (np.diff(s)[same_topic] <= 0).all()
        tied = same_topic & (s[1:] == s[:-1])
        assert (d[:-1][tied] > d[1:][tied]).all()
        ties += int(tied.sum())
        np.testing.assert_array_equal(np.round(s, 1), s)
    assert ties > 0  # one decimal must create ties, or this test checks nothing


def test_runs_mix_judged_and_unjudged_documents(small):
    judged = set(zip(small.qrels.frame["topic"], small.qrels.frame["docid"]))
    for run in small.runs:
        in_qrels = np.array([k in judged for k in zip(run.frame["topic"], run.frame["docid"])])
        assert in_qrels.any() and not in_qrels.all()
        # The top of a run is mostly judged (pooled) documents, as in TREC.
        assert in_qrels[run.frame["rank"].to_numpy() <= 5].mean() > 0.5


def test_better_systems_score_higher():
    # A property of the generative model (signal grows with quality), checked on a
    # seeded run: mean P@10 follows the true quality closely.
    c = simulate_collection(n_systems=12, n_topics=30, depth=100, seed=0)
    rho = spearmanr(precision_at_10(c), c.quality).statistic
    assert rho > 0.7


def test_quality_argument_is_used_and_arrays_are_read_only():
    c = simulate_collection(n_systems=3, n_topics=4, depth=10, seed=0, quality=[0.1, 0.9, 0.5])
    np.testing.assert_array_equal(c.quality, [0.1, 0.9, 0.5])
    for array in (c.quality, c.topic_difficulty, c.interaction, c.signal):
        with pytest.raises(ValueError):
            array[0] = 1.0
    assert c.quality_series().index.tolist() == c.system_names


def test_summary_counts(small):
    s = small.summary()
    assert s["systems"] == 5 and s["topics"] == 8 and s["depth"] == 40
    assert s["judged"] == len(small.qrels) == sum(s["grade_counts"].values())
    assert s["run_rows"] == 5 * 8 * 40


# ---------------------------------------------------------------- files


@pytest.mark.parametrize("compress, decimals", [(False, None), (True, 4)])
def test_written_files_read_back_equal(tmp_path, compress, decimals):
    c = simulate_collection(n_systems=4, n_topics=6, depth=30, seed=9, score_decimals=decimals)
    assert c.write(tmp_path, compress=compress) == tmp_path
    pd.testing.assert_frame_equal(read_qrels(tmp_path / "qrels.txt").frame, c.qrels.frame)
    suffix = ".gz" if compress else ""
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        f"{name}{suffix}" for name in c.system_names
    ]
    back = read_runs(tmp_path / "runs")
    assert [r.name for r in back] == c.system_names
    for got, want in zip(back, c.runs):
        assert got.tag == want.tag
        pd.testing.assert_frame_equal(got.frame, want.frame)


def test_example_data_matches_its_generator():
    # data/example/ is produced by scripts/make_example_data.py; it must stay in sync.
    root = Path(__file__).resolve().parent.parent
    example = root / "data" / "example"
    if not (example / "qrels.txt").is_file():
        pytest.skip("data/example/ not generated")
    spec = importlib.util.spec_from_file_location(
        "make_example_data", root / "scripts" / "make_example_data.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    c = simulate_collection(**script.PARAMS)
    pd.testing.assert_frame_equal(read_qrels(example / "qrels.txt").frame, c.qrels.frame)
    back = {r.name: r.frame for r in read_runs(example / "runs")}
    assert sorted(back) == c.system_names
    for run in c.runs:
        pd.testing.assert_frame_equal(back[run.name], run.frame)
    # `irstab demo` re-simulates from EXAMPLE_PARAMS when data/example/ is not installed
    assert script.PARAMS == EXAMPLE_PARAMS
    from irstab.collection import Collection

    files = Collection.from_files(example / "qrels.txt", example / "runs", depth=100)
    memory = Collection.build(c.qrels, c.runs, depth=100)
    assert files.systems == memory.systems and files.topics == memory.topics
    np.testing.assert_array_equal(files.grades, memory.grades)
    np.testing.assert_array_equal(files.judged, memory.judged)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n_systems": 0}, "n_systems"),
        ({"n_systems": True}, "n_systems"),
        ({"n_topics": 0}, "n_topics"),
        ({"depth": 0}, "depth"),
        ({"depth": 2.5}, "depth"),
        ({"n_grades": 1}, "n_grades"),
        ({"seed": None}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"quality": [0.5, 0.5]}, "quality"),
        ({"n_systems": 2, "quality": [0.5, 1.5]}, "quality"),
        ({"n_systems": 2, "quality": ["good", "bad"]}, "quality"),
        ({"signal_range": (0.0, 1.0)}, "signal_range"),
        ({"signal_range": (2.0, 1.0)}, "signal_range"),
        ({"topic_sd": -1.0}, "topic_sd"),
        ({"interaction_sd": float("nan")}, "interaction_sd"),
        ({"pool_boost": float("inf")}, "pool_boost"),
        ({"grade_probs": (0.5, 0.5)}, "grade_probs"),
        ({"grade_probs": (1.0, 0.0, 0.0, 0.0)}, "grade_probs"),
        ({"grade_probs": (0.5, -0.1, 0.3, 0.3)}, "grade_probs"),
        ({"grade_probs": "0.55 0.2 0.18 0.07"}, "grade_probs"),
        ({"grade_concentration": 0.0}, "grade_concentration"),
        ({"pool_median": 0.0}, "pool_median"),
        ({"pool_sigma": -0.5}, "pool_sigma"),
        ({"pool_range": (0, 10)}, "pool_range"),
        ({"pool_range": (20, 10)}, "pool_range"),
        ({"n_unjudged": -1}, "n_unjudged"),
        ({"depth": 100, "n_unjudged": 10}, "n_unjudged"),
        ({"score_decimals": -1}, "score_decimals"),
        ({"system_prefix": "my run"}, "system_prefix"),
    ],
)
def test_invalid_arguments_raise_naming_the_parameter(kwargs, name):
    with pytest.raises(IRStabError, match=name):
        simulate_collection(**kwargs)


# ---------------------------------------------------------------- scale


def test_scale_100_systems_250_topics_depth_1000():
    # Sizes only; the time is printed (pytest -s), never asserted.
    start = time.perf_counter()
    c = simulate_collection(n_systems=100, n_topics=250, depth=1000, seed=0)
    elapsed = time.perf_counter() - start
    print(f"\nsimulate_collection(100, 250, 1000): {elapsed:.2f} s")
    assert len(c.runs) == 100
    assert all(len(run) == 250 * 1000 for run in c.runs)
    assert (c.qrels.frame.groupby("topic")["grade"].max() > 0).all()
