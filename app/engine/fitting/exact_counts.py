"""Exact token counts: when the tokenizer is worth loading, and keeping its counts in the
session file so a resume counts only what is new.

A session's counter estimates (characters / 4) until :func:`tokenizer_needed` says counting
exactly could change a decision; then the fitter loads the tokenizer once.

After each request the fitter hands :class:`SavedCounts` the counts made since the last one:
messages as they are in the transcript (a view's cleared or truncated copy is counted anew,
cheaply, or estimated) and long tool results (their count and how they are cut, so the same
truncated text is made again without a tokenizer). They go to the session file as
``tokens`` lines (``app/engine/sessions/store.py``) with the tokenizer that made them; a resumed
session hands them back to its counters if the same tokenizer would be used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lull.context.tokens import TokenCounter, UsageCalibration, tokenizer_name_for
from lull.context.truncate import Cut, ToolOutputLimiter
from lull.engine.sessions.session import Session

ESTIMATE_SPREAD = 3
"""Before any usage was reported, an estimated token (4 characters) may be up to 4 real ones
(a token is at least one character for nearly all text): the estimated part is taken up to
1 + 3 times."""
ESTIMATE_SPREAD_CALIBRATED = 1
"""Once calibrated, what was added since the last reported request is taken up to twice."""
LOW_SHARE = 0.5
"""And an estimated token may be as little as half a real one (long words, runs of spaces)."""


def tokenizer_needed(
    local: int, estimated: int, calibration: UsageCalibration, points: Sequence[int]
) -> bool:
    """Whether counting exactly could move a prompt counted at ``local`` tokens (``estimated``
    of them estimated) across one of ``points`` (provider tokens): a decision lies between
    the least and the most the estimate can stand for.

    Calibrated, only what was added since the last reported request is uncertain (the
    report covers the rest), so a resumed long session whose counts were saved needs no
    tokenizer until it really nears a threshold.
    """
    uncertain, spread = estimated, ESTIMATE_SPREAD
    if calibration.calibrated:
        uncertain = min(estimated, max(0, local - calibration.local))
        spread = ESTIMATE_SPREAD_CALIBRATED
    low = calibration.estimate(local - math.floor(uncertain * LOW_SHARE))
    high = calibration.estimate(local + spread * uncertain)
    return any(low < point <= high for point in points)


class SavedCounts:
    """Moves exact counts between one session's file and its counters."""

    def __init__(self, session: Session, counter: TokenCounter, limiter: ToolOutputLimiter) -> None:
        self.session = session
        self.counter = counter
        self.limiter = limiter
        self._looked_at = 0  # transcript messages already looked at for counts to save
        self._saved_results: set[str] = set()

    def restore(self) -> None:
        """Hand the counts of the session file (if made by this tokenizer) to the counters."""
        saved = self.session.record.token_counts
        if saved is None or saved.tokenizer != tokenizer_name_for(self.counter.encoding):
            return
        for message in self.session.transcript:
            tokens = saved.messages.get(message.id)
            if tokens is not None:
                self.counter.remember(message, tokens)
        self._looked_at = len(self.session.transcript)
        self.limiter.cuts.update((k, Cut.from_list(v)) for k, v in saved.results.items())
        self._saved_results.update(saved.results)

    def recount(self) -> None:
        """The counter has just become exact: every message may have a count to save."""
        self._looked_at = 0

    def save(self) -> None:
        """Save the exact counts made since the last call."""
        transcript = self.session.transcript
        messages: dict[str, int] = {}
        if self.counter.exact and self.counter.tokenizer.exact:
            messages = self.counter.exact_counts(transcript[self._looked_at :])
            self._looked_at = len(transcript)
        cuts = self.limiter.cuts
        results = {k: c.as_list() for k, c in cuts.items() if k not in self._saved_results}
        self._saved_results.update(results)
        if not messages and not results:
            return  # (and no tokenizer is asked for its name: that would load it)
        tokenizer = self.counter.tokenizer if messages else self.limiter.counter.tokenizer
        if tokenizer.exact:
            self.session.save_token_counts(tokenizer.name, messages, results)
