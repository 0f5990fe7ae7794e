"""The trust card's figure: error rates per test, with Monte-Carlo bars.

Presentation only (:class:`irstab.trust.result.TrustCalibration` holds the
numbers). Two panels sharing the tests as rows, so the names read horizontally at
any width: left, the type I error of each test alone and with Holm or
Benjamini-Hochberg over all pairs (Tukey HSD alone), with the nominal alpha as a
line; right, the power of each test alone at every planted difference. Bars are
2 Monte-Carlo standard errors either side. matplotlib lazily (Agg).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["trust_card_figure", "plot_trust_card"]

_ORDER = ("t", "permutation", "bootstrap", "wilcoxon", "sign", "tukey")
_NAMES = {"t": "t-test", "permutation": "permutation", "bootstrap": "bootstrap",
          "wilcoxon": "Wilcoxon", "sign": "sign", "tukey": "Tukey HSD"}
_CORR = (("none", "alone", "o", "tab:blue"), ("holm", "Holm", "^", "tab:orange"),
         ("bh", "BH", "s", "tab:green"))


def trust_card_figure(card, alpha: float | None = None, width: float = 9.0):
    """The matplotlib figure of ``card`` at ``alpha`` (default: its first)."""
    from .figures import pyplot

    plt = pyplot()
    a = card.alphas[0] if alpha is None else alpha
    y = np.arange(len(_ORDER))[::-1].astype(float)
    fig, (left, right) = plt.subplots(1, 2, figsize=(width, 3.9), sharey=True)
    for k, (corr, label, marker, colour) in enumerate(_CORR):
        xs, es, ys = [], [], []
        for yi, test in zip(y, _ORDER):
            if test == "tukey" and corr != "none":
                continue
            r = card.row(test, corr, a)
            xs.append(r.type_i)
            es.append(2 * r.type_i_se)
            ys.append(yi + (1 - k) * 0.22)  # alone on top
        left.errorbar(xs, ys, xerr=es, fmt=marker, color=colour, label=label, markersize=5,
                      capsize=2, elinewidth=1)
    left.axvline(a, color="grey", linestyle="--", linewidth=1)
    left.set_xlim(left=0)
    left.set_xlabel(f"type I error (dashed: alpha = {a:g})")
    left.set_title("How often a null difference is called significant", fontsize=10)
    left.legend(fontsize=9, loc="lower right", frameon=False)
    deltas = list(card.row("t", "none", a).power)
    shades = plt.get_cmap("Purples")(np.linspace(0.45, 0.95, len(deltas)))
    for k, (d, colour) in enumerate(zip(deltas, shades)):
        rows = [card.row(t, "none", a) for t in _ORDER]
        off = ((len(deltas) - 1) / 2 - k) * 0.22  # the smallest difference on top
        right.errorbar([r.power[d][0] for r in rows], y + off,
                       xerr=[2 * r.power[d][1] for r in rows], fmt="D", color=colour,
                       markersize=4, capsize=2, elinewidth=1, label=f"difference {d}")
    right.set_xlim(0, 1)
    right.set_xlabel("power (right sign), each test alone")
    right.set_title("How often a real difference is found", fontsize=10)
    right.legend(fontsize=9, loc="lower right", frameon=False)
    left.set_yticks(y)
    left.set_yticklabels([_NAMES[t] for t in _ORDER])
    for ax in (left, right):
        ax.grid(axis="x", linewidth=0.4, alpha=0.5)
        ax.tick_params(labelsize=9)
    fig.suptitle(f"{card.measure or 'scores'} at {card.n_topics} topics: "
                 f"{card.n_replicates} collections simulated like this one "
                 "(bars: 2 Monte-Carlo errors)", fontsize=10)
    fig.tight_layout()
    return fig


def plot_trust_card(card, path: str | os.PathLike, *, alpha: float | None = None,
                    width: float = 9.0):
    """Draw :func:`trust_card_figure` to ``path`` (png, pdf, svg, ...); returns the path."""
    from .figures import check_format, pyplot, save

    path, fmt = check_format(path)
    fig = trust_card_figure(card, alpha, width)
    save(fig, path, fmt)
    pyplot().close(fig)
    return path
