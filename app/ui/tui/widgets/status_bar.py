"""The one-line status bar: model, context use, cache state, idle cleanup, cost."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual.widgets import Static

from lull.ui.shared.status import StatusFacts, status_line, warning_span

REFRESH_SECONDS = 1.0
WARNING_STYLE = "bold yellow"
"""The context part from the watch line on (``context.compression.watchThreshold``)."""


class StatusBar(Static):
    """Shows :class:`StatusFacts`; refreshes every second so countdowns move."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def __init__(self, clock: Callable[[], float] = time.time, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)
        self.facts = StatusFacts()
        self._clock = clock
        self._shown = ""

    @property
    def clock(self) -> Callable[[], float]:
        """The clock the line's times (waits, countdowns) are measured on."""
        return self._clock

    def on_mount(self) -> None:
        """Draw now and then every second."""
        self.set_interval(REFRESH_SECONDS, self._draw)
        self._draw()

    def on_resize(self) -> None:
        """Re-fit the line to the new width."""
        self._draw()

    def show(self, facts: StatusFacts) -> None:
        """Replace every fact."""
        self.facts = facts
        self._draw()

    def change(self, **changes: Any) -> None:
        """Change some facts (e.g. ``state="answering"``)."""
        self.facts = replace(self.facts, **changes)
        self._draw()

    @property
    def line(self) -> str:
        """The text currently shown."""
        width = max(10, self.content_region.width or self.size.width or 80)
        return status_line(self.facts, self._clock(), width)

    @property
    def warning(self) -> str:
        """The text shown in the warning colour ("" when none is)."""
        span = warning_span(self.facts, self.line)
        return self.line[span[0] : span[1]] if span else ""

    def _draw(self) -> None:
        line = self.line
        span = warning_span(self.facts, line)
        key = f"{line}\0{span}"
        if key != self._shown:  # one fixed-height line: no layout pass needed
            self._shown = key
            text = Text(line, no_wrap=True, overflow="ellipsis")
            if span is not None:
                text.stylize(WARNING_STYLE, *span)
            self.update(text, layout=False)
