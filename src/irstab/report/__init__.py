"""Presentation: the study behind ``irstab report``, its sections, tables and figures.

:mod:`.study` runs the study (candidates, G-studies, comparisons, the verdict) and
:mod:`.recommend` words the decision; :mod:`.sections`, :mod:`.render` and the
``*_figures`` modules turn results into Markdown, HTML, JSON and matplotlib figures
(imported lazily). May import every floor below it (optimizer, compare, informativeness,
stability, evaluation, collection, io); the CLI is the only floor above.

In a notebook::

    from irstab.report import run_study, write_report
    study = run_study(collection, cutoffs=(10, 20, 100))   # what `irstab report` computes
    study                                                  # the verdict, in a few lines
    write_report(study, "my-report")                       # report.html, .md, .json
"""

__all__ = ["run_study", "write_report", "Study"]


def __getattr__(name: str):  # PEP 562: matplotlib and the optimizer load on first use
    import importlib

    where = {"run_study": ".study", "Study": ".study", "write_report": ".render"}
    if name in where:
        return getattr(importlib.import_module(where[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
