"""allowed-tools: parsing Claude Code's and lull's names, and what a turn scope lets through."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.engine.calls.approvals import DenyApprover
from lull.engine.calls.scope import ToolRule, TurnScope, parse_tool_rule
from lull.model.events import ToolFinished
from lull.model.messages import ToolCall
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory


def shell(command: str) -> ToolCall:
    return ToolCall("c1", "run_shell_command", {"command": command})


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Read", ToolRule("read_file")),
        ("read_file", ToolRule("read_file")),
        ("Bash(git status:*)", ToolRule("run_shell_command", "git status")),
        ("run_shell_command(make test)", ToolRule("run_shell_command", "make test")),
        ("Bash", ToolRule("run_shell_command")),
        ("mcp__github__*", ToolRule("mcp__github__*")),
        ("WebSearch", ToolRule("web_search")),
    ],
)
def test_rules_parse_both_namings(text: str, rule: ToolRule) -> None:
    assert parse_tool_rule(text) == rule


@pytest.mark.parametrize("text", ["Bash(git", "Read(a.py)", "two words", ""])
def test_a_malformed_rule_says_what_is_wrong(text: str) -> None:
    with pytest.raises(ValueError):
        parse_tool_rule(text)


def test_a_shell_prefix_allows_that_command_only() -> None:
    scope = TurnScope((parse_tool_rule("Bash(git status:*)"),), "/status")
    assert scope.permits(shell("git status"))
    assert scope.permits(shell("git status -s"))
    assert not scope.permits(shell("git statusx"))
    assert not scope.permits(shell("git status && rm -rf /"))
    assert not scope.permits(ToolCall("c2", "read_file", {"path": "a"}))


def test_patterns_name_a_server_s_tools() -> None:
    scope = TurnScope((parse_tool_rule("mcp__github__*"),), "/gh")
    assert scope.permits(ToolCall("c", "mcp__github__list", {}))
    assert not scope.permits(ToolCall("c", "mcp__other__list", {}))


async def test_a_turn_refuses_tools_outside_its_scope(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha")
    provider.script(
        ScriptedReply(
            tool_calls=(
                ScriptedCall("read_file", {"path": "a.txt"}),
                ScriptedCall("write_file", {"path": "b.txt", "content": "x"}),
            )
        ),
        ScriptedReply(text="done"),
    )
    agent = make_agent(mode="yolo")
    scope = TurnScope((ToolRule("read_file"),), "/look (.lull/commands/look.md)")
    events = [e async for e in agent.run_turn("look", scope=scope)]
    results = {e.call.name: e.result for e in events if isinstance(e, ToolFinished)}
    assert not results["read_file"].is_error
    assert results["write_file"].is_error
    assert "/look (.lull/commands/look.md) allows only these tools: read_file" in (
        results["write_file"].content
    )
    assert not (workspace / "b.txt").exists()
    assert agent.tools.scope is None  # the scope ends with its turn


async def test_a_preapproved_scope_runs_listed_tools_without_asking(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(
        ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": "echo hi"}),)),
        ScriptedReply(text="done"),
    )
    agent = make_agent(mode="default")
    agent.set_approver(DenyApprover("nobody may be asked"))
    scope = TurnScope((parse_tool_rule("Bash(echo:*)"),), "/hi", preapproved=True)
    events = [e async for e in agent.run_turn("hi", scope=scope)]
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert not result.is_error and "hi" in result.content


async def test_plan_mode_wins_over_a_preapproved_scope(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(
        ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": "echo hi"}),)),
        ScriptedReply(text="done"),
    )
    agent = make_agent(mode="plan")
    scope = TurnScope((parse_tool_rule("Bash"),), "/hi", preapproved=True)
    events = [e async for e in agent.run_turn("hi", scope=scope)]
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.is_error and "plan mode" in result.content
