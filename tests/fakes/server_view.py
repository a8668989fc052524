"""What the server makes of a request before the model reads it, and so what is billed.

Two things the real services do to a prompt after accepting it:

- **Earlier turns' thinking is dropped** where the API documents it (Anthropic's extended
  thinking docs, 2026: Claude Sonnet 4.5 and earlier, Opus 4.1 and earlier and Haiku through
  4.5 strip the thinking of every assistant turn before the last non-tool-result user
  message; it is not counted, and cache entries after it are not reused. Opus 4.5+, Sonnet
  4.6+, the 5.x families, Fable and Mythos keep it. DeepSeek never puts earlier turns'
  ``reasoning_content`` back into the context). A name the docs do not cover is billed as
  sent. :data:`ThinkingBilling` names the rule; ``FakeServer.thinking_billing`` picks it
  (``"auto"``: by the model's name).
- **Server-side context editing** (Anthropic, beta ``context-management-2025-06-27``): the
  request's ``context_management.edits`` — or the fake's own
  ``FakeServer.context_management``, for a benchmark that bills a client as if it asked
  for it — run on the prompt: ``clear_tool_uses_20250919`` clears the oldest tool results
  once the input passes its trigger (default 100,000 input tokens), keeping the newest
  ``keep`` tool uses (default 3); ``clear_thinking_20251015`` keeps the thinking of the
  last ``keep`` assistant turns (default 1).

The view is a new body (the request's own is never changed); each changed message gets a
text of its own, so the cache simulators' memo never confuses it with one sent as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

ThinkingBilling = Literal["auto", "as_sent", "drop_earlier_turns"]
"""How earlier turns' thinking is billed: by the model's documented rule, as sent, or dropped."""

CLEARED_BY_SERVER = "[tool result cleared by context management]"
DEFAULT_TRIGGER_TOKENS = 100_000
DEFAULT_KEEP_TOOL_USES = 3
DEFAULT_KEEP_THINKING_TURNS = 1
_CLAUDE = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d))?(?!\d)")
#: The first version of each family that keeps earlier turns' thinking in the prompt.
_KEEPS_THINKING_FROM = {"opus": (4, 5), "sonnet": (4, 6), "haiku": (5, 0)}
_ALWAYS_KEEP = ("fable", "mythos")
_THINKING = ("thinking", "redacted_thinking")


def documented_rule(model: str, dialect: str = "anthropic") -> ThinkingBilling:
    """The thinking rule the provider documents for ``model`` ("as_sent" when none applies)."""
    name = model.lower()
    if dialect == "deepseek" or "deepseek" in name:
        return "drop_earlier_turns"
    if any(family in name for family in _ALWAYS_KEEP):
        return "as_sent"
    match = _CLAUDE.search(name)
    if match is None:
        return "as_sent"
    family, major, minor = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    return "as_sent" if (major, minor) >= _KEEPS_THINKING_FROM[family] else "drop_earlier_turns"


def rule_label(rule: ThinkingBilling, model: str, dialect: str = "anthropic") -> str:
    """One line saying how thinking of earlier turns is billed for ``model``."""
    applied = documented_rule(model, dialect) if rule == "auto" else rule
    how = (
        "dropped from the prompt (not billed)"
        if applied == "drop_earlier_turns"
        else "billed as sent"
    )
    source = f"the documented rule for {model}" if rule == "auto" else "set by the caller"
    return f"thinking of earlier turns: {how}, {source}"


def _loop_start(messages: Sequence[Any], is_tool_result: Callable[[dict[str, Any]], bool]) -> int:
    """Index of the last user message that is not only tool results (where the open assistant
    loop starts); 0 when there is none."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        if not all(isinstance(b, dict) and is_tool_result(b) for b in blocks):
            return index
    return 0


class View:
    """The messages of one request as the server sees them, with each message's text."""

    def __init__(self, body: dict[str, Any], texts: Sequence[str] | None) -> None:
        self.body = body
        self.messages: list[Any] = list(body.get("messages") or [])
        self.texts: list[str] | None = list(texts) if texts is not None else None
        self.changed = False

    def replace(self, index: int, message: dict[str, Any]) -> None:
        """Put ``message`` at ``index``, with a text of its own."""
        self.messages[index] = message
        self.changed = True
        if self.texts is not None and len(self.texts) == len(self.messages):
            self.texts[index] = "\x00server view\x00" + json.dumps(message, sort_keys=True)

    def result(self) -> tuple[dict[str, Any], Sequence[str] | None]:
        """The body to bill and answer, and its message texts."""
        if not self.changed:
            return self.body, self.texts
        return {**self.body, "messages": self.messages}, self.texts


def _anthropic_tool_result(block: dict[str, Any]) -> bool:
    return block.get("type") == "tool_result"


