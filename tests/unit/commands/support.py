"""Reading what a command gave back."""

from __future__ import annotations

from lull.commands import CommandResult
from lull.model.events import Event


def text_of(result: CommandResult) -> str:
    """The result's lines as one text."""
    return "\n".join(result.lines)


async def drive(result: CommandResult) -> list[Event]:
    """Every event of the result's stream (it must have one)."""
    assert result.stream is not None
    return [event async for event in result.stream]
