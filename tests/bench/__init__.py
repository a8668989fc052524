"""Benchmarks (``make bench``, ``python -m tests.bench``).

lull runs as a user runs it: from compiled bytecode. An environment that sets
``PYTHONDONTWRITEBYTECODE`` (some sandboxes and CI images do) would have every measured run
compile lull's changed modules from source again, so the benchmarks drop it for themselves and
the commands they start.
"""

import os

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
