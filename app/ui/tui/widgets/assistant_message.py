"""The model's answer, streamed as markdown: finished blocks frozen, only the live tail redrawn.

Laying out a markdown document is what made long answers stall: Textual's ``Markdown`` makes
several widgets per block and lays the whole document out again after every append. Here a
block is *frozen* as soon as the next one starts (a blank line outside a code fence, before
a line that does not continue it): it is rendered once, with Rich's markdown (as line mode
prints it), into the lines of one :class:`MarkdownLines` widget, whose layout is its line
count. Only the live tail (the unfinished block) is rendered again as text arrives, batched
every :func:`flush_interval`. A finished or replayed answer is frozen whole, so the cost of an
update stays the same however long the answer grows.
"""

from __future__ import annotations

import asyncio

from rich.markdown import Markdown
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from lull.model.text import terminal_text

INTERRUPTED = "⏸ interrupted — this partial answer was not sent to the model"
DISCARDED = "✗ discarded — {reason}; this partial answer was not kept"
FLUSH_SECONDS = 0.05  # text reaches the screen at most this often
SLOWER_PER_CHAR = 1 / 20_000  # +50 ms per 1,000 characters of the live tail
MAX_FLUSH_SECONDS = 0.5
FENCES = ("```", "~~~")
FREEZE_CHARS = 2_000  # markdown rendered in one go at most (then the event loop runs)


def flush_interval(live_chars: int) -> float:
    """Seconds between redraws of a live tail ``live_chars`` long (a long block, such as a
    big code block, is redrawn less often)."""
    return min(MAX_FLUSH_SECONDS, FLUSH_SECONDS + live_chars * SLOWER_PER_CHAR)


def block_ends(text: str) -> list[int]:
    """Where finished blocks end in ``text`` (which starts at a block boundary): after each
    blank line outside a code fence that is followed by a line starting a new block."""
    ends: list[int] = []
    fence = ""
    position = 0
    previous_blank = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and line.endswith("\n"):
                fence = ""
        else:
            if previous_blank and stripped and not line[0].isspace():
                ends.append(position)  # a new block starts (its first line may be unfinished)
            if not line.endswith("\n"):
                break  # the last line is still being written
            if stripped.startswith(FENCES):
                fence = stripped[:3]
        previous_blank = not stripped and not fence
        position += len(line)
    return ends


def settled_length(text: str) -> int:
    """How much of ``text`` is finished blocks (see :func:`block_ends`)."""
    ends = block_ends(text)
    return ends[-1] if ends else 0


def next_cut(ends: list[int]) -> int:
    """How much to freeze in one go: the finished blocks up to :data:`FREEZE_CHARS` (at
    least one block), so a burst of text is rendered in pieces, the UI running between."""
    fitting = [end for end in ends if end <= FREEZE_CHARS]
    return fitting[-1] if fitting else ends[0]


def _blank(line: list[Segment]) -> bool:
    """True for a line with no text and no background (a code block's padding is not)."""
    return all(not s.text.strip() and (s.style is None or s.style.bgcolor is None) for s in line)


class MarkdownLines(Widget):
    """Finished markdown, rendered once into lines: one widget whose height is its line
    count; an appended chunk is rendered alone (again only when the width changes)."""

    DEFAULT_CSS = """
    MarkdownLines {
        height: auto;
    }
    """

    def __init__(self, markdown: str = "") -> None:
        super().__init__()
        self._chunks: list[str] = [markdown] if markdown.strip() else []
        self._lines: list[Strip] = []
        self._width = 0
        self.source = markdown

    def append(self, markdown: str) -> None:
        """Freeze ``markdown`` (whole blocks) after what is there."""
        self.source += markdown
        if not markdown.strip():
            return
        self._chunks.append(markdown)
        if self._width:
            self._lines += self._render_chunk(markdown, self._width, first=len(self._chunks) == 1)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The number of lines at ``width``."""
        self._layout(width)
        return len(self._lines)

    def _layout(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        self._width = width
        self._lines = []
        for number, chunk in enumerate(self._chunks):
            self._lines += self._render_chunk(chunk, width, first=number == 0)

    def _render_chunk(self, markdown: str, width: int, *, first: bool) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(width)
        lines = console.render_lines(Markdown(markdown), options, pad=False)
        while lines and _blank(lines[0]):
            lines.pop(0)
        while lines and _blank(lines[-1]):
            lines.pop()
        strips = [Strip(line).adjust_cell_length(width) for line in lines]
        return strips if first or not strips else [Strip.blank(width), *strips]

    def render_line(self, y: int) -> Strip:
        """One line, in the widget's colours."""
        width = self.size.width
        style = self.rich_style
        if y >= len(self._lines):
            return Strip.blank(width, style)
        return self._lines[y].crop_extend(0, width, style).apply_style(style)


class AssistantMessage(Vertical):
    """One assistant message: frozen blocks, then the live tail while it streams."""

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
    }
    AssistantMessage > .live {
        height: auto;
    }
    AssistantMessage > .interrupted {
        color: $warning;
        text-style: italic;
    }
    AssistantMessage.discarded > MarkdownLines, AssistantMessage.discarded > .live {
        opacity: 50%;
    }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._initial = terminal_text(text)  # shown: control characters as pictures
        self._live_text = ""
        self._pending: list[str] = []
        self._timer: Timer | None = None
        self._started = False
        self._flushing = False
        self.text = text
        self.finished = bool(text)
        self.interrupted = False
        self.discarded = False

    def compose(self) -> ComposeResult:
        """The frozen part (all of a replayed message) and the live tail."""
        yield MarkdownLines(self._initial)
        yield Static("", classes="live", markup=False)

    @property
    def frozen(self) -> MarkdownLines:
        """The finished blocks."""
        return self.query_one(MarkdownLines)

    @property
    def live(self) -> Static:
        """The unfinished tail."""
        return self.query_one(".live", Static)

    async def write(self, fragment: str) -> None:
        """Append a fragment of the answer; redraws are batched (see :func:`flush_interval`)."""
        self.text += fragment
        self._pending.append(terminal_text(fragment))
        if not self._started:
            self._started = True
            await self._flush()  # the first words show at once
        elif self._timer is None:
            self._timer = self.set_timer(flush_interval(len(self._live_text)), self._flush)

    async def _flush(self, *, final: bool = False) -> None:
        self._timer = None
        if self._flushing or (not self._pending and not final):
            return
        self._flushing = True
        try:
            await self._freeze(final=final)
        finally:
            self._flushing = False
        if self._pending and self._timer is None and not final:
            self._timer = self.set_timer(flush_interval(len(self._live_text)), self._flush)

    async def _freeze(self, *, final: bool) -> None:
        """Move finished blocks into the frozen part, a piece at a time; redraw the tail."""
        while True:
            live = self._live_text = self._live_text + "".join(self._pending)
            self._pending.clear()
            ends = block_ends(live)
            if final and live and (not ends or ends[-1] < len(live)):
                ends.append(len(live))
            if not ends:
                break
            cut = next_cut(ends)
            self.frozen.append(live[:cut])
            self._live_text = live[cut:]
            if cut == ends[-1]:
                break
            await asyncio.sleep(0)  # a burst is frozen in pieces: input and painting go on
        live = self._live_text + "".join(self._pending)
        self._pending.clear()
        self._live_text = live
        self.live.update(Markdown(live) if live.strip() else "")

    async def finish(self, *, interrupted: bool = False) -> None:
        """The message is complete (or was cut short by the user): freeze it all."""
        if self._timer is not None:
            self._timer.stop()
        await self._flush(final=True)
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
