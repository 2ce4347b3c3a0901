"""``python -m toolsearch`` is the ``toolsearch`` command."""

import sys

from .cli import main

sys.exit(main())
