"""The ``lull`` console script: ``--version`` and ``--help`` answered at once, everything
else handed to :mod:`lull.command_line`.

This module imports nothing but ``sys``: ``lull --version`` and ``lull --help`` cost about
what a bare interpreter does (the help is the parser's own, rendered ahead of time in
:mod:`lull.help_text`; a test keeps the two the same).
"""

from __future__ import annotations

import sys

VERSION_FLAGS = (["--version"], ["-v"])
HELP_FLAGS = (["--help"], ["-h"])


def main(argv: list[str] | tuple[str, ...] | None = None) -> int:
    """Entry point of the ``lull`` console script; returns the exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments in VERSION_FLAGS:
        from lull.version import version

        print(f"lull {version()}")
        return 0
    if arguments in HELP_FLAGS:
        from lull.help_text import HELP

        sys.stdout.write(HELP)
        return 0
    from lull.command_line import run_command_line

    return run_command_line(arguments)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
