"""Idle cleanup of thinking: which assistant messages may lose their reasoning, per vendor.

Thinking is removed per provider rule; never from a message whose only substantive content is
thinking (it would leave an empty assistant message), never from tool-call messages under
``keep_tool_calls`` (DeepSeek, Kimi), and never from the tool loop the view ends inside (an
interrupted turn: the API still needs that loop's reasoning). Pure functions (``idle.py``
decides when).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from lull.context.estimate import estimate_part_tokens
from lull.model.edits import ClearThinking
from lull.model.messages import Message, Part, Text, Thinking

ThinkingRule = Literal["all", "keep_tool_calls", "none"]

_RULES_BY_VENDOR: dict[str, ThinkingRule] = {
    "anthropic": "all",
    "deepseek": "keep_tool_calls",
    "kimi": "keep_tool_calls",
}


def thinking_rule_for(vendor: str) -> ThinkingRule:
    """How thinking may be removed from history for ``vendor`` (case-insensitive).

    "anthropic" -> "all"; "deepseek" and "kimi" -> "keep_tool_calls" (their APIs
    answer HTTP 400 when a tool-call message lacks its reasoning); any other
    vendor -> "none" (removal is unsafe or pointless there).
    """
    return _RULES_BY_VENDOR.get(vendor.strip().lower(), "none")


def plan_thinking(
    view: Sequence[Message], rule: ThinkingRule, gap: float, now: float, cold_from: int = 0
) -> ClearThinking | None:
    """The thinking to clear from ``view`` after a ``gap``-minute break (None: nothing);
    messages before ``cold_from`` lie in a warm cached prefix and keep theirs."""
    if rule not in ("all", "keep_tool_calls"):
        return None
    protected = _open_tool_loop_ids(view)
    message_ids: list[str] = []
    saved = 0
    for message in view[cold_from:]:
        if message.role != "assistant" or message.id in protected:
            continue
        thinking = [p for p in message.parts if isinstance(p, Thinking)]
        if not thinking or not any(_is_substantive(p) for p in message.parts):
            continue
        if rule == "keep_tool_calls" and message.tool_calls:
            continue
        message_ids.append(message.id)
        saved += sum(estimate_part_tokens(p) for p in thinking)
    if not message_ids:
        return None
    return ClearThinking(
        message_ids=tuple(message_ids), reason="idle", tokens_saved=saved, gap_minutes=gap, at=now
    )


def _is_substantive(part: Part) -> bool:
    """A part that keeps an assistant message sendable once its thinking is gone."""
    if isinstance(part, Thinking):
        return False
    if isinstance(part, Text):
        return bool(part.text.strip())
    return True


def _open_tool_loop_ids(view: Sequence[Message]) -> frozenset[str]:
    """Assistant messages of the tool loop ``view`` ends inside (an interrupted turn).

    A new user message after tool results continues that loop for the API, so
    its reasoning must be sent back unchanged (Anthropic answers HTTP 400).
    """
    if not view or not (view[-1].tool_results or view[-1].tool_calls):
        return frozenset()
    ids: set[str] = set()
    for message in reversed(view):
        if message.is_user_prompt:
            break
        if message.role == "assistant":
            ids.add(message.id)
    return frozenset(ids)
