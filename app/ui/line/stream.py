"""Streaming text to scrollback: settled blocks are printed once, a short tail stays live.

:class:`BlockSplitter` is the pure part: it decides which streamed text is
settled (a markdown block that can no longer change, or a complete line of
plain text). :class:`StreamView` prints settled blocks through rich and keeps
the unsettled tail in a transient ``rich.live.Live`` region (aider-style), so
a long answer costs one render per block instead of one per delta.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from lull.model.text import terminal_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
TAIL_LINES = 6
REFRESH_SECONDS = 0.05


class BlockSplitter:
    """Splits streamed text into settled blocks and an unsettled tail.

    Markdown: a block is settled at a blank line (outside a code fence) that is
    followed by a non-indented line, or when a code fence closes. Plain text:
    every complete line is settled.
    """

    def __init__(self, markdown: bool = True) -> None:
        self.markdown = markdown
        self._pending = ""
        self._pos = 0
        self._fence: str | None = None
        self._blank_at: int | None = None

    @property
    def tail(self) -> str:
        """Text received but not settled yet."""
        return self._pending

    def feed(self, text: str) -> list[str]:
        """Add streamed text; returns the blocks it settled, in order."""
        self._pending += text
        if not self.markdown:
            cut = self._pending.rfind("\n") + 1
            if cut == 0:
                return []
            return [self._take(cut, cut)]
        return self._settle_markdown()

    def finish(self) -> str:
        """Everything still pending (the last block); the splitter is empty afterwards."""
        rest = self._pending
        self._pending, self._pos, self._fence, self._blank_at = "", 0, None, None
        return rest

    def _take(self, end: int, resume: int) -> str:
        block = self._pending[:end]
        self._pending = self._pending[resume:]
        self._pos, self._blank_at = 0, None
        return block

    def _settle_markdown(self) -> list[str]:
        blocks: list[str] = []
        while (newline := self._pending.find("\n", self._pos)) >= 0:
            line = self._pending[self._pos : newline]
            if self._fence is not None:
                self._pos = newline + 1
                if _closes(line, self._fence):
                    self._fence = None
                    blocks.append(self._take(self._pos, self._pos))
                continue
            if not line.strip():
                if self._blank_at is None:
                    self._blank_at = self._pos
                self._pos = newline + 1
                continue
            if self._blank_at is not None:
                if not line[0].isspace():
                    blank_at, start = self._blank_at, self._pos
                    block = self._take(blank_at, start)
                    if block.strip():
                        blocks.append(block)
                    continue  # look at this line again, now at position 0
                self._blank_at = None
            opening = FENCE.match(line)
            if opening:
                self._fence = opening.group(1)
            self._pos = newline + 1
        return blocks


def _closes(line: str, fence: str) -> bool:
    match = FENCE.match(line)
    if match is None:
        return False
    marker = match.group(1)
    rest = line[match.end() :]
    return marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip()


def tail_lines(text: str, count: int = TAIL_LINES) -> str:
    """The last ``count`` lines of ``text`` (what the live region shows)."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-count:])


class StreamView:
    """One streamed message on the console: settled blocks printed, the tail live."""

    def __init__(
        self,
        console: Console,
        *,
        markdown: bool = True,
        style: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.style = style
        self.splitter = BlockSplitter(markdown)
        self._clock = clock
        self._live: Live | None = None
        self._last_refresh = float("-inf")
        self._blocks = 0

    def feed(self, text: str) -> None:
        """Take one delta: print what settled, refresh the live tail (throttled); control
        characters in it are shown, never sent (:func:`terminal_text`)."""
        settled = self.splitter.feed(terminal_text(text))
        for block in settled:
            self._print_block(block)
        self._show_tail(force=bool(settled))

    def finish(self) -> None:
        """Print the rest and remove the live region."""
        self._stop_live()
        rest = self.splitter.finish()
        if rest.strip():
            self._print_block(rest)

    def _print_block(self, block: str) -> None:
        if self.splitter.markdown:
            from rich.markdown import Markdown

            if self._blocks:
                self.console.print()
            self.console.print(Markdown(block.strip("\n"), style=self.style))
        else:
            from rich.text import Text

            self.console.print(Text(block.rstrip("\n"), style=self.style))
        self._blocks += 1

    def _show_tail(self, force: bool) -> None:
        if not self.console.is_terminal:
            return
        now = self._clock()
        if not force and now - self._last_refresh < REFRESH_SECONDS:
            return
        self._last_refresh = now
        from rich.text import Text

        tail = Text(tail_lines(self.splitter.tail), style=self.style or "")
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                tail,
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        self._live.update(tail, refresh=True)

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.update("", refresh=True)
            self._live.stop()
            self._live = None
