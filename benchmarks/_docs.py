"""The one way benchmarks write their figures into a documentation page: a section between
two HTML comments (``<!-- name -->`` ... ``<!-- /name -->``) replaced whole, the rest of the
page kept."""

from __future__ import annotations

from pathlib import Path


def write_section(path: Path, marks: tuple[str, str], text: str) -> None:
    """Replace what stands between ``marks`` in ``path`` by ``text``.

    Raises SystemExit naming the file and the marks when the page has no such section
    (``bench_calibration.py`` writes the page with every section in place).
    """
    doc = path.read_text()
    a, b = marks
    if a not in doc or b not in doc:
        raise SystemExit(f"{path}: no {a} ... {b} section to replace (bench_calibration.py "
                         "writes it)")
    head, rest = doc.split(a, 1)
    path.write_text(head + a + "\n" + text + "\n" + b + rest.split(b, 1)[1])
    print(f"wrote {path}")


def write_or_print(path: Path | None, marks: tuple[str, str], text: str) -> None:
    """:func:`write_section` when ``--write-docs`` gave a page, else the text on stdout."""
    if path is None:
        print(text)
    else:
        write_section(path, marks, text)
