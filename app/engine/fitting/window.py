"""The model's context window, as lull knows it: the user's setting or the catalogue's figure,
capped by what a provider said when it refused a prompt as too long."""

from __future__ import annotations

from lull.catalog.windows import context_window_for


class Window:
    """One model's context window in tokens (``cap``: learned from a provider, else None)."""

    def __init__(self, model: str, configured: int | None) -> None:
        self.model = model
        self.configured = configured
        self.cap: int | None = None

    @property
    def size(self) -> int:
        """The window in tokens: the setting or the table, at most the learned cap."""
        window = context_window_for(self.model, self.configured)
        return min(window, self.cap) if self.cap else window

    def learn(self, limit: int) -> None:
        """A provider said the window is ``limit`` tokens: believe it when it is smaller."""
        if limit < self.size:
            self.cap = limit
