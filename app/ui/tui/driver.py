"""Textual's terminal driver, made safe for a terminal that goes away under it.

Textual writes to the terminal from a thread. When the terminal has hung up, a write
fails with EIO: that thread dies, and once its queue is full every later write blocks
the app for good (a lull was found running 46 minutes after its tmux session was
killed). :func:`hangup_safe` gives the Linux driver an output that, after the first
failed write, drops all output and posts :class:`TerminalLost` to the app instead.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, TextIO, cast

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from lull.ui.shared.hangup import GuardedOutput

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver


class TerminalLost(Message):
    """Writing to the terminal failed: it is gone."""


class HangupSafeDriver(LinuxDriver):
    """Textual's Linux (and macOS) driver whose output survives a terminal that hung up."""

    def __init__(self, app: App[Any], **options: Any) -> None:
        super().__init__(app, **options)

        def lost() -> None:
            app.post_message(TerminalLost())

        output = cast(TextIO, self._file)
        # The writer thread only calls write, flush, fileno and isatty on it.
        self._file = cast(io.TextIOWrapper, GuardedOutput(output, lost))


def hangup_safe(driver_class: type[Driver]) -> type[Driver]:
    """``driver_class``, or the hang-up-safe version of it when it is the Linux driver."""
    return HangupSafeDriver if driver_class is LinuxDriver else driver_class
