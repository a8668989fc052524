"""What a fitter learns when a request did not fit: a provider's "prompt too long" (the real
window and size, so the retry is fitted on true numbers) and an empty answer to a prompt near
the window (taken as an overflow)."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from lull.catalog.windows import parse_context_overflow
from lull.model.events import Notice
from lull.model.provider import ProviderError

if TYPE_CHECKING:
    from lull.engine.fitting.fitter import ContextFitter

log = logging.getLogger("lull.compress")

OVERFLOW_BUMP = 1.25
"""How much larger than the estimate a prompt the provider refused is taken to be, when the
provider did not say its size."""
EMPTY_STREAM_NEAR = 0.7
"""An empty answer to a prompt estimated at this share of the window or more is taken as an
overflow. Well below 1: servers that answer this way report no usage, so the estimate is
uncalibrated, and local tokenizers count up to ~40% more than lull's."""


class OverflowLearning:
    """Believing the provider about the window, for one fitter."""

    def __init__(self, fitter: ContextFitter) -> None:
        self.fitter = fitter

    def prompt_too_long(self, error: ProviderError) -> Notice:
        """The provider said the prompt is too long: believe it (window and calibration)."""
        parsed = parse_context_overflow(error.message)
        if parsed is not None and parsed.limit and parsed.limit < self.fitter.context_window:
            self.fitter.window_cap = parsed.limit
        told = parsed.tokens if parsed is not None and parsed.tokens else 0
        estimate = self._assume_over_window(told)
        window = self.fitter.context_window
        log.warning("prompt too long (estimated ~%d tokens): %s", estimate, error.message)
        return Notice(
            "warning",
            f"the provider says the prompt is too long (lull estimated ~{estimate:,} tokens of a "
            f"{window:,}-token window; set model.contextWindow if the model's window "
            "is smaller); compressing and retrying once",
        )

    def probable(self) -> bool:
        """Whether the request last sent was near or over the window, so that an empty answer
        most likely means the server could not fit it (see :data:`EMPTY_STREAM_NEAR`)."""
        estimate = self.fitter.calibration.estimate(self.fitter.sent_local)
        return estimate >= EMPTY_STREAM_NEAR * self.fitter.context_window

    def empty_stream(self, error: ProviderError) -> Notice:
        """An empty answer to a prompt near the window: take it as an overflow (calibration)."""
        estimate = self._assume_over_window(0)
        log.warning("empty answer at ~%d tokens: taken as a context overflow", estimate)
        return Notice(
            "warning",
            f"{error.message}; lull estimated ~{estimate:,} tokens of a "
            f"{self.fitter.context_window:,}-token window, so it is probably the context size: "
            "compressing and retrying once (set model.contextWindow to the server's context "
            "size if it is smaller)",
        )

    def _assume_over_window(self, told: int) -> int:
        """Calibrate as if the request last sent was over the window (``told`` tokens if the
        provider said how many); returns the estimate it had before."""
        estimate = self.fitter.calibration.estimate(self.fitter.sent_local)
        actual = told or math.ceil(estimate * OVERFLOW_BUMP)
        self.fitter.calibration.observe(
            max(actual, self.fitter.context_window + 1), self.fitter.sent_local
        )
        return estimate
