"""Engine events -> conversation widgets. The only place that knows how a turn looks.

One :class:`TurnRenderer` per conversation: it keeps the widgets of the
request in progress (the answer being streamed, the thinking block, the tool
blocks by call id) and settles them when the request or the turn ends, or
when the user interrupts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from textual.widget import Widget

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
from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult
from lull.ui.shared.stop_notes import stop_note, with_repairs
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.conversation import Conversation
from lull.ui.tui.widgets.notice_line import NoticeLine
from lull.ui.tui.widgets.thinking_block import ThinkingBlock
from lull.ui.tui.widgets.tool_block import ToolBlock
from lull.ui.tui.widgets.user_message import UserMessage

INTERRUPTED = "interrupted; the session is saved and you can go on"


class TurnRenderer:
    """Turns engine events into widgets on a :class:`Conversation`."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.answer: AssistantMessage | None = None
        self.thinking: ThinkingBlock | None = None
        self.tools: dict[str, ToolBlock] = {}

    async def handle(self, event: Event) -> None:
        """Show one engine event."""
        match event:
            case AssistantText(text):
                await self._text(text)
            case AssistantThinking(text):
                await self._thinking(text)
            case ToolStarted(call, summary, repairs):
                await self.settle()
                shown = with_repairs(summary, repairs)
                block = await self._block(call, shown)
                block.start(shown)
            case ToolFinished(call, result, display):
                block = await self._block(call, None)
                await block.finish(result, display)
            case SubagentUpdate():
                await self._subagent(event)
            case RequestFinished():
                await self.settle()
            case AttemptDiscarded(_, reason):
                await self.discard(reason)
            case ContextEdited(_, description):
                await self.note(description, "edit")
            case Notice() | PromptOffloaded():
                level = event.level if isinstance(event, Notice) else "warning"
                await self.note(event.text, level)
            case GuardrailTriggered(_, text):
                await self.settle()
                await self.note(text, "warning")
            case AttemptStarted() | AttemptFinished() | TurnStarted():
                pass  # attempts belong to -p; a turn shows once something happens
            case TurnFinished(_, stop_reason, detail):
                await self.settle()
                self.tools.clear()
                if note := stop_note(stop_reason, detail):
                    await self.note(note, "warning")
            case TurnFailed(message):
                await self.settle()
                await self.note(f"error: {message}", "error")
            case _:
                assert_never(event)

    async def _subagent(self, event: SubagentUpdate) -> None:
        """A sub-agent's step, listed in its task call's block."""
        block = self.tools.get(event.call_id)
        if block is not None and event.step in ("tool", "finished"):
            text = event.text if event.step == "tool" else f"sub-agent {event.text}"
            await block.add_step(text)

    async def _text(self, text: str) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.answer is None:
            self.answer = AssistantMessage()
            await self.conversation.add(self.answer)
        await self.answer.write(text)

    async def _thinking(self, text: str) -> None:
        if self.answer is not None:
            await self.settle()
        if self.thinking is None:
            self.thinking = ThinkingBlock()
            await self.conversation.add(self.thinking)
        self.thinking.append(text)

    async def _block(self, call: ToolCall, summary: str | None) -> ToolBlock:
        block = self.tools.get(call.id)
        if block is None:
            block = ToolBlock(call, summary)
            self.tools[call.id] = block
            await self.conversation.add(block)
        return block

    async def settle(self) -> None:
        """End the current answer and thinking (the next text starts a new message)."""
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.answer is not None:
            answer, self.answer = self.answer, None
            await answer.finish()

    async def discard(self, reason: str = "the stream broke") -> None:
        """The engine threw away what this request streamed: mark the partial answer."""
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.answer is not None:
            answer, self.answer = self.answer, None
            await answer.discard(reason)

    async def interrupt(self, asked: ToolCall | None = None) -> None:
        """The user stopped the turn: keep partial text (marked) and mark unfinished tools.

        ``asked`` is a call the approval modal was asking about (it gets a block too).
        """
        marked = False
        if asked is not None:
            await self._block(asked, None)
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.answer is not None:
            answer, self.answer = self.answer, None
            await answer.finish(interrupted=True)
            marked = True
        for block in self.tools.values():
            if block.state in ("pending", "running"):
                block.cancel()
        self.tools.clear()
        if not marked:
            await self.note(INTERRUPTED, "warning")

    async def note(self, text: str, level: str = "info") -> None:
        """A one-line notice."""
        await self.conversation.add(NoticeLine(text, level))


def transcript_widgets(messages: Sequence[Message]) -> list[Widget]:
    """Settled widgets for saved messages (a resumed session), tool results in their blocks."""
    results = {r.call_id: r for m in messages for r in m.tool_results}
    widgets: list[Widget] = []
    for message in messages:
        if message.origin == "summary":
            widgets.append(NoticeLine("summary of the earlier conversation", "edit"))
        elif message.role == "user":
            if message.origin == "user" and message.text:
                widgets.append(UserMessage(message.text))
        else:
            widgets.extend(_assistant_widgets(message, results))
    return widgets


def _assistant_widgets(message: Message, results: dict[str, ToolResult]) -> list[Widget]:
    widgets: list[Widget] = []
    for part in message.parts:
        match part:
            case Thinking(text) if text.strip():
                widgets.append(ThinkingBlock(text, streaming=False))
            case Text(text) if text.strip():
                widgets.append(AssistantMessage(text))
            case ToolCall():
                widgets.append(ToolBlock(part, result=results.get(part.id)))
            case Thinking() | Text() | ToolResult() | Image():
                pass  # empty text, results (shown in their call's block), images
            case _:
                assert_never(part)
    return widgets
