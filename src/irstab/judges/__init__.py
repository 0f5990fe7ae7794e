r"""Who judged: judge sets as a facet of the evaluation.

Relevance labels now come from NIST assessors, re-annotators, crowds and LLMs. This room answers
*how far can a comparison of systems made with one judge set be trusted under another, and how
many gold labels does a cheap judge still need?*: agreement between judge sets, whether the
conclusions about systems survive the change of qrels, judges as a G-theory facet, and
prediction-powered intervals that combine a few gold labels with many cheap ones.

May import: :mod:`irstab.systems`, :mod:`irstab.verdict`, :mod:`irstab.stability`,
:mod:`irstab.evaluation` and the floors below them; :mod:`irstab.design` and
:mod:`irstab.optimizer` may import it.
"""
