"""``python -m irstab.cli``: the same program as the ``irstab`` command."""

import sys

from . import main

sys.exit(main())
