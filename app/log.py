"""The debug log: a file in the state dir, and stderr too with ``--debug``."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class QuietFileHandler(logging.FileHandler):
    """The debug log file: a record that cannot be written (a full disk) is dropped, never
    reported with a traceback on the user's terminal."""

    def handleError(self, record: logging.LogRecord) -> None:
        """Drop the record: logging must never disturb a session."""


def setup_logging(log_path: Path | None, *, debug: bool) -> None:
    """Send lull's log records to ``log_path`` (and stderr when ``debug``).

    A log file that cannot be opened is skipped silently: logging must never
    stop a session.
    """
    root = logging.getLogger("lull")
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    root.propagate = False
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
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
