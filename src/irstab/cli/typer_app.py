"""The Typer application every command module registers its commands on."""

from __future__ import annotations

import typer

__all__ = ["app"]

app = typer.Typer(
    name="irstab",
    help=(
        "Which nDCG (gain, discount, cutoff) compares IR systems most stably, how many "
        "topics it needs, and how it compares with the rest of the metric zoo."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
