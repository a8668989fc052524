"""Line mode: a plain chat loop printing to the terminal's own scrollback.

A deliberately small front end: it reads a line, runs a turn, prints the
events, and asks y/n/a before tool calls that need approval.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from app.commands import run_command
from app.core.approvals import Approval
from app.core.events import (
    AssistantText,
    AssistantThinking,
    ContextEdited,
    Event,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
)
from app.core.loop import Agent
from app.core.messages import ToolCall
from app.ui.startup import open_runtime

BANNER = "lull — type a message, /quit to leave (Ctrl+D also quits, Ctrl+C interrupts a turn)"


class TerminalApprover:
    """Asks y/n/a on the terminal before a tool call runs."""

    async def ask(self, call: ToolCall, summary: str) -> Approval:
        """Ask the user; 'a' allows this tool for the rest of the session."""
        question = f"\nAllow {call.name}({summary})? [y]es / [n]o / [a]lways: "
        answer = await asyncio.to_thread(_read_line, question)
        choice = (answer or "").strip().lower()
        if choice in ("y", "yes"):
            return Approval("allow")
        if choice in ("a", "always"):
            return Approval("allow_always")
        reason = None if choice in ("", "n", "no") else answer
        return Approval("deny", reason)


def _read_line(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def render(event: Event) -> None:
    """Print one engine event to the terminal."""
    out = sys.stdout
    if isinstance(event, AssistantText):
        out.write(event.text)
    elif isinstance(event, AssistantThinking):
        out.write(f"\x1b[2m{event.text}\x1b[0m")
    elif isinstance(event, ToolStarted):
        out.write(f"\n⏺ {event.call.name}({event.summary})\n")
    elif isinstance(event, ToolFinished):
        first = event.result.content.strip().splitlines()[:1]
        mark = "✗" if event.result.is_error else "✓"
        out.write(f"  {mark} {first[0][:100] if first else ''}\n")
    elif isinstance(event, ContextEdited):
        out.write(f"\n· {event.description}\n")
    elif isinstance(event, Notice):
        out.write(f"\n· {event.text}\n")
    elif isinstance(event, TurnFailed):
        out.write(f"\nerror: {event.message}\n")
    elif isinstance(event, TurnFinished):
        out.write("\n")
    out.flush()


async def _turn(agent: Agent, prompt: str) -> None:
    async for event in agent.run_turn(prompt):
        render(event)


def run_line(args: argparse.Namespace, workspace: Path) -> int:
    """Run the interactive line-mode chat until the user quits."""
    runtime, code = open_runtime(args, workspace)
    if runtime is None:
        return code
    agent = runtime.agent
    agent.set_approver(TerminalApprover())
    print(BANNER)
    print(f"session {agent.session.id} · {runtime.provider_config.model}")
    try:
        while True:
            line = _read_line("\n> ")
            if line is None:
                break
            if not line.strip():
                continue
            if line.startswith("/"):
                result = run_command(agent, line)
                print("\n".join(result.lines))
                if result.quit:
                    break
                continue
            try:
                asyncio.run(_turn(agent, line))
            except KeyboardInterrupt:
                print("\n· interrupted")
    finally:
        agent.session.close()
        print(f"\nresume with: lull --resume {agent.session.id}")
    return 0
