"""What a request that did not fit teaches: a provider's "prompt too long" (the real window
and size, so the retry is fitted on true numbers) and an empty answer to a prompt near the
window (taken as an overflow). Functions over the two things they change, the
:class:`Window` and the usage calibration, given the local size of the request last sent."""

from __future__ import annotations

import logging
import math

from lull.catalog.windows import parse_context_overflow
from lull.context.tokens import UsageCalibration
from lull.engine.fitting.window import Window
from lull.model.events import Notice
from lull.model.provider import ProviderError

log = logging.getLogger("lull.compress")

OVERFLOW_BUMP = 1.25
"""How much larger than the estimate a prompt the provider refused is taken to be, when the
provider did not say its size."""
EMPTY_STREAM_NEAR = 0.7
"""An empty answer to a prompt estimated at this share of the window or more is taken as an
overflow. Well below 1: servers that answer this way report no usage, so the estimate is
uncalibrated, and local tokenizers count up to ~40% more than lull's."""


def prompt_too_long(
    error: ProviderError, window: Window, calibration: UsageCalibration, sent_local: int
) -> Notice:
    """The provider said the prompt is too long: believe it (window and calibration)."""
    parsed = parse_context_overflow(error.message)
    if parsed is not None and parsed.limit:
        window.learn(parsed.limit)
    told = parsed.tokens if parsed is not None and parsed.tokens else 0
    estimate = _assume_over_window(told, window, calibration, sent_local)
    log.warning("prompt too long (estimated ~%d tokens): %s", estimate, error.message)
    return Notice(
        "warning",
        f"the provider says the prompt is too long (lull estimated ~{estimate:,} tokens of a "
        f"{window.size:,}-token window; set model.contextWindow if the model's window "
        "is smaller); compressing and retrying once",
    )


def overflow_probable(window: Window, calibration: UsageCalibration, sent_local: int) -> bool:
    """Whether the request last sent was near or over the window, so that an empty answer
    most likely means the server could not fit it (see :data:`EMPTY_STREAM_NEAR`)."""
    return calibration.estimate(sent_local) >= EMPTY_STREAM_NEAR * window.size


def empty_stream(
    error: ProviderError, window: Window, calibration: UsageCalibration, sent_local: int
) -> Notice:
    """An empty answer to a prompt near the window: take it as an overflow (calibration)."""
    estimate = _assume_over_window(0, window, calibration, sent_local)
    log.warning("empty answer at ~%d tokens: taken as a context overflow", estimate)
    return Notice(
        "warning",
        f"{error.message}; lull estimated ~{estimate:,} tokens of a "
        f"{window.size:,}-token window, so it is probably the context size: "
        "compressing and retrying once (set model.contextWindow to the server's context "
        "size if it is smaller)",
    )


def _assume_over_window(
    told: int, window: Window, calibration: UsageCalibration, sent_local: int
) -> int:
    """Calibrate as if the request last sent was over the window (``told`` tokens if the
    provider said how many); returns the estimate it had before."""
    estimate = calibration.estimate(sent_local)
    actual = told or math.ceil(estimate * OVERFLOW_BUMP)
    calibration.observe(max(actual, window.size + 1), sent_local)
    return estimate
