"""The Typer application every command module registers its commands on."""

from __future__ import annotations

import typer

__all__ = ["app"]

app = typer.Typer(
    name="irstab",
    help=(
        "Which nDCG (gain, discount, cutoff) compares IR systems most stably, how many "
        "topics it needs, and how it compares with the rest of the metric zoo. Start with "
        "`irstab demo`; every command's --help ends with examples; the README's glossary "
        "explains Erho2, Phi, Phi1, ASL, PAD, SCP and the assessor facets."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"irstab {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", help="Print irstab's version and exit.", callback=_version,
        is_eager=True,
    ),
) -> None:
    """Which nDCG (gain, discount, cutoff) compares IR systems most stably, how many topics it
    needs, and how it compares with the rest of the metric zoo.

    Start with `irstab demo`; every command's --help ends with examples. The README's
    glossary explains Erho2, Phi, Phi1, ASL, PAD, SCP and the assessor facets.
    """
