"""``irstab report --preferences FILE``: the section "Stable and valid" end to end.

The preference file is written here from SIMULATED preferences (a simulated user's choices
between pairs of the simulated collection's runs; irstab.preferences.simulated): run names
and topics, read by irstab.preferences.read. A malformed row fails before the study, with
the file and line named, and writes nothing.
"""

from __future__ import annotations

import json

import pytest


import irstab  # noqa: E402
import irstab.cli.report  # noqa: E402,F401  (registers `irstab report`)
from irstab.cli import main  # noqa: E402
from irstab.preferences.simulated import simulated_comparisons  # noqa: E402
from irstab.simulate import simulate_collection  # noqa: E402


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    simulate_collection(n_systems=6, n_topics=10, depth=30, seed=8).write(d)
    coll = irstab.Collection.from_files(d / "qrels.txt", d / "runs", depth=30)
    sim = simulated_comparisons(coll, 10, per_topic=8, topics=range(8), seed=1)
    lines = ["topic,run_a,run_b,preferred"]
    for t, (a, b), p in zip(sim.topic, sim.systems, sim.preferred):
        lines.append(f"{t},{coll.systems[a]},{coll.systems[b]},{ {1: 'A', -1: 'B', 0: 'none'}[int(p)]}")
    prefs = d / "prefs.csv"
    prefs.write_text("\n".join(lines) + "\n")
    return d / "qrels.txt", d / "runs", prefs


def test_report_gains_the_section(capsys, files, tmp_path):
    q, runs, prefs = files
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", q, runs, "--cutoffs", "10", "-o", out_dir,
                         "--starts", "0", "--bootstrap", "40", "--depth", "30",
                         "--no-trust-card", "--preferences", prefs)
    assert code == 0, err
    data = json.loads((out_dir / "report.json").read_text())["preferences"]
    assert data["cutoff"] == 10 and data["front"]["preference_topics"] == 8
    assert data["fit"]["n_folds"] == 5
    assert (out_dir / "figures" / "preferences-front.png").is_file()
    assert "Stable and valid" in (out_dir / "report.md").read_text()


def test_a_bad_row_fails_before_the_study(capsys, files, tmp_path):
    q, runs, prefs = files
    bad = tmp_path / "bad.csv"
    text = prefs.read_text().splitlines()
    text[3] = text[3].rsplit(",", 1)[0] + ",maybe"
    bad.write_text("\n".join(text) + "\n")
    code, _, err = run(capsys, "report", q, runs, "-o", tmp_path / "x", "--depth", "30",
                       "--preferences", bad)
    assert code == 1 and "bad.csv" in err and "4" in err
    assert not (tmp_path / "x").exists()
