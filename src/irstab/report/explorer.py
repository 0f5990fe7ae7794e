r"""The explorer: one self-contained HTML page where nDCG's gain, discount and cutoff are dragged
and stability, topics needed, the ranking and the difference to a baseline follow live.

Why it can compute in the browser: DCG is linear in the grade-at-rank counts,

.. math::

    DCG_k[s,t] = \sum_{g>0} \sum_{r<k} N[s,t,g,r]\, \mathrm{gain}[g]\, \mathrm{disc}[r],

and the ideal DCG of topic :math:`t` depends on the qrels only through its count of each
grade. The page holds exactly those: the positive grades each run retrieves in its top
``cutoff`` ranks (:class:`irstab.optimizer.forms.LinearForms`, stored by cell ``s * T + t``
with the ranks ascending) and the grade counts; its JavaScript (``explorer_assets/``) computes
nDCG as :class:`irstab.metrics.nDCG` does, the G-study of :mod:`irstab.stability.gstudy`
(variance components, Phi, Erho2, topics needed, the D-study curve), Kendall's tau-b between
mean scores (:mod:`irstab.compare.correlation`; means within 1e-12 of each other tie) and the
interval of the difference in Phi to the baseline by the verdict's default method
(:func:`irstab.verdict.paired_comparison`, ``interval="jackknife"``, in ``interval.js``
alone): the two-facet jackknife of the G-study (:func:`irstab.verdict.jackknife.phi_contrasts`;
the mean squares with one system, one topic, and one of each left out, in closed form; the
delta method, systems left out exactly where their means are heavy-tailed; the interaction
counted once) and Student's t at Satterthwaite's degrees of freedom, the facets' parts
deflated (:meth:`irstab.verdict.jackknife.TwoFacetVariance.df`)
(:func:`irstab.verdict.jackknife.jackknife_differences`, one candidate), cut to
[-1, 1]; an affine twin of the baseline gets [0, 0]. It has no random draws and costs
O(S T) per update. ``tests/report/test_explorer_browser.py`` proves the page's numbers,
interval included, equal the library's in Chromium to 1e-9.

What the page carries (``<script type="application/json" id="irstab-data">``)
-----------------------------------------------------------------------------
``collection``  systems, topics, max grade, the largest cutoff, systems left out at the start
``counts``      ``cell_start`` (int32, S*T+1 offsets), ``rank`` (uint16, 0-based),
                ``grade`` (uint8 > 0): base64 little-endian; ``grade_counts`` (T x G+1)
``baseline``    its measure string and scores (float64 S x T, base64): any measure, scored by
                :func:`irstab.evaluation.score_matrix`
``presets``     nDCG configurations one click away: the baseline, the measures given, the
                stability-optimal ones (:func:`irstab.optimizer.optimize`)
``interval``    the confidence of the interval

The data is written by :func:`irstab.report.embed.script_json`: any run tag, topic id, label
or folder name (markup, ``<!--``, NUL, U+2028, lone surrogates) reads back through
``JSON.parse`` unchanged and cannot end or comment out its element; the title and the notes
shown as text go through :func:`irstab._repr.html_text`.

Sizes: about 3 bytes per relevant retrieved document within the cutoff (4 once base64);
TREC DL 2019 at cutoff 100 (37 runs, 43 topics, 53,046 such documents) gives a page of about
0.3 MB.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from .._repr import html_text
from ..errors import IRStabError
from .embed import script_code, script_json

__all__ = ["ExplorerPage", "Preset", "explorer_page", "preset", "write_explorer",
           "ExplorerSection", "explorer_section", "DEFAULT_CUTOFF", "EXPLORER_FILE"]

#: Largest cutoff the page offers unless told otherwise.
DEFAULT_CUTOFF = 100
#: The page's name inside a report directory.
EXPLORER_FILE = "explore.html"
_ASSETS = "explorer_assets"
_SCRIPTS = ("core.js", "interval.js", "plot.js", "ui.js")  # in load order
_MAX_RANK = np.iinfo(np.uint16).max  # ranks are stored as uint16
_LABEL_MAX = 40  # longer measure strings are shortened on buttons and cards
_OPT_KINDS = ("discount", "gain", "joint")
_DISCOUNT_FAMILIES = {"log2": "log2", "zipf": "zipf", "linear": "linear", "flat": "flat"}
_TOKEN = re.compile(r"%%(TITLE|SUMMARY|METHOD|CSS|DATA|SCRIPTS)%%")  # page.html's slots


@dataclass(frozen=True)
class Preset:
    """One configuration of the page: what its button shows and the controls' state."""

    label: str
    family: str
    measure: str  # the canonical string the page prints for it (with its @k)
    config: dict

    def to_dict(self) -> dict:
        return {"label": self.label, "family": self.family, "measure": self.measure,
                "config": self.config}


