r"""Stable *and* valid: how well a measure agrees with users' side-by-side preferences.

A measure can be perfectly stable (Kanoulas & Aslam, CIKM 2009) and still disagree with users.
This room counts how often a measure's difference between two rankings agrees with the side
users preferred (Sanderson, Paramita, Clough & Kanoulas, SIGIR 2010), computes the bias scores of
Urbano & Marrero (ECIR 2015), fits the gain and discount that agree best, and traces the front
between stability (Phi) and agreement.

May import: :mod:`irstab.optimizer`, :mod:`irstab.design` and the floors below them;
:mod:`irstab.report` and :mod:`irstab.cli` may import it.
"""
