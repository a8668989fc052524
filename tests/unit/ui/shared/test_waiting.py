"""Following the engine's events to know whether lull waits for a first token, and how long."""

from __future__ import annotations

from lull.model.edits import Summary
from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    ContextEdited,
    Notice,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall, ToolResult
from lull.model.provider import Usage
from lull.ui.shared.waiting import FirstTokenWait

CALL = ToolCall("call_1", "read_file", {"path": "a"})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_turn_waits_until_its_first_text_or_thinking() -> None:
    clock = Clock()
    wait = FirstTokenWait(clock)
    assert not wait.waiting and wait.elapsed() == 0.0
    wait.observe(TurnStarted("hi"))
    clock.now += 7
    wait.observe(Notice("info", "something"))
    assert wait.waiting and wait.elapsed() == 7
    wait.observe(AssistantThinking("hmm"))
    assert not wait.waiting and wait.last_seconds == 7
    clock.now += 30  # later tokens do not count
    wait.observe(AssistantText("answer"))
    assert wait.last_seconds == 7


def test_tool_results_and_a_retry_start_a_new_wait() -> None:
    clock = Clock()
    wait = FirstTokenWait(clock)
    wait.observe(TurnStarted("hi"))
    clock.now += 2
    wait.observe(RequestFinished(Usage(), 1, 0))  # a tool call only: no text came
    assert not wait.waiting and wait.last_seconds == 2
    wait.observe(ToolStarted(CALL, "a"))
    wait.observe(ToolFinished(CALL, ToolResult("call_1", "read_file", "x")))
    clock.now += 5
    assert wait.elapsed() == 5
    wait.observe(AssistantText("par"))
    wait.observe(AttemptDiscarded("par", "cut"))
    assert wait.waiting and wait.turn_longest == 5
    clock.now += 9
    wait.observe(AssistantText("full"))
    assert wait.last_seconds == 9 and wait.turn_longest == 9
    wait.observe(TurnFinished("full", "end_turn"))
    wait.observe(TurnStarted("again"))
    assert wait.turn_longest == 0


def test_a_summary_request_is_part_of_the_wait() -> None:
    clock = Clock()
    wait = FirstTokenWait(clock)
    wait.observe(TurnStarted("hi"))
    clock.now += 20
    wait.observe(RequestFinished(Usage(), 0, 0, purpose="summary"))
    edit = Summary(through_id="m1", text="the summary")
    wait.observe(ContextEdited(edit, "compressed"))
    assert wait.waiting
    clock.now += 3
    wait.observe(AssistantText("ok"))
    assert wait.last_seconds == 23


def test_reset_ends_a_wait_without_measuring_it() -> None:
    wait = FirstTokenWait(Clock())
    wait.observe(TurnStarted("hi"))
    wait.reset()
    assert not wait.waiting and wait.last_seconds is None
