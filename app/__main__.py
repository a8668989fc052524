"""``python -m lull`` runs the ``lull`` command."""

import sys

from lull.cli import main

sys.exit(main())
