"""Issue 42, item 7: the judges room's public names, as the other rooms' ``__init__`` give them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irstab.judges as judges
from irstab.errors import IRStabError
from irstab.judges.study import GoldTopicsError, choose_gold_topics


def test_every_public_name_is_exported_and_documented():
    for name in judges.__all__:
        obj = getattr(judges, name)
        # the object of the submodule that defines it, not a copy
        assert obj.__module__.startswith("irstab.judges."), name
        assert f"{name}" in judges.__doc__, f"{name} is not in the room's docstring"
    # the per-measure facet study and the command's study are two classes, two names
    assert judges.JudgeFacetStudy is not judges.JudgeStudy
    assert judges.JudgeStudy.__module__ == "irstab.judges.study"
    assert judges.JudgeFacetStudy.__module__ == "irstab.judges.facet"


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 40), st.data())
def test_gold_topics_are_a_seeded_sample_in_topic_order(N, data):
    """``--gold-topics N|FRACTION``: n distinct topics of the cheap judge's, in their order,
    the same for the same seed; a fraction f gives round(f N) (issue 42 item 4)."""
    topics = [f"t{k:03d}" for k in range(N)]
    n = data.draw(st.integers(3, N))
    seed = data.draw(st.integers(0, 2**32 - 1))
    got = choose_gold_topics(topics, n, seed)
    assert len(got) == n == len(set(got)) and set(got) <= set(topics)
    assert got == sorted(got, key=topics.index)
    assert got == choose_gold_topics(topics, n, seed)
    f = data.draw(st.floats(0.01, 0.99))
    if 3 <= round(f * N) <= N:
        assert len(choose_gold_topics(topics, f, seed)) == round(f * N)
    else:
        with pytest.raises(IRStabError, match="PPI\\+\\+ needs 3 to"):
            choose_gold_topics(topics, f, seed)


def test_gold_topics_given_by_id():
    topics = ["1", "2", "3", "4", "5"]
    assert choose_gold_topics(topics, ["4", "1", "2", "4"]) == ["1", "2", "4"]
    with pytest.raises(GoldTopicsError) as e:
        choose_gold_topics(topics, ["1", "2", "9"], cheap="llm")
    assert e.value.unknown == ["9"] and "topics llm labelled: 9" in str(e.value)
    with pytest.raises(IRStabError, match="needs at least 3"):
        choose_gold_topics(topics, ["1", "2"])
    for bad in (True, 0, -3, 2.5, float("nan")):
        with pytest.raises(IRStabError, match="gold_topics"):
            choose_gold_topics(topics, bad)
