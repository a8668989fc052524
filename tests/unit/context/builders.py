"""Small builders for conversation histories used by the context tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lull.context.idle import IdlePolicy, ThinkingRule, plan_idle_cleanup
from lull.model.edits import ClearThinking, ClearToolResults, ContextEdit
from lull.model.messages import Message, Part, Text, Thinking, ToolCall, ToolResult

NOW = 1_700_000_000.0


def ago(minutes: float) -> float:
    """The epoch time ``minutes`` before :data:`NOW`."""
    return NOW - minutes * 60.0


def user(text: str, msg_id: str | None = None) -> Message:
    """A user prompt."""
    if msg_id is None:
        return Message("user", (Text(text),))
    return Message("user", (Text(text),), id=msg_id)


def assistant(*parts: Part, msg_id: str | None = None) -> Message:
    """An assistant message with these parts."""
    if msg_id is None:
        return Message("assistant", parts, origin="model", provider="anthropic")
    return Message("assistant", parts, id=msg_id, origin="model", provider="anthropic")


def call(call_id: str, name: str = "read_file", **arguments: Any) -> ToolCall:
    """A tool call (arguments default to a path derived from the id)."""
    return ToolCall(call_id, name, arguments or {"path": f"/src/{call_id}.py"})


def result(
    call_id: str, name: str = "read_file", content: str | None = None, *, error: bool = False
) -> ToolResult:
    """A tool result; content defaults to 400 characters (100 estimated tokens)."""
    return ToolResult(call_id, name, "x" * 400 if content is None else content, is_error=error)


def results(*parts: ToolResult | Text) -> Message:
    """A user-role message carrying tool results (batched when several)."""
    return Message("user", tuple(parts), origin="tool")


def tool_step(
    call_id: str, name: str = "read_file", content: str | None = None, *, error: bool = False
) -> list[Message]:
    """One assistant tool call and its answer, as two messages."""
    return [assistant(call(call_id, name)), results(result(call_id, name, content, error=error))]


def thinking(text: str = "t" * 200) -> Thinking:
    """A signed thinking block (200 characters = 50 estimated tokens by default)."""
    return Thinking(text, signature="sig")


# The reference test suite's settings: both thresholds 5 min, keep 1.
REF = IdlePolicy(
    thinking_threshold_minutes=5, tool_results_threshold_minutes=5, tool_results_num_to_keep=1
)
TOOLS_ONLY = IdlePolicy(
    thinking_threshold_minutes=-1, tool_results_threshold_minutes=5, tool_results_num_to_keep=1
)
THINKING_ONLY = IdlePolicy(thinking_threshold_minutes=5, tool_results_threshold_minutes=-1)


def plan(
    view: Sequence[Message],
    policy: IdlePolicy = REF,
    *,
    idle: float | None = 10.0,
    rule: ThinkingRule = "all",
) -> list[ContextEdit]:
    """Plan with the user idle for ``idle`` minutes (None: no response yet)."""
    last = None if idle is None else ago(idle)
    return plan_idle_cleanup(
        view, policy=policy, last_response_at=last, now=NOW, thinking_rule=rule
    )


def tool_edit(edits: list[ContextEdit]) -> ClearToolResults:
    """The single tool-result edit in ``edits``."""
    found = [e for e in edits if isinstance(e, ClearToolResults)]
    assert len(found) == 1, edits
    return found[0]


def thinking_edit(edits: list[ContextEdit]) -> ClearThinking:
    """The single thinking edit in ``edits``."""
    found = [e for e in edits if isinstance(e, ClearThinking)]
    assert len(found) == 1, edits
    return found[0]


def result_by_id(view: Sequence[Message], call_id: str) -> ToolResult:
    """The tool result answering ``call_id`` in ``view``."""
    return next(r for m in view for r in m.tool_results if r.call_id == call_id)


def reads(*ids: str) -> list[Message]:
    """A user prompt followed by one separate read_file step per id."""
    history = [user("look around")]
    for call_id in ids:
        history += tool_step(call_id)
    return history
