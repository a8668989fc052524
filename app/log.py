"""The debug log: a file in the state dir, and stderr too with ``--debug``.

lull's own records (``lull.*``) go to the file, and to stderr with ``--debug``. Records of
third-party libraries (the ``mcp`` SDK, ``httpx``, ``anyio``, …) reach Python's root logger:
they go to the file only, never to the terminal, and at most :data:`THIRD_PARTY_BUDGET` of
them per library in one run (a server that floods its stdout makes the SDK log a traceback per
junk line). Without a handler on the root logger, Python would print them on stderr.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
THIRD_PARTY_BUDGET = 50
"""Records one third-party library may write to the log file in one run; one more line says
that the rest were left out."""


class QuietFileHandler(logging.FileHandler):
    """The debug log file: a record that cannot be written (a full disk) is dropped, never
    reported with a traceback on the user's terminal."""

    def handleError(self, record: logging.LogRecord) -> None:
        """Drop the record: logging must never disturb a session."""


class ThirdPartyBudget(logging.Filter):
    """Lets through at most ``budget`` records per library (the first part of the logger's
    name), then one that says the rest are left out, then none."""

    def __init__(self, budget: int = THIRD_PARTY_BUDGET) -> None:
        super().__init__()
        self.budget = budget
        self.counts: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` still fits its library's budget (the last one is rewritten)."""
        library = record.name.partition(".")[0]
        count = self.counts.get(library, 0) + 1
        self.counts[library] = count
        if count == self.budget + 1:
            record.msg = "%s: more log records left out (%d written)"
            record.args = (library, self.budget)
            record.exc_info = record.exc_text = None
            record.stack_info = None
            return True
        return count <= self.budget


class _ThirdPartyHandler(logging.Handler):
    """Python's root logger's handler: third-party records to the log file (if any), within
    their budget; never to stderr."""

    def __init__(self, file: logging.Handler | None) -> None:
        super().__init__(logging.WARNING)
        self.file = file
        self.addFilter(ThirdPartyBudget())

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` to the file (nowhere without one)."""
        if self.file is not None:
            self.file.handle(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """Drop the record: logging must never disturb a session."""


def setup_logging(log_path: Path | None, *, debug: bool) -> None:
    """Send lull's log records to ``log_path`` (and stderr when ``debug``), and other
    libraries' records to ``log_path`` only.

    A log file that cannot be opened is skipped silently: logging must never
    stop a session.
    """
    root = logging.getLogger("lull")
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    file_handler: QuietFileHandler | None = None
    if log_path is not None:
        try:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            file_handler = QuietFileHandler(log_path, encoding="utf-8", errors="backslashreplace")
        except OSError:
            pass
        else:
            file_handler.setFormatter(logging.Formatter(FORMAT))
            root.addHandler(file_handler)
    if debug:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(logging.Formatter("[debug] %(name)s: %(message)s"))
        root.addHandler(stream)
    python_root = logging.getLogger()
    for handler in list(python_root.handlers):
        if isinstance(handler, _ThirdPartyHandler):
            python_root.removeHandler(handler)
    python_root.addHandler(_ThirdPartyHandler(file_handler))
