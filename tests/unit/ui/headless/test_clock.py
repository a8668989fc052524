"""How long a headless turn took and how much of it the model had."""

from __future__ import annotations

from lull.model.events import RequestFinished, SubagentUpdate, ToolFinished, ToolStarted
from lull.model.messages import ToolCall, ToolResult
from lull.model.provider import Usage
from lull.ui.headless.clock import TurnClock


def test_tool_time_is_taken_out_of_the_api_time_and_models_add_up() -> None:
    now = [0.0]
    clock = TurnClock(lambda: now[0])
    a, b = ToolCall("a", "glob", {}), ToolCall("b", "grep_search", {})
    now[0] = 2.0
    clock.take(RequestFinished(Usage(input=5), 1, 0, 200_000, model="m1"))
    clock.take(ToolStarted(a, "a"))
    now[0] = 3.0
    clock.take(ToolStarted(b, "b"))  # side by side: one stretch of tool time
    now[0] = 5.0
    clock.take(ToolFinished(a, ToolResult("a", "glob", "")))
    clock.take(ToolFinished(b, ToolResult("b", "grep_search", "")))
    clock.take(SubagentUpdate("t", "explore", "request", "", "s2", Usage(input=1), "m2"))
    now[0] = 6.0
    clock.take(RequestFinished(Usage(input=2), 2, 0, purpose="summary", model="m1"))
    assert (clock.duration_ms(), clock.api_ms(), clock.requests) == (6000, 3000, 1)
    assert clock.models == {"m1": Usage(input=7), "m2": Usage(input=1)}
    assert clock.windows == {"m1": 200_000}
