"""The assessor section of the report (library level)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from assessor_data import noisy_collection

from irstab.errors import IRStabWarning
from irstab.report.assessor_section import assessor_section
from irstab.simulate import simulate_collection
from irstab.stability.facets import facet_gstudy


@pytest.fixture(scope="module")
def ac():
    return noisy_collection(simulate_collection(n_systems=6, n_topics=8, depth=20, seed=9),
                            ("ann", "bob"), seed=4)


def test_section_numbers_are_the_gstudy(ac):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sec = assessor_section(ac, ["nDCG@10", "AP"], n_resamples=50)
        long = ac.scores("AP").drop(columns="measure")
        g = facet_gstudy(long, "nested")
    rows = {r["measure"]: r for r in sec.data["measures"]}
    assert rows["AP"]["phi"] == pytest.approx(g.phi())
    assert rows["AP"]["var_sa:t"] == pytest.approx(g.component("sa:t"))
    assert sec.data["assessors"] == ["nist", "ann", "bob"]
    assert "## Who judged?" in sec.markdown and "| measure |" in sec.markdown
    assert "<h2>Who judged?" in sec.html and "data:image/png;base64," in sec.html
    assert sec.figure_png[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"figures/{sec.figure_name}.png" in sec.markdown
    assert "did not judge keep the base qrels' grade" in sec.markdown


def _md_cells(line: str) -> int:
    """Cells of a GFM table line: pipes not escaped by a backslash, minus the outer two."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_section_markdown_table_is_well_formed(ac):
    # GFM renders a table only when the header, the delimiter row and every row have
    # the same number of cells; "topics Phi>=0.95 (1a|2a)" and "82 | 68" hold a pipe.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sec = assessor_section(ac, ["nDCG@10", "AP"], n_resamples=0)
    lines = [ln for ln in sec.markdown.splitlines() if ln.startswith("|")]
    assert len(lines) == 2 + 2  # header, delimiter, one row per measure
    assert {_md_cells(ln) for ln in lines} == {9}
    assert "(1a\\|2a)" in lines[0]
    assert sec.html.count("<th>") == 9


def test_report_command_with_assessors(capsys, tmp_path):
    import json

    from irstab.cli import main
    from irstab.io import write_qrels

    d = tmp_path / "sim"
    sim = simulate_collection(n_systems=6, n_topics=10, depth=30, seed=8)
    sim.write(d)
    f = sim.qrels.frame
    rng = np.random.default_rng(5)
    (d / "judges").mkdir()
    for name in ("ann", "bob"):
        g = np.clip(f["grade"].to_numpy() + rng.integers(-1, 2, len(f)), 0, 3)
        write_qrels(d / "judges" / f"{name}-qrels.txt", f["topic"], f["docid"], g)
    out_dir = tmp_path / "rep"
    argv = ["report", d / "qrels.txt", d / "runs", "--cutoffs", "5", "-o", out_dir,
            "--starts", "0", "--bootstrap", "40", "--depth", "30", "-a", d / "judges"]
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["assessors"]["assessors"] == ["qrels", "ann", "bob"]
    measures = [m["measure"] for m in report["assessors"]["measures"]]
    assert "nDCG@10" in measures and "AP" in measures
    md = (out_dir / "report.md").read_text()
    assert "## Who judged?" in md
    assert (out_dir / "figures" / "assessors-phi-contours.png").stat().st_size > 5000
    assert "Who judged?" in (out_dir / "report.html").read_text()
    # a bad assessor path fails before the study, writing nothing
    code = main([str(a) for a in argv[:-1]] + [str(tmp_path / "nope")])
    assert code == 1 and "no such assessor" in capsys.readouterr().err


def test_markdown_escapes_assessor_names():
    # Assessor names come from file names (user-supplied): rendered by a CommonMark renderer
    # that passes raw HTML through, the Markdown must show them as text, never as an element
    # (issue: report.md embedded such strings unescaped).
    from markdown_it import MarkdownIt

    evil = "<img src=x onerror=alert(1)>"
    ac = noisy_collection(simulate_collection(n_systems=5, n_topics=6, depth=20, seed=3),
                          (evil, "a_b|c"), seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        sec = assessor_section(ac, ["AP"], n_resamples=40)
    assert evil in sec.data["assessors"]
    assert evil not in sec.markdown and "&lt;img src=x onerror=alert(1)&gt;" in sec.markdown
    rendered = MarkdownIt("commonmark").render(sec.markdown)
    imgs = re.findall(r"<img[^>]*>", rendered)
    assert len(imgs) == 1 and 'src="figures/' in imgs[0]  # the section's own figure only
    assert "&lt;img src=x onerror=alert(1)&gt;" in rendered and "a_b|c" in rendered
    assert evil not in sec.html


def test_contour_axes_label_both_ends():
    import matplotlib.pyplot as plt

    from irstab.report.assessor_figures import plot_phi_contours

    x = np.random.default_rng(3).normal(size=(5, 4, 3)) + np.arange(5)[:, None, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IRStabWarning)
        g = facet_gstudy(x, "nested", name="m")
    for top, n_a, xt, yt in ((200, 10, [1, 2, 5, 10, 20, 50, 100, 200], list(range(1, 11))),
                             (1000, 25, [1, 3, 10, 30, 100, 300, 1000], [1, 5, 10, 15, 20, 25])):
        fig = plot_phi_contours([g], max_topics=top, max_assessors=n_a)
        ax = fig.axes[0]
        assert [float(t.get_text()) for t in ax.get_xticklabels()] == xt  # plain, ends labelled
        assert list(ax.get_yticks()) == yt
        plt.close(fig)
