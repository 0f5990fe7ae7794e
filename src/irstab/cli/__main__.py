"""``python -m irstab.cli``: the same program as the ``irstab`` command."""

from . import entry

entry()
