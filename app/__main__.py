"""``python -m app`` runs the ``lull`` command."""

import sys

from app.cli import main

sys.exit(main())
