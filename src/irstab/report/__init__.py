"""Presentation: the study behind ``irstab report``, its sections, tables and figures.

:mod:`.study` runs the study (candidates, G-studies, comparisons, the verdict) and
:mod:`.recommend` words the decision; :mod:`.sections`, :mod:`.render` and the
``*_figures`` modules turn results into Markdown, HTML, JSON and matplotlib figures
(imported lazily). May import every floor below it (optimizer, compare, informativeness,
stability, evaluation, collection, io); the CLI is the only floor above.
"""
