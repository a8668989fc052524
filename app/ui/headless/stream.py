"""Engine events as stream-json lines in Claude Code's schema (``--output-format stream-json``).

Claude Code prints whole messages, not fragments: the answer text and thinking of one model
request become one ``assistant`` line when the request finishes (text the engine discarded,
a cut stream, never appears); each tool call is an ``assistant`` line with its ``tool_use``
block (under the same message id as its request, as Claude Code does), and each result a
``user`` line with a ``tool_result`` block. A call answered without running (denied, refused)
gets its ``tool_use`` line first, so every result follows its call. What Claude Code has no
type for follows as lull's own lines (:mod:`lull.ui.headless.extras`). With
``--include-partial-messages`` the raw stream events come first, as ``stream_event`` lines
(:mod:`lull.ui.headless.partial`), under the message ids the ``assistant`` lines use.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, assert_never

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
from lull.model.provider import Usage
from lull.ui.headless.extras import extra_line
from lull.ui.headless.partial import PartialMessages, new_message_id
from lull.ui.headless.schema import (
    assistant_message,
    text_block,
    thinking_block,
    tool_result_message,
    tool_use_block,
)


class ClaudeStream:
    """Folds one session's engine events into stream-json lines (``model``: the model named
    when a request does not say; ``workspace`` makes tool inputs' ``file_path``; ``pricing``
    and ``local`` price lull's request lines;
    ``partial``: ``stream_event`` lines too, ``--include-partial-messages``)."""

    def __init__(
        self,
        session_id: str,
        model: str,
        workspace: Path,
        pricing: Sequence[str] = (),
        *,
        local: bool = False,
        partial: bool = False,
    ) -> None:
        self.session_id = session_id
        self.model = model
        self.workspace = workspace
        self.pricing = tuple(pricing)
        self.local = local
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._partial = PartialMessages(model) if partial else None
        self._message_id = new_message_id()
        self._usage = Usage()
        self._announced: set[str] = set()

    def take(self, event: Event) -> list[dict[str, Any]]:
        """The lines ``event`` adds to the stream (often none: fragments wait for their
        request to finish)."""
        lines: list[dict[str, Any]] = []
        if self._partial is not None:
            lines.extend(self._partial.take(event, self.session_id))
        match event:
            case AssistantText(text):
                self._text.append(text)
            case AssistantThinking(text):
                self._thinking.append(text)
            case AttemptDiscarded():
                self._text.clear()
                self._thinking.clear()
            case RequestFinished(purpose="turn"):
                lines.extend(self._request_finished(event))
            case ToolStarted(call):
                lines.extend(self._announce(call))
            case ToolFinished(call, result):
                lines.extend(self._announce(call))
                lines.append(tool_result_message(session_id=self.session_id, result=result))
            case AttemptStarted(session_id=session_id):
                self.session_id = session_id
                self._text.clear()
                self._thinking.clear()
            case TurnStarted() | TurnFinished() | TurnFailed():
                self._text.clear()  # text no finished request kept is not part of the answer
                self._thinking.clear()
            case (
                RequestFinished()
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
        extra = extra_line(event, self.session_id, self.pricing, local=self.local)
        if extra is not None:
            lines.append(extra)
        return lines

    def _request_finished(self, event: RequestFinished) -> list[dict[str, Any]]:
        """A new message: its text and thinking as one ``assistant`` line (none when it
        said nothing); its tool calls follow under the same id."""
        partial = self._partial
        self._message_id = partial.message_id if partial is not None else new_message_id()
        self._usage = event.usage
        if event.model:
            self.model = event.model
        content: list[dict[str, Any]] = []
        thinking, text = "".join(self._thinking), "".join(self._text)
        self._thinking.clear()
        self._text.clear()
        if thinking.strip():
            content.append(thinking_block(thinking))
        if text.strip():
            content.append(text_block(text))
        return [self._assistant(content)] if content else []

    def _announce(self, call: ToolCall) -> list[dict[str, Any]]:
        """The ``tool_use`` line of ``call`` unless it was given already."""
        if call.id in self._announced:
            return []
        self._announced.add(call.id)
        return [self._assistant([tool_use_block(call, self.workspace)])]

    def _assistant(self, content: list[dict[str, Any]]) -> dict[str, Any]:
        return assistant_message(
            session_id=self.session_id,
            message_id=self._message_id,
            model=self.model,
            content=content,
            usage=self._usage,
        )