def _short(text: str) -> str:
    return text if len(text) <= _LABEL_MAX else text[: _LABEL_MAX - 3] + "..."


def preset(measure, max_grade: int, cutoff_max: int, *, label: str | None = None,
           family: str = "given") -> Preset:
    """The page's configuration of an nDCG measure (string, Measure or ``name=...``).

    The gain becomes ``linear``, ``exp`` or one value per grade; the discount a family
    (``log2``, ``log`` with its base, ``zipf``, ``linear``, ``flat``) or free points (a
    weight tuple); the cutoff its ``@k`` (a weight tuple's length without one).

    Raises
    ------
    irstab.errors.IRStabError
        Not an nDCG, no cutoff, a cutoff beyond ``cutoff_max``, or a gain tuple whose
        length is not ``max_grade + 1`` (the message names the measure).
    """
    from ..metrics import nDCG, resolve_measure
    from ..metrics.gains import DiscountKind, GainKind
    from ..metrics.names import Named

    found = resolve_measure(measure) if isinstance(measure, str) else [measure]
    if len(found) != 1:
        raise IRStabError(f"preset {measure!r}: names {len(found)} measures; give one")
    m = found[0]
    if isinstance(m, Named):
        label = label or m.label
        m = m.measure
    shown = label or str(measure)
    if type(m) is not nDCG:
        raise IRStabError(f"preset {shown}: the explorer varies nDCG's gain, discount and cutoff; "
                          f"{m} is not an nDCG")
    k = m.k
    if k is None:
        raise IRStabError(f"preset {shown}: give its cutoff (nDCG@k with k <= {cutoff_max})")
    if k > cutoff_max:
        raise IRStabError(f"preset {shown}: cutoff {k} beyond the page's largest cutoff "
                          f"{cutoff_max} (raise --cutoff)")
    gain_kind = m.gain.kind
    if gain_kind is GainKind.CUSTOM:
        gain = {"kind": "custom", "values": [float(v) for v in m.gain.vector(max_grade)]}
    else:
        gain = {"kind": gain_kind.value}
    d = m.discount
    if d.kind is DiscountKind.CUSTOM:
        discount = {"family": "points", "points": [float(v) for v in d.vector(k)]}
    elif d.kind is DiscountKind.LOG:
        discount = {"family": "log", "param": float(d.base)}
    else:
        discount = {"family": _DISCOUNT_FAMILIES[d.kind.value],
                    "param": 1.0 if d.kind is DiscountKind.ZIPF else None}
    canonical = str(nDCG(gain=m.gain, discount=m.discount, cutoff=k))
    return Preset(_short(label or canonical), family, canonical,
                  {"gain": gain, "discount": discount, "cutoff": int(k)})


