"""``!command`` at the prompt, the same way in every front end: the rest of the line runs as a
shell command in the workspace (``app/engine/calls/user_shell.py``: approval rules apply; the
command
and its output join the conversation as context for the next message)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from lull.engine.calls.user_shell import USER_SHELL_PREFIX, is_user_call, run_prompt_shell
from lull.model.events import Event
from lull.model.messages import ToolCall, ToolResult

if TYPE_CHECKING:
    from lull.runtime import Runtime

EMPTY_SHELL_HINT = "type a command after !, e.g. !git status"
SHOWN_OUTPUT_LINES = 200
"""A ``!`` command's output is shown in full up to this many lines (the model gets all of it)."""


def is_shell(text: str) -> bool:
    """True for input starting with ``!`` (a shell command for lull to run)."""
    return text.lstrip().startswith(USER_SHELL_PREFIX)


def shell_command(text: str) -> str:
    """The command of a ``!`` line (empty when there is none)."""
    return text.lstrip().removeprefix(USER_SHELL_PREFIX).strip()


def shell_stream(runtime: Runtime, text: str) -> AsyncIterator[Event]:
    """The events of running a ``!`` line: drive them like a turn (interruptible)."""
    agent = runtime.agent
    return run_prompt_shell(agent.session, agent.tools, shell_command(text))


def user_run_output(call: ToolCall, result: ToolResult) -> list[str] | None:
    """The lines of a ``!`` command's result to show in full, after its first line (which the
    tool's outcome line shows); None for a call the model made (shown as a preview)."""
    if not is_user_call(call):
        return None
    lines = result.content.splitlines()[1:]
    if len(lines) > SHOWN_OUTPUT_LINES:
        more = len(lines) - SHOWN_OUTPUT_LINES
        lines = [*lines[:SHOWN_OUTPUT_LINES], f"… {more} more lines"]
    return lines
