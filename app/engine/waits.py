"""A provider's wait before a retry, as the user sees it: a notice when it is long enough to
notice, a log line otherwise (the turn loop and summary requests alike)."""

from __future__ import annotations

import logging

from lull.model.events import Notice
from lull.model.provider import Retrying

log = logging.getLogger("lull.loop")

SHOWN_WAIT_SECONDS = 2.0
"""A wait longer than this is shown as it starts (shorter ones are only logged)."""


def retry_notice(event: Retrying) -> str:
    """One line for a wait before a retry: what failed, how long, which retry."""
    return (
        f"{event.reason}; retrying in {event.wait_seconds:.0f} s "
        f"(retry {event.attempt} of {event.max_retries})"
    )


def wait_notice(event: Retrying) -> Notice | None:
    """The notice to show for ``event``, or None for a short wait (logged either way)."""
    line = retry_notice(event)
    log.info(line)
    return Notice("warning", line) if event.wait_seconds > SHOWN_WAIT_SECONDS else None
