"""The scrolling conversation: messages, tool blocks and notices, newest at the bottom.

It follows the bottom while content streams (unless the user scrolled up) and
prunes the oldest items so a long session stays fast: Textual lays out every
widget of the conversation on each change, and one long markdown answer is
hundreds of widgets, so items are counted and so are their widgets. The full
history is always in the session file.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

MAX_ITEMS = 300
MAX_WIDGETS = 2500
PRUNE_BATCH = 50


class PrunedNote(Static):
    """Says how many earlier items were removed from the screen."""

    DEFAULT_CSS = """
    PrunedNote { color: $text-muted; text-style: italic; padding: 0 1; }
    """


class Conversation(VerticalScroll):
    """The transcript as the user sees it."""

    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 1 1 1;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, max_items: int = MAX_ITEMS, max_widgets: int = MAX_WIDGETS, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.max_items = max_items
        self.max_widgets = max_widgets
        self.pruned = 0

    def on_mount(self) -> None:
        """Stick to the bottom as content arrives."""
        self.anchor()

    @property
    def items(self) -> list[Widget]:
        """The conversation's widgets, oldest first (without the pruned note)."""
        return [child for child in self.children if not isinstance(child, PrunedNote)]

    async def add(self, widget: Widget) -> Widget:
        """Append ``widget`` (mounted when this returns), pruning old items if needed."""
        await self.mount(widget)
        await self._prune()
        return widget

    async def add_all(self, widgets: list[Widget]) -> None:
        """Append several widgets at once (a replayed session), pruning old items if needed."""
        if widgets:
            await self.mount_all(widgets)
        await self._prune()

    def _to_drop(self) -> list[Widget]:
        """The oldest items to remove (never the newest one, which may be streaming)."""
        items = self.items
        if len(items) > self.max_items:
            excess = len(items) - self.max_items
            return items[: max(excess, min(PRUNE_BATCH, self.max_items // 2))]
        total = len(self.query("*"))
        drop: list[Widget] = []
        for item in items[:-1]:
            if total <= self.max_widgets:
                break
            drop.append(item)
            total -= 1 + len(item.query("*"))
        return drop

    async def _prune(self) -> None:
        drop = self._to_drop()
        if not drop:
            return
        self.pruned += len(drop)
        await self.remove_children(drop)
        note = Text(f"… {self.pruned} earlier items are not shown (they are in the session file)")
        existing = self.query(PrunedNote)
        if existing:
            existing.first().update(note)
        else:
            await self.mount(PrunedNote(note, markup=False), before=0)

    async def reset(self) -> None:
        """Remove everything (a new or another session is shown)."""
        self.pruned = 0
        await self.remove_children()
