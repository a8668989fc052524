"""Synthetic conversation histories of a given size, for the per-request benchmarks.

A history is what a long working session holds: user prompts, assistant text with a tool
call, the tool's result (a file of 1-8 KB), and the assistant's follow-up. Messages are
made directly (no requests), deterministic for a given size.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from lull.context.tokens import TokenCounter
from lull.engine.sessions.record import SessionRecord
from lull.engine.sessions.session import Session
from lull.model.messages import Message, Text, ToolCall, ToolResult, message_to_dict
from lull.model.text import json_line

FILE_SIZES = (1_000, 2_500, 4_000, 8_000)
LINE = "    value = compute(items[index], options)  # keep the loader pure\n"


def _file_text(size: int, number: int) -> str:
    header = f"# file {number}\n"
    return (header + LINE * (size // len(LINE) + 1))[:size]


def history(tokens: int, *, small: bool = False, messages_at_most: int = 0) -> list[Message]:
    """Messages adding up to about ``tokens`` tokens as lull counts them with a tokenizer (or
    ``messages_at_most`` messages, whichever comes first).

    ``small``: short messages (a few dozen tokens each), so a history has many messages
    for its size (an 8,000-message session).
    """
    messages: list[Message] = []
    total = 0
    counter = TokenCounter("claude-sonnet-4-5")
    for step in itertools.count():
        call_id = f"call_{step}"
        size = 60 if small else FILE_SIZES[step % len(FILE_SIZES)]
        batch = [
            Message("user", (Text(f"step {step}: look at the next file and fix it"),)),
            Message(
                "assistant",
                (
                    Text(f"Reading file {step}."),
                    ToolCall(call_id, "read_file", {"path": f"src/f{step}.py"}),
                ),
                origin="model",
                provider="anthropic",
            ),
            Message("user", (ToolResult(call_id, "read_file", _file_text(size, step)),)),
            Message(
                "assistant",
                (Text(f"File {step} is fine; the loader stays pure."),),
                origin="model",
                provider="anthropic",
            ),
        ]
        messages.extend(batch)
        total += counter.messages(batch)
        if total >= tokens or 0 < messages_at_most <= len(messages):
            return messages[: messages_at_most or None]
    raise AssertionError("unreachable")


def fill(session: Session, messages: list[Message]) -> None:
    """Append ``messages`` to ``session`` (and its file) as if they had happened."""
    for message in messages:
        session.add(message)


def write_session(path: Path, messages: list[Message], workspace: Path) -> str:
    """A session file at ``path`` holding ``messages``; returns its id."""
    record = SessionRecord(
        id=path.stem, workspace=str(workspace), created_at=0.0, provider="anthropic"
    )
    lines = [json_line(record.header())]
    lines += [json_line({"type": "message", "message": message_to_dict(m)}) for m in messages]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    return record.id


def describe(messages: list[Message]) -> str:
    """ "N messages, T tokens, B bytes" of a history (tokens as lull counts them)."""
    tokens = TokenCounter("claude-sonnet-4-5").messages(messages)
    size = sum(len(json.dumps(message_to_dict(m))) for m in messages)
    return f"{len(messages):,} messages, {tokens:,} tokens, {size / 1e6:.1f} MB"
