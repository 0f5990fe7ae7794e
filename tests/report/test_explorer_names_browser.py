"""The explorer page in Chromium when run tags, topic ids, labels and the folder's name are hostile.

Issue 41, item 1: a name holding ``<!--`` was embedded as ``<\\!--``, no JSON, so the page
had no controls while ``irstab explore`` said "explorer written". Oracles: the names the page
was written from, compared in UTF-16 code units read in the page (``charCodeAt``: Playwright
would carry a lone surrogate back as U+FFFD), so ``JSON.parse`` gave back every name exactly;
the DOM (the controls exist: one checkbox per system and topic, a button per preset, the gain
sliders, the cutoff; the ranking and the lists show the names as text nodes, no element made
from them); markup that would run if parsed (``window.pwned``) stays undefined, no dialog, no
request but the file itself, no script error. Every page runs with the network blocked
(tests/report/conftest.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings

import irstab
from irstab._repr import escape_name
from irstab.cli import main
from irstab.report.explorer import explorer_page, preset, write_explorer

from hostile_text import distinct, hostile, named, utf16

PWN = "</script><script>window.pwned=1</script>"

#: Every name the page shows, as UTF-16 code units, and what its controls are.
READ = """() => {
  const units = s => Array.from({length: s.length}, (_, i) => s.charCodeAt(i));
  const texts = sel => Array.from(document.querySelectorAll(sel)).map(e => units(e.textContent));
  const data = JSON.parse(document.getElementById('irstab-data').textContent);
  const api = window.irstabExplorer;
  return {
    systems: api.systems.map(units), topics: api.topics.map(units), title: units(data.title),
    ranking: texts('#ranking tbody td:nth-child(2)'),
    systemChecks: texts('#systems-list label'), topicChecks: texts('#topics-list label'),
    presetLabels: data.presets.map(p => units(p.label)), presetFamilies: data.presets.map(p => units(p.family)),
    buttons: Array.from(document.querySelectorAll('#presets button')).map(b => units(b.firstChild.textContent)),
    summary: units(document.getElementById('summary').textContent),
    checkboxes: document.querySelectorAll('#systems-list input, #topics-list input').length,
    gainSliders: document.querySelectorAll('#gain-sliders input[type=range]').length,
    cutoffMax: document.getElementById('cutoff').max,
    elements: document.querySelectorAll('#ranking td *, #systems-list label *:not(input), ' +
      '#topics-list label *:not(input), #presets button *:not(.family), #summary *').length,
    scripts: document.scripts.length, pwned: typeof window.pwned,
    stateWorks: api.state().measure === 'nDCG@10' && api.set({cutoff: 5}).measure === 'nDCG@5'
  };
}"""


def units(text: str) -> list[int]:
    """UTF-16 code units, as ``charCodeAt`` reads them."""
    b = utf16(text)
    return [int.from_bytes(b[i:i + 2], "little") for i in range(0, len(b), 2)]


@pytest.fixture(scope="module")
def small():
    sim = irstab.simulate.simulate_collection(n_systems=4, n_topics=5, depth=12, seed=5)
    return irstab.Collection.build(sim.qrels, sim.runs, depth=12)


@pytest.fixture(scope="module")
def tab(open_offline):
    """One offline page, navigated to each file in turn."""
    return open_offline(1000)


def assert_whole(p, path, systems, topics, title, labels):
    """The page at ``path`` parsed, built its controls, and shows every name as text."""
    p.errors.clear()
    p.requests.clear()
    p.page.goto(path.as_uri())  # loaded: its scripts have run (a dead page ends here too)
    p.page.wait_for_function("document.readyState === 'complete'")
    assert p.errors == [] and p.dialogs == [] and p.requests == [path.as_uri()]
    assert p.page.evaluate("typeof window.irstabExplorer") == "object"
    r = p.page.evaluate(READ)
    assert p.errors == []
    assert r["pwned"] == "undefined" and r["scripts"] == 2 and r["elements"] == 0
    assert r["stateWorks"]
    S, T = len(systems), len(topics)
    assert r["checkboxes"] == S + T and r["gainSliders"] == 3 and r["cutoffMax"] == "10"
    assert r["systems"] == [units(s) for s in systems]
    assert r["topics"] == [units(t) for t in topics]
    assert r["title"] == units(title)
    assert sorted(r["ranking"]) == sorted(units(s) for s in systems)
    assert r["systemChecks"] == [units(" " + s) for s in systems]
    assert r["topicChecks"] == [units(" " + t) for t in topics]
    assert r["summary"][: len(units(escape_name(title, keep="\n\t")))] == \
        units(escape_name(title, keep="\n\t"))
    assert r["buttons"] == [label + [ord(" ")] for label in r["presetLabels"]]
    assert r["presetLabels"][1:] == [units(x) for x in labels]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(systems=distinct(4), topics=distinct(5), title=hostile, label=hostile, family=hostile)
@example(systems=[PWN, "<!--", "x\x00\u2028-->", '"\\u003c\\'],
         topics=["%%DATA%%", "<ScRiPt>window.pwned=1</ScRiPt>", "t\u2029", "<\\!--",
                 '<img src=x onerror="window.pwned=2">'],
         title="q<!--%%SCRIPTS%%\udcff", label="<!--\ud800", family="</script")
def test_any_names_keep_the_page_alive_and_inert(small, tab, tmp_path_factory, systems, topics,
                                                 title, label, family):
    G = small.max_grade
    mine = preset("nDCG(gain=exp)@5", G, 10, label=label[:40] or "x", family=family)
    page = explorer_page(named(small, systems, topics), cutoff=10, optimize_at=(), title=title,
                         presets=[mine])
    path = write_explorer(page, tmp_path_factory.mktemp("names") / "e.html")
    assert_whole(tab, path, systems, topics, title, [mine.label])


def test_explore_on_hostile_files_writes_a_live_page(tab, tmp_path, capsys):
    """End to end: hostile run tags, topic ids and folder name in the files, through the CLI."""
    folder = tmp_path / "q<!--x-->%%DATA%%<script>\u2028\\"
    irstab.simulate.simulate_collection(n_systems=4, n_topics=5, depth=12, seed=5).write(folder)
    tags = iter([PWN, "a<!--b", "n\x00ul\u2028-->", '"\\\'&amp;'])
    topic = {"2": "t<!--2", "4": "<script>window.pwned=1</script>"}
    for f in sorted((folder / "runs").iterdir()):
        tag = next(tags)
        f.write_text("".join(
            " ".join([topic.get(line.split()[0], line.split()[0]), *line.split()[1:5], tag]) + "\n"
            for line in f.read_text().splitlines()))
    q = folder / "qrels.txt"
    q.write_text("".join(" ".join([topic.get(line.split()[0], line.split()[0]), *line.split()[1:]])
                         + "\n" for line in q.read_text().splitlines()))
    out = tmp_path / "explore.html"
    code = main(["explore", str(q), str(folder / "runs"), "-o", str(out), "-k", "10",
                 "--depth", "12", "--no-optimize"])
    err = capsys.readouterr().err
    assert code == 0, err
    coll = irstab.Collection.from_files(q, folder / "runs", depth=12)
    assert PWN in coll.systems and "t<!--2" in coll.topics  # the names reached the collection
    assert_whole(tab, out, coll.systems, coll.topics, folder.name, [])  # the title: the folder
