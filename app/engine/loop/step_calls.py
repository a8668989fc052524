"""Running one step's tool calls under the guardrails: the loop check first, the failures
count after."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from lull.engine.calls.runner import ToolRunner
from lull.engine.guardrails.calls import confirm_loop, loop_notice
from lull.engine.guardrails.turn import TurnGuard
from lull.engine.sessions.session import Session
from lull.model.events import Event, ToolFinished, TurnFinished
from lull.model.messages import Message, ToolCall, ToolResult

log = logging.getLogger("lull.guardrails")


async def run_step_calls(
    runner: ToolRunner, session: Session, turn: TurnGuard, calls: list[ToolCall], step: int
) -> AsyncIterator[Event]:
    """Run one reply's calls, unless they make a loop the user does not want to go on with;
    a turn the guardrails end here (a loop, failures in a row) ends with a TurnFinished."""
    loop = turn.calls.loop_in(calls)
    if loop is not None:
        yield loop_notice(turn.calls, loop)
        stop = await confirm_loop(turn.calls, loop, runner.approver)
        if stop is not None:
            for event in _not_run(session, calls, stop):
                yield event
            yield TurnFinished("", "doom_loop", stop)
            return
    turn.calls.made(calls)
    async for event in runner.run_calls(session, calls, turn.calls, step):
        yield event
    if (failing := turn.calls.failing()) is not None:
        log.warning("%s", failing)
        yield TurnFinished("", "tool_failures", failing)


def _not_run(session: Session, calls: list[ToolCall], reason: str) -> list[Event]:
    """Give every call of a batch that will not run its result (the pairing holds)."""
    results = tuple(ToolResult(c.id, c.name, f"not run: {reason}", True) for c in calls)
    session.add(Message("user", results, origin="tool"))
    return [ToolFinished(call, result) for call, result in zip(calls, results, strict=True)]