def _b64(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def _counts(collection, cutoff: int) -> dict:
    """The sparse grade-at-rank counts of the top ``cutoff`` ranks, by cell, and grade counts."""
    from ..optimizer.forms import LinearForms

    forms = LinearForms.from_collection(collection, cutoff)
    S, T = collection.n_systems, collection.n_topics
    cell = forms.system.astype(np.int64) * T + forms.topic
    order = np.lexsort((forms.rank, cell))  # cells ascending, ranks ascending within a cell
    start = np.zeros(S * T + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=S * T), out=start[1:])
    return {
        "cell_start": _b64(start, "<i4"),
        "rank": _b64(forms.rank[order], "<u2"),
        "grade": _b64(forms.grade[order], "u1"),
        "grade_counts": np.asarray(collection.grade_counts)[:, : collection.max_grade + 1]
        .astype(int).tolist(),
        "n_entries": int(len(order)),
    }


def _optima(collection, cutoffs: Sequence[int], cutoff_max: int, progress) -> list[Preset]:
    """The stability-optimal discount, gain and joint configuration at each cutoff (from the
    preset starts only: no random start, so no seed)."""
    from ..optimizer import optimize

    out = []
    for k in cutoffs:
        for kind in _OPT_KINDS:
            if progress is not None:
                progress(f"optimal {kind} @{k}")
            r = optimize(collection, k, vary=kind, starts=0, strict=False)
            note = "" if r.status.value == "optimal" else f" ({r.status.value})"
            out.append(preset(r.measure, collection.max_grade, cutoff_max,
                              label=f"optimal {kind} @{k}", family=f"optimizer{note}"))
    return out


@dataclass(frozen=True, eq=False)
class ExplorerPage:
    """The page (:attr:`html`) and what it carries (:attr:`data`)."""

    html: str = field(repr=False)
    data: dict = field(repr=False)

    @property
    def nbytes(self) -> int:
        return len(self.html.encode("utf-8"))

    def __repr__(self) -> str:
        c = self.data["collection"]
        return (f"<ExplorerPage {len(c['systems'])} systems x {len(c['topics'])} topics, cutoffs "
                f"up to {c['cutoff_max']}, {len(self.data['presets'])} presets, "
                f"{self.nbytes / 1e6:.2f} MB>")


def _check(collection, cutoff, confidence, drop_worst) -> int:
    from ..collection import Collection

    if not isinstance(collection, Collection):
        raise IRStabError(f"collection: expected an irstab.Collection, got {type(collection).__name__}")
    if collection.n_systems < 2 or collection.n_topics < 2:
        raise IRStabError(f"the explorer needs at least 2 systems and 2 topics, got "
                          f"{collection.n_systems} x {collection.n_topics}")
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
        raise IRStabError(f"cutoff: expected a positive integer, got {cutoff!r}")
    if cutoff > collection.depth:
        raise IRStabError(f"cutoff: {cutoff} is beyond the depth the runs were read to "
                          f"({collection.depth}); raise --depth or lower --cutoff")
    if cutoff > _MAX_RANK:
        raise IRStabError(f"cutoff: at most {_MAX_RANK}, got {cutoff}")
    if not 0.0 < confidence < 1.0:
        raise IRStabError(f"confidence: expected a number in (0, 1), got {confidence!r}")
    if not (0.0 <= drop_worst < 1.0):
        raise IRStabError(f"drop_worst: must be in [0, 1), got {drop_worst!r}")
    return int(cutoff)


