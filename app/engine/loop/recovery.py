"""How one model request tries again after a provider error: a cut or empty stream once, a
"prompt too long" (or an empty stream near the window) once after compressing; and the line
a final failure is reported with."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.model.events import Notice
from lull.model.provider import ProviderError

if TYPE_CHECKING:
    from lull.engine.fitting.fitter import ContextFitter

STREAM_RETRIES = 1
"""How often a cut or an empty stream is asked for again (per request)."""


class Recovery:
    """What one request has already tried again: cut streams, empty streams, and whether it
    compressed after an overflow (each at most once)."""

    def __init__(self, fitter: ContextFitter) -> None:
        self.fitter = fitter
        self.cut = 0
        self.empty = 0
        self.overflow = False

    def after(self, error: ProviderError) -> tuple[Notice, bool] | None:
        """How to try a failed request again: the notice to show and whether to compress
        first; None when this failure is final."""
        match error.kind:
            case "stream_cut" if self.cut < STREAM_RETRIES:
                self.cut += 1
                return Notice("warning", f"{error.message}; retrying"), False
            case "prompt_too_long" if not self.overflow:
                self.overflow = True
                return self.fitter.prompt_too_long(error), True
            case "empty_stream" if self.empty < STREAM_RETRIES:
                self.empty += 1
                if not self.overflow and self.fitter.overflow_probable():
                    self.overflow = True
                    return self.fitter.empty_stream(error), True
                return Notice("warning", f"{error.message}; retrying"), False
            case _:
                return None

    def failure_message(self, error: ProviderError) -> str:
        """The line a final failure is reported with."""
        if error.kind != "empty_stream":
            return error.message
        return (
            f"{error.message}, again after a retry. If the prompt is larger than the server's "
            f"context, set model.contextWindow to the server's size (lull assumes "
            f"{self.fitter.context_window:,} tokens)"
        )
