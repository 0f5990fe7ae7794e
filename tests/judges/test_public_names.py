"""Issue 42, item 7: the judges room's public names, as the other rooms' ``__init__`` give them."""

from __future__ import annotations

import irstab.judges as judges


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
