"""Shell commands the user runs: ``!command`` at the prompt (approval rules, the conversation)."""

from __future__ import annotations

from pathlib import Path

from lull.engine.calls.approvals import DenyApprover
from lull.engine.calls.user_shell import (
    USER_RUN_HEADER,
    check_user_command,
    run_prompt_shell,
    user_call,
)
from lull.model.events import Event, Notice, ToolFinished, ToolStarted
from lull.model.messages import ToolResult
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.support import AgentFactory


async def collect(agent: object, command: str) -> list[Event]:
    from lull.engine.loop.agent import Agent

    assert isinstance(agent, Agent)
    return [e async for e in run_prompt_shell(agent.session, agent.tools, command)]


async def test_a_prompt_command_runs_and_joins_the_conversation(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "hello.txt").write_text("hi")
    agent = make_agent(mode="default")
    agent.set_approver(DenyApprover("typed by the user: never asked"))
    events = await collect(agent, "ls")
    assert [type(e) for e in events] == [ToolStarted, ToolFinished]
    finished = events[-1]
    assert isinstance(finished, ToolFinished) and "hello.txt" in finished.result.content
    typed, call, result = agent.session.transcript[-3:]
    assert typed.role == "user" and typed.text == "!ls"
    assert call.role == "assistant" and call.tool_calls[0].arguments == {"command": "ls"}
    carried = result.tool_results[0]
    assert carried.content.startswith(USER_RUN_HEADER) and "hello.txt" in carried.content

    # the next message sends it as context, as a compactable tool result
    provider.script(ScriptedReply(text="I see hello.txt"))
    _ = [e async for e in agent.run_turn("what did you see?")]
    sent = provider.requests[-1].messages
    shown = [p for m in sent for p in m.parts if isinstance(p, ToolResult)]
    assert shown and shown[0].name == "run_shell_command" and "hello.txt" in shown[0].content
    assert "run_shell_command" in agent.config.idle.compactable


async def test_plan_mode_refuses_a_prompt_command(make_agent: AgentFactory) -> None:
    agent = make_agent(mode="plan")
    events = await collect(agent, "touch x")
    assert len(events) == 1 and isinstance(events[0], Notice)
    assert events[0].text == "!touch x: not run: plan mode does not run shell commands"
    assert agent.session.transcript == []


async def test_a_command_file_s_command_asks_unless_consented(make_agent: AgentFactory) -> None:
    agent = make_agent(mode="default")
    agent.set_approver(DenyApprover("no"))
    call = user_call("git status")
    refusal = await check_user_command(agent.tools, call, consented=False, asking="git status")
    assert refusal == "you denied it: no"
    assert await check_user_command(agent.tools, call, consented=True, asking="") is None
    yolo = make_agent(mode="yolo")
    assert await check_user_command(yolo.tools, call, consented=False, asking="") is None