def explorer_page(
    collection,
    *,
    cutoff: int = DEFAULT_CUTOFF,
    baseline="nDCG@10",
    presets: Sequence = (),
    optimize_at: Sequence[int] | None = None,
    confidence: float = 0.95,
    drop_worst: float = 0.0,
    title: str = "this collection",
    notes: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> ExplorerPage:
    """The explorer page of a collection.

    Parameters
    ----------
    collection : irstab.Collection
        Read to at least ``cutoff`` ranks.
    cutoff : int
        Largest cutoff the page offers (its size grows with it).
    baseline : str or Measure
        What every configuration is compared with: any measure (its scores are carried).
    presets : sequence
        nDCG measures (strings, measures, or :class:`Preset`) one click away.
    optimize_at : sequence of int, optional
        Cutoffs at which the stability-optimal discount, gain and joint configurations
        are found (:func:`irstab.optimizer.optimize` from its preset starts, ``starts=0``)
        and offered (default: 10, 20 and ``cutoff``, those within it; ``()``: none).
    confidence : float
        Two-sided confidence of the interval of the difference in Phi (the two-facet
        jackknife, as :func:`irstab.verdict.paired_comparison`; no draws, no seed).
    drop_worst : float
        Fraction of systems with the lowest mean baseline score left out at the start
        (:func:`irstab.stability.gstudy.drop_worst_systems`; the page can bring them back).
    title : str
        What the page calls the collection.
    notes : sequence of str
        Warnings from reading the data, shown on the page.
    progress : callable, optional
        Called with a description before each slow step.

    Returns
    -------
    ExplorerPage

    Raises
    ------
    irstab.errors.IRStabError
        Bad arguments (named), a baseline that cannot be scored, a preset that is no nDCG
        within the cutoff.
    """
    from ..evaluation import score_matrix
    from ..metrics import parse_measure
    from ..stability.designs.crossed import keep_mask

    cutoff = _check(collection, cutoff, confidence, drop_worst)
    try:
        base = parse_measure(baseline)
        base_scores = score_matrix(collection, base).to_numpy(dtype=float)
    except IRStabError as exc:
        raise IRStabError(f"baseline: {exc}") from None
    G = collection.max_grade
    found: list[Preset] = []
    try:
        found.append(preset(base, G, cutoff, family="baseline"))
    except IRStabError:
        pass  # another kind of measure: compared with, not offered
    for p in presets:
        found.append(p if isinstance(p, Preset) else preset(p, G, cutoff))
    ks = (sorted({k for k in (10, 20, cutoff) if k <= cutoff}) if optimize_at is None
          else sorted(set(int(k) for k in optimize_at)))
    bad = [k for k in ks if not 1 <= k <= cutoff]
    if bad:
        raise IRStabError(f"optimize_at: cutoffs {bad} outside 1..{cutoff}")
    found += _optima(collection, ks, cutoff, progress)
    if not found or found[0].family != "baseline":
        found.insert(0, preset(f"nDCG@{min(10, cutoff)}", G, cutoff, family="default"))
    unique: dict[str, Preset] = {}
    for p in found:  # one button per configuration: the first family that offers it
        unique.setdefault(p.measure, p)
    out = keep_mask(base_scores, drop_worst) if drop_worst else np.ones(len(base_scores), bool)
    data = {
        "format": 1,
        "title": title,
        "collection": {
            "systems": [str(s) for s in collection.systems],
            "topics": [str(t) for t in collection.topics],
            "max_grade": int(G),
            "depth": int(collection.depth),
            "cutoff_max": cutoff,
            "systems_out": [str(s) for s, k in zip(collection.systems, out) if not k],
        },
        "counts": _counts(collection, cutoff),
        "baseline": {"measure": str(base), "label": _short(str(base)),
                     "scores": _b64(base_scores, "<f8")},
        "presets": [p.to_dict() for p in unique.values()],
        "start": 0,
        "interval": {"confidence": float(confidence)},
        "notes": list(notes),
    }
    return ExplorerPage(_render(data), data)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(_ASSETS, name).read_text(encoding="utf-8")


def _render(data: dict) -> str:
    c = data["collection"]
    summary = (f"{data['title']}: {len(c['systems'])} systems x {len(c['topics'])} topics, grades "
               f"0-{c['max_grade']}; cutoffs up to {c['cutoff_max']}; every configuration is "
               f"compared with the baseline {data['baseline']['measure']}.")
    method = ("Phi and Erho2: the systems x topics G-study of the systems and topics kept "
              "(two-way ANOVA without replication, variance components from the expected mean "
              "squares, negative ones set to 0; Brennan, Generalizability Theory, 2001); topics "
              "needed and the D-study curve project them to other numbers of topics (Kanoulas "
              "& Aslam, CIKM 2009). Ranking: mean nDCG over the topics kept; Kendall's tau-b "
              "with the baseline's ranking. Difference in Phi to the baseline: the interval of "
              "the verdict (irstab compare --baseline), the two-facet jackknife of the G-study "
              "(the mean squares recomputed with one system, one topic, and one of each left "
              "out; the delta method, or exact where the system means are heavy-tailed; the "
              "system x topic interaction counted once; Arvesen & Schmitz, Biometrics 1970) "
              "and Student's t at Satterthwaite's degrees of freedom from the three parts, "
              "the system part's deflated 7 times and the topic part's by 1 + 6 kappa (kappa "
              "the excess kurtosis of the topics' exact leave-one-out differences; no lower "
              "than 3 degrees of freedom on its account), each counting half the interaction "
              "variance it was cleared of (calibrated on ten real "
              "collections); no random draws.")
    notes = "".join(f" {n}" for n in data["notes"])
    values = {
        "TITLE": html_text(data["title"]),
        "SUMMARY": html_text(summary + notes),
        "METHOD": html.escape(method),
        "CSS": _asset("explorer.css"),
        "DATA": script_json(data),  # any string: valid JSON, inert HTML
        "SCRIPTS": "\n".join(script_code(_asset(s), s) for s in _SCRIPTS),
    }
    # one pass: a value holding "%%DATA%%" (a folder's name in the title) is not a token
    return _TOKEN.sub(lambda m: values[m.group(1)], _asset("page.html"))


def write_explorer(page: ExplorerPage, path) -> Path:
    """Write the page to ``path`` atomically (:func:`irstab.io.atomic_write_text`)."""
    from ..io import atomic_write_text

    try:
        atomic_write_text(path, page.html)
    except OSError as exc:
        raise IRStabError(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None
    return Path(path)


# ----------------------------------------------------------------- in the report


@dataclass(frozen=True, eq=False)
class ExplorerSection:
    """The report's link to its explorer page, and the page itself (``files``).

    A section of :func:`irstab.report.render.write_report`: ``markdown``, ``html``, ``data``
    (report.json's key ``explorer``), no figure, and ``files`` written beside the report.
    """

    markdown: str
    html: str
    data: dict
    files: dict
    key: str = "explorer"
    figures: tuple = ()


def explorer_section(collection, study, *, cutoff: int | None = None) -> ExplorerSection:
    """The explorer page of a :class:`~irstab.report.study.Study`'s collection, as a section.

    The page starts at the study's baseline and offers its stability-optimal and minimax
    configurations (up to ``cutoff``, default the study's largest cutoff).
    """
    from .render import md_escape

    k = min(max(study.cutoffs) if cutoff is None else int(cutoff), collection.depth)
    G = collection.max_grade
    found = [preset(r.measure, G, k, label=f"optimal {kind} @{c}", family="optimizer")
             for kind, c, r in study.optima if c <= k]
    if study.minimax is not None:
        found += [preset(sc.optimum.measure, G, k, label=f"minimax @{sc.cutoff}", family="minimax")
                  for sc in study.minimax.scenarios if sc.cutoff <= k]
    page = explorer_page(collection, cutoff=k, baseline=study.baseline, presets=found,
                         optimize_at=(), title="this collection", notes=())
    text = ("drag a gain, a discount or the cutoff and watch Phi, the topics needed, the "
            f"system ranking and the difference to {study.baseline} recomputed in the browser; "
            "the optimal configurations above are one click away. One self-contained page "
            "beside this report: no server, no network.")
    md = (f"## Explore the configurations\n\n[{EXPLORER_FILE}]({EXPLORER_FILE}): "
          f"{md_escape(text)}\n")
    body = (f'<section id="explorer"><h2>Explore the configurations</h2><p><a href="'
            f'{EXPLORER_FILE}">{EXPLORER_FILE}</a>: {html.escape(text)}</p></section>')
    data = {"file": EXPLORER_FILE, "cutoff_max": k, "presets": len(page.data["presets"]),
            "bytes": page.nbytes}
    return ExplorerSection(md, body, data, {EXPLORER_FILE: page.html.encode("utf-8")})
