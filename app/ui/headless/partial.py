"""``--include-partial-messages``: engine events as Claude Code's ``stream_event`` lines.

Each line wraps one raw event of the Messages API's stream (``message_start``,
``content_block_start``, ``content_block_delta`` with a ``text_delta``, ``thinking_delta`` or
``input_json_delta``, ``content_block_stop``, ``message_delta``, ``message_stop``), as the Agent
SDK's ``SDKPartialAssistantMessage`` does. lull's providers fold their streams into text and
thinking fragments, so the raw events are made again from those: a message starts with its
first fragment, each change between thinking and text is a new block, and the request's end
adds its tool calls (each one whole ``input_json_delta``), the stop reason and the usage. A
message whose stream broke (the engine threw its text away) ends without a stop reason, and no
``assistant`` line repeats it.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal, assert_never

from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    AttemptFinished,
    AttemptStarted,
    ContextEdited,
    Event,
    GuardrailTriggered,
    Notice,
    PromptOffloaded,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall
from lull.model.permissions import claude_code_name
from lull.model.provider import Usage
from lull.ui.headless.schema import claude_usage, new_uuid

BlockKind = Literal["text", "thinking"]


class PartialMessages:
    """Folds one session's engine events into ``stream_event`` lines; ``message_id`` is the
    id of the message streaming now, or of the one that ended last (its ``assistant`` lines
    carry the same id)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.message_id = new_message_id()
        self._open = False
        self._block: BlockKind | None = None
        self._index = -1

    def take(self, event: Event, session_id: str) -> list[dict[str, Any]]:
        """The ``stream_event`` lines ``event`` adds (``session_id``: the session's now)."""
        raw: list[dict[str, Any]] = []
        match event:
            case AssistantText(text):
                raw.extend(self._fragment("text", text))
            case AssistantThinking(text):
                raw.extend(self._fragment("thinking", text))
            case RequestFinished(purpose="turn"):
                if event.model:
                    self.model = event.model
                raw.extend(self._start())
                raw.extend(self._close_block())
                for call in event.tool_calls:
                    raw.extend(self._tool_use(call))
                stop = None if event.stop_reason == "other" else event.stop_reason
                raw.extend(self._stop(stop, event.usage))
            case AttemptDiscarded() | AttemptStarted() | TurnFinished() | TurnFailed():
                if self._open:
                    raw.extend(self._close_block())
                    raw.extend(self._stop(None, Usage()))
            case (
                RequestFinished()
                | TurnStarted()
                | ToolStarted()
                | ToolFinished()
                | AttemptFinished()
                | ContextEdited()
                | GuardrailTriggered()
                | Notice()
                | PromptOffloaded()
                | SubagentUpdate()
            ):
                pass
            case _:
                assert_never(event)
        return [stream_event(item, session_id) for item in raw]

    def _fragment(self, kind: BlockKind, text: str) -> list[dict[str, Any]]:
        if not text:
            return []
        raw = self._start()
        if self._block != kind:
            raw.extend(self._close_block())
            self._index += 1
            self._block = kind
            block = (
                {"type": "text", "text": ""}
                if kind == "text"
                else {"type": "thinking", "thinking": "", "signature": ""}
            )
            raw.append(
                {"type": "content_block_start", "index": self._index, "content_block": block}
            )
        delta = (
            {"type": "text_delta", "text": text}
            if kind == "text"
            else {"type": "thinking_delta", "thinking": text}
        )
        raw.append({"type": "content_block_delta", "index": self._index, "delta": delta})
        return raw

    def _start(self) -> list[dict[str, Any]]:
        if self._open:
            return []
        self._open = True
        self._index = -1
        self._block = None
        self.message_id = new_message_id()
        message: dict[str, Any] = {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": claude_usage(Usage()),
        }
        return [{"type": "message_start", "message": message}]

    def _close_block(self) -> list[dict[str, Any]]:
        if self._block is None:
            return []
        self._block = None
        return [{"type": "content_block_stop", "index": self._index}]

    def _tool_use(self, call: ToolCall) -> list[dict[str, Any]]:
        self._index += 1
        block = {
            "type": "tool_use",
            "id": call.id,
            "name": claude_code_name(call.name),
            "input": {},
        }
        delta = {"type": "input_json_delta", "partial_json": json.dumps(dict(call.arguments))}
        return [
            {"type": "content_block_start", "index": self._index, "content_block": block},
            {"type": "content_block_delta", "index": self._index, "delta": delta},
            {"type": "content_block_stop", "index": self._index},
        ]

    def _stop(self, stop_reason: str | None, usage: Usage) -> list[dict[str, Any]]:
        self._open = False
        delta = {"stop_reason": stop_reason, "stop_sequence": None}
        return [
            {"type": "message_delta", "delta": delta, "usage": claude_usage(usage)},
            {"type": "message_stop"},
        ]


def stream_event(raw: dict[str, Any], session_id: str) -> dict[str, Any]:
    """A ``stream_event`` line carrying one raw Messages API stream event."""
    return {
        "type": "stream_event",
        "event": raw,
        "session_id": session_id,
        "parent_tool_use_id": None,
        "uuid": new_uuid(),
    }


def new_message_id() -> str:
    """An id in the Messages API's form (lull's events do not carry the provider's)."""
    return f"msg_lull{uuid.uuid4().hex[:20]}"
