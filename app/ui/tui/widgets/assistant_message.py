"""The model's answer, streamed as markdown (one MarkdownStream per message).

Textual lays the whole document out again after every append, and that costs
more the longer the answer is, so fragments are batched: at most every 80 ms
for a short answer, up to once a second for a very long one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Markdown, Static

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream

INTERRUPTED = "⏸ interrupted — this partial answer was not sent to the model"
DISCARDED = "✗ discarded — {reason}; this partial answer was not kept"
FLUSH_SECONDS = 0.08  # text reaches the markdown at most this often: fewer layout passes
SLOWER_PER_CHAR = 1 / 20_000  # +50 ms per 1,000 characters already shown
MAX_FLUSH_SECONDS = 1.0


def flush_interval(chars: int) -> float:
    """Seconds between markdown updates for an answer ``chars`` long (80 ms up to 1 s)."""
    return min(MAX_FLUSH_SECONDS, FLUSH_SECONDS + chars * SLOWER_PER_CHAR)


class AssistantMessage(Vertical):
    """One assistant message: markdown that grows as text arrives, then settles."""

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
    }
    AssistantMessage > Markdown {
        margin: 0;
        padding: 0 1;
        background: transparent;
    }
    AssistantMessage > .interrupted {
        color: $warning;
        padding: 0 1;
        text-style: italic;
    }
    AssistantMessage.discarded > Markdown {
        opacity: 50%;
    }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._initial = text
        self._stream: MarkdownStream | None = None
        self._pending: list[str] = []
        self._timer: Timer | None = None
        self.text = text
        self.finished = bool(text)
        self.interrupted = False
        self.discarded = False

    def compose(self) -> ComposeResult:
        """A markdown document (filled at once for a replayed message)."""
        yield Markdown(self._initial)

    @property
    def markdown(self) -> Markdown:
        """The markdown widget holding the text."""
        return self.query_one(Markdown)

    async def write(self, fragment: str) -> None:
        """Append a fragment of the answer; fragments are batched (see :func:`flush_interval`)."""
        self.text += fragment
        self._pending.append(fragment)
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
            await self._flush()  # the first words show at once
        elif self._timer is None:
            self._timer = self.set_timer(flush_interval(len(self.text)), self._flush)

    async def _flush(self) -> None:
        self._timer = None
        if self._pending and self._stream is not None:
            text = "".join(self._pending)
            self._pending.clear()
            await self._stream.write(text)

    async def finish(self, *, interrupted: bool = False) -> None:
        """The message is complete (or was cut short by the user): flush and settle."""
        if self._timer is not None:
            self._timer.stop()
        await self._flush()
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await _stop(stream)
        self.finished = True
        if interrupted and not self.interrupted:
            self.interrupted = True
            await self.mount(Static(Text(INTERRUPTED), markup=False, classes="interrupted"))

    async def discard(self, reason: str = "the stream broke") -> None:
        """The engine threw this partial answer away (a cut stream, a rolled-back reply):
        settle and mark it, saying why."""
        await self.finish()
        if not self.discarded:
            self.discarded = True
            self.add_class("discarded")
            line = Text(DISCARDED.format(reason=reason))
            await self.mount(Static(line, markup=False, classes="interrupted"))


async def _stop(stream: MarkdownStream) -> None:
    """Stop ``stream`` (after letting its task start: Textual cannot stop one that has not)."""
    await asyncio.sleep(0)
    await stream.stop()
