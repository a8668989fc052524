"""Which guardrails run and their limits (the ``guardrails`` settings group, resolved)."""

from __future__ import annotations

from dataclasses import dataclass

from lull.model import defaults


@dataclass(frozen=True)
class GuardrailPolicy:
    """The engine's guardrails for model behaviour; every guard is on by default.

    ``rollback``: replies that write a tool call as text, refuse, say nothing or call an
    unknown tool are rolled back and asked again, at most ``max_consecutive_rollbacks`` in
    a row and ``maxTurns + extra_requests`` requests per user turn. ``duplicate_calls``: a
    read-only call repeated with nothing changed in between gets a pointer to the earlier
    result. ``doom_loop``: the same call ``doom_loop_repeats`` times in a row stops the loop
    (the user is asked whether to go on). ``stream_repetition``: an answer that keeps
    repeating itself is cut off. ``continuation``: an answer cut at the output limit is
    continued, at most ``max_continuations`` times. ``max_tool_failures`` failed tool calls
    in a row stop the loop.
    """

    rollback: bool = defaults.ROLLBACK
    max_consecutive_rollbacks: int = defaults.MAX_CONSECUTIVE_ROLLBACKS
    extra_requests: int = defaults.EXTRA_REQUESTS
    duplicate_calls: bool = defaults.DUPLICATE_CALLS
    doom_loop: bool = defaults.DOOM_LOOP
    doom_loop_repeats: int = defaults.DOOM_LOOP_REPEATS
    stream_repetition: bool = defaults.STREAM_REPETITION
    continuation: bool = defaults.CONTINUATION
    max_continuations: int = defaults.MAX_CONTINUATIONS
    max_tool_failures: int = defaults.MAX_TOOL_FAILURES

    def request_budget(self, max_turns: int) -> int:
        """How many model requests one user turn may make in all (rollbacks, retries and
        continuations included): ``maxTurns`` plus the extra requests."""
        return max_turns + self.extra_requests


OFF = GuardrailPolicy(
    rollback=False,
    duplicate_calls=False,
    doom_loop=False,
    stream_repetition=False,
    continuation=False,
    max_tool_failures=1_000_000,
)
"""Every guard switched off (the engine then trusts every reply, as before guardrails)."""