def drop_earlier_thinking(view: View, keep_turns: int = 0) -> int:
    """Remove thinking blocks of assistant messages before the open loop (and before the last
    ``keep_turns`` earlier turns); the number of messages changed."""
    messages = view.messages
    start = _loop_start(messages, _anthropic_tool_result)
    cut = start
    for _ in range(keep_turns):
        cut = _loop_start(messages[:cut], _anthropic_tool_result) if cut else 0
    changed = 0
    for index in range(cut):
        message = messages[index]
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        kept = [b for b in content if not (isinstance(b, dict) and b.get("type") in _THINKING)]
        if len(kept) != len(content) and kept:
            view.replace(index, {**message, "content": kept})
            changed += 1
    return changed


def drop_earlier_reasoning(view: View) -> int:
    """OpenAI wire (DeepSeek): drop ``reasoning_content`` of assistant messages before the
    last user message; the number of messages changed."""
    messages = view.messages
    start = next(
        (
            i
            for i in range(len(messages) - 1, -1, -1)
            if isinstance(messages[i], dict) and messages[i].get("role") == "user"
        ),
        0,
    )
    changed = 0
    for index in range(start):
        message = messages[index]
        if isinstance(message, dict) and message.get("reasoning_content"):
            view.replace(index, {k: v for k, v in message.items() if k != "reasoning_content"})
            changed += 1
    return changed


def clear_tool_uses(view: View, edit: dict[str, Any], input_tokens: int) -> int:
    """``clear_tool_uses_20250919`` on ``view`` for a prompt of ``input_tokens``: the tool
    results cleared (0 below the trigger)."""
    trigger = edit.get("trigger") or {}
    if trigger.get("type", "input_tokens") != "input_tokens":
        return 0
    if input_tokens <= int(trigger.get("value", DEFAULT_TRIGGER_TOKENS)):
        return 0
    keep = int((edit.get("keep") or {}).get("value", DEFAULT_KEEP_TOOL_USES))
    excluded = set(edit.get("exclude_tools") or ())
    names = {
        block.get("id"): block.get("name")
        for message in view.messages
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    }
    places = [
        (index, position)
        for index, message in enumerate(view.messages)
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for position, block in enumerate(message["content"])
        if isinstance(block, dict) and _anthropic_tool_result(block)
    ]
    cleared = 0
    for index, position in places[: max(0, len(places) - keep)]:
        message = view.messages[index]
        block = message["content"][position]
        if names.get(block.get("tool_use_id")) in excluded or block.get("content") == [
            {"type": "text", "text": CLEARED_BY_SERVER}
        ]:
            continue
        content = list(message["content"])
        content[position] = {
            **block,
            "content": [{"type": "text", "text": CLEARED_BY_SERVER}],
        }
        view.replace(index, {**message, "content": content})
        cleared += 1
    return cleared


def anthropic_view(
    body: dict[str, Any],
    texts: Sequence[str] | None,
    rule: ThinkingBilling,
    editing: dict[str, Any] | None,
    count: Callable[[dict[str, Any], Sequence[str] | None], int],
) -> tuple[dict[str, Any], Sequence[str] | None]:
    """``body`` as the Messages API bills and answers it: earlier thinking dropped per
    ``rule``, then the context edits (``editing``, the request's ``context_management`` or
    the fake's own) applied; ``count`` gives a body's input tokens."""
    view = View(body, texts)
    applied = documented_rule(str(body.get("model", ""))) if rule == "auto" else rule
    management = body.get("context_management") or editing
    edits = (management or {}).get("edits") or []
    keep_turns = next(
        (
            e.get("keep", {}).get("value", DEFAULT_KEEP_THINKING_TURNS)
            for e in edits
            if e.get("type") == "clear_thinking_20251015"
        ),
        None,
    )
    if keep_turns == "all":
        keep_turns = None
    if applied == "drop_earlier_turns":
        drop_earlier_thinking(view)
    elif keep_turns is not None:
        drop_earlier_thinking(view, max(0, int(keep_turns) - 1))
    for edit in edits:
        if edit.get("type") == "clear_tool_uses_20250919":
            current, current_texts = view.result()
            clear_tool_uses(view, edit, count(current, current_texts))
    return view.result()


def openai_view(
    body: dict[str, Any], texts: Sequence[str] | None, rule: ThinkingBilling, dialect: str
) -> tuple[dict[str, Any], Sequence[str] | None]:
    """``body`` as a Chat Completions server bills it: earlier turns' ``reasoning_content``
    dropped where the vendor documents it (DeepSeek)."""
    applied = documented_rule(str(body.get("model", "")), dialect) if rule == "auto" else rule
    view = View(body, texts)
    if applied == "drop_earlier_turns":
        drop_earlier_reasoning(view)
    return view.result()
