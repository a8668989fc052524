"""MCP tools in the turn loop (scripted provider, a real stdio server): approvals, plan mode,
"allow always" per tool, images, and a crashing server that never stops the loop."""

from __future__ import annotations

from pathlib import Path

from lull.engine.calls.runner import ToolRunner
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.session import Session
from lull.mcp.manager import McpManager
from lull.model.approvals import Approval, ApprovalMode
from lull.model.events import GuardrailTriggered, Notice, ToolFinished, TurnFinished
from lull.model.messages import Image, ToolCall, ToolResult
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.tools.base import ToolContext
from lull.tools.registry import default_registry
from tests.unit.mcp.conftest import StdioServer


class Recorder:
    """An approver that answers from a list and records what it was asked."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        self.asked.append(call.name)
        return Approval(self.answers.pop(0))  # type: ignore[arg-type]


async def _agent(
    stdio_server: StdioServer,
    tmp_path: Path,
    mode: ApprovalMode,
    provider: ScriptedProvider,
    *flags: str,
) -> tuple[Agent, McpManager]:
    registry = default_registry()
    manager = McpManager(
        (stdio_server("srv", *flags),), registry, tmp_path, "anthropic", trusted=lambda: True
    )
    manager.wait = True
    context = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    runner = ToolRunner(registry, context, mode)
    runner.sources.append(manager)
    session = Session.create(None, provider="scripted", model="m")
    return Agent(session, provider, runner, AgentConfig(system="test")), manager


def _results(agent: Agent) -> list[ToolResult]:
    return [r for m in agent.session.transcript for r in m.tool_results]


async def test_default_mode_asks_and_allow_always_covers_one_tool(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    calls = [
        ScriptedCall("mcp__srv__echo", {"text": "a"}),
        ScriptedCall("mcp__srv__add", {"a": 1, "b": 1}),
    ]
    provider.script(
        ScriptedReply(tool_calls=calls[:1]),
        ScriptedReply(tool_calls=calls),
        ScriptedReply(text="done"),
    )
    agent, manager = await _agent(stdio_server, tmp_path, "default", provider)
    approver = Recorder("allow_always", "deny")
    agent.set_approver(approver)
    try:
        events = [e async for e in agent.run_turn("go")]
    finally:
        await manager.aclose()
    assert approver.asked == ["mcp__srv__echo", "mcp__srv__add"]  # echo asked once only
    contents = [r.content for r in _results(agent)]
    assert contents[0] == "echo: a" and contents[1] == "echo: a"
    assert "denied" in contents[2]
    assert [t.name for t in provider.requests[0].tools][-7:][0] == "mcp__srv__echo"  # -p waited
    assert isinstance(events[-1], TurnFinished)


async def test_plan_mode_runs_only_tools_the_server_calls_read_only(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(
            tool_calls=[
                ScriptedCall("mcp__srv__add", {"a": 2, "b": 2}),
                ScriptedCall("mcp__srv__echo", {"text": "x"}),
            ]
        ),
        ScriptedReply(text="ok"),
    )
    agent, manager = await _agent(stdio_server, tmp_path, "plan", provider)
    try:
        [e async for e in agent.run_turn("plan it")]
    finally:
        await manager.aclose()
    add, echo = _results(agent)
    assert add.content == "4" and not add.is_error
    assert echo.is_error and "plan mode" in echo.content


async def test_images_go_to_models_that_take_them_and_a_crash_is_an_error_result(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__picture")]),
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__crash")]),
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__picture")]),
        ScriptedReply(text="fine"),
    )
    agent, manager = await _agent(stdio_server, tmp_path, "yolo", provider)
    agent.tools.images_allowed = True
    try:
        events = [e async for e in agent.run_turn("look")]
        agent.tools.images_allowed = False
        provider.script(
            ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__picture")]), ScriptedReply(text="k")
        )
        [e async for e in agent.run_turn("again")]
    finally:
        await manager.aclose()
    first = next(m for m in agent.session.transcript if m.tool_results)
    assert any(isinstance(p, Image) for p in first.parts)  # after the result, same message
    crashed = [e.result for e in events if isinstance(e, ToolFinished)][1]
    assert crashed.is_error and "out of cheese" in crashed.content
    assert _results(agent)[2].content.startswith("here it is")  # restarted on next use
    assert "left out: the current model does not accept images" in _results(agent)[3].content
    assert isinstance(events[-1], TurnFinished)


async def test_an_error_answer_fails_that_call_only_and_the_server_keeps_its_state(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__count")]),
        ScriptedReply(
            tool_calls=[
                ScriptedCall("mcp__srv__slow", {"seconds": 0.3}),
                ScriptedCall("mcp__srv__fail", {"reason": "quota exceeded"}),
                ScriptedCall("mcp__srv__slow", {"seconds": 0.3}),
            ]
        ),
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__count")]),
        ScriptedReply(text="done"),
    )
    agent, manager = await _agent(stdio_server, tmp_path, "yolo", provider, "--stateful")
    try:
        [e async for e in agent.run_turn("go")]
    finally:
        await manager.aclose()
    first, slow, failed, slow_too, second = _results(agent)
    assert first.content == "count 1"
    assert not slow.is_error and not slow_too.is_error and slow.content == "slept 0.3"
    assert failed.is_error and "quota exceeded" in failed.content
    assert second.content == "count 2"  # the same process: nothing was restarted
    assert manager.connections[0].starts == 1


async def test_a_server_that_did_not_start_is_said_and_its_tool_gets_an_error_result(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(tool_calls=[ScriptedCall("mcp__srv__query", {"q": "x"})]),
        ScriptedReply(text="the database server is down"),
    )
    agent, manager = await _agent(stdio_server, tmp_path, "default", provider, "--fail-start")
    try:
        events = [e async for e in agent.run_turn("look it up")]
    finally:
        await manager.aclose()
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any(n.startswith("MCP server srv did not start") for n in notices)
    assert not [e for e in events if isinstance(e, GuardrailTriggered)]  # no unknown-tool rollback
    [result] = _results(agent)
    assert result.is_error and "fatal: the database is not there" in result.content
    assert isinstance(events[-1], TurnFinished)
